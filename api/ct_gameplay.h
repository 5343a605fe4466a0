/*
 * ct_gameplay.h: what gameplay code shares, from modules/gameplay (ct_gameplay.so):
 *   the game clock (API "ct.clock"): game time that pauses and scales, read by modules and
 *   scripts alike, and the timers it drives; and gameplay islands (API "ct.islands", below).
 *
 * The game clock. At the start of every frame (the module's frame_begin hook, before the boot
 * script's update) the clock advances by the frame's dt times its scale, or by 0 while paused;
 * then the timers that are due run, in the order they fall due (ties: the order they were made).
 * Everything that should stop with the game reads the clock's dt instead of the frame's: a script
 * passes Clock.dt() to Physics.simulate and Animation.evaluate; a C module calls dt(). Time is a
 * double in seconds from 0 at boot; a scale is 0..100 (0 is a pause that still counts frames).
 *
 * Lua (module `Clock`): Clock.dt(), Clock.time(), Clock.frame() (frames the clock advanced),
 * Clock.pause(), Clock.resume(), Clock.paused(), Clock.set_scale(s), Clock.scale(), and
 * Clock.real_dt() (the frame's dt before pause and scale).
 * Lua (module `Timer`): Timer.after(seconds, fn, ...) and Timer.every(seconds, fn, ...) return an
 * id; fn(...) runs once when the game time has advanced by `seconds` (every: each time, a
 * period that passed several times in one frame runs that many times, at most 64 per frame); a
 * timer runs in game time, so a paused game runs none. Timer.cancel(id) -> whether it was
 * pending; Timer.pending() -> how many wait. An error in fn is logged with its traceback (naming
 * the timer) and the other timers still run; an `every` timer that raised keeps running.
 * Seconds must be finite and >= 0 (every: > 0), else the call raises.
 *
 * Gameplay islands (API "ct.islands"; after the seed post "Simplified JSON notation", its
 * "Multithreaded gameplay"). Gameplay is written as handlers of events (a pickup, a hit, a timer,
 * an input action, a network message) that name the entities they concern (at most
 * CT_ISLAND_MAX_ENTITIES). A handler may read and write those entities' fields, read shared
 * entities, and queue global effects (spawn, sound, score): nothing else. Each run:
 *   1. the posted events' entities are joined into islands (union-find: two entities named by one
 *      event are in one island). Shared entities (set_shared: a player, a score keeper, that
 *      everything touches) stay out of the union, like static bodies in physics, so they never
 *      glue the frame into one "player island"; an event naming only shared entities is an
 *      island of its own;
 *   2. islands run as jobs on ct.jobs, largest first (ties: the one whose first event came
 *      first), each handling its events in the order they were posted;
 *   3. the effects are applied on the calling thread in the order of the events that emitted
 *      them (then the order each emitted them), by the effect's handler.
 * So the result is the same as handling every event in post order on one thread and applying the
 * effects after (mode CT_ISLANDS_SERIAL does exactly that, for tests): the entities two islands
 * touch are disjoint, and effects are ordered by event, not by thread.
 *
 * Fields: each entity has up to CT_ISLAND_MAX_FIELDS numbers, named (field()), kept across runs,
 * 0 until set; value()/set_value() reach them outside a run, get()/set() inside a handler. A write
 * to an entity the event does not name, or to a shared entity, is refused (set returns false, the
 * run counts it in `refused` and logs the first); a read of an entity the event does not name
 * either, returning 0. A shared entity's fields change through effects only.
 *
 * Lua handlers run on the worker threads in Lua states of their own (one per thread), each
 * holding the same gameplay script: Islands.load_script("gameplay/pickups.lua") loads it into
 * every state; its global function on_<event> handles <event> (on_pickup(e1, e2, a1, a2, a3, a4):
 * the event's entities, then its four numbers). Those states share nothing with each other or the
 * main state: after the script's top level ran, their globals are frozen (assigning one raises
 * "island handlers share no globals: ..."), so state shared between islands can only travel
 * through the event's entities' fields or an effect. In them `Islands.get(e, "field")`,
 * `Islands.set(e, "field", v)` and `Islands.emit("effect", target, ...)` act for the event being
 * handled. An error in a handler is logged (first per run, with the event) and counted.
 *
 * Physics contacts become events too (join_contacts): a collision names the two bodies touching,
 * so a stack of crates is one island and two stacks apart are two, while the floor under them,
 * marked shared, joins nothing.
 *
 * Lua (main state): Islands.post("pickup", {e1, e2}, a1, a2, a3, a4), Islands.shared(e, on),
 * Islands.contacts(world, "collision handler" or nil [, "ended handler" or nil]) (join_contacts;
 * both nil stop; an unknown name raises),
 * Islands.on_effect("score", fn): fn(target, a1, a2, a3, a4) when applied;
 * Islands.run([mode]) -> {events, islands, largest, shared_only, effects, refused, errors,
 * threads, build_ms, run_ms, apply_ms}; Islands.get(e, "field"), Islands.set(e, "field", v)
 * outside a run. The profiler shows "islands.build", "islands.run", one "island" scope per
 * island job (the largest island's is "islands.largest", so its share of the run shows) and
 * "islands.apply".
 *
 * Threads: main thread only, except the handlers (see above), which run on worker threads and
 * may call only get, set and emit of ct.islands.
 */
