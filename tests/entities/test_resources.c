/* Entity resources: compile, load (validation), spawn; v0 and v1 spawn_unit; unknown types. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ct_hash.h"
#include "fixture.h"
#include "base/log.h"
#include "resources/resources_internal.h"

/* The seed's example: five entities A..E with parent_index {none, 0, 1, 1, 2}, i.e.
 * A - B - C - E with D under B, and two probe components whose entity_index is {2, 3}. */
static const char seed_level[] =
    "entities = [ { name = \"A\" components = { debug_name = { name = \"A\" } } children = [\n"
    "  { name = \"B\" children = [\n"
    "      { name = \"C\" components = { probe = { value = 2 tag = 7 } }\n"
    "        children = [ { name = \"E\" } ] }\n"
    "      { name = \"D\" components = { probe = { value = 3 tag = 8 } } } ] } ] } ]\n";

static void seed_example_spawns_in_batches(void **state)
{
    (void)state;
    uint64_t probe = probe_register(false);
    assert_int_equal(fx.resource->load_source("level", "seed", seed_level, sizeof seed_level - 1),
                     0);
    ct_world_o *w = fx.world->create_world(NULL);
    ct_entity_t e[5];
    assert_int_equal(
        fx.world->spawn_resource(w, fx.resource->get("level", "seed"), NULL, NULL, e, 5), 5);
    probe_manager_t *m = fx.component->manager(w, probe);
    assert_int_equal(m->spawn_calls, 1); /* both instances in one call */
    assert_int_equal(m->last_n, 2);
    assert_int_equal(m->last_entity_index[0], 2);
    assert_int_equal(m->last_entity_index[1], 3);
    const uint32_t parents[5] = {UINT32_MAX, 0, 1, 1, 2};
    assert_memory_equal(m->last_parent_index, parents, sizeof parents);
    assert_int_equal(m->last_ctx.num_entities, 5);
    assert_int_equal(m->items[0].entity.id, e[2].id);
    assert_int_equal(m->items[0].tag, 7);
    assert_int_equal(m->items[1].entity.id, e[3].id);
    assert_true(m->items[1].value == 3.0f);
    assert_string_equal(fx.debug_name->name(w, fx.debug_name->lookup(w, e[0])), "A");
    /* spawn_level by name gives the same shape (the resource is already loaded). */
    assert_int_equal(fx.world->spawn_level(w, "seed"), 5);
    assert_int_equal(m->n, 4);
    assert_int_equal(fx.entity->live_count(), 10);
    fx.world->destroy_world(w);
    fx.resource->unload("level", "seed");
}

static const char pose_unit[] =
    "entities = [ { components = { probe = { value = 1 } } children = [ { components = {\n"
    "  probe = { value = 2 } } } ] } ]\n";

static void spawn_unit_v0_and_v1_agree_but_for_rotation(void **state)
{
    (void)state;
    uint64_t probe = probe_register(false);
    assert_int_equal(
        fx.resource->load_source("unit", "units/pose", pose_unit, sizeof pose_unit - 1), 0);
    ct_world_o *w0 = fx.world_v0->create_world(NULL);
    ct_world_o *w1 = fx.world->create_world(NULL);
    const float pos[3] = {1, 2, 3}, rot[4] = {0, 0.7071068f, 0, 0.7071068f};
    ct_entity_t r0 = fx.world_v0->spawn_unit(w0, "units/pose", pos);
    ct_entity_t r1 = fx.world->spawn_unit(w1, "units/pose", pos, rot);
    assert_true(fx.entity->alive(r0));
    assert_true(fx.entity->alive(r1));
    probe_manager_t *m0 = fx.component->manager(w0, probe), *m1 = fx.component->manager(w1, probe);
    assert_int_equal(m0->n, 2);
    assert_int_equal(m1->n, 2);
    assert_int_equal(m0->items[0].entity.id, r0.id);
    assert_int_equal(m1->items[0].entity.id, r1.id);
    assert_memory_equal(m0->last_ctx.position, pos, sizeof pos);
    assert_memory_equal(m1->last_ctx.position, pos, sizeof pos);
    assert_memory_equal(m0->last_parent_index, m1->last_parent_index, 2 * sizeof(uint32_t));
    const float identity[4] = {0, 0, 0, 1};
    assert_memory_equal(m0->last_ctx.rotation, identity, sizeof identity);
    assert_memory_equal(m1->last_ctx.rotation, rot, sizeof rot);
    /* A missing unit: {0}, nothing made. */
    uint32_t live = fx.entity->live_count();
    assert_int_equal(fx.world->spawn_unit(w1, "units/missing", NULL, NULL).id, 0);
    assert_int_equal(fx.entity->live_count(), live);
    fx.world->destroy_world(w0);
    fx.world->destroy_world(w1);
}

