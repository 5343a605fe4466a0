/*
 * Sensors (ct_physics_api_v5.set_sensor): a ball falling through a sensor box makes exactly one
 * enter and one leave, at the steps pinned here; the sensor pushes nothing and no query sees it;
 * filters on either side keep a body out; a body removed inside a sensor makes a leave; a dynamic
 * body is refused; turning the sensor off makes it collide again; the Lua bindings and the
 * on_sensor_enter / on_sensor_leave callbacks. Sensors as data (v5 body sources: sensor = true,
 * layer, mask): a unit's trigger spawned into a level reports the level's falling ball and not the
 * one its mask leaves out, in the event stream and to Lua; bad sources are refused naming the
 * file, the entity and the field, and an edited blob is refused at load.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* The heap in use is read with glibc's mallinfo2; elsewhere the test that needs it says it
 * skipped that check. */
#if defined(__GLIBC__)
#include <malloc.h>
#define HEAP_IN_USE_KNOWN 1
#else
#define HEAP_IN_USE_KNOWN 0
#endif

#include "physics_module_fixture.h"

static const test_world_t *kt;

static int boot(void **state)
{
    (void)state;
    kt = physics_boot("sensors");
    return 0;
}

static const float step = 1.0f / 60.0f;

/* A static box 2 m wide and 1 m tall, from y = 2 to y = 3, made a sensor. */
static ct_entity_t sensor_box(ct_world_o *w)
{
    const ct_rigid_body_desc_t d = {.kind = CT_BODY_STATIC,
                                    .shape = CT_BODY_BOX,
                                    .half_extents = {1.0f, 0.5f, 1.0f},
                                    .friction = 0.5f,
                                    .position = {0.0f, 2.5f, 0.0f}};
    const ct_entity_t e = physics_body(w, &d);
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
    const ct_rigid_body_desc_t d = ball_desc(0.0f, 4.0f, 0.0f, 0.25f);
    const ct_entity_t ball = physics_body(w, &d);
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
    const ct_rigid_body_desc_t a = ball_desc(-0.6f, 4.0f, 0.0f, 0.25f),
                               b = ball_desc(0.0f, 4.0f, 0.0f, 0.25f),
                               c = ball_desc(0.6f, 4.0f, 0.0f, 0.25f);
    const ct_entity_t seen = physics_body(w, &a), wrong_layer = physics_body(w, &b),
                      blind = physics_body(w, &c);
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
    const ct_entity_t ground = physics_body(w, &floor);
    const ct_entity_t s = sensor_box(w);
    const ct_rigid_body_desc_t d = ball_desc(0.0f, 2.4f, 0.0f, 0.25f);
    const ct_entity_t ball = physics_body(w, &d);
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
    const ct_rigid_body_desc_t d2 = ball_desc(0.0f, 4.0f, 0.0f, 0.25f);
    const ct_entity_t ball2 = physics_body(w, &d2);
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

/* A new world `name` without gravity: the sensor of sensor_box into *s, a ball of radius 0.25 at
 * its middle into *ball. */
static ct_world_o *ball_in_sensor(const char *name, ct_entity_t *s, ct_entity_t *ball)
{
    ct_world_o *w = worlds->create_world(&(ct_world_desc_t){.name = name});
    p5->set_gravity(w, (float[3]){0, 0, 0});
    *s = sensor_box(w);
    const ct_rigid_body_desc_t d = ball_desc(0.0f, 2.5f, 0.0f, 0.25f);
    *ball = physics_body(w, &d);
    return w;
}

/* A sensor's body removed and another given to the same entity before the next step: the new
 * body is an ordinary one (no sensor, its own filter), as after a step. A ball floating in the
 * sensor (no gravity) is not listed in it, and the new box, solid, pushes it out. Before, the
 * sensor's record stayed until the next step's pass and was taken for the new body's: is_sensor
 * said true, collision_filter read the old sensor's filter, set_collision_filter wrote there (the
 * box collided with its own filter, not the one set), and the ball stayed listed inside a solid
 * box with no leave. */
static void test_body_replaced_under_a_sensor(void **state)
{
    (void)state;
    ct_entity_t s, ball;
    ct_world_o *w = ball_in_sensor("replaced", &s, &ball);
    assert_int_equal(p5->set_collision_filter(w, s, 2u, 1u), 0);
    tally t = {0, 0, -1, -1, 0};
    p5->simulate(w, step);
    count(w, s, 0, &t);
    assert_int_equal(t.enters, 1);
    assert_int_equal(p5->remove_body(w, s), 0);
    const ct_rigid_body_desc_t box = {.kind = CT_BODY_STATIC,
                                      .shape = CT_BODY_BOX,
                                      .half_extents = {1.0f, 0.5f, 1.0f},
                                      .friction = 0.5f,
                                      .position = {0.0f, 2.5f, 0.0f}};
    assert_int_equal(p5->add_rigid_body(w, s, &box), 0);
    assert_false(p5->is_sensor(w, s));
    ct_entity_t in[2];
    assert_int_equal(p5->sensor_contents(w, s, in, 2), 0);
    uint32_t layer = 0, mask = 0;
    assert_int_equal(p5->collision_filter(w, s, &layer, &mask), 0);
    assert_int_equal(layer, 1u);
    assert_int_equal(mask, UINT32_MAX);
    for (int k = 1; k < 60; k++) {
        p5->simulate(w, step);
        count(w, s, k, &t);
    }
    assert_int_equal(t.enters, 1);
    assert_int_equal(t.leaves, 0);
    float p[3];
    assert_int_equal(p5->position(w, ball, p), 0);
    assert_true(fabsf(p[0]) > 1.0f || fabsf(p[1] - 2.5f) > 0.5f || fabsf(p[2]) > 1.0f);
    worlds->destroy_world(w);
}

/* The sensor events of the steps from `from` to 120 (the ball falls through the sensor of
 * test_fall_through, inside it from step 23 to 39), as "step:type:sensor:other " runs. */
static void sensor_events_until_120(ct_world_o *w, int from, char *out, size_t size)
{
    size_t at = 0;
    out[0] = '\0';
    for (int k = from; k < 120; k++) {
        p5->simulate(w, step);
        uint32_t n, pos = 0;
        const void *bytes = p5->events(w, &n);
        for (const ct_physics_event_header_t *h; (h = ct_physics_event_next(bytes, n, &pos));) {
            if (h->type != CT_PHYSICS_EVENT_SENSOR_ENTER && h->type != CT_PHYSICS_EVENT_SENSOR_LEAVE)
                continue;
            ct_physics_sensor_event_t ev;
            memcpy(&ev, h + 1, sizeof ev);
            at += (size_t)snprintf(out + at, size - at, "%d:%u:%u:%u ", k, h->type, ev.sensor,
                                   ev.other);
        }
    }
}

/* Rollback: a snapshot saved with the ball inside the sensor (step 30), restored once it has left
 * (step 60), holds the ball in the sensor again, and the steps after make the events of never
 * having left: the leave at step 40 and no second enter. One saved before the ball came (step 10)
 * and restored with the ball inside holds nothing, and the enter comes again at step 23. Before,
 * the sensors' lists were not in the snapshot: the first restore listed nothing and the ball
 * entered again at step 30 (a trigger fired twice), the second listed the ball and it never
 * entered. */
static void test_restore_keeps_what_sensors_hold(void **state)
{
    (void)state;
    ct_world_o *w = worlds->create_world(&(ct_world_desc_t){.name = "sensor_rollback"});
    const ct_entity_t s = sensor_box(w);
    const ct_rigid_body_desc_t d = ball_desc(0.0f, 4.0f, 0.0f, 0.25f);
    const ct_entity_t ball = physics_body(w, &d);
    uint8_t *saved[2] = {NULL, NULL};
    uint32_t size[2] = {0, 0};
    static const int save_at[2] = {10, 30};
    static char never_left[2][512], again[512];
    for (int k = 0; k < 31; k++) {
        for (int q = 0; q < 2; q++)
            if (k == save_at[q]) {
                size[q] = p5->snapshot_size(w);
                saved[q] = malloc(size[q]);
                assert_non_null(saved[q]);
                assert_int_equal(p5->save_snapshot(w, saved[q], size[q]), size[q]);
            }
        if (k < 30)
            p5->simulate(w, step);
    }
    ct_entity_t in[2];
    assert_int_equal(p5->sensor_contents(w, s, in, 2), 1);
    sensor_events_until_120(w, 30, never_left[1], sizeof never_left[1]);
    /* From step 10 the whole way: the run that never left it. */
    assert_int_equal(p5->restore_snapshot(w, saved[0], size[0]), 0);
    assert_int_equal(p5->sensor_contents(w, s, in, 2), 0);
    sensor_events_until_120(w, 10, never_left[0], sizeof never_left[0]);
    char want[2][128];
    snprintf(want[0], sizeof want[0], "23:%u:%u:%u 40:%u:%u:%u ", CT_PHYSICS_EVENT_SENSOR_ENTER,
             s.id, ball.id, CT_PHYSICS_EVENT_SENSOR_LEAVE, s.id, ball.id);
    snprintf(want[1], sizeof want[1], "40:%u:%u:%u ", CT_PHYSICS_EVENT_SENSOR_LEAVE, s.id,
             ball.id);
    assert_string_equal(never_left[0], want[0]);
    assert_string_equal(never_left[1], want[1]);
    /* Restored at step 60 (the ball gone below) to step 30. */
    assert_int_equal(p5->restore_snapshot(w, saved[0], size[0]), 0);
    for (int k = 10; k < 60; k++)
        p5->simulate(w, step);
    assert_int_equal(p5->restore_snapshot(w, saved[1], size[1]), 0);
    assert_int_equal(p5->sensor_contents(w, s, in, 2), 1);
    assert_int_equal(in[0].id, ball.id);
    sensor_events_until_120(w, 30, again, sizeof again);
    assert_string_equal(again, never_left[1]);
    /* Restored at step 30 (the ball inside) to step 10. */
    assert_int_equal(p5->restore_snapshot(w, saved[1], size[1]), 0);
    assert_int_equal(p5->restore_snapshot(w, saved[0], size[0]), 0);
    assert_int_equal(p5->sensor_contents(w, s, in, 2), 0);
    sensor_events_until_120(w, 10, again, sizeof again);
    assert_string_equal(again, never_left[0]);
    free(saved[0]);
    free(saved[1]);
    worlds->destroy_world(w);
}

/* The sensors' part of a snapshot damaged (its last byte cut, a byte added, a count or an id made
 * zero or huge) is refused naming it, and the world is as it was: the ball still listed. */
static void test_damaged_sensor_part_refused(void **state)
{
    (void)state;
    ct_entity_t s, ball;
    ct_world_o *w = ball_in_sensor("sensor_damage", &s, &ball);
    p5->simulate(w, step);
    const uint32_t size = p5->snapshot_size(w);
    uint8_t *snap = malloc(size + 1), *bad = malloc(size + 1);
    assert_non_null(snap);
    assert_non_null(bad);
    assert_int_equal(p5->save_snapshot(w, snap, size), size);
    /* The part is the snapshot's last 3 bytes (entity ids under 128): the sensor's id, 1, the
     * ball's id; the header's third word is the size. */
    assert_int_equal(snap[size - 3], s.id);
    assert_int_equal(snap[size - 2], 1);
    assert_int_equal(snap[size - 1], ball.id);
    log__set_sink(capture, NULL);
    static const struct { uint32_t at, value; int grow; } edits[] = {
        {0, 0, -1}, {0, 0, 1}, {3, 0, 0}, {2, 0, 0}, {2, 0x7f, 0}, {1, 0, 0}, {3, 0x80, 0}};
    for (size_t k = 0; k < sizeof edits / sizeof edits[0]; k++) {
        memcpy(bad, snap, size);
        uint32_t n = size + (uint32_t)edits[k].grow;
        if (edits[k].grow > 0)
            bad[size] = 0;
        else if (!edits[k].grow)
            bad[size - edits[k].at] = (uint8_t)edits[k].value;
        memcpy(bad + 8, &n, sizeof n);
        captured[0] = '\0';
        assert_int_equal(p5->restore_snapshot(w, bad, n), CT_ERR_INVALID);
        if (!strstr(captured, "sensors") && !strstr(captured, "cut short"))
            fail_msg("edit %zu: '%s' names neither the sensors nor the size", k, captured);
        ct_entity_t in[2];
        assert_int_equal(p5->sensor_contents(w, s, in, 2), 1);
    }
    log__set_sink(NULL, NULL);
    assert_int_equal(p5->restore_snapshot(w, snap, size), 0);
    free(snap);
    free(bad);
    worlds->destroy_world(w);
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
    const ct_rigid_body_desc_t d = ball_desc(0.0f, 4.0f, 0.0f, 0.25f);
    const ct_entity_t e[2] = {physics_body(w, &box), physics_body(w, &d)};
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

/* ---- sensors as data ------------------------------------------------------------------------ */

/* A trigger unit: a static box 2 m wide and 1 m tall made a sensor that sees layer 1 only. */
static const char trigger_unit[] =
    "entities = [\n"
    "  { name = \"trigger\" components = {\n"
    "      transform = {}\n"
    "      body = { kind = \"static\" shape = \"box\" half_extents = [1 0.5 1] sensor = true\n"
    "               layer = 2 mask = 1 } } }\n"
    "]\n";

/* A room: a floor far below, a ball dropped from 4 m over the trigger's place (layer 1, the
 * default; a rigid body as test_fall_through's, whose substeps put its steps where that test
 * pins them) and one beside it on layer 4, which the trigger's mask leaves out. */
static const char drop_level[] =
    "entities = [\n"
    "  { name = \"floor\" components = { transform = { position = [0 -10 0] }\n"
    "      body = { kind = \"static\" shape = \"box\" half_extents = [5 0.5 5] } } }\n"
    "  { name = \"ball\" components = { transform = { position = [0 4 0] }\n"
    "      body = { shape = \"sphere\" radius = 0.25 rotates = true } } }\n"
    "  { name = \"ghost\" components = { transform = { position = [0.6 4 0] }\n"
    "      body = { shape = \"sphere\" radius = 0.25 layer = 4 } } }\n"
    "]\n";

/* The unit spawned into the level at (0, 2.5, 0): the level's ball falls through it, making one
 * enter and one leave at the steps the API's own sensor gives (test_fall_through), read from the
 * event stream and by Lua's callbacks; the ghost on layer 4 makes none. */
static void test_unit_sensor_in_level(void **state)
{
    (void)state;
    assert_int_equal(physics_load("unit", "units/trigger", trigger_unit), 0);
    assert_int_equal(physics_load("level", "levels/drop", drop_level), 0);
    ct_world_o *w = worlds->create_world(&(ct_world_desc_t){.name = "drop"});
    ct_entity_t e[3];
    assert_int_equal(
        worlds->spawn_resource(w, kt->resource->get("level", "levels/drop"), NULL, NULL, e, 3), 3);
    const ct_entity_t s =
        worlds->spawn_unit(w, "units/trigger", (float[3]){0.0f, 2.5f, 0.0f}, NULL);
    assert_int_not_equal(s.id, 0);
    assert_true(p5->is_sensor(w, s));
    assert_false(p5->is_sensor(w, e[1]));
    uint32_t layer, mask;
    assert_int_equal(p5->collision_filter(w, s, &layer, &mask), 0);
    assert_int_equal(layer, 2u);
    assert_int_equal(mask, 1u);
    assert_int_equal(p5->collision_filter(w, e[2], &layer, &mask), 0);
    assert_int_equal(layer, 4u);
    assert_int_equal(mask, 0xffffffffu);
    const ct_entity_t both[2] = {s, e[1]};
    assert_int_equal(
        lua->run_string("function trigger_lua(w, s, ball)\n"
                        "  trigger_in, trigger_out = 0, 0\n"
                        "  World.set_callback(w, s, 'on_sensor_enter', function(_, o)\n"
                        "    assert(o == ball); trigger_in = trigger_in + 1 end)\n"
                        "  World.set_callback(w, s, 'on_sensor_leave', function(_, o)\n"
                        "    assert(o == ball); trigger_out = trigger_out + 1 end)\n"
                        "end\n"
                        "function trigger_run(w)\n"
                        "  World.run_callbacks(w)\n"
                        "end\n"
                        "function trigger_check(w)\n"
                        "  assert(trigger_in == 1 and trigger_out == 1,\n"
                        "         trigger_in .. ' ' .. trigger_out)\n"
                        "end\n",
                        "trigger_lua"),
        0);
    test_lua_call("trigger_lua", w, both, 2);
    tally t = {0, 0, -1, -1, 0};
    for (int k = 0; k < 60; k++) {
        p5->simulate(w, step);
        count(w, s, k, &t);
        test_lua_call("trigger_run", w, NULL, 0);
    }
    print_message("unit trigger: enter at step %d, leave at step %d\n", t.first_enter,
                  t.first_leave);
    assert_int_equal(t.enters, 1);
    assert_int_equal(t.leaves, 1);
    assert_int_equal(t.other, e[1].id);
    assert_int_equal(t.first_enter, 23);
    assert_int_equal(t.first_leave, 40);
    test_lua_call("trigger_check", w, NULL, 0);
    /* The ghost fell through the trigger's place all the same (a sensor pushes nothing). */
    float p[3];
    assert_int_equal(p5->position(w, e[2], p), 0);
    assert_true(p[1] < 0.0f);
    worlds->destroy_world(w);
    entity->destroy_batch(e, 3);
    entity->destroy(s);
    kt->resource->unload("level", "levels/drop");
    kt->resource->unload("unit", "units/trigger");
}

/* A level whose one entity has `body` written as `fields`. */
static int compile_body(const char *fields)
{
    return physics_compile_level("levels/bad_sensor", "gate", "transform = {} body = { %s }",
                                 fields);
}

static void expect_refused(const char *fields, const char *words)
{
    physics_level_refused(words, "levels/bad_sensor", "gate", "transform = {} body = { %s }",
                          fields);
}

static void test_bad_sensor_sources(void **state)
{
    (void)state;
    log__set_sink(capture, NULL);
    expect_refused("sensor = true", "body.sensor (a dynamic body cannot be a sensor");
    expect_refused("kind = \"dynamic\" sensor = true", "body.sensor (a dynamic body");
    expect_refused("kind = \"static\" sensor = 1", "body.sensor");
    expect_refused("kind = \"static\" sensr = true", "did you mean 'sensor'");
    expect_refused("layer = -1", "body.layer: must be a whole number from 0 to 4294967295");
    expect_refused("layer = \"2\"", "body.layer");
    expect_refused("mask = 1.5", "body.mask: must be a whole number");
    expect_refused("mask = 4294967296", "body.mask: must be a whole number");
    expect_refused("mask = 1e39", "body.mask");
    expect_refused("kind = \"static\" sensor = true mask = [1]", "body.mask");
    /* And those that compile, to show the helper can tell. */
    assert_int_equal(compile_body("kind = \"kinematic\" sensor = true layer = 0 mask = 4294967295"),
                     0);
    assert_int_equal(compile_body("sensor = false layer = 3"), 0);
    log__set_sink(NULL, NULL);
    kt->resource->unload("level", "levels/bad_sensor");
}

/* A compiled body edited behind the compiler's back is refused when the level loads, naming the
 * entity, the type and the field: unknown flags, and a sensor made dynamic. */
static void test_edited_sensor_blob_refused(void **state)
{
    (void)state;
    test_blob_t b = test_blob_compile(
        "level", "entities = [ { name = \"gate\" components = {\n"
                 "  transform = {} body = { kind = \"static\" half_extents = [0.625 0.75 0.875]\n"
                 "  sensor = true layer = 74565 mask = 424090 } } "
                 "} ]\n");
    const uint32_t filter[2] = {74565u, 424090u};
    const size_t at = test_blob_find(&b, filter, sizeof filter);
    const char *const flag_words[] = {"entity 0", "body", "flags", NULL};
    test_blob_refused(&b, at + 8, 1.0f, flag_words);
    /* The desc's kind is its first word: 0.0f is CT_BODY_DYNAMIC. */
    const uint32_t kind = CT_BODY_STATIC;
    const float extents[3] = {0.625f, 0.75f, 0.875f};
    const size_t desc = test_blob_find(&b, extents, sizeof extents) - 8;
    uint32_t was;
    memcpy(&was, b.payload + desc, sizeof was);
    assert_int_equal(was, kind);
    const char *const kind_words[] = {"entity 0", "body", "sensor", "dynamic", NULL};
    test_blob_refused(&b, desc, 0.0f, kind_words);
    test_blob_free(&b);
}

/* The heap in use (bytes): what malloc handed out, from its arenas and mapped alone; 0 where
 * glibc's mallinfo2 is not there to say. */
static size_t heap_in_use(void)
{
#if HEAP_IN_USE_KNOWN
    const struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
#else
    return 0;
#endif
}

/* Physics stepped with nothing running the world's script callbacks (a tool, a server, a test
 * calling simulate alone: no World.run_callbacks): 60 balls teleported into the sensor box and out
 * again every other step, 10,000 steps, make 600,000 on_sensor_enter and on_sensor_leave
 * callbacks, some 19 MB queued; the heap grows by under 8 MB (the world's queue keeps at most
 * 4 MB, its newest). It grew by all of them. */
static void test_callbacks_nobody_runs_stay_bounded(void **state)
{
    (void)state;
    ct_world_o *w = worlds->create_world(&(ct_world_desc_t){.name = "unrun"});
    p4->set_gravity(w, (float[3]){0, 0, 0});
    const ct_entity_t s = sensor_box(w);
    ct_entity_t balls[60];
    for (int k = 0; k < 60; k++) {
        const float x = -0.9f + 0.2f * (float)(k % 10), z = -0.5f + 0.2f * (float)(k / 10);
        balls[k] = physics_body(w, &(ct_rigid_body_desc_t){.kind = CT_BODY_DYNAMIC,
                                                           .shape = CT_BODY_SPHERE,
                                                           .radius = 0.05f,
                                                           .mass = 1.0f,
                                                           .position = {x, 5.0f, z}});
    }
    size_t before = 0;
    tally t = {.first_enter = -1, .first_leave = -1};
    for (int k = 0; k < 10000; k++) {
        for (int b = 0; b < 60; b++) {
            float p[3];
            assert_int_equal(p4->position(w, balls[b], p), 0);
            p[1] = k % 2 ? 5.0f : 2.5f;
            assert_int_equal(p4->teleport(w, balls[b], p), 0);
        }
        p4->simulate(w, step);
        if (k == 99)
            before = heap_in_use();
        if (k >= 9998)
            count(w, s, k, &t);
    }
    const size_t after = heap_in_use();
    worlds->destroy_world(w);
    print_message("heap %zu -> %zu bytes after 10,000 steps\n", before, after);
    /* The last two steps: each ball went in, then out. */
    assert_int_equal(t.enters, 60);
    assert_int_equal(t.leaves, 60);
    if (!HEAP_IN_USE_KNOWN) {
        print_message("skipped: the heap's growth needs glibc's mallinfo2 (the callbacks were "
                      "checked)\n");
        skip();
    }
    assert_true(after < before + (8u << 20));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        physics_test(test_fall_through),
        physics_test(test_filters),
        physics_test(test_removed_body_leaves),
        physics_test(test_body_replaced_under_a_sensor),
        physics_test(test_restore_keeps_what_sensors_hold),
        physics_test(test_damaged_sensor_part_refused),
        physics_test(test_lua_sensors),
        physics_test(test_unit_sensor_in_level),
        physics_test(test_bad_sensor_sources),
        physics_test(test_edited_sensor_blob_refused),
        physics_test(test_callbacks_nobody_runs_stay_bounded),
    };
    return cmocka_run_group_tests(tests, boot, test_world_shutdown);
}
