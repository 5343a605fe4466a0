/* The console's options, its start and stop, and the frame loop it drives. */
#include "console/console_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/memory.h"
#include "kernel.h"
#include "lua/lua_env.h"
#include "profiler/profiler.h"
#include "profiler/profiler_trace.h"

const char console__usage[] =
    "  --console PORT       serve the console on 127.0.0.1:PORT (0: any free port, printed);\n"
    "                       runs until a client quits or a signal unless --frames is given\n"
    "  --console-bind ADDR  listen on ADDR instead of 127.0.0.1 (not loopback: needs a token)\n"
    "  --console-token T    clients must send {\"type\":\"auth\",\"token\":T} first\n"
    "                       (or CUTTLE_CONSOLE_TOKEN)\n"
    "  --profile FILE       write profiler scopes to FILE as Trace Event JSON\n"
    "  --serve-project DIR  serve DIR's files and compiled data on --port P (file server)\n"
    "  --host ADDR:P        with --project NAME: read the project from the file server ADDR:P\n"
    "  --host-token T       the file server's token, when it wants one (or CUTTLE_HOST_TOKEN;\n"
    "                       the console's own token is never sent there)\n";

static struct {
    int (*stop_requested)(void);
    console_server_t server;
    ct_allocator_t *allocator;
    bool running;
    bool profiling;
} g_con;

static const char *const options[] = {"--console", "--console-bind",  "--console-token",
                                      "--profile", "--serve-project", "--port",
                                      "--host",    "--host-token"};

bool console__is_option(const char *option)
{
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
        if (!strcmp(option, options[i]))
            return true;
    return false;
}

static int parse_port(const char *option, const char *value, int *out)
{
    char *end;
    long port = strtol(value, &end, 10);
    if (*end || !*value || port < 0 || port > 65535) {
        fprintf(stderr, "cuttle: %s wants a port 0..65535, not '%s'\n", option, value);
        return 2;
    }
    *out = (int)port;
    return 1;
}

int console__parse_option(console_options_t *o, const char *option, const char *value)
{
    if (!strcmp(option, "--console"))
        return parse_port(option, value, &o->port);
    if (!strcmp(option, "--port"))
        return parse_port(option, value, &o->serve_port);
    const char **field = !strcmp(option, "--console-bind")    ? &o->bind
                         : !strcmp(option, "--console-token") ? &o->token
                         : !strcmp(option, "--profile")       ? &o->profile
                         : !strcmp(option, "--serve-project") ? &o->serve_dir
                         : !strcmp(option, "--host")          ? &o->host
                         : !strcmp(option, "--host-token")    ? &o->host_token
                                                              : NULL;
    if (!field)
        return 0;
    if (!*value) {
        fprintf(stderr, "cuttle: %s wants a value\n", option);
        return 2;
    }
    *field = value;
    return 1;
}

int console__check_options(const console_options_t *o, bool has_project)
{
    if ((o->bind || o->token) && o->port < 0 && !o->serve_dir) {
        fprintf(stderr, "cuttle: --console-bind and --console-token go with --console or "
                        "--serve-project\n");
        return 2;
    }
    if (o->serve_dir && o->serve_port < 0) {
        fprintf(stderr, "cuttle: --serve-project DIR wants --port P (0: any free port)\n");
        return 2;
    }
    if (o->serve_port >= 0 && !o->serve_dir) {
        fprintf(stderr, "cuttle: --port goes with --serve-project\n");
        return 2;
    }
    if (o->host && !has_project) {
        fprintf(stderr, "cuttle: --host ADDR:P wants --project NAME (the served project)\n");
        return 2;
    }
    return 0;
}

bool console__listening(void) { return g_con.running; }

int console__serve_files(const console_options_t *o, int (*stop_requested)(void))
{
    return file_server__run(o, stop_requested);
}