static void repeat_expands_with_children(void **state)
{
    (void)state;
    uint64_t probe = probe_register(false);
    const char src[] =
        "entities = [ { components = { probe = { value = 5 } }\n"
        "  repeat = { count = 1000 spacing = [1 0 0] }\n"
        "  children = [ { components = { debug_name = { name = \"kid\" } } } ] } ]\n";
    assert_int_equal(fx.resource->load_source("level", "big", src, sizeof src - 1), 0);
    ct_world_o *w = fx.world->create_world(NULL);
    assert_int_equal(fx.world->spawn_level(w, "big"), 2000);
    probe_manager_t *m = fx.component->manager(w, probe);
    assert_int_equal(m->n, 1000);
    /* Breadth first: the 1000 copies, then their children. */
    assert_int_equal(m->last_parent_index[15], UINT32_MAX);
    assert_int_equal(m->last_ctx.parent_index[1000], 0);
    assert_int_equal(m->last_ctx.parent_index[1999], 999);
    assert_int_equal(fx.debug_name->count(w), 1000);
    fx.world->destroy_world(w);
    /* A bad count is refused. */
    const char bad[] = "entities = [ { repeat = { count = 0 } } ]";
    assert_true(fx.resource->load_source("level", "bad", bad, sizeof bad - 1) < 0);
}

static const char unknown_src[] =
    "entities = [ { components = { probe = { value = 1 } no_such_thing = { x = 1 } } } ]";

static void unknown_component_is_an_error_when_strict(void **state)
{
    (void)state;
    probe_register(false);
    assert_true(fx.resource->load_source("unit", "unknown", unknown_src, sizeof unknown_src - 1) <
                0);
    assert_null(fx.resource->get("unit", "unknown"));
}

/* Copies of a repeat on top of each other are warned about: an error when strict. */
static void repeat_without_spacing_is_warned_about(void **state)
{
    (void)state;
    probe_register(false);
    static const char *stacked[] = {
        "entities = [ { components = { probe = { value = 1 } } repeat = { count = 3 } } ]",
        "entities = [ { components = { probe = { value = 1 } } repeat = { count = 3 spacing = [0 0 "
        "0] } } ]",
    };
    for (int k = 0; k < 2; k++)
        assert_true(fx.resource->load_source("level", "stacked", stacked[k], strlen(stacked[k])) <
                    0);
    const char spaced[] = "entities = [ { components = { probe = { value = 1 } } repeat = { count "
                          "= 3 spacing = [0 1 0] } } ]";
    assert_int_equal(fx.resource->load_source("level", "spaced", spaced, sizeof spaced - 1), 0);
    const char once[] =
        "entities = [ { components = { probe = { value = 1 } } repeat = { count = 1 } } ]";
    assert_int_equal(fx.resource->load_source("level", "once", once, sizeof once - 1), 0);
    fixture_shutdown();
    fixture_boot(false);
    probe_register(false);
    const uint64_t warnings = fx.log->count(CT_LOG_WARNING);
    assert_int_equal(fx.resource->load_source("level", "stacked", stacked[0], strlen(stacked[0])),
                     0);
    assert_true(fx.log->count(CT_LOG_WARNING) > warnings);
}

