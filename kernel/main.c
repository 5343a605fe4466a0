/* `cuttle`: boots the kernel, runs a project's frames headless, shuts down. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <uv.h>

#include "base/crash.h"
#include "base/log.h"
#include "console/console.h"
#include "editor/editor.h"
#include "host.h"
#include "kernel.h"
#include "lua/lua_env.h"
#include "plugins/loader.h"
#include "project.h"
#include "signals.h"

static const char usage[] =
    "usage: cuttle [options]\n"
    "  --project DIR        run the project in DIR (its project.sjson names modules and boot "
    "script)\n"
    "  --modules DIR        search DIR (and its subfolders) for modules; repeatable\n"
    "  --plugin FILE        load this shared library; repeatable\n"
    "  --frames N           run N frames (default: the project's `frames`, else 0)\n"
    "  --dt SECONDS         the fixed frame time (default 1/60, or 1/N with --fps N)\n"
    "  --fps N              pace frames in real time at N per second (default: 60 with --watch,\n"
    "                       else as fast as possible; 0: as fast as possible)\n"
    "  -e CODE              run Lua CODE after boot (before the frames)\n"
    "  --list               print plugins, versions, APIs, load order and problems, then exit\n"
    "  --strict             any load problem (or data warning) is fatal\n"
    "  --watch              hot-reload plugins and the boot script when their files change\n"
    "  --script-timeout S   stop a script after S seconds of CPU time in one call from the engine\n"
    "                       (init, update, a hook, ...; default: the project's script_timeout,\n"
    "                       else 10); 0: never\n"
    "  --no-timeouts        switch every timeout off (console, networking, scripts), for a "
    "debugger\n"
    "                       session; the same as CUTTLE_NO_TIMEOUTS=1\n"
    "  --debug              keep each plugin's private copy as a named file while it is loaded\n"
    "                       ($TMPDIR/cuttle-plugin-*-<file>.so) so gdb and lldb load its\n"
    "                       symbols; the same as CUTTLE_DEBUG=1\n"
    "  --memory-debug MODES fill,canary (or CUTTLE_MEMORY_DEBUG); --jobs N worker threads\n"
    "  --output DIR         where files scripts ask the engine to write go (traffic logs,\n"
    "                       screenshots, captures; canonical relative names, no links); default .\n"
    "  --help               this text\n"
    "Other --name [VALUE] options go to the modules (e.g. the renderer's --screenshot DIR);\n"
    "one that no loaded module reads is an error.\n"
    "Ctrl-C or SIGTERM stops after the current frame and shuts down in order; a second one exits\n"
    "at once. Exit status: 0 ok, 1 boot/script/leak failure, 2 usage, 128+N stopped by signal N.\n";

typedef struct options_t {
    kernel_desc_t desc;
    console_options_t console;
    editor_options_t editor;
    long frames; /* -1: the project's */
    double dt;
    bool dt_given;
    long fps; /* -1: the default */
    const char *code;
    bool list;
} options_t;

/* Appends a --modules or --plugin path; 2 (usage error) when the list is full. */
static int add_path(const char **list, uint32_t *n, const char *option, const char *path)
{
    if (*n == KERNEL_MAX_PATHS) {
        fprintf(stderr, "cuttle: too many %s options (at most %d)\n", option, KERNEL_MAX_PATHS);
        return 2;
    }
    list[(*n)++] = path;
    return 0;
}

