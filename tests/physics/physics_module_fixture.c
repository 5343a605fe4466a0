/* physics_module_fixture.c: the physics module tests' shared start-up (physics_module_fixture.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "physics_module_fixture.h"

const ct_entity_api_v2 *entity;
const ct_world_api_v1 *worlds;
const ct_lua_api_v1 *lua;
const ct_physics_api_v4 *p4;
const ct_physics_api_v5 *p5;
char captured[16384];

static const test_world_t *booted;

/* What the running test made (physics_test_begin empties it, physics_test_end releases it): its
 * entities, and the resources it loaded (type, name); the entities with bodies in the booted
 * world when it began, sorted; and the worlds live then. */
static struct {
    ct_entity_t *entities;
    uint32_t entity_count, entity_cap;
    char (*loads)[2][128];
    uint32_t load_count, load_cap;
    uint32_t *had;
    uint32_t had_count;
    ct_world_o **worlds;
    uint32_t world_count;
} made;

static int cmp_u32(const void *a, const void *b)
{
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The entities with bodies in the booted world, sorted, into a new array (*count of them). */
static uint32_t *world_bodies(uint32_t *count)
{
    *count = p4->shapes(booted->world, 0, NULL, 0);
    ct_physics_shape_t *shapes = malloc((*count + 1u) * sizeof *shapes);
    uint32_t *ids = malloc((*count + 1u) * sizeof *ids);
    assert_non_null(shapes);
    assert_non_null(ids);
    p4->shapes(booted->world, 0, shapes, *count);
    for (uint32_t k = 0; k < *count; k++)
        ids[k] = shapes[k].entity;
    free(shapes);
    qsort(ids, *count, sizeof *ids, cmp_u32);
    return ids;
}

static void made_entities(const ct_entity_t *e, uint32_t n)
{
    if (made.entity_count + n > made.entity_cap) {
        made.entity_cap = 2u * (made.entity_count + n);
        made.entities = realloc(made.entities, made.entity_cap * sizeof *made.entities);
        assert_non_null(made.entities);
    }
    memcpy(made.entities + made.entity_count, e, n * sizeof *e);
    made.entity_count += n;
}

static void made_load(const char *type, const char *name)
{
    if (made.load_count == made.load_cap) {
        made.load_cap = 2u * made.load_cap + 8u;
        made.loads = realloc(made.loads, made.load_cap * sizeof *made.loads);
        assert_non_null(made.loads);
    }
    snprintf(made.loads[made.load_count][0], sizeof made.loads[0][0], "%s", type);
    snprintf(made.loads[made.load_count][1], sizeof made.loads[0][1], "%s", name);
    made.load_count++;
}

/* The worlds live now, into a new array (*count of them). */
static ct_world_o **live_worlds(uint32_t *count)
{
    const ct_world_api_v2 *w2 = test_kernel_api(CT_WORLD_API, 2);
    assert_non_null(w2);
    *count = w2->world_count();
    ct_world_o **live = malloc((*count + 1u) * sizeof *live);
    assert_non_null(live);
    for (uint32_t k = 0; k < *count; k++)
        live[k] = w2->world_at(k);
    return live;
}

int physics_test_begin(void **state)
{
    (void)state;
    made.entity_count = made.load_count = 0;
    free(made.had);
    made.had = world_bodies(&made.had_count);
    free(made.worlds);
    made.worlds = live_worlds(&made.world_count);
    return 0;
}

/* Destroys the worlds the test made and left (a test that fails stops before its own
 * destroy_world): with them their bodies, which the next test's counts would see, and their
 * memory, which the group's leak check at shutdown would blame on the last test. */
static void destroy_made_worlds(void)
{
    uint32_t count;
    ct_world_o **now = live_worlds(&count);
    for (uint32_t k = 0; k < count; k++) {
        bool had = false;
        for (uint32_t h = 0; h < made.world_count && !had; h++)
            had = now[k] == made.worlds[h];
        if (!had)
            worlds->destroy_world(now[k]);
    }
    free(now);
}

int physics_test_end(void **state)
{
    (void)state;
    log__set_sink(NULL, NULL);
    for (uint32_t k = 0; k < made.entity_count; k++)
        if (entity->alive(made.entities[k]))
            entity->destroy(made.entities[k]);
    /* And whatever else got a body in the booted world during the test. */
    uint32_t count;
    uint32_t *now = world_bodies(&count);
    for (uint32_t k = 0; k < count; k++)
        if (!bsearch(&now[k], made.had, made.had_count, sizeof *made.had, cmp_u32) &&
            entity->alive((ct_entity_t){now[k]}))
            entity->destroy((ct_entity_t){now[k]});
    free(now);
    /* Each load the test made and did not undo (a load of a loaded name counts it again). */
    for (uint32_t k = made.load_count; k-- > 0;)
        if (booted->resource->get(made.loads[k][0], made.loads[k][1]))
            booted->resource->unload(made.loads[k][0], made.loads[k][1]);
    destroy_made_worlds();
    made.entity_count = made.load_count = 0;
    return 0;
}

kernel_desc_t physics_desc(void)
{
    static const char *const paths[] = {CT_TEST_MODULE("entities", "ct_entities"),
                                        CT_TEST_MODULE("transforms", "ct_transforms"),
                                        CT_TEST_MODULE("physics", "ct_physics")};
    return test_kernel_desc(paths, 3);
}

const test_world_t *physics_boot_desc(const kernel_desc_t *desc, const char *world_name)
{
    booted = test_world_boot(desc, world_name);
    entity = booted->entity, worlds = booted->worlds, lua = booted->lua;
    p4 = test_kernel_api(CT_PHYSICS_API, 4);
    p5 = test_kernel_api(CT_PHYSICS_API, 5);
    assert_non_null(p4);
    assert_non_null(p5);
    return booted;
}

const test_world_t *physics_boot(const char *world_name)
{
    const kernel_desc_t desc = physics_desc();
    return physics_boot_desc(&desc, world_name);
}

ct_rigid_body_desc_t ball_desc(float x, float y, float z, float r)
{
    return (ct_rigid_body_desc_t){.kind = CT_BODY_DYNAMIC,
                                  .shape = CT_BODY_SPHERE,
                                  .radius = r,
                                  .mass = 1.0f,
                                  .friction = 0.5f,
                                  .position = {x, y, z}};
}

ct_entity_t physics_body(ct_world_o *w, const ct_rigid_body_desc_t *d)
{
    const ct_entity_t e = entity->create();
    made_entities(&e, 1);
    assert_int_equal(p4->add_rigid_body(w, e, d), 0);
    return e;
}

void unit_cube_points(float out[24])
{
    for (int k = 0; k < 8; k++) {
        out[3 * k] = (k & 1) ? 0.5f : -0.5f;
        out[3 * k + 1] = (k & 2) ? 0.5f : -0.5f;
        out[3 * k + 2] = (k & 4) ? 0.5f : -0.5f;
    }
}

void physics_lua_unit_cube(void)
{
    assert_int_equal(lua->run_string("function unit_cube()\n"
                                     "  local c = {}\n"
                                     "  for k = 0, 7 do\n"
                                     "    c[#c + 1] = k % 2 == 1 and 0.5 or -0.5\n"
                                     "    c[#c + 1] = math.floor(k / 2) % 2 == 1 and 0.5 or -0.5\n"
                                     "    c[#c + 1] = math.floor(k / 4) == 1 and 0.5 or -0.5\n"
                                     "  end\n"
                                     "  return c\n"
                                     "end\n",
                                     "unit_cube"),
                     0);
}

int physics_load(const char *type, const char *name, const char *source)
{
    const int r = booted->resource->load_source(type, name, source, strlen(source));
    if (r == 0)
        made_load(type, name);
    return r;
}

int physics_spawn(const char *name, const char *source, ct_entity_t *e, int max)
{
    assert_int_equal(physics_load("level", name, source), 0);
    const int n = booted->worlds->spawn_resource(booted->world, booted->resource->get("level", name),
                                                 NULL, NULL, e, (uint32_t)max);
    if (n > 0)
        made_entities(e, (uint32_t)n);
    assert_true(n > 0);
    return n;
}

void capture(void *ctx, ct_log_level level, const char *tag, const char *text)
{
    (void)ctx, (void)level, (void)tag;
    const size_t used = strlen(captured);
    snprintf(captured + used, sizeof captured - used, "%s\n", text);
}

/* The level's source: one entity `entity` with the components `fmt` makes of `args`. */
static void level_source(char *out, size_t size, const char *entity_name, const char *fmt,
                         va_list args)
{
    char components[4096];
    vsnprintf(components, sizeof components, fmt, args);
    snprintf(out, size, "entities = [ { name = \"%s\" components = {\n  %s } } ]\n", entity_name,
             components);
}

int physics_compile_level(const char *name, const char *entity_name, const char *components, ...)
{
    char text[4352];
    va_list args;
    va_start(args, components);
    level_source(text, sizeof text, entity_name, components, args);
    va_end(args);
    captured[0] = '\0';
    return physics_load("level", name, text);
}

void physics_level_refused(const char *words, const char *name, const char *entity_name,
                           const char *components, ...)
{
    char text[4352], file[128], who[128], copy[256];
    va_list args;
    va_start(args, components);
    level_source(text, sizeof text, entity_name, components, args);
    va_end(args);
    captured[0] = '\0';
    assert_true(physics_load("level", name, text) < 0);
    const char *base = strrchr(name, '/');
    snprintf(file, sizeof file, "%s.level", base ? base + 1 : name);
    snprintf(who, sizeof who, "entity '%s'", entity_name);
    snprintf(copy, sizeof copy, "%s", words);
    bool ok = strstr(captured, file) && strstr(captured, who);
    for (char *w = strtok(copy, "|"); ok && w; w = strtok(NULL, "|"))
        ok = strstr(captured, w) != NULL;
    if (!ok)
        fail_msg("%s: '%s' does not name %s, %s and '%s'", text, captured, file, who, words);
}