static void unknown_component_is_skipped_otherwise(void **state)
{
    (void)state;
    fixture_boot(false);
    uint64_t probe = probe_register(false);
    uint64_t warnings = fx.log->count(CT_LOG_WARNING);
    assert_int_equal(
        fx.resource->load_source("unit", "unknown", unknown_src, sizeof unknown_src - 1), 0);
    assert_true(fx.log->count(CT_LOG_WARNING) > warnings);
    ct_world_o *w = fx.world->create_world(NULL);
    assert_int_not_equal(fx.world->spawn_unit(w, "unknown", NULL, NULL).id, 0);
    assert_int_equal(((probe_manager_t *)fx.component->manager(w, probe))->n, 1);
    fx.world->destroy_world(w);
    fixture_shutdown();
}

static char last_warning[512];

static void keep_warning(void *ctx, ct_log_level level, const char *tag, const char *text)
{
    (void)ctx, (void)tag;
    if (level == CT_LOG_WARNING)
        snprintf(last_warning, sizeof last_warning, "%s", text);
}

/* A level compiled while a type was registered, spawned after it is gone: the warning names the
 * resource and the type id (before: "1 component sections of unregistered types skipped";
 * issue 25, defect 9). */
static void sections_of_unregistered_types_are_named(void **state)
{
    (void)state;
    fixture_boot(false);
    uint64_t probe = probe_register(false);
    assert_int_equal(fx.resource->load_source("level", "seed", seed_level, sizeof seed_level - 1),
                     0);
    fx.component->unregister_type(probe);
    ct_world_o *w = fx.world->create_world(NULL);
    last_warning[0] = '\0';
    log__set_sink(keep_warning, NULL);
    assert_int_equal(fx.world->spawn_level(w, "seed"), 5);
    log__set_sink(NULL, NULL);
    char want[512];
    snprintf(want, sizeof want,
             "spawn of level 'seed': 1 component section of unregistered type "
             "skipped: type id 0x%016llx (2 instances) (is the plugin that registers it loaded? "
             "`cuttle-hash <name>` prints a type name's id)",
             (unsigned long long)ct_hash64("probe"));
    assert_string_equal(last_warning, want);
    fx.world->destroy_world(w);
    fixture_shutdown();
}

/* Compiles `src` to a whole blob with the kernel's compiler; the payload follows the header. */
static uint8_t *compile_blob(const char *src, uint64_t *size)
{
    uint8_t *blob = NULL;
    assert_int_equal(resources__compile_text(resources__find_type("level"), "test.level", src,
                                             strlen(src), &blob, size),
                     0);
    return blob;
}

static void *load_payload(const uint8_t *payload, uint64_t size)
{
    const ct_resource_type_t *type = resources__find_type("level");
    char err[256] = "";
    /* An exactly-sized heap copy, so a read past the end is caught under ASan. */
    uint8_t *copy = malloc(size ? size : 1);
    memcpy(copy, payload, size);
    void *res = type->load(type->user_data, copy, size, err, sizeof err);
    free(copy);
    if (res)
        type->unload(type->user_data, res);
    else
        assert_true(err[0] != 0);
    return res;
}

static void corrupt_payloads_are_refused(void **state)
{
    (void)state;
    probe_register(false);
    uint64_t blob_size;
    uint8_t *blob = compile_blob(seed_level, &blob_size);
    const uint8_t *payload = blob + RESOURCES_HEADER_SIZE;
    uint64_t size = blob_size - RESOURCES_HEADER_SIZE;
    assert_non_null(load_payload(payload, size));
    /* Every truncation, and one byte too many, is refused. */
    for (uint64_t n = 0; n < size; n++)
        assert_null(load_payload(payload, n));
    uint8_t *longer = calloc(1, size + 8);
    memcpy(longer, payload, size);
    assert_null(load_payload(longer, size + 8));
    /* Corrupt counts and indices. */
    uint32_t v;
    uint8_t *bad = malloc(size);
    struct {
        size_t at;
        uint32_t value;
    } edits[] = {
        {0, 7},                   /* num_entities (6 would be valid: entity 5 in the padding) */
        {0, 0xffffffffu}, {4, 3}, /* num_component_types */
        {4, 0xffffffffu}, {8, 0}, /* parent_index[0] = 0: not an earlier entity */
        {12, 4},                  /* parent_index[1] = 4: a later one */
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        memcpy(bad, payload, size);
        v = edits[i].value;
        memcpy(bad + edits[i].at, &v, 4);
        if (load_payload(bad, size))
            fail_msg("edit %zu accepted", i);
    }
    /* The first section starts after 8 + 5 * 4 bytes padded to 32: its num_instances, its
     * instance_size, its format (another than the type's: recompile), its reserved field and
     * its first entity_index. */
    size_t section = 32;
    const size_t fields[] = {section + 8, section + 12, section + 16, section + 20, section + 24};
    for (size_t i = 0; i < 5; i++) {
        memcpy(bad, payload, size);
        v = 0x7fffffffu;
        memcpy(bad + fields[i], &v, 4);
        assert_null(load_payload(bad, size));
    }
    free(bad);
    free(longer);
    ct_free(resources__allocator(), blob, blob_size);
}

