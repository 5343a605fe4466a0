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
 * Files the engine writes. Every path an engine API writes on a caller's behalf (a traffic log, a
 * screenshot, a captured frame) goes through output_path (v2): the name must be a canonical
 * relative path under the project's rules (lower-case letters, digits, '_', '-', '.', '/' between
 * non-empty segments; no '.' or '..' segments, no leading '/'), it lands below the output folder
 * (`cuttle --output DIR`; the working folder by default), the folders on the way are made, and
 * no symbolic link, FIFO or device on the way or at the end is followed or written. Scripts, even
 * sandboxed ones (a `sandbox = true` project, a remote console client), therefore write only
 * there, whatever they pass. Callers open the result with O_NOFOLLOW.
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

typedef struct ct_host_api_v2 {
    /* The value of option `name` (written without dashes: "screenshot"): its argument, "" for a
     * flag, NULL when not given. Marks the option as read. Given twice, the last one counts. */
    const char *(*option)(const char *name);
    /* The project folder as given on the command line, or NULL when the kernel runs without one. */
    const char *(*project_dir)(void);
    /* Where to write the file `name` (see "Files the engine writes" above): writes the full path
     * to out and returns 0, having made the folders on the way; or returns CT_ERR_INVALID (a name
     * against the rules, a link, FIFO or device on the way or at the end) or CT_ERR_IO (a folder
     * could not be made) with the reason in err. Nothing is created when it fails. */
    int (*output_path)(const char *name, char *out, size_t out_size, char *err, size_t err_size);
} ct_host_api_v2;

#ifdef __cplusplus
}
#endif
#endif
