/* The watchdog: stops a script that runs away inside one call from the engine into Lua.
 *
 * Every outermost entry into Lua (lua_env.c's protected calls and lua_env__protect) bumps a
 * sequence number, odd while the call runs. A thread wakes a few times a second; when it sees the
 * same odd number for longer than the call's budget, it asks the Lua thread with a signal
 * (WATCHDOG_SIGNAL) to stop. The script timeout counts CPU time of the thread Lua runs on, so a
 * loaded machine (a CI box, an ASan build) or a process stopped in a debugger does not trip it;
 * a call with its own limit (the console's 5 s per script, which a waiting client feels) counts
 * wall time. The handler, on the Lua thread, sets a count hook of 1 (the
 * one thing LuaJIT lets a signal handler do, as luajit.c's Ctrl-C handler does), and the hook
 * raises an error naming the call and where it was, at every instruction until the call has
 * unwound: a script's own pcall cannot swallow it.
 *
 * LuaJIT's compiled code never looks at hooks (only a LuaJIT built with LUAJIT_ENABLE_CHECKHOOK
 * does, and Debian's is not), so `while true do end` or a tail-call loop, once compiled, would run
 * on with the hook set. What compiled code does check is LuaJIT's own profiler: started in line
 * mode ('l'), the JIT puts a check of its profiler flag into every trace at each change of
 * source line, and a SIGPROF sets that flag, so the trace exits to the interpreter, which then
 * runs the hook. The profiler runs with a timer interval of weeks (it never samples on its own);
 * the signal handler raises SIGPROF itself when it wants compiled code to leave.
 *
 * What it cannot stop: C code (a plugin's function that never returns), a __gc metamethod and
 * an xpcall message handler that loops while handling the stop (LuaJIT runs no hooks in either).
 * The thread then says once that the call does not stop. A script that starts jit.profile itself replaces the kernel's profiler
 * (there is one per process); compiled loops are then stopped only in the modes 'l' and 'f'.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lauxlib.h>
#include <lua.h>
#include <luajit.h>
#include <uv.h>

#include "base/log.h"
#include "lua/lua_env.h"
#include "lua/lua_internal.h"

/* Ignored by default, so one that arrives after the handler is gone is harmless (Go's runtime
 * preempts goroutines with it for the same reason). */
#define WATCHDOG_SIGNAL SIGURG
/* Line mode, and an interval (ms) so long that the profiler's timer never fires by itself. */
#define WATCHDOG_PROFILE_MODE "li2000000000"
/* How often the thread looks: an eighth of the budget, within these bounds (ns). */
#define WATCHDOG_PERIOD_MIN (5ull * 1000 * 1000)
#define WATCHDOG_PERIOD_MAX (250ull * 1000 * 1000)
/* Time past the budget after which a call that did not stop is reported as unstoppable. */
#define WATCHDOG_STUCK_NS (2ull * 1000 * 1000 * 1000)

static struct {
    /* Lua thread only. */
    lua_State *L;
    uint32_t depth;
    uint64_t seq_local;
    const char *call;   /* the outermost call's name ("update"), or NULL: found from the stack */
    const char *plugin; /* whose hook it is (lua_env__protect), or NULL */
    bool own_budget;    /* the caller's budget, not script_timeout (the console's) */
    uint64_t default_budget_ns;
    bool running;
    bool disabled; /* CUTTLE_NO_TIMEOUTS */
    int holds;     /* lua_env__hold_watchdog */
    struct sigaction old_action;
    /* Shared with the watchdog thread. */
    _Atomic uint64_t seq;       /* odd while an outermost call runs */
    _Atomic uint64_t budget_ns; /* of the call running; 0: no limit */
    _Atomic bool wall_clock;    /* its budget is wall time (an own limit), else CPU time */
    _Atomic uint64_t expired;   /* the seq of a call over its budget; read by the handler */
    _Atomic bool quit;
    pthread_t lua_thread;
    clockid_t lua_clock;
    uv_thread_t thread;
    uv_mutex_t mutex;
    uv_cond_t wake;
} W;

