/*
 * cuttle-compile --watch: one process that keeps the project compiled while people edit it.
 *
 * It compiles the whole project once (the walk of a plain run: whatever changed while nobody
 * watched is found there), then follows every folder of the project with libuv's fs events
 * (inotify on Linux) and compiles each change as it is reported, without walking the project:
 * the manifest and what every source references stay in memory (compile.c's session), and each
 * run appends its few manifest records to the manifest's journal. An edit costs its own compile,
 * the sources it concerns and one append, not a stat of every source.
 *
 * The events of one read of the file system (those that arrived together: a save's write and
 * rename, a folder's files) make one run, started as soon as the loop has read them. The names
 * an event gives are only hints: each named path is looked at as it is now, so a file written in
 * two steps may compile twice (the first time half-written, reported and then fixed by the
 * second event), never stay stale. What the events cannot say (an overflowing event queue, a
 * change made while the process was not running or saved during its first walk, before the
 * folders are followed, a module rebuilt under it) waits for the file's next change or a restart,
 * whose first run walks the project. The first line is printed once every folder is followed.
 *
 * Each run prints "compiled N, up to date M, failed K" on its own line (flushed), so an editor or
 * a test can wait for it. SIGINT or SIGTERM ends the process; the manifest is then written whole.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "base/log.h"
#include "ct_array.h"
#include "compiler.h"

typedef struct watched_t {
    uv_fs_event_t handle;
    char *folder; /* project-relative, "" for the root */
} watched_t;

static struct {
    uv_loop_t loop;
    uv_check_t check;
    uv_signal_t sigint, sigterm;
    compiler_session_t *session;
    const char *project_dir;
    FILE *out;
    watched_t **watched;
    uint32_t num_watched, cap_watched, generation;
    char **pending; /* paths changed since the last run */
    uint32_t num_pending, cap_pending;
} W;

static void print_counts(const compiler_counts_t *c)
{
    fprintf(W.out, "compiled %u, up to date %u, failed %u\n", c->compiled, c->up_to_date,
            c->failed);
    fflush(W.out);
}

static void on_change(uv_fs_event_t *handle, const char *filename, int events, int status);
static void on_check(uv_check_t *check);

static void on_closed(uv_handle_t *handle)
{
    watched_t *w = handle->data;
    free(w->folder);
    free(w);
}

/* Follows the folders the session knows and stops following those it dropped. */
static void follow_folders(void)
{
    uint32_t count, generation;
    const char *const *folders = compiler__session_folders(W.session, &count, &generation);
    if (generation == W.generation && W.num_watched)
        return;
    W.generation = generation;
    for (uint32_t i = 0; i < W.num_watched;) {
        bool kept = false;
        for (uint32_t f = 0; f < count && !kept; f++)
            kept = strcmp(folders[f], W.watched[i]->folder) == 0;
        if (kept) {
            i++;
            continue;
        }
        uv_fs_event_stop(&W.watched[i]->handle);
        uv_close((uv_handle_t *)&W.watched[i]->handle, on_closed);
        W.watched[i] = W.watched[--W.num_watched];
    }
    for (uint32_t f = 0; f < count; f++) {
        bool have = false;
        for (uint32_t i = 0; i < W.num_watched && !have; i++)
            have = strcmp(folders[f], W.watched[i]->folder) == 0;
        if (have)
            continue;
        char dir[RESOURCES_PATH_SIZE];
        snprintf(dir, sizeof dir, "%s%s%s", W.project_dir, folders[f][0] ? "/" : "", folders[f]);
        watched_t *w = calloc(1, sizeof *w);
        int rc = w && (w->folder = strdup(folders[f])) ? 0 : UV_ENOMEM;
        if (!rc && !ct_array_reserve_of(resources__allocator(), &W.watched, &W.cap_watched,
                                        W.num_watched + 1, 64))
            rc = UV_ENOMEM;
        if (!rc && !(rc = uv_fs_event_init(&W.loop, &w->handle))) {
            w->handle.data = w;
            if ((rc = uv_fs_event_start(&w->handle, on_change, dir, 0))) {
                uv_close((uv_handle_t *)&w->handle, on_closed);
            } else {
                W.watched[W.num_watched++] = w;
            }
            w = NULL; /* the handle owns it now */
        }
        if (rc)
            log__warning("%s: cannot follow the folder (%s); its changes are not compiled until "
                         "a restart",
                         dir, uv_strerror(rc));
        if (w) {
            free(w->folder);
            free(w);
        }
    }
}

