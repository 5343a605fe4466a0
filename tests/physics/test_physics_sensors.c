/*
 * Sensors (ct_physics_api_v5.set_sensor): a ball falling through a sensor box makes exactly one
 * enter and one leave, at the steps pinned here; the sensor pushes nothing and no query sees it;
 * filters on either side keep a body out; a body removed inside a sensor makes a leave; a dynamic
 * body is refused; turning the sensor off makes it collide again; the Lua bindings and the
 * on_sensor_enter / on_sensor_leave callbacks.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ct_entity.h"
#include "ct_lua.h"
#include "ct_physics.h"
#include "ct_world.h"
#include "test_kernel.h"

static const ct_entity_api_v2 *entity;
static const ct_world_api_v1 *worlds;
static const ct_physics_api_v5 *p5;
static const ct_lua_api_v1 *lua;

static int boot(void **state)
{
    (void)state;
    const char *paths[] = {CT_TEST_MODULE("entities", "ct_entities"),
                           CT_TEST_MODULE("transforms", "ct_transforms"),
                           CT_TEST_MODULE("physics", "ct_physics")};
    const kernel_desc_t desc = test_kernel_desc(paths, 3);
    const test_world_t *t = test_world_boot(&desc, "sensors");
    entity = t->entity, worlds = t->worlds, lua = t->lua;
    p5 = test_kernel_api(CT_PHYSICS_API, 5);
    assert_non_null(p5);
    return 0;
}

static const float step = 1.0f / 60.0f;

static ct_entity_t body(ct_world_o *w, const ct_rigid_body_desc_t *d)
{
    const ct_entity_t e = entity->create();
    assert_int_equal(p5->add_rigid_body(w, e, d), 0);
    return e;
}

static ct_rigid_body_desc_t ball_at(float x, float y, float z)
{
    return (ct_rigid_body_desc_t){.kind = CT_BODY_DYNAMIC,
                                  .shape = CT_BODY_SPHERE,
                                  .radius = 0.25f,
                                  .mass = 1.0f,
                                  .friction = 0.5f,
                                  .position = {x, y, z}};
}

/* A static box 2 m wide and 1 m tall, from y = 2 to y = 3, made a sensor. */
static ct_entity_t sensor_box(ct_world_o *w)
{
    const ct_rigid_body_desc_t d = {.kind = CT_BODY_STATIC,
                                    .shape = CT_BODY_BOX,
                                    .half_extents = {1.0f, 0.5f, 1.0f},
                                    .friction = 0.5f,
                                    .position = {0.0f, 2.5f, 0.0f}};
    const ct_entity_t e = body(w, &d);
    assert_int_equal(p5->set_sensor(w, e, true), 0);
    assert_true(p5->is_sensor(w, e));
    return e;
}

typedef struct tally {
    uint32_t enters, leaves;
    int first_enter, first_leave; /* the step of each, -1 when none */
    uint32_t other;               /* the last body named */
} tally;

/* Counts this step's sensor events of sensor s. */
static void count(ct_world_o *w, ct_entity_t s, int k, tally *t)
{
    uint32_t size, at = 0;
    const void *bytes = p5->events(w, &size);
    for (const ct_physics_event_header_t *h; (h = ct_physics_event_next(bytes, size, &at));) {
        if (h->type != CT_PHYSICS_EVENT_SENSOR_ENTER && h->type != CT_PHYSICS_EVENT_SENSOR_LEAVE)
            continue;
        ct_physics_sensor_event_t ev;
        assert_int_equal(h->size, sizeof ev);
        memcpy(&ev, h + 1, sizeof ev);
        if (ev.sensor != s.id)
            continue;
        t->other = ev.other;
        if (h->type == CT_PHYSICS_EVENT_SENSOR_ENTER) {
            t->first_enter = t->enters++ ? t->first_enter : k;
        } else {
            t->first_leave = t->leaves++ ? t->first_leave : k;
        }
    }
}

/* A ball dropped from 4 m falls through the sensor (its top at y = 3) without slowing: one enter
 * at the step its surface reaches y = 3, one leave when it has passed y = 2, and the sensor lists
 * it only in between. */