/* A variable-size type ("tally", CT_COMPONENT_VARIABLE_SIZE): `tally = { values = [1 2 3] }`
 * compiles to u32 size, u32 count, float values[count] (at most 16 values, 72 bytes); its
 * validator refuses a count that disagrees with the size, its spawner sums each instance. */
typedef struct tally_manager_t {
    ct_allocator_t *a;
    uint32_t n, count[8];
    float sum[8];
} tally_manager_t;

static void *tally_create(void *user_data, ct_world_o *world, ct_allocator_t *a)
{
    (void)user_data, (void)world;
    tally_manager_t *m = ct_alloc(a, sizeof *m);
    memset(m, 0, sizeof *m);
    m->a = a;
    return m;
}

static void tally_destroy(void *user_data, void *manager)
{
    (void)user_data;
    tally_manager_t *m = manager;
    ct_free(m->a, m, sizeof *m);
}

static int tally_compile(void *user_data, const ct_data_o *src, void *out, ct_compile_ctx_o *ctx)
{
    (void)user_data;
    const ct_data_api_v1 *d = test_kernel_api(CT_DATA_API, 1);
    const ct_data_o *values = d->get(src, "values");
    const uint32_t count = d->count(values);
    if (count > 16) {
        fx.resource->compile_error(ctx, "tally.values: at most 16");
        return CT_ERR_BAD_DATA;
    }
    const uint32_t size = 8 + 4 * count;
    memcpy(out, &size, 4);
    memcpy((char *)out + 4, &count, 4);
    uint32_t k = 0;
    for (const ct_data_o *v = d->first_child(values); v; v = d->next(v), k++) {
        const float f = (float)d->number(v, 0);
        memcpy((char *)out + 8 + 4 * k, &f, 4);
    }
    return 0;
}

static bool tally_validate(void *user_data, const void *instance, char *why, size_t why_size)
{
    (void)user_data;
    uint32_t size, count;
    memcpy(&size, instance, 4);
    memcpy(&count, (const char *)instance + 4, 4);
    if (size < 8 || count != (size - 8) / 4) {
        snprintf(why, why_size, "tally.count (%u values in %u bytes)", count, size);
        return false;
    }
    return true;
}

static void tally_spawn(void *manager, const ct_spawn_context_t *ctx, uint32_t n,
                        const uint32_t *entity_index, const void *data)
{
    (void)ctx, (void)entity_index;
    tally_manager_t *m = manager;
    for (uint32_t i = 0; i < n; i++, data = ct_component_next_instance(data)) {
        uint32_t count;
        memcpy(&count, (const char *)data + 4, 4);
        float sum = 0;
        for (uint32_t k = 0; k < count; k++) {
            float f;
            memcpy(&f, (const char *)data + 8 + 4 * k, 4);
            sum += f;
        }
        m->count[m->n] = count, m->sum[m->n] = sum, m->n++;
    }
}

static void tally_destroyed(void *manager, const ct_entity_t *entities, uint32_t n)
{
    (void)manager, (void)entities, (void)n;
}

static uint64_t tally_register(uint32_t max)
{
    const ct_component_type_t type = {
        .name = "tally",
        .spawn_order = 10,
        .create_manager = tally_create,
        .destroy_manager = tally_destroy,
        .instance_size = CT_COMPONENT_VARIABLE_SIZE | max,
        .compile = tally_compile,
        .spawn = tally_spawn,
        .destroyed = tally_destroyed,
    };
    const uint64_t id = fx.component->register_type(&type);
    if (id)
        assert_true(fx.component_v2->set_validate(id, tally_validate));
    return id;
}