static uint64_t lua_thread_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(W.lua_clock, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static bool overran(void)
{
    uint64_t seq = atomic_load_explicit(&W.seq, memory_order_relaxed);
    return (seq & 1) && seq == atomic_load_explicit(&W.expired, memory_order_acquire);
}

/* The highest stack level of `L` that exists (luaL_traceback's search: a level costs a walk). */
static int deepest_level(lua_State *L)
{
    lua_Debug ar;
    int low = 0, high = 1;
    while (lua_getstack(L, high, &ar)) {
        low = high;
        if (high > (1 << 24))
            return low;
        high *= 2;
    }
    while (low + 1 < high) {
        int mid = low + (high - low) / 2;
        if (lua_getstack(L, mid, &ar))
            low = mid;
        else
            high = mid;
    }
    return low;
}

/* Pushes what the engine called: "update()", "frame_begin of plugin 'x'", or the function at
 * the bottom of the main state's stack ("the chunk boot.lua", "the function at boot.lua:12"). */
static void push_call_name(lua_State *L)
{
    if (W.plugin) {
        lua_pushfstring(L, "%s of plugin '%s'", W.call ? W.call : "a hook", W.plugin);
        return;
    }
    if (W.call) {
        lua_pushfstring(L, "%s()", W.call);
        return;
    }
    lua_Debug ar;
    if (lua_getstack(W.L, deepest_level(W.L), &ar) && lua_getinfo(W.L, "S", &ar)) {
        if (ar.what[0] == 'm') {
            lua_pushfstring(L, "the chunk %s", ar.short_src);
            return;
        }
        if (ar.what[0] == 'L') {
            lua_pushfstring(L, "the function at %s:%d", ar.short_src, ar.linedefined);
            return;
        }
    }
    lua_pushliteral(L, "a call from the engine");
}

/* The count hook the signal handler sets: raises while the call it was set for runs (and so
 * again at once if the script catches the error), removes itself once that call is over. */
static void stop_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    if (!overran()) {
        lua_sethook(L, NULL, 0, 0);
        return;
    }
    /* The budget as the user wrote it (0.25, 10), not %f's six decimals. */
    char budget[32];
    snprintf(budget, sizeof budget, "%g", (double)atomic_load(&W.budget_ns) / 1e9);
    luaL_where(L, 0); /* a hook adds no frame: level 0 is the function that ran away */
    push_call_name(L);
    if (W.own_budget)
        lua_pushfstring(L, "%sscript stopped: %s ran over its limit of %s s", lua_tostring(L, -2),
                        lua_tostring(L, -1), budget);
    else
        lua_pushfstring(L,
                        "%sscript stopped: %s ran over %s s of CPU time, the budget of one call "
                        "from the engine (script_timeout in project.sjson, cuttle "
                        "--script-timeout S; 0 switches the watchdog off)",
                        lua_tostring(L, -2), lua_tostring(L, -1), budget);
    lua_error(L);
}

/* On the Lua thread, at any point: only lua_sethook (which LuaJIT allows in a signal handler) and
 * raise. */
static void on_watchdog_signal(int sig)
{
    (void)sig;
    int saved = errno;
    if (W.L && overran()) {
        lua_sethook(W.L, stop_hook, LUA_MASKCOUNT, 1);
        /* SIGPROF makes compiled code leave its trace (see the top); only if a handler takes it,
         * since by default it ends the process. */
        struct sigaction prof;
        if (sigaction(SIGPROF, NULL, &prof) == 0 && prof.sa_handler != SIG_DFL &&
            prof.sa_handler != SIG_IGN)
            raise(SIGPROF);
    }
    errno = saved;
}

static void on_profile(void *data, lua_State *L, int samples, int vmstate)
{
    (void)data, (void)L, (void)samples, (void)vmstate; /* only its checks in compiled code count */
}

static uint64_t period_ns(uint64_t budget)
{
    uint64_t p = budget / 8;
    return p < WATCHDOG_PERIOD_MIN   ? WATCHDOG_PERIOD_MIN
           : p > WATCHDOG_PERIOD_MAX ? WATCHDOG_PERIOD_MAX
                                     : p;
}

static void watchdog_thread(void *arg)
{
    (void)arg;
    uint64_t seen = 0, seen_at = 0;
    bool warned = false;
    uv_mutex_lock(&W.mutex);
    while (!atomic_load(&W.quit)) {
        uv_cond_timedwait(&W.wake, &W.mutex, period_ns(atomic_load(&W.budget_ns)));
        uint64_t seq = atomic_load_explicit(&W.seq, memory_order_acquire);
        uint64_t budget = atomic_load(&W.budget_ns);
        if (!(seq & 1) || !budget) {
            seen = 0;
            continue;
        }
        uint64_t now = atomic_load(&W.wall_clock) ? uv_hrtime() : lua_thread_cpu_ns();
        if (seq != seen) {
            seen = seq, seen_at = now, warned = false;
            continue;
        }
        if (now - seen_at < budget)
            continue;
        /* Asked again every period: a signal may come while hooks are off (a __gc) or while
         * LuaJIT ignores the profiler's flag, and the hook must stay set until the call ends. */
        atomic_store_explicit(&W.expired, seq, memory_order_release);
        pthread_kill(W.lua_thread, WATCHDOG_SIGNAL);
        if (!warned && now - seen_at >= budget + WATCHDOG_STUCK_NS) {
            warned = true;
            log__warning("lua: a call from the engine into Lua ran over its budget of %g s and "
                         "does not stop: it is in C code (a plugin's function), a __gc "
                         "metamethod or an xpcall message handler, where Lua hooks do not run",
                         (double)budget / 1e9);
        }
    }
    uv_mutex_unlock(&W.mutex);
}

