/*
 * The particles module in a booted kernel (entities, transforms, expr, particles): an effect's
 * expressions move its particles to fixed places, the emission counts follow rate, burst and
 * lifetime, a bad expression fails the compile naming the file, field, line:column with a
 * caret, a level's particle_emitter component starts an emitter where its entity is, the Lua
 * module drives the same, and its bad arguments raise naming the function and the argument.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "base/log.h"
#include "ct_particles.h"
#include "test_kernel.h"

static const test_world_t *t;
static const ct_particles_api_v1 *particles;
static char captured[4096];

static void capture(void *ctx, ct_log_level level, const char *tag, const char *text)
{
    (void)ctx, (void)level, (void)tag;
    size_t n = strlen(captured);
    snprintf(captured + n, sizeof captured - n, "%s\n", text);
}

static int boot(void **state)
{
    (void)state;
    const char *paths[] = {
        CT_TEST_MODULE("entities", "ct_entities"), CT_TEST_MODULE("transforms", "ct_transforms"),
        CT_TEST_MODULE("expr", "ct_expr"), CT_TEST_MODULE("particles", "ct_particles")};
    const kernel_desc_t desc = test_kernel_desc(paths, 4);
    t = test_world_boot(&desc, "particles");
    particles = test_kernel_api(CT_PARTICLES_API, 1);
    assert_non_null(particles);
    return 0;
}

static const char sparks[] =
    "max_particles = 1000 rate = 100 burst = 10 lifetime = 1 shape = \"point\"\n"
    "color = [1 0.5 0.25 1]\n"
    "spawn = \"vx = 1; vy = 2 + n; vz = 0\"\n"
    "velocity = \"vx = vx; vy = vy - 10 * dt; vz = vz\"\n"
    "size = \"0.5 * (1 - life)\"\n"
    "alpha = \"1 - life\"\n";

static void effect_moves_particles_by_its_expressions(void **state)
{
    (void)state;
    assert_int_equal(
        t->resource->load_source("particles", "effects/sparks", sparks, strlen(sparks)), 0);
    const float at[3] = {1, 2, 3};
    const ct_particle_emitter_t e = particles->spawn(t->world, "effects/sparks", at);
    assert_true(e.id != 0);
    particles->simulate(t->world, 0.1f);
    /* The burst and a tenth of a second at 100 a second. */
    assert_int_equal(particles->count(t->world, e), 20);
    ct_particles_view_t v;
    assert_true(particles->view(t->world, e, &v));
    assert_int_equal(v.count, 20);
    assert_true(v.color[1] == 0.5f);
    for (uint32_t i = 0; i < 20; i++) {
        /* vy = (2 + n) - 10 * 0.1, then moved by one step of it. */
        assert_true(v.vx[i] == 1.0f);
        assert_true(v.vy[i] == (2.0f + (float)i) - 10.0f * 0.1f);
        assert_true(v.px[i] == 1.0f + 1.0f * 0.1f);
        assert_true(v.py[i] == 2.0f + v.vy[i] * 0.1f);
        assert_true(v.pz[i] == 3.0f);
        assert_true(v.size[i] == 0.5f);
        assert_true(v.alpha[i] == 1.0f);
    }
    for (int s = 0; s < 9; s++)
        particles->simulate(t->world, 0.1f);
    assert_int_equal(particles->count(t->world, e), 110);
    particles->simulate(t->world, 0.1f); /* the first 20 reach their lifetime */
    assert_int_equal(particles->count(t->world, e), 100);
    /* A second emitter of the effect makes the same particles. */
    const ct_particle_emitter_t e2 = particles->spawn(t->world, "effects/sparks", at);
    particles->simulate(t->world, 0.1f);
    ct_particles_view_t v2;
    assert_true(particles->view(t->world, e2, &v2));
    assert_int_equal(v2.count, 20);
    assert_true(particles->view(t->world, e, &v));
    assert_true(v2.vy[7] == 8.0f);
    /* Stopped, an emitter goes when its last particle has. */
    particles->stop(t->world, e);
    particles->destroy(t->world, e2);
    assert_false(particles->view(t->world, e2, &v2));
    for (int s = 0; s < 11; s++)
        particles->simulate(t->world, 0.1f);
    assert_int_equal(particles->count(t->world, e), 0);
    assert_int_equal(particles->emitters(t->world, NULL, 0), 0);
    /* Bad steps are refused. */
    particles->simulate(t->world, 0.0f);
    particles->simulate(t->world, NAN);
}

static void bad_expressions_name_file_field_and_column(void **state)
{
    (void)state;
    log__set_sink(capture, NULL);
    captured[0] = '\0';
    static const char bad[] = "velocity = \"vx = vx; vy = vyy - 9.81 * dt; vz = vz\"\n";
    assert_true(t->resource->load_source("particles", "effects/bad", bad, strlen(bad)) < 0);
    if (!strstr(captured, "effects/bad.particles: velocity: 1:15: unknown name 'vyy' (did you "
                          "mean 'vy'?)\n"
                          "  vx = vx; vy = vyy - 9.81 * dt; vz = vz\n"
                          "                ^"))
        fail_msg("got: %s", captured);
    captured[0] = '\0';
    static const char cut[] = "size = \"0.1 * (1 - \"\n";
    assert_true(t->resource->load_source("particles", "effects/cut", cut, strlen(cut)) < 0);
    if (!strstr(captured, "size: 1:11: expected an operand"))
        fail_msg("got: %s", captured);
    captured[0] = '\0';
    static const char misspelt[] = "velocty = \"vx = 1; vy = 1; vz = 1\"\n";
    assert_true(t->resource->load_source("particles", "effects/m", misspelt, strlen(misspelt)) < 0);
    if (!strstr(captured, "did you mean 'velocity'"))
        fail_msg("got: %s", captured);
    captured[0] = '\0';
    static const char missing[] = "velocity = \"vx = 1; vy = 1\"\n";
    assert_true(t->resource->load_source("particles", "effects/x", missing, strlen(missing)) < 0);
    if (!strstr(captured, "velocity: 1:15: output 'vz' is never set"))
        fail_msg("got: %s", captured);
    log__set_sink(NULL, NULL);
}

