#include "fixture.h"

#include <string.h>

#include "ct_hash.h"
#include "kernel.h"

fixture_t fx;

void fixture_boot(bool strict)
{
    kernel_desc_t desc;
    memset(&desc, 0, sizeof desc);
    desc.strict = strict;
    desc.jobs = 1;
    desc.plugin_paths[desc.num_plugin_paths++] = CT_TEST_MODULE("entities", "ct_entities");
    assert_int_equal(kernel__boot(&desc), 0);
    fx.entity = test_kernel_api(CT_ENTITY_API, 2);
    fx.component = test_kernel_api(CT_COMPONENT_API, 1);
    fx.component_v2 = test_kernel_api(CT_COMPONENT_API, 2);
    fx.world_v0 = test_kernel_api(CT_WORLD_API, 0);
    fx.world = test_kernel_api(CT_WORLD_API, 1);
    fx.debug_name = test_kernel_api(CT_DEBUG_NAME_API, 1);
    fx.resource = test_kernel_api(CT_RESOURCE_API, 1);
    fx.lua = test_kernel_api(CT_LUA_API, 1);
    fx.log = test_kernel_api(CT_LOG_API, 1);
    assert_non_null(fx.entity);
    assert_non_null(fx.component);
    assert_non_null(fx.world_v0);
    assert_non_null(fx.world);
    assert_non_null(fx.debug_name);
    assert_non_null(fx.resource);
    assert_non_null(fx.lua);
}

void fixture_shutdown(void)
{
    assert_int_equal(test_kernel_shutdown(), 0);
    memset(&fx, 0, sizeof fx);
}

static void *probe_create(void *user_data, ct_world_o *world, ct_allocator_t *a)
{
    (void)user_data;
    (void)world;
    probe_manager_t *m = ct_alloc(a, sizeof *m);
    memset(m, 0, sizeof *m);
    m->a = a;
    return m;
}

static void probe_destroy(void *user_data, void *manager)
{
    (void)user_data;
    probe_manager_t *m = manager;
    if (m->items)
        ct_free(m->a, m->items, m->capacity * sizeof *m->items);
    ct_free(m->a, m, sizeof *m);
}

static int probe_compile(void *user_data, const ct_data_o *source, void *out, ct_compile_ctx_o *ctx)
{
    (void)user_data;
    const ct_data_api_v1 *data = test_kernel_api(CT_DATA_API, 1);
    const ct_data_o *value = data->get(source, "value");
    if (value && data->type(value) != CT_DATA_NUMBER) {
        fx.resource->compile_error(ctx, "probe: value must be a number");
        return CT_ERR_BAD_DATA;
    }
    float v = (float)data->number(value, 0.0);
    uint32_t tag = (uint32_t)data->number(data->get(source, "tag"), 0.0);
    memcpy(out, &v, 4);
    memcpy((char *)out + 4, &tag, 4);
    return 0;
}

static void probe_add(probe_manager_t *m, ct_entity_t e, float value, uint32_t tag)
{
    if (m->n == m->capacity) {
        uint32_t capacity = m->capacity ? m->capacity * 2 : 16;
        m->items =
            ct_realloc(m->a, m->items, m->capacity * sizeof *m->items, capacity * sizeof *m->items);
        m->capacity = capacity;
    }
    m->items[m->n++] = (probe_instance_t){e, value, tag};
}

static void probe_spawn(void *manager, const ct_spawn_context_t *ctx, uint32_t n,
                        const uint32_t *entity_index, const void *data)
{
    probe_manager_t *m = manager;
    m->spawn_calls++;
    m->last_ctx = *ctx;
    m->last_n = n;
    for (uint32_t i = 0; i < ctx->num_entities && i < 16; i++)
        m->last_parent_index[i] = ctx->parent_index[i];
    for (uint32_t i = 0; i < n; i++) {
        float v;
        uint32_t tag;
        memcpy(&v, (const char *)data + 8 * i, 4);
        memcpy(&tag, (const char *)data + 8 * i + 4, 4);
        if (i < 16)
            m->last_entity_index[i] = entity_index[i];
        probe_add(m, ctx->entity_lookup[entity_index[i]], v, tag);
    }
}

static void probe_swap_erase(probe_manager_t *m, uint32_t i) { m->items[i] = m->items[--m->n]; }

static void probe_destroyed(void *manager, const ct_entity_t *entities, uint32_t n)
{
    probe_manager_t *m = manager;
    m->destroyed_calls++;
    for (uint32_t k = 0; k < n; k++) {
        for (uint32_t i = 0; i < m->n; i++) {
            if (m->items[i].entity.id == entities[k].id) {
                probe_swap_erase(m, i);
                break;
            }
        }
    }
}

/* The seed's lazy collection, bounded, the way ct_component_api_v2 says to write it. The items
 * are (entity, value, tag) records, so the entities are gathered for gc_probe first. */
static void probe_gc(void *manager)
{
    probe_manager_t *m = manager;
    static uint64_t rng = 12345;
    uint32_t budget = CT_COMPONENT_GC_PROBES;
    for (;;) {
        ct_entity_t entities[256];
        const uint32_t n = m->n < 256 ? m->n : 256;
        for (uint32_t k = 0; k < n; k++)
            entities[k] = m->items[k].entity;
        const uint32_t i = fx.component_v2->gc_probe(entities, n, &rng, &budget);
        if (i == UINT32_MAX)
            return;
        probe_swap_erase(m, i);
        m->collected++;
    }
}

uint64_t probe_register(bool lazy)
{
    ct_component_type_t type = {
        .name = "probe",
        .spawn_order = 10,
        .create_manager = probe_create,
        .destroy_manager = probe_destroy,
        .instance_size = 8,
        .compile = probe_compile,
        .spawn = probe_spawn,
        .destroyed = lazy ? NULL : probe_destroyed,
        .gc = lazy ? probe_gc : NULL,
    };
    uint64_t id = fx.component->register_type(&type);
    assert_int_equal(id, ct_hash64("probe"));
    return id;
}

int fixture_setup(void **state)
{
    (void)state;
    fixture_boot(true);
    return 0;
}

int fixture_teardown(void **state)
{
    (void)state;
    fixture_shutdown();
    return 0;
}