static void on_change(uv_fs_event_t *handle, const char *filename, int events, int status)
{
    (void)events;
    const watched_t *w = handle->data;
    if (status < 0 || !filename) {
        log__warning("%s: the file system's report failed (%s); restart cuttle-compile --watch "
                     "to catch up",
                     w->folder[0] ? w->folder : ".", status < 0 ? uv_strerror(status) : "no name");
        return;
    }
    /* Hidden files (an editor's swap file, a save's temporary) and compiled/ are never sources:
     * no run for them. */
    if (filename[0] == '.' || (!w->folder[0] && strcmp(filename, RESOURCES_COMPILED_DIR) == 0))
        return;
    char rel[RESOURCES_PATH_SIZE];
    snprintf(rel, sizeof rel, "%s%s%s", w->folder, w->folder[0] ? "/" : "", filename);
    for (uint32_t i = 0; i < W.num_pending; i++)
        if (strcmp(W.pending[i], rel) == 0)
            return;
    char *copy = strdup(rel);
    if (!copy || !ct_array_reserve_of(resources__allocator(), &W.pending, &W.cap_pending,
                                      W.num_pending + 1, 64)) {
        free(copy);
        log__error("%s: out of memory noting the change; restart cuttle-compile --watch", rel);
        return;
    }
    W.pending[W.num_pending++] = copy;
    uv_check_start(&W.check, on_check); /* right after this poll's events */
}

/* After the loop has read the events of one poll: one run over what they named. */
static void on_check(uv_check_t *check)
{
    uv_check_stop(check);
    if (!W.num_pending)
        return;
    compiler_counts_t counts;
    compiler__session_compile_changed(W.session, (const char *const *)W.pending, W.num_pending,
                                      &counts);
    for (uint32_t i = 0; i < W.num_pending; i++)
        free(W.pending[i]);
    W.num_pending = 0;
    print_counts(&counts);
    follow_folders();
}

static void on_signal(uv_signal_t *signal, int signum)
{
    (void)signal, (void)signum;
    uv_stop(&W.loop);
}

static void close_any(uv_handle_t *handle, void *arg)
{
    (void)arg;
    if (!uv_is_closing(handle))
        uv_close(handle, handle->type == UV_FS_EVENT ? on_closed : NULL);
}

int compiler__watch(const char *project_dir, bool force, FILE *out)
{
    memset(&W, 0, sizeof W);
    W.out = out;
    W.project_dir = project_dir;
    W.session = compiler__session_open(project_dir, force, true);
    if (!W.session)
        return 1;
    compiler_counts_t counts;
    compiler__session_compile_all(W.session, &counts);
    int rc = uv_loop_init(&W.loop);
    if (rc) {
        log__error("cuttle-compile --watch: %s", uv_strerror(rc));
        compiler__session_close(W.session);
        return 1;
    }
    uv_check_init(&W.loop, &W.check);
    uv_signal_init(&W.loop, &W.sigint);
    uv_signal_init(&W.loop, &W.sigterm);
    uv_signal_start(&W.sigint, on_signal, SIGINT);
    uv_signal_start(&W.sigterm, on_signal, SIGTERM);
    follow_folders();
    log__info("cuttle-compile --watch: following %u folders of %s", W.num_watched, project_dir);
    /* Only now: whoever waits for this line may change files, and every folder is followed. */
    print_counts(&counts);
    uv_run(&W.loop, UV_RUN_DEFAULT);
    uv_walk(&W.loop, close_any, NULL);
    uv_run(&W.loop, UV_RUN_DEFAULT);
    uv_loop_close(&W.loop);
    for (uint32_t i = 0; i < W.num_pending; i++)
        free(W.pending[i]);
    if (W.pending)
        ct_free(resources__allocator(), W.pending, W.cap_pending * sizeof *W.pending);
    if (W.watched)
        ct_free(resources__allocator(), W.watched, W.cap_watched * sizeof *W.watched);
    return compiler__session_close(W.session) ? 1 : 0;
}
