/*
 * A JSON message as the engine's servers take them (the console, kernel/console/console_message.h,
 * and the level editor, kernel/editor/editor_message.h): exactly one JSON object (whitespace may
 * follow), its string field "type" naming its kind, an optional "id" (a finite number, echoed in
 * the reply), and no field its kind does not list. Every refusal is a sentence for the sender,
 * naming the field, and for an unknown name the nearest known one (data__nearest_name).
 */
#ifndef CT_KERNEL_DATA_MESSAGE_H
#define CT_KERNEL_DATA_MESSAGE_H

#include <stddef.h>

#include "ct_types.h"

struct cJSON;

#define DATA_MESSAGE_MAX_FIELDS 6

/* One kind of message: its "type" and the fields it may carry besides "type" and "id". */
typedef struct data_message_kind_t {
    const char *name;
    int kind;                                    /* the caller's enum value */
    const char *fields[DATA_MESSAGE_MAX_FIELDS]; /* a NULL ends a shorter list */
} data_message_kind_t;

typedef struct data_message_t {
    struct cJSON *root; /* the whole object: the caller's to cJSON_Delete */
    const data_message_kind_t *kind;
    bool has_id;
    double id;
} data_message_t;

/* Parses `len` bytes and checks what every message shares: one object, a known "type", only that
 * kind's fields, no broken strings, a finite "id". Returns 0 with *out filled, or
 * CT_ERR_BAD_DATA with the reason in err (then nothing to free). */
int data__message_read(const char *json, size_t len, const data_message_kind_t *kinds,
                       size_t num_kinds, data_message_t *out, char *err, size_t err_size);

/* Writes the reason into err and returns CT_ERR_BAD_DATA: `return data__message_fail(...)`. */
int data__message_fail(char *err, size_t err_size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "WHAT 'WORD' is unknown (did you mean 'NEAR'?)" with the nearest of names[0..n), as
 * data__message_fail. */
int data__message_unknown(char *err, size_t err_size, const char *what, const char *word,
                          const char *const *names, size_t n);

#endif