static void test_fall_through(void **state)
{
    (void)state;
    ct_world_o *w = worlds->create_world(&(ct_world_desc_t){.name = "fall"});
    const ct_entity_t s = sensor_box(w);
    const ct_rigid_body_desc_t d = ball_at(0.0f, 4.0f, 0.0f);
    const ct_entity_t ball = body(w, &d);
    tally t = {0, 0, -1, -1, 0};
    uint32_t listed = 0;
    for (int k = 0; k < 60; k++) {
        p5->simulate(w, step);
        count(w, s, k, &t);
        ct_entity_t in[4];
        const uint32_t n = p5->sensor_contents(w, s, in, 4);
        if (n) {
            assert_int_equal(n, 1);
            assert_int_equal(in[0].id, ball.id);
            listed++;
        }
    }
    print_message("fall: enter at step %d, leave at step %d, listed %u steps\n", t.first_enter,
                  t.first_leave, listed);
    assert_int_equal(t.enters, 1);
    assert_int_equal(t.leaves, 1);
    assert_int_equal(t.other, ball.id);
    /* Free fall from 4 m: the ball's bottom (y - 0.25) reaches 3 after 0.391 s (step 23, counting
     * from 0), its top (y + 0.25) passes 2 after 0.677 s (step 40). */
    assert_int_equal(t.first_enter, 23);
    assert_int_equal(t.first_leave, 40);
    assert_int_equal(listed, 17);
    float v[3];
    assert_int_equal(p5->velocity(w, ball, v), 0);
    assert_true(v[1] < -9.0f); /* it never slowed */
    /* Nothing sees the sensor: a ray down through it, beside the ball, hits nothing. */
    ct_physics_hit_t hit;
    assert_false(p5->raycast(w, (float[3]){0.8f, 10, 0.8f}, (float[3]){0, -1, 0}, 100.0f, &hit));
    worlds->destroy_world(w);
    entity->destroy(s);
    entity->destroy(ball);
}

/* Filters: a ball on a layer the sensor's mask leaves out, and one whose own mask leaves out the
 * sensor's layer, make no events; one that both accept does. */
static void test_filters(void **state)
{
    (void)state;
    ct_world_o *w = worlds->create_world(&(ct_world_desc_t){.name = "filters"});
    const ct_entity_t s = sensor_box(w);
    assert_int_equal(p5->set_collision_filter(w, s, 0x2u, 0x1u | 0x4u), 0);
    uint32_t layer, mask;
    assert_int_equal(p5->collision_filter(w, s, &layer, &mask), 0);
    assert_int_equal(layer, 0x2u);
    assert_int_equal(mask, 0x5u);
    const ct_rigid_body_desc_t a = ball_at(-0.6f, 4.0f, 0.0f), b = ball_at(0.0f, 4.0f, 0.0f),
                               c = ball_at(0.6f, 4.0f, 0.0f);
    const ct_entity_t seen = body(w, &a), wrong_layer = body(w, &b), blind = body(w, &c);
    assert_int_equal(p5->set_collision_filter(w, seen, 0x1u, 0x2u), 0);
    assert_int_equal(p5->set_collision_filter(w, wrong_layer, 0x8u, 0xffu), 0);
    assert_int_equal(p5->set_collision_filter(w, blind, 0x4u, 0x1u), 0);
    tally t = {0, 0, -1, -1, 0};
    for (int k = 0; k < 60; k++) {
        p5->simulate(w, step);
        count(w, s, k, &t);
    }
    assert_int_equal(t.enters, 1);
    assert_int_equal(t.leaves, 1);
    assert_int_equal(t.other, seen.id);
    worlds->destroy_world(w);
    entity->destroy(s);
    entity->destroy(seen);
    entity->destroy(wrong_layer);
    entity->destroy(blind);
}

/* A ball resting on a floor inside a sensor stays listed (asleep too); removing its body makes one
 * leave at the next step. A dynamic body cannot be a sensor; a sensor turned off collides again. */
