/* `--profile FILE`: every gathered scope written as Trace Event JSON (the format Perfetto,
 * chrome://tracing and tools/profiler-viewer open), one "X" (complete) event per scope and one
 * "thread_name" metadata event per thread. Written as the frames run, closed at shutdown. */
#include "profiler/profiler_trace.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "profiler/profiler.h"

static struct {
    FILE *file;
    char path[1024];
    uint64_t events; /* written, metadata included (for the commas) */
    uint64_t scopes;
    uint64_t dropped;
    bool named[PROFILER_MAX_THREADS + 1];
} g_trace;

/* Writes `text` as the inside of a JSON string. */
static void write_escaped(FILE *f, const char *text)
{
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
}

static void separator(void) { fputs(g_trace.events++ ? ",\n" : "\n", g_trace.file); }

static void trace_sink(void *ctx, const profiler_thread_info_t *thread,
                       const profiler_scope_t *scopes, uint32_t n)
{
    (void)ctx;
    FILE *f = g_trace.file;
    int pid = (int)getpid();
    if (thread->id <= PROFILER_MAX_THREADS && !g_trace.named[thread->id]) {
        g_trace.named[thread->id] = true;
        separator();
        fprintf(
            f, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%u,\"args\":{\"name\":\"",
            pid, (unsigned)thread->id);
        write_escaped(f, thread->name);
        fputs("\"}}", f);
    }
    g_trace.dropped += thread->dropped;
    g_trace.scopes += n;
    for (uint32_t i = 0; i < n; i++) {
        const profiler_scope_t *s = &scopes[i];
        separator();
        fputs("{\"name\":\"", f);
        write_escaped(f, s->name);
        fprintf(f,
                "\",\"cat\":\"cuttle\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":%d,\"tid\":%u,"
                "\"args\":{\"core\":%u,\"depth\":%u}}",
                (double)s->start_ns / 1000.0, (double)(s->end_ns - s->start_ns) / 1000.0, pid,
                (unsigned)thread->id, (unsigned)s->core, (unsigned)s->depth);
    }
}

int profiler__trace_open(const char *path)
{
    if (g_trace.file)
        return CT_ERR_INVALID;
    memset(&g_trace, 0, sizeof g_trace);
    g_trace.file = fopen(path, "w");
    if (!g_trace.file) {
        log__error("--profile %s: cannot write: %s", path, strerror(errno));
        return CT_ERR_IO;
    }
    snprintf(g_trace.path, sizeof g_trace.path, "%s", path);
    fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"engine\":\"cuttle\"},\"traceEvents\":[",
          g_trace.file);
    int r = profiler__add_sink(trace_sink, NULL);
    if (r) {
        fclose(g_trace.file);
        g_trace.file = NULL;
        log__error("--profile %s: %s", path, log__error_message(r));
    }
    return r;
}

int profiler__trace_close(void)
{
    if (!g_trace.file)
        return 0;
    profiler__gather();
    profiler__remove_sink(trace_sink, NULL);
    fputs("\n]}\n", g_trace.file);
    int bad = ferror(g_trace.file);
    bad |= fclose(g_trace.file);
    g_trace.file = NULL;
    if (bad) {
        log__error("--profile %s: write failed", g_trace.path);
        return CT_ERR_IO;
    }
    log__info("profile: %llu scopes written to %s%s", (unsigned long long)g_trace.scopes,
              g_trace.path, g_trace.dropped ? " (some lost to full rings)" : "");
    return 0;
}
