/* Kernel log service: the implementation behind ct_log_api_v1 (api/ct_log.h). */
#ifndef CT_KERNEL_LOG_H
#define CT_KERNEL_LOG_H

#include "ct_log.h"

/* Lines below `level` are dropped. The default is INFO, or CUTTLE_LOG=debug|info|warning|error. */
void log__set_level(ct_log_level level);
ct_log_level log__level(void);
/* `who` tags the line with the plugin's name (NULL: "kernel"). */
void log__write(ct_plugin_o *who, ct_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
uint64_t log__count(ct_log_level level);
/* One extra receiver of every line written (the console streams them to clients). It is called
 * from whichever thread logs, under the log's lock: it must not log, and should only copy. */
typedef void (*log_sink_f)(void *ctx, ct_log_level level, const char *tag, const char *text);
void log__set_sink(log_sink_f fn, void *ctx);
const char *log__error_name(int code);
const char *log__error_message(int code);
const ct_log_api_v1 *log__api_v1(void);

#define log__error(...) log__write(NULL, CT_LOG_ERROR, __VA_ARGS__)
#define log__warning(...) log__write(NULL, CT_LOG_WARNING, __VA_ARGS__)
#define log__info(...) log__write(NULL, CT_LOG_INFO, __VA_ARGS__)

#endif