static void levels_and_lua_spawn_emitters(void **state)
{
    (void)state;
    static const char smoke[] =
        "max_particles = 500 rate = 50 lifetime = 2 shape = \"sphere\" "
        "radius = 0.5 velocity = \"vx = vx; vy = 1 + noise(t + n); vz = vz\"\n";
    assert_int_equal(t->resource->load_source("particles", "effects/smoke", smoke, strlen(smoke)),
                     0);
    static const char level[] = "entities = [ { components = { transform = { position = [4 0 -2] } "
                                "particle_emitter = { effect = \"effects/smoke\" } } } ]\n";
    assert_int_equal(t->resource->load_source("level", "levels/smoke", level, strlen(level)), 0);
    ct_entity_t made[1];
    assert_int_equal(t->worlds->spawn_resource(t->world, t->resource->get("level", "levels/smoke"),
                                               NULL, NULL, made, 1),
                     1);
    ct_particle_emitter_t list[4];
    assert_int_equal(particles->emitters(t->world, list, 4), 1);
    particles->simulate(t->world, 0.5f);
    ct_particles_view_t v;
    assert_true(particles->view(t->world, list[0], &v));
    assert_int_equal(v.count, 25);
    for (uint32_t i = 0; i < v.count; i++) {
        const float dx = v.px[i] - 4.0f, dz = v.pz[i] + 2.0f;
        assert_true(dx * dx + dz * dz <= 0.25f + 1e-5f); /* inside the sphere, moved up only */
        assert_true(v.vy[i] >= 0.0f && v.vy[i] <= 2.0f);
    }
    /* The emitter dies with its entity. */
    t->entity->destroy(made[0]);
    assert_int_equal(particles->emitters(t->world, NULL, 0), 0);
    t->resource->unload("level", "levels/smoke");

    assert_int_equal(
        t->lua->run_string(
            "function lua_particles(w)\n"
            "  local e = Particles.spawn(w, 'effects/sparks', 0, 1, 0)\n"
            "  Particles.simulate(w, 0.1)\n"
            "  assert(Particles.count(w, e) == 20 and Particles.count(w) == 20)\n"
            "  local px, py, pz, vx, vy, vz, size, alpha = Particles.particle(w, e, 3)\n"
            "  assert(vx == 1 and math.abs(vy - 3) < 1e-6 and size == 0.5 and alpha == 1, vy)\n"
            "  assert(not pcall(Particles.particle, w, e, 21))\n"
            "  assert(not pcall(Particles.simulate, w, 0))\n"
            "  assert(not pcall(Particles.spawn, w, 'effects/none', 0, 0, 0))\n"
            "  Particles.destroy(w, e)\n"
            "  assert(not pcall(Particles.count, w, e))\n"
            "end",
            "=test"),
        0);
    test_lua_call("lua_particles", t->world, NULL, 0);
}

/* A bad argument raises through the shared checks (modules/common/lua_checks.h): the message
 * names the function, the argument and what came, and nothing is coerced (a number is not an
 * effect name, 1.5 is not an emitter) or half-stored (a move with one bad coordinate). */
static void lua_bad_arguments_name_function_and_argument(void **state)
{
    (void)state;
    assert_int_equal(
        t->lua->run_string(
            "local function fails(want, f, ...)\n"
            "  local ok, err = pcall(f, ...)\n"
            "  assert(not ok, want)\n"
            "  assert(tostring(err):find(want, 1, true), 'wanted ' .. want .. ', got ' .. "
            "tostring(err))\n"
            "end\n"
            "function lua_particles_bad(w)\n"
            "  fails('Particles.spawn: argument 2 is not an effect name (got 42)',\n"
            "        Particles.spawn, w, 42, 0, 0, 0)\n"
            "  fails('Particles.simulate: argument 1 is not a world (got nil)',\n"
            "        Particles.simulate, nil, 0.1)\n"
            "  fails('Particles.simulate: argument 2 is not a time step in (0, 1] (got 0)',\n"
            "        Particles.simulate, w, 0)\n"
            "  local e = Particles.spawn(w, 'effects/sparks', 1, 2, 3)\n"
            "  fails('Particles.count: argument 2 is not an emitter of this world (got 1.5)',\n"
            "        Particles.count, w, 1.5)\n"
            "  fails('Particles.move: argument 4 is not a number in [-1e+09, 1e+09] (got "
            "2000000000)',\n"
            "        Particles.move, w, e, 5, 2e9, 5)\n"
            "  fails('Particles.particle: argument 3 is not a particle index in 1..0 (got 1)',\n"
            "        Particles.particle, w, e, 1)\n"
            "  Particles.simulate(w, 0.1)\n"
            "  local px, py, pz = Particles.particle(w, e, 1)\n"
            "  assert(px < 2 and pz == 3, 'the bad move stored nothing: ' .. px)\n"
            "  Particles.destroy(w, e)\n"
            "end",
            "=test"),
        0);
    test_lua_call("lua_particles_bad", t->world, NULL, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(effect_moves_particles_by_its_expressions),
        cmocka_unit_test(bad_expressions_name_file_field_and_column),
        cmocka_unit_test(levels_and_lua_spawn_emitters),
        cmocka_unit_test(lua_bad_arguments_name_function_and_argument),
    };
    return cmocka_run_group_tests(tests, boot, test_world_shutdown);
}
