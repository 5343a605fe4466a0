/*
 * input_core.h: the input module's kernel-free core, compiled straight into its tests and fuzz
 * target: control names, the per-frame state, actions, and the recording format (api/ct_input.h
 * documents the rules). No allocation: everything lives in fixed arrays of input__core.
 */
#ifndef INPUT_CORE_H
#define INPUT_CORE_H

#include "ct_input.h"

#include <stddef.h>
#include <stdio.h>

/* Interned control names: open addressing on a power-of-two table of indices into `names`. */
#define INPUT_HASH_SIZE (2u * CT_INPUT_MAX_CONTROLS)

typedef struct input__action {
    char name[CT_INPUT_MAX_NAME];
    uint32_t controls[CT_INPUT_MAX_BINDS];
    uint32_t n;
} input__action;

typedef struct input__core {
    /* Controls: id 0 is "none"; names[1..num_controls]. */
    char names[CT_INPUT_MAX_CONTROLS + 1][CT_INPUT_MAX_NAME];
    uint32_t num_controls;
    uint16_t hash[INPUT_HASH_SIZE];
    /* Per control: down now, pressed/released during the frame, axis value. */
    uint8_t down[CT_INPUT_MAX_CONTROLS + 1];
    uint8_t pressed[CT_INPUT_MAX_CONTROLS + 1];
    uint8_t released[CT_INPUT_MAX_CONTROLS + 1];
    int16_t axis[CT_INPUT_MAX_CONTROLS + 1];
    ct_input_mouse_t mouse;
    uint32_t frame;
    /* Actions: ids 1..num_actions are actions[0..]. */
    input__action actions[CT_INPUT_MAX_ACTIONS];
    uint32_t num_actions;
} input__core;

/* Whether `name` is a valid control or action name (1..31 bytes of a-z 0-9 _ :). */
bool input__name_ok(const char *name, size_t len);
/* The id of `name` (len bytes), interned on first use; 0 for a bad name or a full table. */
uint32_t input__intern(input__core *c, const char *name, size_t len);
/* The id of `name` when it was interned, else 0 (never adds). */
uint32_t input__lookup(const input__core *c, const char *name, size_t len);

/* Starts frame c->frame + 1: clears pressed/released, relative motion and wheel. */
void input__begin_frame(input__core *c);
/* Applies one event to the state (a down of a control already down, or an up of one already up,
 * changes nothing and returns false: auto-repeat and duplicates are not events). True when the
 * event is kept. */
bool input__apply(input__core *c, const ct_input_event_t *e);
/* Releases every control that is down, calling `emit` with each up event made (focus lost). */
void input__release_all(input__core *c, void (*emit)(void *ud, const ct_input_event_t *e),
                        void *ud);

/* Actions. */
uint32_t input__find_action(const input__core *c, const char *name);
/* Binds action `name` to the controls; 0 with the reason in err for a bad name, a bad control, too
 * many controls or a full table. */
uint32_t input__bind(input__core *c, const char *name, const char *const *controls, uint32_t n,
                     char *err, size_t err_size);
bool input__action_down(const input__core *c, uint32_t action);
bool input__action_pressed(const input__core *c, uint32_t action);
bool input__action_released(const input__core *c, uint32_t action);

/* Recording. One event as a line (no newline) into out; its length, or 0 when it does not fit. */
size_t input__format_event(const input__core *c, const ct_input_event_t *e, char *out, size_t size);
#define INPUT_RECORD_HEADER "cuttle-input 1"
/* A parsed line: the event's control is interned into `c`. */
typedef struct input__parsed {
    uint32_t frame;
    ct_input_event_t event;
} input__parsed;
/*
 * Parses a whole recording (`len` bytes, any bytes), calling `each` per event line in order.
 * Returns 0, or CT_ERR_BAD_DATA with "line N: why" in err: a missing header, an unknown event, a
 * bad name, a number out of range, extra words, frames going down, `each` returning false.
 */
int input__parse_recording(input__core *c, const char *text, size_t len,
                           bool (*each)(void *ud, const input__parsed *p), void *ud, char *err,
                           size_t err_size);

/* Bindings blob (the compiled `*.input` payload), little-endian:
 *   u32 magic "CTIN", u32 count, then per action: u8 name length, name bytes, u8 number of
 *   controls, per control: u8 length, name bytes.
 * input__bindings_check validates a payload (every length in range, every name valid, nothing
 * after the last action); input__bindings_apply replaces c's actions with its contents. */
#define INPUT_BINDINGS_MAGIC 0x4e495443u
bool input__bindings_check(const void *payload, size_t size, char *err, size_t err_size);
int input__bindings_apply(input__core *c, const void *payload, size_t size, char *err,
                          size_t err_size);

#endif
