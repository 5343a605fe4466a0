/*
 * The engine's console (seed post "Scripted Network Debugging"): a TCP server on the kernel's
 * loop that runs Lua between frames, streams log lines and profiler scopes, and takes commands
 * (pause, step, quit, reload). Messages: console_message.h; transport and limits:
 * console_server.h. Everything runs on the main thread, between frames.
 *
 * Loopback clients run scripts with the full LuaJIT in the game's globals; clients whose peer is
 * not loopback (a --console-bind console, with the token) run them sandboxed: text only, no ffi,
 * debug, io, os (but its clocks), package loaders or string.dump (console_script.c).
 *
 * The options of `cuttle` that belong to the console, the profiler and the file server are parsed
 * here too, so main.c only forwards them.
 */
#ifndef CT_KERNEL_CONSOLE_H
#define CT_KERNEL_CONSOLE_H

#include <uv.h>

#include "ct_types.h"

typedef struct console_options_t {
    int port;               /* --console PORT; -1: no console */
    const char *bind;       /* --console-bind ADDR */
    const char *token;      /* --console-token T (or CUTTLE_CONSOLE_TOKEN) */
    const char *profile;    /* --profile FILE */
    const char *serve_dir;  /* --serve-project DIR */
    int serve_port;         /* --port P (with --serve-project); -1: not given */
    const char *host;       /* --host ADDR:P */
    const char *host_token; /* --host-token T (or CUTTLE_HOST_TOKEN): what --host sends a file
                             * server that asks; never the console's token */
} console_options_t;

#define CONSOLE_OPTIONS_DEFAULT                                                                    \
    {                                                                                              \
        .port = -1, .serve_port = -1                                                               \
    }

/* The help lines for these options. */
extern const char console__usage[];

/* Whether `option` is one of the options below. */
bool console__is_option(const char *option);
/* Takes `option value` if it is one of ours: returns 1 (taken), 0 (not ours) or 2 (a usage error,
 * reported on stderr). */
int console__parse_option(console_options_t *o, const char *option, const char *value);
/* Checks combinations once all options are read; 0 or 2 (reported). */
int console__check_options(const console_options_t *o, bool has_project);

/* `--serve-project DIR --port P`: serves DIR until stop_requested() is not 0; returns the exit
 * status (0, 1, or 2 for a folder that is not a project). */
int console__serve_files(const console_options_t *o, int (*stop_requested)(void));
/* `--host ADDR:P` (before boot): fetches the project's scripts from the file server into a private
 * folder, which replaces *project_dir (that said the project's NAME), and makes resources load
 * from the server. Returns 0 or a negative ct_error (logged). */
int console__host_connect(const console_options_t *o, const char **project_dir);
/* After shutdown: closes the connection and removes the private folder. */
void console__host_disconnect(void);

/* After boot: starts the console (prints "console: listening on ADDR:PORT" on stdout) and the
 * --profile writer. Returns 0 or a negative ct_error (logged). */
int console__start(const console_options_t *o, uv_loop_t *loop);
/* Before shutdown: closes clients and the listener, finishes the profile. Returns 0, or
 * CT_ERR_IO when the profile could not be written. */
int console__stop(void);
bool console__listening(void);

/* The frame loop when a console listens: like main's, plus pause / step / quit from clients, and
 * waiting on the loop (so clients are served) instead of sleeping. `frames` < 0: until quit or a
 * signal (stop_requested() not 0). Returns the number of frames whose update raised; *ran counts frames run. */
uint64_t console__run_frames(long frames, double dt, long fps, int (*stop_requested)(void),
                             long *ran);

#endif
