/*
 * render_thread.c: who holds the GL context, and the frame prepared on the main thread that waits
 * for its execute (ct_render_api_v3.prepare / execute).
 *
 * Why: on llvmpipe, rasterising a frame takes tens of milliseconds on the thread that flushes it.
 * A tool that must keep answering while a frame is drawn (the level editor's WebSocket) prepares
 * the frame on the main thread (everything that reads worlds and resources) and executes it
 * (GL commands, rasterisation, reading the pixels) on a thread of its own.
 *
 * One mutex (in render__state: a hot reload keeps it) serialises every use of the context and of what execute reads (the display list,
 * palette, lights, debug buffers). A thread entering takes the mutex and makes the context current
 * on itself if it is not; leaving, a thread other than the main thread releases the context, and
 * so does the main thread while a prepared frame waits for its execute (the executing thread then
 * finds the context free). A game that never calls execute from another thread keeps the context
 * current on the main thread and pays one uncontended mutex per entry. Sections nest on a thread.
 */
#include "render_internal.h"

#include <pthread.h>

static _Thread_local uint32_t depth; /* sections this thread has entered */
static _Thread_local bool bound;     /* the context is current on this thread */

void render__thread_init(void)
{
    render__state *s = render__m.state;
    s->main_thread = pthread_self();
    pthread_mutex_init(&s->gl_mutex, NULL);
    pthread_cond_init(&s->executed, NULL);
    s->pending = false;
}

static bool on_main(void) { return pthread_equal(pthread_self(), render__m.state->main_thread); }

void render__data_enter(void)
{
    if (depth++ == 0)
        pthread_mutex_lock(&render__m.state->gl_mutex);
}

void render__gl_enter(void)
{
    render__data_enter();
    render__gl *gl = render__m.state->gl;
    if (gl && !bound) {
        if (render__gl_bind(gl, true))
            bound = true;
        else
            RENDER_LOG(CT_LOG_ERROR, "gl: the context cannot be made current on this thread");
    }
}

void render__gl_leave(void)
{
    if (--depth)
        return;
    render__gl *gl = render__m.state->gl;
    if (gl && bound && (render__m.state->pending || !on_main())) {
        render__gl_bind(gl, false);
        bound = false;
    }
    pthread_mutex_unlock(&render__m.state->gl_mutex);
}

void render__data_leave(void) { render__gl_leave(); }

void render__gl_bound(bool on) { bound = on; }

void render__wait_executed(void)
{
    /* Only from outside every section: waiting with the mutex held twice would never wake. */
    if (depth)
        return;
    pthread_mutex_lock(&render__m.state->gl_mutex);
    while (render__m.state->pending)
        pthread_cond_wait(&render__m.state->executed, &render__m.state->gl_mutex);
    pthread_mutex_unlock(&render__m.state->gl_mutex);
}

void render__set_pending(bool on)
{
    /* Called inside a section (the mutex held). */
    render__m.state->pending = on;
    if (!on)
        pthread_cond_broadcast(&render__m.state->executed);
}

bool render__pending(void) { return render__m.state->pending; }
