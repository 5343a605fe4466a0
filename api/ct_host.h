/*
 * ct_host.h: what the host process was started with. Kernel API "ct.host".
 *
 * Command-line options for modules. The kernel knows its own options (`cuttle --help`); any other
 * `--name` on the command line is kept for the modules to read, so a module adds a switch (the
 * renderer's `--window`, `--screenshot DIR`) without the kernel knowing it. An unknown `--name`
 * takes the next argument as its value unless that argument starts with '-' (or there is none),
 * in which case it is a flag. After boot (plugins initialised, the boot script's init() run), the
 * kernel refuses, naming it, any such option that no module asked for: a typo never passes
 * silently. Modules should read their options in init.
 *
 * The project folder, for modules that watch files of the project at run time (the renderer
 * reloads its pipeline when the source changes). Compilers that read files a source names use
 * ct_resource_api_v2.source_file instead, which also refuses names that would leave the project.
 *
 * Threads: main thread only. Strings are owned by the kernel and valid until shutdown.
 */
#ifndef CT_HOST_H
#define CT_HOST_H

#include "ct_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CT_HOST_API 0x69e218c9u /* "ct.host" */

typedef struct ct_host_api_v1 {
    /* The value of option `name` (written without dashes: "screenshot"): its argument, "" for a
     * flag, NULL when not given. Marks the option as read. Given twice, the last one counts. */
    const char *(*option)(const char *name);
    /* The project folder as given on the command line, or NULL when the kernel runs without one. */
    const char *(*project_dir)(void);
} ct_host_api_v1;

#ifdef __cplusplus
}
#endif
#endif
