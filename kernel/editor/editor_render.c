/*
 * The editor's frames executed on a thread of their own (ct_render_api_v3.prepare / execute).
 *
 * Why: on llvmpipe a frame's rasterisation takes tens of milliseconds on the thread that flushes
 * it. Drawn on the main thread, it held every page's message until the frame was done: an edit
 * broadcast to the other page (editor.sync_ms) waited for a frame it has nothing to do with.
 * Now the main thread prepares the frame (reads the world: cull, sort, display list), hands it
 * to this thread, and goes back to the pages; this thread draws it and reads its pixels, then
 * wakes the loop, which publishes them. The main thread may change the world meanwhile (the
 * execute reads none of it); what does need the GL context waits inside the render module.
 *
 * Two pixel buffers: the front one is the last published frame (the server sends it from the
 * main thread), the back one is written by the thread; they swap when a frame is in. The thread
 * also finds where the new frame differs from the front one (editor_pixels.h: pages that have
 * the front one are sent only that rectangle).
 */
#include "editor/editor_internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "ct_render.h"
#include "ct_render_frame.h"

static struct {
    bool running;
    const ct_render_api_v3 *render;
    const ct_render_frame_api_v1 *frame;
    void (*drawn)(void);
    uv_thread_t thread;
    uv_mutex_t mutex;
    uv_cond_t wake;
    bool async_open;
    /* Under mutex: a frame handed over / executed, the thread asked to end. */
    bool busy, done, quit;
    /* The back buffer belongs to the thread while busy. */
    uint8_t *back, *front;
    size_t back_capacity, front_capacity;
    uint32_t back_width, back_height, front_width, front_height;
    int result; /* the execute's */
    /* Pixel sets published (the front one's serial); where the back / front one differs from
     * the one before it. */
    uint64_t serial;
    bool back_changed, front_changed;
    uint32_t back_rect[4], front_rect[4];
} g_r;
/* Apart from g_r: libuv holds it until its close callback, after g_r is cleared. */
static uv_async_t g_async;

/* The thread: executes each frame handed over and reads its pixels into the back buffer. */
static void run(void *arg)
{
    (void)arg;
    uv_mutex_lock(&g_r.mutex);
    for (;;) {
        while (!g_r.quit && (!g_r.busy || g_r.done))
            uv_cond_wait(&g_r.wake, &g_r.mutex);
        if (g_r.quit)
            break;
        uv_mutex_unlock(&g_r.mutex);
        uint32_t w = 0, h = 0;
        static uint8_t none[4]; /* no buffer yet: execute says the size it needs */
        int r = g_r.render->execute(g_r.back ? g_r.back : none, g_r.back_capacity, &w, &h);
        if (r == CT_ERR_INVALID && g_r.frame && (size_t)w * h * 4 > g_r.back_capacity) {
            /* The first frame, or the pipeline's size changed: the frame is drawn; read it. */
            uint8_t *grown = realloc(g_r.back, (size_t)w * h * 4);
            if (grown) {
                g_r.back = grown;
                g_r.back_capacity = (size_t)w * h * 4;
                r = g_r.frame->read(g_r.back, g_r.back_capacity, &w, &h);
            }
        }
        /* The front buffer is only read meanwhile (by the main thread, sending it). */
        const bool compare = !r && g_r.front && g_r.front_width == w && g_r.front_height == h;
        if (compare)
            editor_pixels__changed(g_r.front, g_r.back, w, h, &g_r.back_rect[0], &g_r.back_rect[1],
                                   &g_r.back_rect[2], &g_r.back_rect[3]);
        uv_mutex_lock(&g_r.mutex);
        g_r.back_changed = compare;
        g_r.result = r;
        g_r.back_width = r ? 0 : w;
        g_r.back_height = r ? 0 : h;
        g_r.done = true;
        uv_async_send(&g_async);
    }
    uv_mutex_unlock(&g_r.mutex);
}

