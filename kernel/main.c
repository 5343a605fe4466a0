/* `cuttle`: boots the kernel, runs a project's frames headless, shuts down. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "base/log.h"
#include "kernel.h"
#include "lua/lua_env.h"
#include "plugins/loader.h"

static const char usage[] =
    "usage: cuttle [options]\n"
    "  --project DIR        run the project in DIR (its project.sjson names modules and boot script)\n"
    "  --modules DIR        search DIR (and its subfolders) for modules; repeatable\n"
    "  --plugin FILE        load this shared library; repeatable\n"
    "  --frames N           run N frames (default: the project's `frames`, else 0)\n"
    "  --dt SECONDS         the fixed frame time (default 1/60)\n"
    "  -e CODE              run Lua CODE after boot (before the frames)\n"
    "  --list               print plugins, versions, APIs, load order and problems, then exit\n"
    "  --strict             any load problem (or data warning) is fatal\n"
    "  --watch              hot-reload plugins whose files change\n"
    "  --memory-debug MODES fill,canary (or CUTTLE_MEMORY_DEBUG); --jobs N worker threads\n"
    "  --help               this text\n";

typedef struct options_t {
    kernel_desc_t desc;
    long frames; /* -1: the project's */
    double dt;
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
    } else if (!strcmp(a, "--jobs")) {
        errno = 0;
        unsigned long jobs = strtoul(value, &end, 10);
        if (*end || !isdigit((unsigned char)*value) || errno == ERANGE || jobs > 256) {
            fprintf(stderr, "cuttle: --jobs wants a thread count 0..256, not '%s'\n", value);
            return 2;
        }
        o->desc.jobs = (uint32_t)jobs;
    } else if (!strcmp(a, "-e")) {
        o->code = value;
    } else if (!strcmp(a, "--memory-debug")) {
        o->desc.memory_debug = value;
    } else {
        fprintf(stderr, "cuttle: unknown option %s\n%s", a, usage);
        return 2;
    }
    return 0;
}

static int parse_args(int argc, char **argv, options_t *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help")) {
            fputs(usage, stdout);
            exit(0);
        } else if (!strcmp(a, "--list")) {
            o->list = true;
        } else if (!strcmp(a, "--strict")) {
            o->desc.strict = true;
        } else if (!strcmp(a, "--watch")) {
            o->desc.watch = true;
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

static int cuttle_main(int argc, char **argv)
{
    /* Scripts print to stdout and the log writes to stderr: line buffering keeps them in order
     * when both go to one pipe or file. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    options_t o = {.frames = -1, .dt = 1.0 / 60.0};
    int r = parse_args(argc, argv, &o);
    if (r)
        return r;
    o.desc.run_boot_script = !o.list;

    if (kernel__boot(&o.desc))
        return 1;
    if (o.list) {
        loader__print_list(stdout);
        return kernel__shutdown() ? 1 : 0;
    }

    int status = 0;
    if (o.code && lua_env__run_string(o.code, "=(command line)"))
        status = 1;
    long frames = o.frames >= 0 ? o.frames : (long)kernel__project_frames();
    uint64_t script_errors = 0;
    long f = 0;
    /* Under --strict the first script error ends the run (README: "Scripts"). */
    for (; f < frames && !status && !(o.desc.strict && script_errors); f++)
        script_errors += kernel__frame(o.dt) != 0;
    if (frames)
        log__info("ran %ld frames (%llu with script errors)", f,
                  (unsigned long long)script_errors);
    if (kernel__shutdown())
        status = 1;
    if (kernel__script_errors() && o.desc.strict)
        status = 1;
    return status;
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
    uv_thread_join(&thread);
    return a.status;
}
