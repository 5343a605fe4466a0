/* Hot reload of ct.physics (and of ct.entities and ct.transforms under it), with the fixture of
 * tests/entities: a scene stepped partly before and partly after a reload ends bit-identical to
 * the same scene stepped without one, script callbacks and bindings taken before still work,
 * and code whose state layout differs is refused with the old code still running. */
#include <stdio.h>
#include <string.h>

#include "plugins/loader.h"
#include "reload_fixture.h"

#define DT (1.0f / 60.0f)
/* The ball lands on the box after about 50 steps: after the reload. */
enum { BEFORE = 30, AFTER = 60 };

enum { E_GROUND, E_BOX, E_BALL, E_SLIDER, E_POINT, NUM_E };

/* The same entities get the same components in two worlds: `tested` goes through the reloads,
 * `reference` runs the whole way before them. */
static ct_entity_t e[NUM_E];
static ct_world_o *tested, *reference;

/* Kept as locals from before any reload. hits[w] counts the on_collision calls of world w. */
static const char script[] =
    "local Physics, Actor, World = Physics, Actor, World\n"
    "local simulate, state_hash, run_callbacks = Physics.simulate, Physics.state_hash, "
    "World.run_callbacks\n"
    "local hits, mark = {}, 0\n"
    "function physics_listen(w, a, b)\n"
    "  hits[w] = 0\n"
    "  local function hit() hits[w] = hits[w] + 1 end\n"
    "  World.set_callback(w, a, 'on_collision', hit)\n"
    "  World.set_callback(w, b, 'on_collision', hit)\n"
    "end\n"
    "function physics_step(w, dt) simulate(w, dt) run_callbacks(w) end\n"
    "function physics_run(w) run_callbacks(w) end\n"
    "function physics_mark(w) mark = hits[w] end\n"
    "function physics_compare(a, b)\n"
    "  assert(state_hash(a) == state_hash(b), 'state hashes differ')\n"
    "  assert(hits[a] == hits[b], 'hits ' .. hits[a] .. ' and ' .. hits[b])\n"
    "  assert(hits[a] > mark, 'no collision since the mark')\n"
    "end\n"
    "function physics_scratch(w, ground, ball)\n"
    "  local _, y = Actor.position(w, ball)\n"
    "  assert(y == 2, 'ball spawned at ' .. y)\n"
    "  Actor.teleport(w, ball, 0, 3, 0)\n"
    "  Actor.set_velocity(w, ball, 0, -1, 0)\n"
    "  local _, vy = Actor.velocity(w, ball)\n"
    "  assert(vy == -1)\n"
    "  Actor.add_force(w, ball, 0, 0, 0)\n"
    "  Physics.set_gravity(w, 0, -10, 0)\n"
    "  for _ = 1, 120 do simulate(w, 1 / 60) end\n"
    "  _, y = Actor.position(w, ball)\n"
    "  assert(math.abs(y - 0.5) < 0.05, 'ball rests at ' .. y)\n"
    "  local found = Physics.overlap_sphere(w, 0, 0.5, 0, 0.1)\n"
    "  assert(#found == 1 and found[1] == ball)\n"
    "  local hit, d = Physics.raycast(w, 0, 5, 0, 0, -1, 0, 10)\n"
    "  assert(hit == ball and math.abs(d - 4) < 0.05, 'ray hit ' .. tostring(hit))\n"
    "  assert(#state_hash(w) == 16)\n"
    "  assert(not pcall(Actor.velocity, w, ground + ball + 1000))\n"
    "end\n";

/* Compiled anew by each check (under a new name), so the code running then compiles it. */
static const char scratch_level[] =
    "entities = [\n"
    "  { components = { transform = { position = [0 -0.5 0] }\n"
    "                   body = { kind = \"static\" half_extents = [5 0.5 5] } } }\n"
    "  { components = { transform = { position = [0 2 0] }\n"
    "                   body = { shape = \"sphere\" radius = 0.5 } point_mass = { mass = 3 } } }\n"
    "]\n";

/* Calls script function fn(w, [w2,] args...). */
static void call(const char *fn, ct_world_o *w, ct_world_o *w2, int nargs, const double *args)
{
    lua_State *L = rf.lua->main_state();
    rf.lua->push_light_userdata(L, w);
    if (w2)
        rf.lua->push_light_userdata(L, w2);
    for (int k = 0; k < nargs; k++)
        rf.lua->push_number(L, args[k]);
    assert_int_equal(rf.lua->call_global(fn, 1 + (w2 != NULL) + nargs), 0);
}