static const char tally_level[] = "entities = [ { components = { tally = { values = [1 2 3] } } }\n"
                                  "  { components = { tally = { values = [] } } }\n"
                                  "  { components = { tally = { values = [1 1 1 1 1 1 1 1 1 1 1] } } }"
                                  " ]\n";

static void variable_size_instances_compile_load_and_spawn(void **state)
{
    (void)state;
    /* A maximum under 4 or over 1 MiB is refused at registration. */
    assert_int_equal(tally_register(3), 0);
    assert_int_equal(tally_register(CT_COMPONENT_MAX_VARIABLE_SIZE + 1u), 0);
    const uint64_t tally = tally_register(72);
    assert_int_not_equal(tally, 0);
    uint64_t blob_size;
    uint8_t *blob = compile_blob(tally_level, &blob_size);
    const uint8_t *payload = blob + RESOURCES_HEADER_SIZE;
    const uint64_t size = blob_size - RESOURCES_HEADER_SIZE;
    /* Header 8, parents 3 * 4 padded to 24, section head 24, entity_index 12 padded to 16, then
     * instances of 20, 8 and 52 bytes padded to 24, 8 and 56 (at 64, 88 and 96): 152 bytes,
     * where three fixed instances of 72 would have made 280. */
    assert_int_equal(size, 152);
    assert_non_null(load_payload(payload, size));
    uint32_t v;
    memcpy(&v, payload + 36, 4);
    assert_int_equal(v, CT_COMPONENT_VARIABLE_SIZE | 72u);
    /* Spawned, each instance read at its own size. */
    assert_int_equal(fx.resource->load_source("level", "tally", tally_level, sizeof tally_level - 1),
                     0);
    ct_world_o *w = fx.world->create_world(NULL);
    assert_int_equal(fx.world->spawn_level(w, "tally"), 3);
    tally_manager_t *m = fx.component->manager(w, tally);
    assert_int_equal(m->n, 3);
    assert_int_equal(m->count[0], 3);
    assert_true(m->sum[0] == 6.0f);
    assert_int_equal(m->count[1], 0);
    assert_int_equal(m->count[2], 11);
    assert_true(m->sum[2] == 11.0f);
    fx.world->destroy_world(w);
    fx.resource->unload("level", "tally");
    /* Edited blobs: a size past the maximum, under 4, one that takes the next instance's head
     * (which then runs past the end), one past the end, a nonzero padding byte, and a count the
     * validator refuses. */
    uint8_t *bad = malloc(size);
    const struct {
        size_t at;
        uint32_t value;
    } edits[] = {{64, 80}, {64, 3}, {64, 0}, {64, 28}, {96, 60}, {84, 1}, {68, 4}};
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        memcpy(bad, payload, size);
        memcpy(bad + edits[i].at, &edits[i].value, 4);
        if (load_payload(bad, size))
            fail_msg("edit %zu accepted", i);
    }
    free(bad);
    ct_free(resources__allocator(), blob, blob_size);
    /* A source the module refuses fails the compile, as for fixed sizes. */
    uint8_t *none = NULL;
    uint64_t none_size = 0;
    static const char too_many[] =
        "entities = [ { components = { tally = { values = [1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 "
        "17] } } } ]";
    assert_int_not_equal(resources__compile_text(resources__find_type("level"), "bad.level",
                                                 too_many, strlen(too_many), &none, &none_size),
                         0);
    assert_null(none);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(seed_example_spawns_in_batches, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(spawn_unit_v0_and_v1_agree_but_for_rotation, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(repeat_expands_with_children, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(unknown_component_is_an_error_when_strict, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test(unknown_component_is_skipped_otherwise),
        cmocka_unit_test(sections_of_unregistered_types_are_named),
        cmocka_unit_test_setup_teardown(repeat_without_spacing_is_warned_about, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(corrupt_payloads_are_refused, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(variable_size_instances_compile_load_and_spawn,
                                        fixture_setup, fixture_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