static void test_removed_body_leaves(void **state)
{
    (void)state;
    ct_world_o *w = worlds->create_world(&(ct_world_desc_t){.name = "removed"});
    const ct_rigid_body_desc_t floor = {.kind = CT_BODY_STATIC,
                                        .shape = CT_BODY_BOX,
                                        .half_extents = {5.0f, 0.5f, 5.0f},
                                        .friction = 0.5f,
                                        .position = {0.0f, 1.5f, 0.0f}};
    const ct_entity_t ground = body(w, &floor);
    const ct_entity_t s = sensor_box(w);
    const ct_rigid_body_desc_t d = ball_at(0.0f, 2.4f, 0.0f);
    const ct_entity_t ball = body(w, &d);
    assert_int_equal(p5->set_sensor(w, ball, true), CT_ERR_INVALID);
    assert_false(p5->is_sensor(w, ball));
    tally t = {0, 0, -1, -1, 0};
    for (int k = 0; k < 120; k++) {
        p5->simulate(w, step);
        count(w, s, k, &t);
    }
    assert_true(p5->sleeping(w, ball));
    assert_int_equal(t.enters, 1);
    assert_int_equal(t.leaves, 0);
    ct_entity_t in[2];
    assert_int_equal(p5->sensor_contents(w, s, in, 2), 1);
    assert_int_equal(p5->remove_body(w, ball), 0);
    p5->simulate(w, step);
    count(w, s, 120, &t);
    assert_int_equal(t.leaves, 1);
    assert_int_equal(t.first_leave, 120);
    assert_int_equal(t.other, ball.id);
    assert_int_equal(p5->sensor_contents(w, s, in, 2), 0);
    /* Off again: a ball dropped on it now lands on its top (y = 3 + 0.25). */
    assert_int_equal(p5->set_sensor(w, s, false), 0);
    assert_false(p5->is_sensor(w, s));
    const ct_rigid_body_desc_t d2 = ball_at(0.0f, 4.0f, 0.0f);
    const ct_entity_t ball2 = body(w, &d2);
    for (int k = 0; k < 90; k++)
        p5->simulate(w, step);
    float p[3];
    assert_int_equal(p5->position(w, ball2, p), 0);
    assert_float_equal(p[1], 3.25f, 0.01f);
    worlds->destroy_world(w);
    entity->destroy(ground);
    entity->destroy(s);
    entity->destroy(ball);
    entity->destroy(ball2);
}

/* Lua: Actor.set_sensor, is_sensor, sensor_contents, and the callbacks on the sensor's entity. */
static void test_lua_sensors(void **state)
{
    (void)state;
    ct_world_o *w = worlds->create_world(&(ct_world_desc_t){.name = "lua_sensors"});
    const ct_rigid_body_desc_t box = {.kind = CT_BODY_STATIC,
                                      .shape = CT_BODY_BOX,
                                      .half_extents = {1.0f, 0.5f, 1.0f},
                                      .position = {0.0f, 2.5f, 0.0f}};
    const ct_rigid_body_desc_t d = ball_at(0.0f, 4.0f, 0.0f);
    const ct_entity_t e[2] = {body(w, &box), body(w, &d)};
    const char *script =
        "function sensors_lua(w, s, ball)\n"
        "  enters, leaves, seen = 0, 0, 0\n"
        "  Actor.set_sensor(w, s, true)\n"
        "  assert(Actor.is_sensor(w, s) and not Actor.is_sensor(w, ball))\n"
        "  assert(not pcall(Actor.set_sensor, w, ball, true))\n"
        "  World.set_callback(w, s, 'on_sensor_enter', function(self, other)\n"
        "    assert(other == ball); enters = enters + 1 end)\n"
        "  World.set_callback(w, s, 'on_sensor_leave', function(self, other)\n"
        "    assert(other == ball); leaves = leaves + 1 end)\n"
        "  for i = 1, 60 do\n"
        "    Physics.simulate(w, 1 / 60)\n"
        "    World.run_callbacks(w)\n"
        "    local inside = Actor.sensor_contents(w, s)\n"
        "    if #inside == 1 then assert(inside[1] == ball); seen = seen + 1 end\n"
        "  end\n"
        "  assert(enters == 1 and leaves == 1, enters .. ' ' .. leaves)\n"
        "  assert(seen == 17, seen)\n"
        "end\n";
    assert_int_equal(lua->run_string(script, "sensors_lua"), 0);
    test_lua_call("sensors_lua", w, e, 2);
    worlds->destroy_world(w);
    entity->destroy(e[0]);
    entity->destroy(e[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fall_through),
        cmocka_unit_test(test_filters),
        cmocka_unit_test(test_removed_body_leaves),
        cmocka_unit_test(test_lua_sensors),
    };
    return cmocka_run_group_tests(tests, boot, test_world_shutdown);
}