static void build(ct_world_o *w)
{
    const ct_transform_pose_t ground = {{0, -0.5f, 0}, {0, 0, 0, 1}, {1, 1, 1}};
    const ct_transform_pose_t box = {{0, 0.5f, 0}, {0, 0, 0, 1}, {1, 1, 1}};
    const ct_transform_pose_t ball = {{0.2f, 5, 0}, {0, 0, 0, 1}, {1, 1, 1}};
    assert_int_not_equal(rf.transform->create(w, e[E_GROUND], &ground).i, 0);
    assert_int_not_equal(rf.transform->create(w, e[E_BOX], &box).i, 0);
    assert_int_not_equal(rf.transform->create(w, e[E_BALL], &ball).i, 0);
    const ct_body_desc_t bodies[] = {
        [E_GROUND] = {.kind = CT_BODY_STATIC, .half_extents = {10, 0.5f, 10}, .friction = 0.5f},
        [E_BOX] = {.half_extents = {0.5f, 0.5f, 0.5f}, .mass = 2, .friction = 0.5f},
        [E_BALL] = {.shape = CT_BODY_SPHERE,
                    .radius = 0.5f,
                    .mass = 1,
                    .restitution = 0.3f,
                    .friction = 0.5f},
        [E_SLIDER] = {.kind = CT_BODY_KINEMATIC,
                      .half_extents = {0.25f, 0.25f, 0.25f},
                      .position = {5, 0.25f, 3},
                      .velocity = {-1, 0, 0}},
    };
    for (int k = E_GROUND; k <= E_SLIDER; k++)
        assert_int_equal(rf.physics->add_body(w, e[k], &bodies[k]), 0);
    const ct_point_mass_desc_t point = {.mass = 2, .position = {1, 2, 3}, .velocity = {1, 0, 0}};
    assert_int_equal(rf.physics->add_point_mass(w, e[E_POINT], &point), 0);
    rf.physics->set_gravity(w, (const float[3]){0, -9.5f, 0});
    call("physics_listen", w, NULL, 2, (const double[]){e[E_BOX].id, e[E_BALL].id});
}

/* n steps, alternately through the C table and the Lua binding; callbacks run after each. */
static void step(ct_world_o *w, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++) {
        if (k & 1) {
            call("physics_step", w, NULL, 1, (const double[]){DT});
        } else {
            rf.physics->simulate(w, DT);
            call("physics_run", w, NULL, 0, NULL);
        }
    }
}

/* Force accumulators are state too: set just before a reload, used just after. */
static void push(ct_world_o *w)
{
    assert_int_equal(rf.physics->add_force(w, e[E_BALL], (const float[3]){3, 0, 0}), 0);
    assert_int_equal(rf.physics->add_point_force(w, e[E_POINT], (const float[3]){0, 4, 0}), 0);
}

/* Both worlds built and stepped to the reload point; the reference then runs to the end. The
 * tested world's collisions so far are marked: the ball lands after the reload. */
static void start_scene(void)
{
    assert_int_equal(rf.entity->create_batch(e, NUM_E), NUM_E);
    rf.live += NUM_E;
    assert_int_equal(rf.lua->run_string(script, "physics_reload_script"), 0);
    tested = rf.world_api->create_world(&(ct_world_desc_t){.name = "tested"});
    reference = rf.world_api->create_world(&(ct_world_desc_t){.name = "reference"});
    assert_true(tested && reference);
    build(tested);
    build(reference);
    step(tested, BEFORE);
    step(reference, BEFORE);
    push(tested);
    push(reference);
    step(reference, AFTER);
    call("physics_mark", tested, NULL, 0, NULL);
}

/* Lifts the ball to drop again (the same in both worlds before a second round). */
static void lift_ball(ct_world_o *w)
{
    assert_int_equal(rf.physics->teleport(w, e[E_BALL], (const float[3]){0.2f, 4, 0}), 0);
    assert_int_equal(rf.physics->set_velocity(w, e[E_BALL], (const float[3]){0, 0, 0}), 0);
}

/* The tested world's state, its last event stream and its settings as they were. */
typedef struct snapshot_t {
    uint64_t hash;
    uint32_t events_size;
    uint8_t events[512];
    float gravity[3];
} snapshot_t;

static snapshot_t snapshot(void)
{
    snapshot_t s = {.hash = rf.physics->state_hash(tested)};
    const void *events = rf.physics->events(tested, &s.events_size);
    assert_true(s.events_size <= sizeof s.events);
    memcpy(s.events, events, s.events_size);
    rf.physics->gravity(tested, s.gravity);
    return s;
}

static void check_snapshot(const snapshot_t *s)
{
    const snapshot_t now = snapshot();
    assert_true(now.hash == s->hash);
    assert_int_equal(now.events_size, s->events_size);
    assert_memory_equal(now.events, s->events, s->events_size);
    assert_memory_equal(now.gravity, s->gravity, sizeof s->gravity);
    assert_int_equal(rf.physics->body_count(tested), 4);
    assert_int_equal(rf.physics->point_mass_count(tested), 1);
}