int console__host_connect(const console_options_t *o, const char **project_dir)
{
    return o->host ? file_client__connect(o, *project_dir, project_dir) : 0;
}

void console__host_disconnect(void) { file_client__disconnect(); }

int console__start(const console_options_t *o, uv_loop_t *loop)
{
    if (o->profile) {
        int r = profiler__trace_open(o->profile);
        if (r)
            return r;
        g_con.profiling = true;
    }
    if (o->port < 0)
        return 0;
    g_con.allocator = memory__create(NULL, "console");
    if (!g_con.allocator)
        return CT_ERR_NOMEM;
    const char *token = o->token ? o->token : getenv("CUTTLE_CONSOLE_TOKEN");
    console_server_desc_t desc = {
        .what = "console",
        .bind = o->bind,
        .port = o->port,
        .token = token && *token ? token : NULL,
        .handler = console__handle,
        .on_close = console__client_closed,
    };
    int r = console_server__start(&g_con.server, loop, g_con.allocator, &desc);
    if (!r)
        r = console__service_start(&g_con.server);
    if (r) {
        console__stop();
        return r;
    }
    g_con.running = true;
    lua_env__hold_watchdog(true); /* the 5 s per script hold even with script_timeout = 0 */
    printf("console: listening on %s:%d\n", o->bind ? o->bind : "127.0.0.1", g_con.server.port);
    fflush(stdout);
    return 0;
}

int console__stop(void)
{
    if (g_con.allocator) {
        console_server__stop(&g_con.server);
        console__service_stop();
        for (int i = 0; i < 10; i++) /* the check handle's close */
            uv_run(g_con.server.loop, UV_RUN_NOWAIT);
        memory__destroy(g_con.allocator);
        g_con.allocator = NULL;
    }
    if (g_con.running)
        lua_env__hold_watchdog(false);
    g_con.running = false;
    int r = 0;
    if (g_con.profiling)
        r = profiler__trace_close();
    g_con.profiling = false;
    return r;
}

static void on_wake(uv_timer_t *t) { (void)t; }

/* Serves clients until `deadline` (uv_hrtime ns) or until something asks the loop to stop
 * waiting (a command changed the frame state). */
static void serve_until(uint64_t deadline)
{
    uv_loop_t *loop = kernel__loop();
    uv_timer_t timer;
    uv_timer_init(loop, &timer);
    for (;;) {
        uint64_t now = uv_hrtime();
        if (now >= deadline || g_con.stop_requested() || console__frames.quit)
            break;
        uint64_t ms = (deadline - now + 999999u) / 1000000u;
        uv_timer_start(&timer, on_wake, ms ? ms : 1, 0);
        bool was_paused = console__frames.paused && !console__frames.step_left;
        uv_run(loop, UV_RUN_ONCE);
        if (was_paused && !(console__frames.paused && !console__frames.step_left))
            break;
    }
    uv_close((uv_handle_t *)&timer, NULL);
    uv_run(loop, UV_RUN_NOWAIT);
}

uint64_t console__run_frames(long frames, double dt, long fps, int (*stop_requested)(void),
                             long *ran)
{
    g_con.stop_requested = stop_requested;
    console_frames_t *f = &console__frames;
    uint64_t period = fps ? 1000000000u / (uint64_t)fps : 0, next = uv_hrtime(), errors = 0;
    for (*ran = 0; (frames < 0 || *ran < frames) && !f->quit && !g_con.stop_requested();) {
        if (f->paused && !f->step_left) {
            serve_until(uv_hrtime() + 100000000u); /* wake now and then to notice signals */
            next = uv_hrtime();
            continue;
        }
        errors += kernel__frame(dt) != 0;
        ++*ran;
        f->frame++;
        if (f->step_left && --f->step_left == 0)
            console__steps_done();
        next += period;
        uint64_t now = uv_hrtime();
        if (next < now)
            next = now;
        serve_until(next);
    }
    return errors;
}
