/*
 * ct_input.h: keyboard, mouse and gamepad input, named actions, recording and replay.
 * API "ct.input", provided by modules/input (ct_input.so).
 *
 * Controls. Every digital control (a key, a mouse button, a gamepad button) and every axis has a
 * name, and scripts, bindings and recordings use only names, never platform codes:
 *   keys             the X11 keysym name in lower case: "w", "space", "return", "escape", "left",
 *                    "shift_l", "control_l", "f1", "1" ...
 *   mouse buttons    "mouse:left", "mouse:middle", "mouse:right", "mouse:x1", "mouse:x2"
 *   gamepad buttons  "gamepad:a", "gamepad:b", "gamepad:x", "gamepad:y", "gamepad:lb",
 *                    "gamepad:rb", "gamepad:back", "gamepad:start", "gamepad:guide",
 *                    "gamepad:ls", "gamepad:rs", "gamepad:dpad_left", "_right", "_up", "_down"
 *   gamepad axes     "gamepad:left_x", "gamepad:left_y", "gamepad:right_x", "gamepad:right_y",
 *                    "gamepad:lt", "gamepad:rt" (values -32767..32767; triggers rest at -32767)
 * A name is 1..31 bytes of a-z, 0-9, '_', ':' (so "W" is refused, not folded). control() turns a
 * name into a small id (interned; at most CT_INPUT_MAX_CONTROLS names per run).
 *
 * Frames. The module works at the start of every frame (its frame_begin hook, before the boot
 * script's update): it clears the frame's pressed/released flags, relative motion and wheel, then
 * applies the frame's events in order: those injected since the last frame (inject(), the Lua
 * Input.inject, a console script), then those of the window and the gamepad. down() is the state
 * after the frame's events; pressed()/released() say whether a down/up event happened during the
 * frame (both can be true for a tap shorter than a frame). A key held down is one down event
 * (auto-repeat is ignored).
 *
 * Sources.
 *   window    `cuttle --window`: the renderer opens an X11 window and hands it to attach_x11
 *             (the module opens its own X connection and listens on that window: keys, buttons,
 *             wheel (buttons 4-7), motion; focus loss releases every key held). With capture on
 *             (set_capture), the pointer is grabbed and hidden, kept at the window's centre, and
 *             motion reports only dx/dy: a mouse-look.
 *   gamepad   the Linux joystick interface (linux/joystick.h, /dev/input/js0, the xpad layout of
 *             an Xbox-style pad): chosen over evdev because it needs no permissions beyond the
 *             device node and reports buttons and axes already numbered. `--gamepad PATH` picks
 *             another device or a file/FIFO of struct js_event records (the tests use one);
 *             `--gamepad none` disables it. A missing default device is silent.
 *   injected  inject(), Input.inject, or a console script calling it.
 *
 * Recording and replay (after the seed post "Scripted Network Debugging": every bug
 * reproducible by script). `cuttle --record-input FILE` writes every event the module applies,
 * with its frame; `cuttle --replay-input FILE` applies the recorded events at their frames and
 * ignores the window, the gamepad and injected events, so a headless run with a fixed --dt
 * replays a played session bit for bit. The file is text, one event per line (integers only):
 *
 *     cuttle-input 1
 *     12 down w            frame, then: down|up CONTROL
 *     40 up w
 *     41 motion 320 240 5 -3    motion X Y DX DY (window pixels)
 *     41 wheel 0 1         wheel X Y (steps; y > 0 away from the user)
 *     50 axis gamepad:left_x -16000
 *
 * Frames count from 1 (the first frame); lines starting with '#' and blank lines are skipped;
 * frames never go down. A malformed file is refused at start with its line number.
 *
 * Actions. A project binds names to controls in an `*.input` resource (SJSON), so scripts never
 * hard-code keys:
 *
 *     jump = ["space" "gamepad:a"]
 *     fire = ["mouse:left" "gamepad:rb"]
 *
 * use_bindings("input/controls") loads the compiled resource ("input", "input/controls") and
 * replaces the actions; an action is down when any of its controls is, pressed when one was
 * pressed this frame, released when one was released and none is down. At most
 * CT_INPUT_MAX_ACTIONS actions of CT_INPUT_MAX_BINDS controls each; an unknown field type or a
 * bad control name fails the compile naming the action.
 *
 * Lua (module `Input`):
 *   Input.down(name) / Input.pressed(name) / Input.released(name) -> boolean (a control name)
 *   Input.axis(name) -> -1..1
 *   Input.mouse() -> x, y, dx, dy, wheel_x, wheel_y   (this frame's relative motion and wheel)
 *   Input.events() -> { {type="down", control="w"}, {type="motion", x=, y=, dx=, dy=},
 *                       {type="wheel", x=, y=}, {type="axis", control=, value=}, ... } in order
 *   Input.inject("down", "w") / ("up", name) / ("motion", x, y, dx, dy) / ("wheel", x, y) /
 *                ("axis", name, value): applied at the start of the next frame
 *   Input.action(name) -> down, pressed, released      Input.bind(name, {controls...})
 *   Input.use_bindings(resource_name)    Input.set_capture(on)    Input.frame() -> frame number
 * A bad control name raises an error naming it.
 *
 * Threads: main thread only.
 */
