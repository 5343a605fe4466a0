/*
 * cuttle-compile: compiles a project's SJSON sources into the blobs the runtime loads.
 *
 *   cuttle-compile --project DIR [--modules DIR]... [--plugin FILE]... [--strict] [--force]
 *                  [--watch | --changed FILE...]
 *
 * Resource types are registered by modules, so the tool boots the kernel with the project's
 * modules (without running its boot script) and then compiles. Only sources that changed since
 * the last run are compiled (see compile.c next to this file; a changed format or provider
 * counts as a change, and the log says why), or everything with --force. Prints
 * "compiled N, up to date M, failed K" and exits 1 if anything failed (a source, or a plugin the
 * project needs: the sources of its types would silently stay uncompiled), 2 on bad usage.
 *
 * --watch compiles the same way once and then stays, compiling each change the file system
 * reports without walking the project, one such line per run, until SIGINT or SIGTERM (see
 * watch.c). It exits 0 then, or 1 when the project's plugins did not all load.
 *
 * --changed FILE... (the remaining arguments; project-relative, or under the project folder as
 * given) is for a caller that knows what it changed, such as the editor after a save: only those
 * files and the sources that read them are looked at, without a walk, and the manifest gets a
 * journal append. A file that is gone, new or not a file falls back to the walk (only the walk
 * knows who names it). A named file that did not change costs a check; a change that is not named
 * stays uncompiled until a run that names it, a plain run or a --watch start.
 */
#include <stdio.h>
#include <string.h>

#include "kernel.h"
#include "base/crash.h"
#include "base/log.h"
#include "plugins/loader.h"
#include "compiler.h"

static int usage(FILE *out)
{
    fprintf(out, "usage: cuttle-compile --project DIR [--modules DIR]... [--plugin FILE]... "
                 "[--strict] [--force] [--watch | --changed FILE...]\n");
    return out == stdout ? 0 : 2;
}

/* Fills desc from the command line; returns -1 to go on, else the exit code. */
static bool force, watch;
static const char *const *changed;
static uint32_t num_changed;

static int parse_args(int argc, char **argv, kernel_desc_t *desc)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)
            return usage(stdout);
        if (strcmp(arg, "--strict") == 0) {
            desc->strict = true;
            continue;
        }
        if (strcmp(arg, "--force") == 0) {
            force = true;
            continue;
        }
        if (strcmp(arg, "--watch") == 0) {
            watch = true;
            continue;
        }
        if (strcmp(arg, "--changed") == 0) {
            changed = (const char *const *)argv + i + 1;
            while (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0) {
                num_changed++;
                i++;
            }
            if (!num_changed) {
                fprintf(stderr, "cuttle-compile: --changed needs at least one file\n");
                return usage(stderr);
            }
            continue;
        }
        if (!value) {
            fprintf(stderr, "cuttle-compile: %s needs a value\n", arg);
            return usage(stderr);
        }
        i++;
        if (strcmp(arg, "--project") == 0) {
            desc->project_dir = value;
        } else if (strcmp(arg, "--modules") == 0 && desc->num_module_dirs < KERNEL_MAX_PATHS) {
            desc->module_dirs[desc->num_module_dirs++] = value;
        } else if (strcmp(arg, "--plugin") == 0 && desc->num_plugin_paths < KERNEL_MAX_PATHS) {
            desc->plugin_paths[desc->num_plugin_paths++] = value;
        } else {
            fprintf(stderr, "cuttle-compile: unknown option %s (or more than %d of it)\n", arg,
                    KERNEL_MAX_PATHS);
            return usage(stderr);
        }
    }
    if (!desc->project_dir) {
        fprintf(stderr, "cuttle-compile: --project is required\n");
        return usage(stderr);
    }
    if (watch && num_changed) {
        fprintf(stderr, "cuttle-compile: --watch and --changed do not go together\n");
        return usage(stderr);
    }
    return -1;
}

int main(int argc, char **argv)
{
    crash__install(loader__name_address); /* a plugin's compiler that crashes is named */
    kernel_desc_t desc = {.run_boot_script = false, .jobs = 1, .installed_modules = true};
    int code = parse_args(argc, argv, &desc);
    if (code >= 0)
        return code;
    if (kernel__boot(&desc)) {
        fprintf(stderr, "cuttle-compile: the kernel did not boot for %s\n", desc.project_dir);
        return 1;
    }
    /* Without --strict a plugin that did not load is only logged; here it still fails the run. */
    uint64_t load_errors = log__count(CT_LOG_ERROR);
    if (watch) {
        setvbuf(stdout, NULL, _IOLBF, 0);
        int r = load_errors ? 1 : compiler__watch(desc.project_dir, force, stdout);
        if (load_errors)
            fprintf(stderr,
                    "cuttle-compile: %llu errors loading the project's plugins (see above)\n",
                    (unsigned long long)load_errors);
        uint64_t leaks = kernel__shutdown();
        return r || leaks ? 1 : 0;
    }
    uint32_t compiled = 0, up_to_date = 0, failed = 0;
    int r;
    if (num_changed) {
        compiler_counts_t counts = {0};
        compiler_session_t *session = compiler__session_open(desc.project_dir, force, false);
        r = session ? compiler__session_compile_named(session, changed, num_changed, &counts) : 1;
        if (compiler__session_close(session))
            r = 1;
        compiled = counts.compiled;
        up_to_date = counts.up_to_date;
        failed = counts.failed;
    } else {
        r = compiler__compile_project_ex(desc.project_dir, force, &compiled, &up_to_date, &failed);
    }
    printf("compiled %u, up to date %u, failed %u\n", compiled, up_to_date, failed);
    if (load_errors)
        fprintf(stderr, "cuttle-compile: %llu errors loading the project's plugins (see above)\n",
                (unsigned long long)load_errors);
    uint64_t leaks = kernel__shutdown();
    return r || failed || load_errors || leaks ? 1 : 0;
}