/* Options that take a value. Returns 0, or 2 for a usage error (reported). */
static int parse_valued(options_t *o, const char *a, const char *value)
{
    char *end;
    if (!strcmp(a, "--project")) {
        o->desc.project_dir = value;
    } else if (!strcmp(a, "--modules")) {
        return add_path(o->desc.module_dirs, &o->desc.num_module_dirs, a, value);
    } else if (!strcmp(a, "--plugin")) {
        return add_path(o->desc.plugin_paths, &o->desc.num_plugin_paths, a, value);
    } else if (!strcmp(a, "--frames")) {
        errno = 0;
        o->frames = strtol(value, &end, 10);
        if (*end || !isdigit((unsigned char)*value) || errno == ERANGE) {
            fprintf(stderr, "cuttle: --frames wants a whole number 0..%ld, not '%s'\n", LONG_MAX,
                    value);
            return 2;
        }
    } else if (!strcmp(a, "--dt")) {
        o->dt = strtod(value, &end);
        if (*end || !*value || !(o->dt >= 1e-6 && o->dt < 10)) {
            fprintf(stderr, "cuttle: --dt wants seconds in [0.000001, 10), not '%s'\n", value);
            return 2;
        }
        o->dt_given = true;
    } else if (!strcmp(a, "--fps")) {
        o->fps = strtol(value, &end, 10);
        if (*end || !*value || o->fps < 0 || o->fps > 1000) {
            fprintf(stderr, "cuttle: --fps wants frames per second 0..1000, not '%s'\n", value);
            return 2;
        }
    } else if (!strcmp(a, "--jobs")) {
        errno = 0;
        unsigned long jobs = strtoul(value, &end, 10);
        if (*end || !isdigit((unsigned char)*value) || errno == ERANGE || jobs > 256) {
            fprintf(stderr, "cuttle: --jobs wants a thread count 0..256, not '%s'\n", value);
            return 2;
        }
        o->desc.jobs = (uint32_t)jobs;
    } else if (!strcmp(a, "--script-timeout")) {
        double s = strtod(value, &end);
        if (*end || !*value || !(s >= 0 && s <= PROJECT_MAX_SCRIPT_TIMEOUT)) {
            fprintf(stderr, "cuttle: --script-timeout wants seconds 0..%d (0: never), not '%s'\n",
                    PROJECT_MAX_SCRIPT_TIMEOUT, value);
            return 2;
        }
        o->desc.script_timeout = s > 0 ? s : -1;
    } else if (!strcmp(a, "-e")) {
        o->code = value;
    } else if (!strcmp(a, "--memory-debug")) {
        o->desc.memory_debug = value;
    } else if (editor__is_option(a)) {
        return editor__parse_option(&o->editor, a, value) == 1 ? 0 : 2;
    } else {
        int taken = console__parse_option(&o->console, a, value);
        if (taken != 1) {
            if (!taken)
                fprintf(stderr, "cuttle: unknown option %s\n%s", a, usage);
            return 2;
        }
    }
    return 0;
}

/* True for the options this file parses itself; any other `--name` is kept for the modules. */
static bool kernel_option(const char *a)
{
    static const char *const known[] = {
        "--help",         "--list",        "--strict", "--watch",         "--project", "--modules",
        "--plugin",       "--frames",      "--dt",     "--fps",           "--jobs",    "-e",
        "--memory-debug", "--no-timeouts", "--debug",  "--script-timeout"};
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
        if (!strcmp(a, known[k]))
            return true;
    if (console__is_option(a) || editor__is_option(a))
        return true;
    return strncmp(a, "--", 2) != 0 || !a[2];
}

static int parse_args(int argc, char **argv, options_t *o)
{
    if (argc < 2) {
        fputs(usage, stderr);
        fputs(console__usage, stderr);
        fputs(editor__usage, stderr);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help")) {
            fputs(usage, stdout);
            fputs(console__usage, stdout);
            fputs(editor__usage, stdout);
            exit(0);
        } else if (!strcmp(a, "--list")) {
            o->list = true;
        } else if (!strcmp(a, "--strict")) {
            o->desc.strict = true;
        } else if (!strcmp(a, "--watch")) {
            o->desc.watch = true;
        } else if (!strcmp(a, "--debug")) {
            /* Read by the plugin loader at each load (kernel/plugins/library.c). */
            setenv("CUTTLE_DEBUG", "1", 1);
        } else if (!strcmp(a, "--no-timeouts")) {
            /* One switch for every part that times out: each reads CUTTLE_NO_TIMEOUTS at start. */
            setenv("CUTTLE_NO_TIMEOUTS", "1", 1);
        } else if (a[0] != '-' && editor__parse_argument(&o->editor, a) == 1) {
            /* the LEVEL of --editor PORT LEVEL */
        } else if (!kernel_option(a)) {
            const bool valued = i + 1 < argc && argv[i + 1][0] != '-';
            int r = host__add_option(a, valued ? argv[++i] : NULL);
            if (r)
                return r;
        } else if (i + 1 == argc) {
            fprintf(stderr, "cuttle: %s is unknown or needs a value\n%s", a, usage);
            return 2;
        } else {
            int r = parse_valued(o, a, argv[++i]);
            if (r)
                return r;
        }
    }
    return 0;
}

/* Sleeps until `deadline` (uv_hrtime nanoseconds); a signal cuts the sleep short. */
static void sleep_until(uint64_t deadline)
{
    uint64_t now = uv_hrtime();
    if (deadline <= now)
        return;
    uint64_t ns = deadline - now;
    struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR && !signals__stop_requested())
        ;
}

/* Runs the frames, paced at `fps` when not 0, until done, a signal asks to stop, or (when
 * `strict`: README, "Data and scripting") a script error. Returns the number of frames whose script update
 * raised. */
