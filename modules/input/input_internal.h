/*
 * input_internal.h: the input module's private contract between its files.
 *
 * input.c           plugin entry, the ct.input table, options, the frame: queue, sources, record
 * input_core.c      kernel-free: names, state, actions, the recording format, the bindings blob
 * input_x11.c       the X11 window source (keys, buttons, wheel, motion, capture)
 * input_gamepad.c   the Linux joystick source
 * input_resource.c  the `input` resource type (action bindings)
 * input_lua.c       the Input module for scripts
 */
#ifndef INPUT_INTERNAL_H
#define INPUT_INTERNAL_H

#include "ct_data.h"
#include "ct_host.h"
#include "ct_input.h"
#include "ct_log.h"
#include "ct_lua.h"
#include "ct_memory.h"
#include "ct_reload.h"
#include "ct_resource.h"

#include "input_core.h"

#include <stdio.h>

/* INPUT_LAYOUT_VERSION, the layout identity a reload compares, is made at build time from the
 * layouts of input__state and every struct it reaches (input_layout.h, by
 * tools/abi/layout_id.py): a change there changes it, so there is no number to bump. The entry
 * file includes input_layout.h. */

#define INPUT_LOG(level, ...) input__m.log->write(input__m.self, level, __VA_ARGS__)
#define INPUT_QUEUE_SIZE 4096u   /* injected events waiting for the next frame */
#define INPUT_FRAME_EVENTS 8192u /* events applied in one frame */
#define INPUT_PATH_SIZE 512

/* The X11 source. The display is the module's own connection (not the window owner's). */
typedef struct input__x11 {
    void *display; /* Display * */
    unsigned long window;
    unsigned long blank_cursor;
    int width, height;
    int last_x, last_y;
    bool have_last, grabbed;
} input__x11;

/* The state block (survives hot reloads). */
typedef struct input__state {
    ct_reload_header_t header;
    input__core core;
    ct_input_event_t queue[INPUT_QUEUE_SIZE];
    uint32_t queued;
    ct_input_event_t events[INPUT_FRAME_EVENTS];
    uint32_t num_events;
    bool dropped_warned, inject_warned, capture;
    /* --replay-input: every recorded event, and the next one to apply. */
    input__parsed *replay;
    uint32_t num_replay, cap_replay, next_replay;
    bool replaying, replay_done;
    /* --record-input */
    FILE *record;
    char record_path[INPUT_PATH_SIZE];
    input__x11 x11;
    int gamepad_fd; /* -1: none */
    char gamepad_path[INPUT_PATH_SIZE];
} input__state;

typedef struct input__module {
    const ct_log_api_v1 *log;
    const ct_lua_api_v1 *lua;
    const ct_data_api_v1 *data;
    const ct_resource_api_v4 *resource;
    const ct_host_api_v1 *host;
    const struct ct_profiler_api_v1 *profiler; /* optional: scopes for the thread profiler */
    ct_plugin_o *self;
    ct_allocator_t *allocator;
    input__state *state;
} input__module;

extern input__module input__m;
extern const ct_input_api_v1 input__api_v1;

/* Applies a source's event now (during the frame's gathering): state, the frame's list, the
 * recording. */
void input__emit(const ct_input_event_t *e);

/* input_x11.c. Returns 0 or CT_ERR_IO. poll applies what arrived; close drops the connection. */
int input__x11_attach(input__x11 *x, unsigned long window);
void input__x11_detach(input__x11 *x, unsigned long window);
void input__x11_poll(input__x11 *x, bool capture);
void input__x11_set_capture(input__x11 *x, bool on);

/* input_gamepad.c: opens the device (path, or the default when NULL; "none": off); reads what
 * arrived; closes. */
void input__gamepad_open(const char *path);
void input__gamepad_poll(void);
void input__gamepad_close(void);

/* input_resource.c */
int input__register_resources(void);
void input__unregister_resources(void);
int input__rebind_resources(void);
int input__use_bindings(const char *name);

/* input_lua.c */
void input__register_lua(void);

#endif
