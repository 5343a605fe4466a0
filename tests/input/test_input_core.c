/* The input module's kernel-free core: names, frame state, actions, the recording format and the
 * bindings blob (modules/input/input_core.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "input_core.h"

static input__core *new_core(void) { return calloc(1, sizeof(input__core)); }

static void names(void **st)
{
    (void)st;
    input__core *c = new_core();
    assert_true(input__name_ok("gamepad:a", 9));
    assert_false(input__name_ok("W", 1));
    assert_false(input__name_ok("", 0));
    assert_false(input__name_ok("a b", 3));
    assert_false(input__name_ok("0123456789012345678901234567890123", 34));
    const uint32_t w = input__intern(c, "w", 1), space = input__intern(c, "space", 5);
    assert_int_equal(w, 1);
    assert_int_equal(space, 2);
    assert_int_equal(input__intern(c, "w", 1), 1);
    assert_int_equal(input__lookup(c, "space", 5), 2);
    assert_int_equal(input__lookup(c, "spac", 4), 0);
    assert_int_equal(input__intern(c, "Space", 5), 0);
    /* The table holds CT_INPUT_MAX_CONTROLS names, then refuses. */
    char name[16];
    for (uint32_t i = c->num_controls; i < CT_INPUT_MAX_CONTROLS; i++) {
        snprintf(name, sizeof name, "k%u", i);
        assert_int_not_equal(input__intern(c, name, strlen(name)), 0);
    }
    assert_int_equal(input__intern(c, "one_more", 8), 0);
    assert_int_equal(input__intern(c, "w", 1), 1);
    free(c);
}

static void frame_state(void **st)
{
    (void)st;
    input__core *c = new_core();
    const uint32_t w = input__intern(c, "w", 1), stick = input__intern(c, "gamepad:left_x", 14);
    input__begin_frame(c);
    assert_int_equal(c->frame, 1);
    assert_true(input__apply(c, &(ct_input_event_t){.type = CT_INPUT_DOWN, .control = w}));
    /* A repeat of a held key is no event. */
    assert_false(input__apply(c, &(ct_input_event_t){.type = CT_INPUT_DOWN, .control = w}));
    assert_true(c->down[w] && c->pressed[w] && !c->released[w]);
    assert_true(input__apply(
        c, &(ct_input_event_t){.type = CT_INPUT_MOTION, .x = 5, .y = 6, .dx = 2, .dy = -1}));
    assert_true(input__apply(
        c, &(ct_input_event_t){.type = CT_INPUT_MOTION, .x = 7, .y = 6, .dx = 2, .dy = 0}));
    assert_true(input__apply(c, &(ct_input_event_t){.type = CT_INPUT_WHEEL, .y = 1}));
    assert_int_equal(c->mouse.x, 7);
    assert_int_equal(c->mouse.dx, 4);
    assert_int_equal(c->mouse.dy, -1);
    assert_int_equal(c->mouse.wheel_y, 1);
    assert_true(input__apply(
        c, &(ct_input_event_t){.type = CT_INPUT_AXIS, .control = stick, .value = -32767}));
    assert_false(input__apply(
        c, &(ct_input_event_t){.type = CT_INPUT_AXIS, .control = stick, .value = -32768}));
    assert_false(input__apply(c, &(ct_input_event_t){.type = CT_INPUT_DOWN, .control = 999}));
    assert_false(input__apply(c, &(ct_input_event_t){.type = 9}));
    input__begin_frame(c);
    assert_true(c->down[w] && !c->pressed[w]);
    assert_int_equal(c->mouse.dx, 0);
    assert_int_equal(c->mouse.wheel_y, 0);
    assert_int_equal(c->mouse.x, 7);
    assert_int_equal(c->axis[stick], -32767);
    assert_true(input__apply(c, &(ct_input_event_t){.type = CT_INPUT_UP, .control = w}));
    assert_false(input__apply(c, &(ct_input_event_t){.type = CT_INPUT_UP, .control = w}));
    assert_true(!c->down[w] && c->released[w]);
    free(c);
}