#ifndef CT_GAMEPLAY_H
#define CT_GAMEPLAY_H

/* As ct_world.h: this API is about entities (ct_entity_t), which ct_entity.h defines. */
#include "ct_entity.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CT_CLOCK_API 0xa05aab7au /* "ct.clock" */

typedef struct ct_clock_api_v1 {
    /* Game seconds the current frame advanced (0 while paused), and since boot. */
    double (*dt)(void);
    double (*time)(void);
    /* The frame's dt as the kernel gave it, before pause and scale. */
    double (*real_dt)(void);
    /* Frames the clock has advanced (1 during the first frame). */
    uint64_t (*frame)(void);
    /* Pause (nonzero) or resume (0) from the next frame on; whether paused. */
    void (*set_paused)(uint32_t paused);
    uint32_t (*paused)(void);
    /* The scale from the next frame on: 0..100 (others are refused, logged); the scale. */
    void (*set_scale)(double scale);
    double (*scale)(void);
} ct_clock_api_v1;

#define CT_ISLANDS_API 0x00570c29u /* "ct.islands" */

#define CT_ISLAND_MAX_ENTITIES 4u /* entities one event names */
#define CT_ISLAND_MAX_ARGS 4u     /* numbers one event carries */
#define CT_ISLAND_MAX_EFFECTS 8u  /* effects one event may emit (more are refused, counted) */
#define CT_ISLAND_MAX_FIELDS 16u  /* named fields per entity */

/* run() modes. */
enum ct_islands_mode {
    CT_ISLANDS_PARALLEL = 0,   /* islands as jobs on ct.jobs, largest first */
    CT_ISLANDS_ONE_THREAD = 1, /* the same islands, in the same order, all on the calling thread */
    CT_ISLANDS_SERIAL = 2,     /* no islands: every event in post order on the calling thread */
};

/* One event: its handler, the entities it concerns (all may be touched by the handler) and its
 * numbers. */
typedef struct ct_island_event_t {
    uint32_t type; /* a handler id (handler()) */
    uint32_t num_entities;
    ct_entity_t entities[CT_ISLAND_MAX_ENTITIES];
    double args[CT_ISLAND_MAX_ARGS];
} ct_island_event_t;

/* What a handler is given to act through (valid during the call only). */
typedef struct ct_island_ctx_o ct_island_ctx_o;

/* Handles one event on some worker thread. */
typedef void (*ct_island_handler_f)(void *user_data, const ct_island_event_t *event,
                                    ct_island_ctx_o *ctx);
/* Applies one effect on the thread that called run(), in event order. */
typedef void (*ct_island_effect_f)(void *user_data, ct_entity_t target, const double *args,
                                   uint32_t n);

