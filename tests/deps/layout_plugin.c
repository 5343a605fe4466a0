/* A component type "layout" whose compiled instance is two int32 fields, built twice: format 1
 * writes {a, b}, format 2 writes {b, a}: the same size, another layout, the case that used to be
 * read silently. Each build declares its format ("component.layout") as a module would; the
 * tests compile a unit with one build and then run cuttle-compile, or load it, with the other.
 * LAYOUT_FORMAT is 1 or 2. Built against api/ only. */
#include <string.h>

#include "ct_data.h"
#include "ct_entity.h"
#include "ct_plugin.h"
#include "ct_resource.h"

static const ct_resource_api_v6 *res;
static const ct_data_api_v1 *data;
static const ct_component_api_v2 *component;
static uint64_t type_id;

static void *create_manager(void *user_data, ct_world_o *world, ct_allocator_t *a)
{
    (void)user_data, (void)world, (void)a;
    static int manager;
    return &manager;
}

static void destroy_manager(void *user_data, void *manager) { (void)user_data, (void)manager; }

static int compile(void *user_data, const struct ct_data_o *source, void *out,
                   struct ct_compile_ctx_o *ctx)
{
    (void)user_data, (void)ctx;
    const int32_t a = (int32_t)data->number(data->get(source, "a"), 0);
    const int32_t b = (int32_t)data->number(data->get(source, "b"), 0);
    const int32_t fields[2] = {LAYOUT_FORMAT == 1 ? a : b, LAYOUT_FORMAT == 1 ? b : a};
    memcpy(out, fields, sizeof fields);
    return 0;
}

static void spawn(void *manager, const ct_spawn_context_t *ctx, uint32_t n,
                  const uint32_t *entity_index, const void *instances)
{
    (void)manager, (void)ctx, (void)n, (void)entity_index, (void)instances;
}

static void gc(void *manager) { (void)manager; }

static int init(ct_get_api_f get_engine_api, ct_plugin_o *self)
{
    (void)self;
    data = get_engine_api(CT_DATA_API, 1);
    res = get_engine_api(CT_RESOURCE_API, 6);
    component = get_engine_api(CT_COMPONENT_API, 2);
    if (!data || !res || !component)
        return CT_ERR_MISSING_API;
    res->declare_format("component.layout", LAYOUT_FORMAT);
    const ct_component_type_t type = {
        .name = "layout",
        .spawn_order = 50,
        .create_manager = create_manager,
        .destroy_manager = destroy_manager,
        .instance_size = 8,
        .compile = compile,
        .spawn = spawn,
        .gc = gc,
    };
    type_id = component->register_type(&type);
    return type_id ? 0 : CT_ERR_CONFLICT;
}

static void shutdown(void) { component->unregister_type(type_id); }

CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version)
{
    static const ct_api_ref_t requires[] = {
        {.id = CT_DATA_API, .version = 1, .name = "ct.data"},
        {.id = CT_RESOURCE_API, .version = 6, .name = "ct.resource"},
        {.id = CT_COMPONENT_API, .version = 2, .name = "ct.component"},
    };
    static const ct_plugin_api_v1 plugin = {
        .name = "test.layout",
        .version = {1, 0, 0, 0},
        .requires = requires,
        .num_requires = 3,
        .init = init,
        .shutdown = shutdown,
    };
    return api == CT_PLUGIN_API && version == 1 ? (void *)&plugin : NULL;
}
