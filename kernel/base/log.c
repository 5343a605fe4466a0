/* The log service: whole lines to stderr, tagged with the plugin that wrote them, counted per
 * level. Lines below the minimum level cost one atomic load and a comparison. */
#include "base/log.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <uv.h>

#include "plugins/registry.h"

#define LOG_NUM_LEVELS 4
/* The minimum level before anyone has asked: CUTTLE_LOG is read on first use, not at load time,
 * so a test or tool can set the environment before the first line. */
#define LOG_LEVEL_UNSET (-1)

static const char *const level_names[LOG_NUM_LEVELS] = {"debug", "info", "warning", "error"};

static struct {
    atomic_int min_level;
    atomic_uint_fast64_t counts[LOG_NUM_LEVELS];
    uv_once_t once;
    /* One lock for stderr so lines from several threads never interleave. It lives for the whole
     * process: a line may be written before boot or after shutdown. */
    uv_mutex_t lock;
    log_sink_f sink; /* under the lock */
    void *sink_ctx;
} g_log = {.min_level = LOG_LEVEL_UNSET, .once = UV_ONCE_INIT};

static void init_lock(void)
{
    if (uv_mutex_init(&g_log.lock) != 0)
        abort(); /* nothing can be reported without the log itself */
}

static ct_log_level level_from_env(void)
{
    const char *text = getenv("CUTTLE_LOG");
    if (!text || !*text)
        return CT_LOG_INFO;
    for (int i = 0; i < LOG_NUM_LEVELS; i++)
        if (strcasecmp(text, level_names[i]) == 0)
            return (ct_log_level)i;
    fprintf(stderr,
            "[warning] kernel: CUTTLE_LOG=%s is not one of debug, info, warning, error; "
            "using info\n",
            text);
    return CT_LOG_INFO;
}

void log__set_level(ct_log_level level)
{
    if ((int)level < 0 || (int)level >= LOG_NUM_LEVELS)
        level = CT_LOG_ERROR;
    atomic_store(&g_log.min_level, (int)level);
}

ct_log_level log__level(void)
{
    int level = atomic_load_explicit(&g_log.min_level, memory_order_relaxed);
    if (level != LOG_LEVEL_UNSET)
        return (ct_log_level)level;
    /* Two threads racing here both read the same environment: either store is right, and a level
     * set explicitly in between wins. */
    int expected = LOG_LEVEL_UNSET;
    atomic_compare_exchange_strong(&g_log.min_level, &expected, (int)level_from_env());
    return (ct_log_level)atomic_load(&g_log.min_level);
}

static void write_line(ct_plugin_o *who, ct_log_level level, const char *fmt, va_list args)
{
    if ((int)level < 0 || (int)level >= LOG_NUM_LEVELS)
        level = CT_LOG_ERROR;
    if (level < log__level())
        return;
    const char *tag = who ? registry__plugin_name(who) : "kernel";
    uv_once(&g_log.once, init_lock);
    uv_mutex_lock(&g_log.lock);
    fprintf(stderr, "[%s] %s: ", level_names[level], tag ? tag : "?");
    va_list copy;
    va_copy(copy, args);
    vfprintf(stderr, fmt, args);
    fputc('\n', stderr);
    if (g_log.sink) {
        char text[1024];
        vsnprintf(text, sizeof text, fmt, copy);
        g_log.sink(g_log.sink_ctx, level, tag ? tag : "?", text);
    }
    va_end(copy);
    uv_mutex_unlock(&g_log.lock);
    atomic_fetch_add_explicit(&g_log.counts[level], 1, memory_order_relaxed);
}

void log__set_sink(log_sink_f fn, void *ctx)
{
    uv_once(&g_log.once, init_lock);
    uv_mutex_lock(&g_log.lock);
    g_log.sink = fn;
    g_log.sink_ctx = ctx;
    uv_mutex_unlock(&g_log.lock);
}

void log__write(ct_plugin_o *who, ct_log_level level, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    write_line(who, level, fmt, args);
    va_end(args);
}

uint64_t log__count(ct_log_level level)
{
    if ((int)level < 0 || (int)level >= LOG_NUM_LEVELS)
        return 0;
    return atomic_load_explicit(&g_log.counts[level], memory_order_relaxed);
}

const char *log__error_name(int code)
{
    switch (code) {
#define LOG__ERROR_NAME(name, value, msg)                                                          \
    case value: return "CT_ERR_" #name;
        CT_ERROR_MAP(LOG__ERROR_NAME)
#undef LOG__ERROR_NAME
    }
    return "CT_ERR_UNKNOWN";
}

const char *log__error_message(int code)
{
    switch (code) {
#define LOG__ERROR_MESSAGE(name, value, msg)                                                       \
    case value: return msg;
        CT_ERROR_MAP(LOG__ERROR_MESSAGE)
#undef LOG__ERROR_MESSAGE
    }
    return "unknown error";
}

static const ct_log_api_v1 log_api_v1 = {
    .write = log__write,
    .count = log__count,
    .error_name = log__error_name,
    .error_message = log__error_message,
};

const ct_log_api_v1 *log__api_v1(void) { return &log_api_v1; }