/* The tested world, stepped the rest of the way, matches the reference bit for bit, collisions
 * included (the ball landed since the mark), and answers queries the same. */
static void finish_and_compare(void)
{
    step(tested, AFTER);
    call("physics_compare", tested, reference, 0, NULL);
    ct_entity_t found_t[NUM_E], found_r[NUM_E];
    const float c[3] = {0, 1, 0};
    const uint32_t n = rf.physics->overlap_sphere(tested, c, 1.5f, found_t, NUM_E);
    assert_true(n >= 3);
    assert_int_equal(rf.physics->overlap_sphere(reference, c, 1.5f, found_r, NUM_E), n);
    assert_memory_equal(found_t, found_r, n * sizeof *found_t);
    ct_physics_hit_t hit_t, hit_r;
    const float o[3] = {0.2f, 10, 0}, down[3] = {0, -1, 0};
    assert_true(rf.physics->raycast(tested, o, down, 20, &hit_t));
    assert_true(rf.physics->raycast(reference, o, down, 20, &hit_r));
    assert_memory_equal(&hit_t, &hit_r, sizeof hit_t);
}

/* A level compiled and spawned now, driven through Lua (Physics.*, Actor.*), then its entities
 * destroyed (bodies go at once, point masses at the next collection) and its world too: every
 * callback of both component types runs, from the code running now. Leaves nothing behind. */
static void check_fresh_world(void)
{
    static uint32_t checks;
    char name[32];
    snprintf(name, sizeof name, "levels/physics%u", checks++);
    assert_int_equal(rf.resource->load_source("level", name, scratch_level, strlen(scratch_level)),
                     0);
    ct_world_o *w = rf.world_api->create_world(&(ct_world_desc_t){.name = "fresh"});
    assert_non_null(w);
    ct_entity_t s[2];
    assert_int_equal(
        rf.world_api->spawn_resource(w, rf.resource->get("level", name), NULL, NULL, s, 2), 2);
    assert_int_equal(rf.physics->body_count(w), 2);
    assert_int_equal(rf.physics->point_mass_count(w), 1);
    float p[3];
    assert_int_equal(rf.physics->position(w, s[0], p), 0);
    const ct_entity_t ground = p[1] < 0 ? s[0] : s[1], ball = p[1] < 0 ? s[1] : s[0];
    call("physics_scratch", w, NULL, 2, (const double[]){ground.id, ball.id});
    rf.entity->destroy(ground);
    assert_int_equal(rf.physics->body_count(w), 1);
    rf.entity->destroy(ball);
    assert_int_equal(rf.physics->body_count(w), 0);
    assert_int_equal(rf.physics->point_mass_count(w), 1);
    rf.world_api->collect_garbage(w);
    assert_int_equal(rf.physics->point_mass_count(w), 0);
    rf.world_api->destroy_world(w);
    rf.resource->unload("level", name);
}

static void check_all(void)
{
    check_fresh_world();
    reload_fixture_check();
}

static void reload_continues_the_simulation(void **state)
{
    (void)state;
    start_scene();
    const snapshot_t before = snapshot();
    assert_int_equal(loader__reload("ct.physics"), 0);
    assert_int_equal(reload_fixture_reload_count("ct.physics"), 1);
    check_snapshot(&before);
    finish_and_compare();
    check_all();
    /* Again, now replacing a reloaded copy; then the modules physics stands on. */
    assert_int_equal(loader__reload("ct.physics"), 0);
    assert_int_equal(reload_fixture_reload_count("ct.physics"), 2);
    check_all();
    lift_ball(tested);
    lift_ball(reference);
    call("physics_mark", tested, NULL, 0, NULL);
    step(reference, AFTER);
    assert_int_equal(loader__reload("ct.entities"), 0);
    assert_int_equal(loader__reload("ct.transforms"), 0);
    finish_and_compare();
    check_all();
}

static void another_layout_is_refused(void **state)
{
    (void)state;
    start_scene();
    const snapshot_t before = snapshot();
    reload_fixture_install(PHYSICS_LAYOUT2, rf.physics_path);
    assert_int_equal(loader__reload("ct.physics"), CT_ERR_VERSION);
    assert_int_equal(reload_fixture_reload_count("ct.physics"), 0);
    check_snapshot(&before);
    finish_and_compare();
    check_all();
    reload_fixture_install(CT_TEST_MODULE("physics", "ct_physics"), rf.physics_path);
    assert_int_equal(loader__reload("ct.physics"), 0);
    check_all();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(reload_continues_the_simulation,
                                        reload_fixture_boot_with_physics, reload_fixture_shutdown),
        cmocka_unit_test_setup_teardown(another_layout_is_refused, reload_fixture_boot_with_physics,
                                        reload_fixture_shutdown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