#ifndef CT_INPUT_H
#define CT_INPUT_H

#include "ct_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CT_INPUT_API 0xad47be46u /* "ct.input" */

#define CT_INPUT_MAX_CONTROLS 1024u
#define CT_INPUT_MAX_ACTIONS 128u
#define CT_INPUT_MAX_BINDS 8u
#define CT_INPUT_MAX_NAME 32u /* bytes of a control or action name, NUL included */

/* The kind of an event (ct_input_event_t.type). */
enum ct_input_event_type {
    CT_INPUT_DOWN = 1,   /* control went down */
    CT_INPUT_UP = 2,     /* control went up */
    CT_INPUT_MOTION = 3, /* pointer moved: x, y, dx, dy */
    CT_INPUT_WHEEL = 4,  /* wheel steps: x, y */
    CT_INPUT_AXIS = 5,   /* axis control moved: value */
};

/* One input event. Fields a type does not use are 0. */
typedef struct ct_input_event_t {
    uint32_t type;    /* enum ct_input_event_type */
    uint32_t control; /* DOWN, UP, AXIS: the control's id (control()) */
    int32_t x, y;     /* MOTION: pointer position in window pixels; WHEEL: steps */
    int32_t dx, dy;   /* MOTION: relative motion in pixels */
    int32_t value;    /* AXIS: -32767..32767 */
    uint32_t frame;   /* the frame it was applied in (filled by the module) */
} ct_input_event_t;

/* The pointer this frame. */
typedef struct ct_input_mouse_t {
    int32_t x, y;             /* position in window pixels after the frame's events */
    int32_t dx, dy;           /* relative motion summed over the frame */
    int32_t wheel_x, wheel_y; /* wheel steps summed over the frame */
} ct_input_mouse_t;

typedef struct ct_input_api_v1 {
    /* The id of control `name` (interned on first use), or 0 for a name that breaks the rules
     * above or when the table is full (logged once). Ids are stable for the run. */
    uint32_t (*control)(const char *name);
    /* The name of control `id`, or NULL. Owned by the module, valid until shutdown. */
    const char *(*control_name)(uint32_t id);

    /* State of a control this frame (0 or an unknown id: false / 0). */
    bool (*down)(uint32_t control);
    bool (*pressed)(uint32_t control);
    bool (*released)(uint32_t control);
    int32_t (*axis)(uint32_t control);
    ct_input_mouse_t (*mouse)(void);

    /* This frame's events in the order they were applied; *count receives their number. The
     * array is the module's, valid until the next frame. */
    const ct_input_event_t *(*events)(uint32_t *count);

    /* Queues `e` for the start of the next frame (e->frame is ignored). CT_ERR_INVALID for a bad
     * type or control id (logged), CT_ERR_NOMEM when the queue is full (4096 events). Ignored,
     * with one warning, while replaying. */
    int (*inject)(const ct_input_event_t *e);

    /* The id of action `name` (1..), or 0 when no binding defines it. */
    uint32_t (*action)(const char *name);
    bool (*action_down)(uint32_t action);
    bool (*action_pressed)(uint32_t action);
    bool (*action_released)(uint32_t action);
    /* Binds (or rebinds) action `name` to `n` control names (n <= CT_INPUT_MAX_BINDS); returns
     * its id, or 0 (logged) for a bad name, a bad control or a full table. */
    uint32_t (*bind)(const char *name, const char *const *controls, uint32_t n);
    /* Replaces every action with those of the compiled `*.input` resource `name` (loaded and
     * unloaded around the call). 0, or the resource system's error (logged). */
    int (*use_bindings)(const char *name);

    /* For the renderer (or another window owner): listen to X11 window `window` (an XID) of the
     * display $DISPLAY names, from now on. 0, or CT_ERR_IO when the display does not open. */
    int (*attach_x11)(unsigned long window);
    /* Stop listening to `window` (before the owner destroys it). Unknown windows are ignored. */
    void (*detach_x11)(unsigned long window);
    /* Pointer capture for mouse-look (see Sources). Without a window it only records the wish. */
    void (*set_capture)(bool on);

    /* The current frame number (1 during the first frame; 0 before it). */
    uint32_t (*frame)(void);
} ct_input_api_v1;

#ifdef __cplusplus
}
#endif
#endif
