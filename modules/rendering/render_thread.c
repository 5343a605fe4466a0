/*
 * render_thread.c: who holds the GL context, and the frame prepared on the main thread that waits
 * for its execute (ct_render_api_v3.prepare / execute).
 *
 * Why: on llvmpipe, rasterising a frame takes tens of milliseconds on the thread that flushes it.
 * A tool that must keep answering while a frame is drawn (the level editor's WebSocket) prepares
 * the frame on the main thread (everything that reads worlds and resources) and executes it
 * (GL commands, rasterisation, reading the pixels) on a thread of its own.
 *
 * One mutex serialises every use of the context and of what execute reads (the display list,
 * palette, lights, debug buffers). A thread entering takes the mutex and makes the context current
 * on itself if it is not; leaving, a thread other than the main thread releases the context, and
 * so does the main thread while a prepared frame waits for its execute (the executing thread then
 * finds the context free). A game that never calls execute from another thread keeps the context
 * current on the main thread and pays one uncontended mutex per entry. Sections nest on a thread.
 */
#include "render_internal.h"

#include <pthread.h>

static pthread_mutex_t gl_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t executed = PTHREAD_COND_INITIALIZER;
static bool pending; /* a frame prepared, not executed yet (under gl_mutex) */
static pthread_t main_thread;
static bool main_known;
static _Thread_local uint32_t depth; /* sections this thread has entered */
static _Thread_local bool bound;     /* the context is current on this thread */

void render__thread_init(void)
{
    main_thread = pthread_self();
    main_known = true;
}

static bool on_main(void) { return !main_known || pthread_equal(pthread_self(), main_thread); }

void render__data_enter(void)
{
    if (depth++ == 0)
        pthread_mutex_lock(&gl_mutex);
}

void render__gl_enter(void)
{
    render__data_enter();
    render__gl *gl = render__m.state ? render__m.state->gl : NULL;
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
    render__gl *gl = render__m.state ? render__m.state->gl : NULL;
    if (gl && bound && (pending || !on_main())) {
        render__gl_bind(gl, false);
        bound = false;
    }
    pthread_mutex_unlock(&gl_mutex);
}

void render__data_leave(void) { render__gl_leave(); }

void render__gl_bound(bool on) { bound = on; }

void render__wait_executed(void)
{
    /* Only from outside every section: waiting with the mutex held twice would never wake. */
    if (depth)
        return;
    pthread_mutex_lock(&gl_mutex);
    while (pending)
        pthread_cond_wait(&executed, &gl_mutex);
    pthread_mutex_unlock(&gl_mutex);
}

void render__set_pending(bool on)
{
    /* Called inside a section (the mutex held). */
    pending = on;
    if (!on)
        pthread_cond_broadcast(&executed);
}

bool render__pending(void) { return pending; }
