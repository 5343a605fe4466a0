/*
 * gameplay_internal.h: the gameplay module's private contract between its files.
 *
 * gameplay.c         plugin entry, the ct.clock table, the frame (clock, then timers)
 * gameplay_lua.c     the Clock and Timer modules for scripts (timers live on the Lua side)
 * gameplay_islands.c       the islands core (kernel-free: gameplay_islands.h)
 * gameplay_islands_lua.c   Islands for scripts: the main state's module, worker Lua states
 */
#ifndef GAMEPLAY_INTERNAL_H
#define GAMEPLAY_INTERNAL_H

#include "ct_gameplay.h"
#include "ct_host.h"
#include "gameplay_islands.h"
#include "ct_jobs.h"
#include "ct_log.h"
#include "ct_lua.h"
#include "ct_memory.h"
#include "ct_reload.h"

/* GAMEPLAY_LAYOUT_VERSION, the layout identity a reload compares, is made at build time from the
 * layouts of gameplay__state and every struct it reaches (the clock, the islands core: the
 * gameplay_layout.h that tools/abi/layout_id.py writes): a change there changes it, so there is
 * no number to bump. The entry file includes gameplay_layout.h. */

#define GAMEPLAY_LOG(level, ...) gameplay__m.log->write(gameplay__m.self, level, __VA_ARGS__)

typedef struct gameplay__clock {
    double time, dt, real_dt, scale;
    uint64_t frame;
    uint32_t paused;
} gameplay__clock;

#define GAMEPLAY_MAX_WORKERS 16u

/* The state block (survives hot reloads). */
typedef struct gameplay__state {
    ct_reload_header_t header;
    gameplay__clock clock;
    islands__t islands;
    /* Lua handlers and effects: which ids are the scripts' (their fn is this code's, re-pointed
     * on a reload), the effects' functions in the main state, and the worker states. */
    uint8_t lua_handler[ISLANDS_MAX_NAMES], lua_effect[ISLANDS_MAX_NAMES];
    int32_t effect_ref[ISLANDS_MAX_NAMES];
    struct lua_State *workers[GAMEPLAY_MAX_WORKERS];
    atomic_flag worker_busy[GAMEPLAY_MAX_WORKERS];
    uint32_t num_workers;
    char script[256];
} gameplay__state;

typedef struct gameplay__module {
    const ct_log_api_v1 *log;
    const ct_lua_api_v2 *lua;
    const ct_jobs_api_v1 *jobs;
    const ct_host_api_v1 *host;
    const struct ct_entity_api_v1 *entity;
    const ct_profiler_api_v1 *profiler;
    /* Optional: the physics contacts of joined worlds, and news of destroyed worlds. */
    const struct ct_physics_api_v2 *physics;
    const struct ct_world_api_v2 *world;
    ct_plugin_o *self;
    ct_allocator_t *allocator;
    gameplay__state *state;
} gameplay__module;

extern gameplay__module gameplay__m;
extern const ct_clock_api_v1 gameplay__clock_api_v1;
extern const ct_islands_api_v1 gameplay__islands_api_v1;

/* gameplay_lua.c: registers Clock and Timer (start and rebind); runs the Lua half once (start);
 * runs the timers that are due (each frame, after the clock advanced). */
void gameplay__register_lua(void);
int gameplay__lua_init(void);
void gameplay__run_timers(void);

/* gameplay_islands_lua.c: registers Islands (start and rebind); re-points the scripts' handlers
 * and worker states at this code (rebind); closes the worker states and frees the core (stop). */
void gameplay__register_islands_lua(void);
void gameplay__rebind_islands(void);
void gameplay__stop_islands(void);

#endif
