/*
 * ct_log.h: logging, tagged by plugin. Kernel API "ct.log".
 *
 * Lines go to stderr as `[level] tag: message`, where tag is the plugin's name (or "kernel").
 * Thread-safe; a line is written whole. Lines below the minimum level (default INFO;
 * CUTTLE_LOG=debug|info|warning|error sets it) cost one comparison.
 */
#ifndef CT_LOG_H
#define CT_LOG_H

#include "ct_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CT_LOG_API 0xc511feb0u /* "ct.log" */

/* How much a line matters; lines below the minimum level (see above) are dropped. */
typedef enum ct_log_level {
    CT_LOG_DEBUG = 0,
    CT_LOG_INFO = 1,
    CT_LOG_WARNING = 2,
    CT_LOG_ERROR = 3,
} ct_log_level;

typedef struct ct_log_api_v1 {
    /* Writes one line. `self` is the plugin handle given to init (NULL tags the line "kernel").
     * printf-style format. */
    void (*write)(ct_plugin_o *self, ct_log_level level, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 3, 4)))
#endif
        ;
    /* Counts of lines written at each level since start, e.g. to fail a run on errors. */
    uint64_t (*count)(ct_log_level level);
    /* The identifier ("CT_ERR_NOT_FOUND") and the sentence ("not found") of an error code. Both
     * static strings; an unknown code gives "CT_ERR_UNKNOWN" / "unknown error". */
    const char *(*error_name)(int code);
    const char *(*error_message)(int code);
} ct_log_api_v1;

/*
 * Shorthands for plugins, so a line names its plugin without spelling it out each time. Define
 * CT_LOG_TABLE as the expression of your `const ct_log_api_v1 *` and CT_LOG_SELF as that of your
 * `ct_plugin_o *` before the first use (they are looked up where the macro is used):
 *
 *     #define CT_LOG_TABLE my.log
 *     #define CT_LOG_SELF my.self
 *     ct_log_info("%u greetings", n);   // [info] acme.hello: 3 greetings
 */
#define ct_log_debug(...) ((CT_LOG_TABLE)->write((CT_LOG_SELF), CT_LOG_DEBUG, __VA_ARGS__))
#define ct_log_info(...) ((CT_LOG_TABLE)->write((CT_LOG_SELF), CT_LOG_INFO, __VA_ARGS__))
#define ct_log_warning(...) ((CT_LOG_TABLE)->write((CT_LOG_SELF), CT_LOG_WARNING, __VA_ARGS__))
#define ct_log_error(...) ((CT_LOG_TABLE)->write((CT_LOG_SELF), CT_LOG_ERROR, __VA_ARGS__))

#ifdef __cplusplus
}
#endif
#endif