/* What a run did. */
typedef struct ct_island_stats_t {
    uint32_t events, islands; /* events handled, islands they formed */
    uint32_t largest;         /* events in the largest island */
    uint32_t shared_only;     /* events that named shared entities only */
    uint32_t effects;         /* effects applied */
    uint32_t refused;         /* writes, reads and effects refused */
    uint32_t errors;          /* handlers that failed (Lua errors) */
    uint32_t threads;         /* threads the islands ran on (1 unless parallel) */
    double build_ms, run_ms, apply_ms;
} ct_island_stats_t;

typedef struct ct_islands_api_v1 {
    /* The id of handler `name`, registering fn for it (a second call with the same name replaces
     * fn and user_data, keeping the id); 0 for a bad name (1..31 of a-z 0-9 _) or a full table
     * (256 handlers, effects, fields each). Main thread, outside a run. */
    uint32_t (*handler)(const char *name, ct_island_handler_f fn, void *user_data);
    uint32_t (*effect)(const char *name, ct_island_effect_f fn, void *user_data);
    uint32_t (*field)(const char *name);
    /* Keeps e out of the union (nonzero) or puts it back (0). */
    void (*set_shared)(ct_entity_t e, uint32_t shared);
    /* Queues an event for the next run. CT_ERR_INVALID (logged) for an unknown type, no or too
     * many entities, a dead entity; CT_ERR_NOMEM. */
    int (*post)(const ct_island_event_t *event);
    /* Handles every posted event (mode: enum ct_islands_mode), applies the effects, forgets the
     * events. 0, or CT_ERR_NOMEM (nothing handled, the events stay posted). stats may be NULL. */
    int (*run)(uint32_t mode, ct_island_stats_t *stats);
    /* Inside a handler: read a field of an entity of the event or a shared one (else 0, refused);
     * write one of the event's own non-shared entities (else false, refused); queue effect `effect`
     * with n <= CT_ISLAND_MAX_ARGS numbers (false when the event has emitted its
     * CT_ISLAND_MAX_EFFECTS, or a bad id). */
    double (*get)(ct_island_ctx_o *ctx, ct_entity_t e, uint32_t field);
    bool (*set)(ct_island_ctx_o *ctx, ct_entity_t e, uint32_t field, double value);
    bool (*emit)(ct_island_ctx_o *ctx, uint32_t effect, ct_entity_t target, const double *args,
                 uint32_t n);
    /* Outside a run (main thread): a field's value, and setting it (any entity). */
    double (*value)(ct_entity_t e, uint32_t field);
    void (*set_value)(ct_entity_t e, uint32_t field, double value);
    /* Joins the physics contacts of `world` (ct_physics.h) to the islands, so touching bodies
     * share an island as the events of any other handler do: from now on each run() first posts,
     * after the events posted by hand and in the order of the world's event stream, for every
     * collision of the world's last physics step an event of handler `collision` naming the two
     * bodies' entities (a, b: a's id is the smaller) with args (closing speed in m/s, normal
     * impulse in N s, 0, 0), and for every contact that ended one of handler `ended` naming (a, b)
     * with args 0. A handler id 0 posts none of that kind; both 0 stop joining the world. Each
     * step is posted once: a run with no new step of the world since the last run posts nothing
     * for it (two steps in a row never make the same stream), and a step a run did not follow is
     * not posted; so run once per physics step. An entity that died since the step is left out of
     * its event, and an event left with none is not posted. A shared entity (set_shared: the
     * floor, a player) stays out of the union as ever: its contacts join nothing. A destroyed
     * world is forgotten. Main thread, outside a run. 0; CT_ERR_INVALID (logged) for a world that
     * is not alive or an unknown handler id; CT_ERR_FULL (logged) past 16 worlds;
     * CT_ERR_MISSING_API (logged) when ct.physics v2 or ct.world v2 is not loaded. */
    int (*join_contacts)(ct_world_o *world, uint32_t collision, uint32_t ended);
} ct_islands_api_v1;

#ifdef __cplusplus
}
#endif
#endif