/* On the loop: the frame is in; the back buffer becomes the front one. */
static void on_done(uv_async_t *handle)
{
    (void)handle;
    uv_mutex_lock(&g_r.mutex);
    const bool done = g_r.busy && g_r.done;
    if (done) {
        g_r.busy = g_r.done = false;
        if (!g_r.result) {
            uint8_t *px = g_r.front;
            size_t cap = g_r.front_capacity;
            g_r.front = g_r.back, g_r.front_capacity = g_r.back_capacity;
            g_r.back = px, g_r.back_capacity = cap;
            g_r.front_width = g_r.back_width;
            g_r.front_height = g_r.back_height;
            g_r.front_changed = g_r.back_changed;
            memcpy(g_r.front_rect, g_r.back_rect, sizeof g_r.front_rect);
            g_r.serial++;
        }
    }
    uv_mutex_unlock(&g_r.mutex);
    if (done && g_r.drawn)
        g_r.drawn();
}

int editor_render__start(uv_loop_t *loop, const ct_render_api_v3 *render,
                         const ct_render_frame_api_v1 *frame, void (*drawn)(void))
{
    memset(&g_r, 0, sizeof g_r);
    g_r.render = render;
    g_r.frame = frame;
    g_r.drawn = drawn;
    if (uv_mutex_init(&g_r.mutex))
        return CT_ERR_INIT_FAILED;
    if (uv_cond_init(&g_r.wake)) {
        uv_mutex_destroy(&g_r.mutex);
        return CT_ERR_INIT_FAILED;
    }
    if (uv_async_init(loop, &g_async, on_done) == 0) {
        g_r.async_open = true;
        if (uv_thread_create(&g_r.thread, run, NULL) == 0) {
            g_r.running = true;
            return 0;
        }
    }
    log__error("editor: cannot start the frame thread; frames are drawn on the main thread");
    editor_render__stop();
    return CT_ERR_INIT_FAILED;
}

static void closed(uv_handle_t *handle) { (void)handle; }

void editor_render__stop(void)
{
    if (g_r.running) {
        uv_mutex_lock(&g_r.mutex);
        g_r.quit = true;
        uv_cond_signal(&g_r.wake);
        uv_mutex_unlock(&g_r.mutex);
        uv_thread_join(&g_r.thread);
        /* A frame prepared and never executed would hold the renderer's next prepare. */
        if (g_r.busy && !g_r.done)
            g_r.render->execute(NULL, 0, NULL, NULL);
    }
    if (g_r.async_open)
        uv_close((uv_handle_t *)&g_async, closed);
    if (g_r.running || g_r.async_open) {
        uv_cond_destroy(&g_r.wake);
        uv_mutex_destroy(&g_r.mutex);
    }
    free(g_r.back);
    free(g_r.front);
    memset(&g_r, 0, sizeof g_r);
}

bool editor_render__running(void) { return g_r.running; }

bool editor_render__busy(void)
{
    if (!g_r.running)
        return false;
    uv_mutex_lock(&g_r.mutex);
    const bool busy = g_r.busy;
    uv_mutex_unlock(&g_r.mutex);
    return busy;
}

void editor_render__execute(void)
{
    uv_mutex_lock(&g_r.mutex);
    g_r.busy = true;
    g_r.done = false;
    uv_cond_signal(&g_r.wake);
    uv_mutex_unlock(&g_r.mutex);
}

bool editor_render__pixels(editor_pixels_t *out)
{
    if (!g_r.front || !g_r.front_width)
        return false;
    *out = (editor_pixels_t){.rgba = g_r.front,
                             .width = g_r.front_width,
                             .height = g_r.front_height,
                             .serial = g_r.serial,
                             .has_change = g_r.front_changed,
                             .x = g_r.front_rect[0],
                             .y = g_r.front_rect[1],
                             .w = g_r.front_rect[2],
                             .h = g_r.front_rect[3]};
    return true;
}
