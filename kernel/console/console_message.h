/*
 * What a client may send the console: one JSON object per frame (console_frame.h), its "type"
 * saying what it is. Every field is checked; an unknown field is refused with the nearest known
 * name. "id" (a number) is optional everywhere and is echoed in the reply.
 *
 *   {"type":"auth", "token":"..."}                 first message when the server wants a token
 *   {"type":"script", "script":"return 1 + 1"}     runs Lua between frames; the reply carries
 *                                                  "results" or "error" (with the traceback)
 *   {"type":"log", "subscribe":true, "level":"info"}   streams log lines at or above level
 *   {"type":"profiler", "subscribe":true}          streams profiler scopes after each frame
 *   {"type":"command", "command":"pause"|"resume"|"status"|"quit"}
 *   {"type":"command", "command":"step", "frames":N}            N in 1..1000000 (pauses after)
 *   {"type":"command", "command":"reload", "resource":"unit", "name":"units/crate"}
 *   {"type":"file", "resource":"unit", "name":"units/crate"}   (file server only: a blob)
 *   {"type":"file", "path":"project.sjson"}                     (file server only: a project file)
 */
#ifndef CT_KERNEL_CONSOLE_MESSAGE_H
#define CT_KERNEL_CONSOLE_MESSAGE_H

#include <stddef.h>

#include "ct_log.h"
#include "ct_types.h"

typedef enum console_kind {
    CONSOLE_MSG_AUTH,
    CONSOLE_MSG_SCRIPT,
    CONSOLE_MSG_LOG,
    CONSOLE_MSG_PROFILER,
    CONSOLE_MSG_COMMAND,
    CONSOLE_MSG_FILE,
} console_kind;

typedef enum console_command {
    CONSOLE_CMD_PAUSE,
    CONSOLE_CMD_RESUME,
    CONSOLE_CMD_STEP,
    CONSOLE_CMD_QUIT,
    CONSOLE_CMD_RELOAD,
    CONSOLE_CMD_STATUS,
} console_command;

#define CONSOLE_MAX_STEP 1000000u

typedef struct console_message_t {
    console_kind kind;
    bool has_id;
    double id;
    const char *text; /* auth: token; script: the Lua source; file: path (NULL for a blob) */
    size_t text_len;
    bool subscribe;     /* log, profiler (default true) */
    ct_log_level level; /* log (default info) */
    console_command command;
    uint32_t frames;      /* step */
    const char *resource; /* reload, file: type and name */
    const char *name;
    struct cJSON *root; /* owns the strings above */
} console_message_t;

/* Parses and checks one payload. Returns 0, or CT_ERR_BAD_DATA with the reason in err (and
 * nothing to free). On success free with console_message__free. */
int console_message__decode(const char *json, size_t len, console_message_t *m, char *err,
                            size_t err_size);
void console_message__free(console_message_t *m);

#endif