static void actions(void **st)
{
    (void)st;
    input__core *c = new_core();
    char err[160];
    const char *jump[] = {"space", "gamepad:a"};
    const uint32_t a = input__bind(c, "jump", jump, 2, err, sizeof err);
    assert_int_equal(a, 1);
    assert_int_equal(input__find_action(c, "jump"), 1);
    assert_int_equal(input__find_action(c, "fire"), 0);
    const char *bad[] = {"Space"};
    assert_int_equal(input__bind(c, "fire", bad, 1, err, sizeof err), 0);
    assert_non_null(strstr(err, "'Space' is not a control name"));
    assert_int_equal(input__bind(c, "Fire", jump, 2, err, sizeof err), 0);
    const uint32_t space = input__lookup(c, "space", 5), pad = input__lookup(c, "gamepad:a", 9);
    input__begin_frame(c);
    input__apply(c, &(ct_input_event_t){.type = CT_INPUT_DOWN, .control = space});
    input__apply(c, &(ct_input_event_t){.type = CT_INPUT_DOWN, .control = pad});
    assert_true(input__action_down(c, a) && input__action_pressed(c, a));
    input__begin_frame(c);
    input__apply(c, &(ct_input_event_t){.type = CT_INPUT_UP, .control = space});
    /* One of its controls is still down: not released. */
    assert_true(input__action_down(c, a));
    assert_false(input__action_released(c, a));
    input__begin_frame(c);
    input__apply(c, &(ct_input_event_t){.type = CT_INPUT_UP, .control = pad});
    assert_false(input__action_down(c, a));
    assert_true(input__action_released(c, a));
    assert_false(input__action_down(c, 0));
    assert_false(input__action_down(c, 7));
    free(c);
}

typedef struct collected {
    input__parsed p[16];
    uint32_t n;
} collected;

static bool collect(void *ud, const input__parsed *p)
{
    collected *c = ud;
    if (c->n == 16)
        return false;
    c->p[c->n++] = *p;
    return true;
}

static void recording_round_trip(void **st)
{
    (void)st;
    input__core *c = new_core();
    const ct_input_event_t events[] = {
        {.type = CT_INPUT_DOWN, .control = input__intern(c, "w", 1), .frame = 3},
        {.type = CT_INPUT_MOTION, .x = 320, .y = -5, .dx = 7, .dy = -3, .frame = 3},
        {.type = CT_INPUT_WHEEL, .x = 0, .y = -2, .frame = 4},
        {.type = CT_INPUT_AXIS,
         .control = input__intern(c, "gamepad:lt", 10),
         .value = -32767,
         .frame = 9},
        {.type = CT_INPUT_UP, .control = 1, .frame = 9},
    };
    char text[1024] = INPUT_RECORD_HEADER "\n# a comment\n\n";
    for (size_t i = 0; i < 5; i++) {
        char line[96];
        const size_t n = input__format_event(c, &events[i], line, sizeof line);
        assert_true(n > 0);
        strcat(text, line);
        strcat(text, "\n");
    }
    assert_string_equal(strstr(text, "3 down"), "3 down w\n3 motion 320 -5 7 -3\n4 wheel 0 -2\n"
                                                "9 axis gamepad:lt -32767\n9 up w\n");
    input__core *d = new_core();
    collected got = {0};
    char err[192];
    assert_int_equal(input__parse_recording(d, text, strlen(text), collect, &got, err, sizeof err),
                     0);
    assert_int_equal(got.n, 5);
    for (uint32_t i = 0; i < 5; i++) {
        assert_int_equal(got.p[i].frame, events[i].frame);
        assert_int_equal(got.p[i].event.type, events[i].type);
        assert_int_equal(got.p[i].event.x, events[i].x);
        assert_int_equal(got.p[i].event.dy, events[i].dy);
        assert_int_equal(got.p[i].event.value, events[i].value);
        assert_string_equal(d->names[got.p[i].event.control], c->names[events[i].control]);
    }
    free(c);
    free(d);
}