static uint64_t run_frames(long frames, double dt, long fps, bool strict, long *ran)
{
    uint64_t period = fps ? 1000000000u / (uint64_t)fps : 0, next = uv_hrtime(), errors = 0;
    for (*ran = 0; *ran < frames && !signals__stop_requested() && !(strict && errors); ++*ran) {
        errors += kernel__frame(dt) != 0;
        if (period) {
            next += period;
            /* A frame that overran starts the next one now rather than rushing to catch up. */
            uint64_t now = uv_hrtime();
            if (next < now)
                next = now;
            sleep_until(next);
        }
    }
    return errors;
}

static int cuttle_main(int argc, char **argv)
{
    /* Scripts print to stdout and the log writes to stderr: line buffering keeps them in order
     * when both go to one pipe or file. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    options_t o = {.frames = -1,
                   .dt = 1.0 / 60.0,
                   .fps = -1,
                   .desc.installed_modules = true,
                   .console = CONSOLE_OPTIONS_DEFAULT,
                   .editor = EDITOR_OPTIONS_DEFAULT};
    int r = parse_args(argc, argv, &o);
    if (!r)
        r = console__check_options(&o.console, o.desc.project_dir != NULL);
    if (!r)
        r = editor__check_options(&o.editor, o.desc.project_dir != NULL);
    if (r)
        return r;
    /* The editor owns the frame of the level it edits (kernel/editor/editor.h). */
    bool editor = o.editor.port >= 0;
    o.desc.run_boot_script = !o.list && !editor;
    o.desc.print_load_order = o.desc.project_dir && !o.list;
    /* Hot reload is for people watching the engine: pace it so it does not spin a core. */
    bool console = o.console.port >= 0 || editor;
    long fps = o.fps >= 0 ? o.fps : o.desc.watch || console ? 60 : 0;
    double dt = fps && !o.dt_given ? 1.0 / (double)fps : o.dt;
    signals__install();
    crash__install(loader__name_address);
    if (o.console.serve_dir)
        return console__serve_files(&o.console, signals__stop_requested);
    /* --host: the project's files come from a file server (removed again at exit). */
    if (console__host_connect(&o.console, &o.desc.project_dir) || atexit(console__host_disconnect))
        return 1;

    if (kernel__boot(&o.desc))
        return 1;
    if (host__report_unread()) {
        kernel__shutdown();
        return 2;
    }
    if (o.list) {
        loader__print_list(stdout);
        return kernel__shutdown() ? 1 : 0;
    }

    int status = console__start(&o.console, kernel__loop()) ? 1 : 0;
    o.editor.module_dirs = o.desc.module_dirs;
    o.editor.num_module_dirs = o.desc.num_module_dirs;
    if (!status && editor__start(&o.editor, kernel__loop(), o.desc.project_dir))
        status = 1;
    if (!status && o.code && lua_env__run_string(o.code, "=(command line)"))
        status = 1;
    long frames = o.frames >= 0 ? o.frames : console ? -1 : (long)kernel__project_frames(), ran = 0;
    uint64_t script_errors =
        status ? 0
        : console__listening() || editor__listening()
            ? console__run_frames(frames, dt, fps, signals__stop_requested, &ran)
            : run_frames(frames, dt, fps, o.desc.strict, &ran);
    editor__stop();
    if (console__stop())
        status = 1;
    if (frames > 0)
        log__info("ran %ld of %ld frames (%llu with script errors)", ran, frames,
                  (unsigned long long)script_errors);
    int stop = signals__stop_requested();
    if (stop)
        log__warning("stopped by signal %d after %ld frames; shutting down", stop, ran);
    if (kernel__shutdown())
        status = 1;
    if (kernel__script_errors() && o.desc.strict)
        status = 1;
    return stop ? 128 + stop : status;
}

typedef struct main_args_t {
    int argc;
    char **argv;
    int status;
} main_args_t;

static void run_cuttle_main(void *arg)
{
    main_args_t *a = arg;
    a->status = cuttle_main(a->argc, a->argv);
}

/* The engine runs on a thread with a stack of known size, so that Lua's deepest recursion through
 * C is stopped by LuaJIT's own limits or the kernel's checks, never by a crash (kernel.h). */
int main(int argc, char **argv)
{
    main_args_t a = {argc, argv, 1};
    uv_thread_t thread;
    uv_thread_options_t options = {UV_THREAD_HAS_STACK_SIZE, KERNEL_STACK_SIZE};
    if (uv_thread_create_ex(&thread, &options, run_cuttle_main, &a) != 0) {
        fprintf(stderr, "cuttle: cannot start the main thread with a %u MB stack\n",
                KERNEL_STACK_SIZE >> 20);
        return 1;
    }
    /* Stop signals go to the engine's thread, whose sleeps they cut short. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    uv_thread_join(&thread);
    return a.status;
}