/* The thread, the signal handler and the profiler, while something has a budget: the script
 * timeout, or a hold (the console's own limit). Only between calls: starting or stopping the
 * profiler flushes every compiled trace. */
static void machinery_start(void)
{
    if (W.running || W.disabled)
        return;
    atomic_store(&W.quit, false);
    if (uv_mutex_init(&W.mutex))
        return;
    if (uv_cond_init(&W.wake)) {
        uv_mutex_destroy(&W.mutex);
        return;
    }
    struct sigaction sa = {.sa_handler = on_watchdog_signal, .sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    sigaction(WATCHDOG_SIGNAL, &sa, &W.old_action);
    if (uv_thread_create(&W.thread, watchdog_thread, NULL)) {
        log__warning("lua: cannot start the watchdog thread; runaway scripts will not be stopped");
        sigaction(WATCHDOG_SIGNAL, &W.old_action, NULL);
        uv_cond_destroy(&W.wake);
        uv_mutex_destroy(&W.mutex);
        return;
    }
    luaJIT_profile_start(W.L, WATCHDOG_PROFILE_MODE, on_profile, NULL);
    W.running = true;
}

static void machinery_stop(void)
{
    if (!W.running)
        return;
    uv_mutex_lock(&W.mutex);
    atomic_store(&W.quit, true);
    uv_cond_signal(&W.wake);
    uv_mutex_unlock(&W.mutex);
    uv_thread_join(&W.thread);
    uv_cond_destroy(&W.wake);
    uv_mutex_destroy(&W.mutex);
    luaJIT_profile_stop(W.L);
    sigaction(WATCHDOG_SIGNAL, &W.old_action, NULL);
    lua_sethook(W.L, NULL, 0, 0);
    W.running = false;
}

/* Runs when nothing needs it, so script_timeout = 0 also gives compiled code its full speed. */
static void machinery_update(void)
{
    if (W.default_budget_ns || W.holds)
        machinery_start();
    else
        machinery_stop();
}

void lua_watchdog__start(lua_State *L)
{
    W.L = L;
    W.depth = 0;
    W.holds = 0;
    W.default_budget_ns = (uint64_t)(LUA_SCRIPT_TIMEOUT_DEFAULT * 1e9);
    atomic_store(&W.expired, 0);
    W.lua_thread = pthread_self();
    if (pthread_getcpuclockid(W.lua_thread, &W.lua_clock) != 0)
        W.lua_clock = CLOCK_MONOTONIC;
    /* A debugger session: nothing is stopped, nothing is started. */
    const char *off = getenv("CUTTLE_NO_TIMEOUTS");
    W.disabled = off && off[0] && strcmp(off, "0") != 0;
    machinery_update();
}

void lua_watchdog__stop(void)
{
    machinery_stop();
    W.L = NULL;
}

void lua_env__set_script_timeout(double seconds)
{
    W.default_budget_ns = seconds > 0 ? (uint64_t)(seconds * 1e9) : 0;
    if (W.L)
        machinery_update();
}

double lua_env__script_timeout(void) { return W.running ? (double)W.default_budget_ns / 1e9 : 0; }

void lua_env__hold_watchdog(bool hold)
{
    W.holds += hold ? 1 : -1;
    if (W.L)
        machinery_update();
}

void lua_watchdog__enter(const char *call, const char *plugin, double own_budget)
{
    if (W.depth++)
        return;
    W.call = call;
    W.plugin = plugin;
    W.own_budget = own_budget >= 0;
    uint64_t budget = own_budget >= 0 ? (uint64_t)(own_budget * 1e9) : W.default_budget_ns;
    atomic_store_explicit(&W.budget_ns, budget, memory_order_relaxed);
    atomic_store_explicit(&W.wall_clock, W.own_budget, memory_order_relaxed);
    atomic_store_explicit(&W.seq, ++W.seq_local, memory_order_release);
}

void lua_watchdog__leave(void)
{
    if (--W.depth)
        return;
    uint64_t call = W.seq_local;
    /* Even first: a signal after this line no longer sets the hook. */
    atomic_store_explicit(&W.seq, ++W.seq_local, memory_order_seq_cst);
    if (atomic_load(&W.expired) == call)
        lua_sethook(W.L, NULL, 0, 0);
}