static void expect_refused(const char *text, const char *why)
{
    input__core *c = new_core();
    collected got = {0};
    char err[192] = "";
    const int r = input__parse_recording(c, text, strlen(text), collect, &got, err, sizeof err);
    if (r != CT_ERR_BAD_DATA || !strstr(err, why))
        fail_msg("'%s' gave '%s', wanted '%s'", text, err, why);
    free(c);
}

static void recording_refused(void **st)
{
    (void)st;
    expect_refused("", "line 1: not a recording");
    expect_refused("cuttle-input 2\n", "line 1: not a recording");
    expect_refused("cuttle-input 1\n1 jump w\n", "line 2: unknown event 'jump'");
    expect_refused("cuttle-input 1\n1 down W\n", "line 2: a control name is missing or bad");
    expect_refused("cuttle-input 1\n0 down w\n", "line 2: a frame number");
    expect_refused("cuttle-input 1\n5 down w\n4 up w\n", "line 3: frame 4 comes after frame 5");
    expect_refused("cuttle-input 1\n1 motion 1 2 3\n", "line 2: motion wants X Y DX DY");
    expect_refused("cuttle-input 1\n1 axis gamepad:lt 40000\n", "line 2: axis wants a value");
    expect_refused("cuttle-input 1\n1 wheel 0 1 2\n", "line 2: unexpected '2'");
    expect_refused(
        "cuttle-input 1\n1 down w\n1 up w\n1 down w\n1 up w\n1 down w\n1 up w\n1 down w\n1 up w\n"
        "1 down w\n1 up w\n1 down w\n1 up w\n1 down w\n1 up w\n1 down w\n1 up w\n1 down w\n",
        "line 18: too many events");
    expect_refused("cuttle-input 1\n1 down 9999999999999999999999999999999999999999\n",
                   "line 2: a control name");
    expect_refused("cuttle-input 1\n99999999999 down w\n", "line 2: a frame number");
}

static void bindings_blob(void **st)
{
    (void)st;
    /* jump = ["space" "gamepad:a"] */
    static const uint8_t good[] = {0x43, 0x54, 0x49, 0x4e, 1,   0,   0,   0,   4,   'j',
                                   'u',  'm',  'p',  2,    5,   's', 'p', 'a', 'c', 'e',
                                   9,    'g',  'a',  'm',  'e', 'p', 'a', 'd', ':', 'a'};
    char err[160];
    assert_true(input__bindings_check(good, sizeof good, err, sizeof err));
    input__core *c = new_core();
    assert_int_equal(input__bindings_apply(c, good, sizeof good, err, sizeof err), 0);
    assert_int_equal(input__find_action(c, "jump"), 1);
    assert_int_equal(c->actions[0].n, 2);
    uint8_t bad[sizeof good];
    memcpy(bad, good, sizeof good);
    bad[10] = 'U'; /* "jUmp" */
    assert_false(input__bindings_check(bad, sizeof bad, err, sizeof err));
    assert_false(input__bindings_check(good, sizeof good - 1, err, sizeof err));
    assert_false(input__bindings_check(good, 4, err, sizeof err));
    uint8_t longer[sizeof good + 1];
    memcpy(longer, good, sizeof good);
    longer[sizeof good] = 0;
    assert_false(input__bindings_check(longer, sizeof longer, err, sizeof err));
    assert_non_null(strstr(err, "1 bytes after the last action"));
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names),
        cmocka_unit_test(frame_state),
        cmocka_unit_test(actions),
        cmocka_unit_test(recording_round_trip),
        cmocka_unit_test(recording_refused),
        cmocka_unit_test(bindings_blob),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
