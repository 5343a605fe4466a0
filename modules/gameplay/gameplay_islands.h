/*
 * gameplay_islands.h: the islands core (api/ct_gameplay.h, "Gameplay islands"), kernel-free so
 * its tests and benchmark compile it directly: names, per-entity fields, posted events, the
 * union-find that makes islands, running them through a parallel_for the caller hands in, and
 * applying the effects in event order.
 */
#ifndef GAMEPLAY_ISLANDS_H
#define GAMEPLAY_ISLANDS_H

#include "ct_gameplay.h"
#include "ct_jobs.h"
#include "ct_profiler.h"

#include <stdatomic.h>

#define ISLANDS_MAX_NAMES 256u
#define ISLANDS_NAME_SIZE 32u

/* Runs fn over [0, count) on the caller's threads (ct_jobs_api_v1.parallel_for, grain 1). */
typedef void (*islands__parallel_f)(void *jobs, uint32_t count, ct_range_f fn, void *user_data);

typedef struct islands__effect {
    uint32_t type, n;
    ct_entity_t target;
    double args[CT_ISLAND_MAX_ARGS];
} islands__effect;

typedef struct islands__handler {
    char name[ISLANDS_NAME_SIZE];
    ct_island_handler_f fn;
    void *user_data;
} islands__handler;

typedef struct islands__effect_type {
    char name[ISLANDS_NAME_SIZE];
    ct_island_effect_f fn;
    void *user_data;
} islands__effect_type;

/* A world whose physics contacts are posted as events (ct_islands_api_v1.join_contacts). */
#define ISLANDS_MAX_CONTACT_WORLDS 16u
typedef struct islands__contacts {
    ct_world_o *world;
    uint32_t collision, ended; /* handler ids (0: that kind is not posted) */
    /* The stream posted last (its byte size and digest), so a run after no new step posts
     * nothing. */
    uint32_t last_size;
    uint64_t last_digest;
} islands__contacts;

/* Whether an entity is alive (contacts name entities that may have died since the step). */
typedef bool (*islands__alive_f)(ct_entity_t e);

/* A row's flag and union-find words in one 16-byte record: the build touches them together, one
 * cache line per entity instead of four. */
typedef struct islands__row {
    uint32_t stamp;  /* the run whose build last set parent and island */
    uint32_t parent; /* union-find */
    uint32_t island; /* the island of a root, UINT32_MAX until numbered */
    uint8_t shared;
    uint8_t rank; /* union by rank: at most log2 of the rows */
} islands__row;

typedef struct islands__t islands__t;

/* What a handler acts through: the event being handled. Lives on the handling thread's stack. */
struct ct_island_ctx_o {
    islands__t *sys;
    uint32_t event;
};

struct islands__t {
    ct_allocator_t *a;
    islands__handler handlers[ISLANDS_MAX_NAMES];
    islands__effect_type effects[ISLANDS_MAX_NAMES];
    char fields[CT_ISLAND_MAX_FIELDS][ISLANDS_NAME_SIZE];
    uint32_t num_handlers, num_effects, num_fields;

    /* Rows: one per entity ever posted, shared or given a value (index: entity index -> row + 1).
     * Values persist; the union-find words are valid for rows whose stamp is the run's. */
    ct_entity_pages_t index;
    ct_entity_t *row_entity;
    double *row_value; /* CT_ISLAND_MAX_FIELDS per row */
    islands__row *row;
    uint32_t num_rows, cap_rows, stamp;

    /* The events of the next run, and each one's rows (UINT32_MAX past its entities). */
    ct_island_event_t *events;
    uint32_t *event_rows;
    uint32_t num_events, cap_events;

    /* Scratch of a run, cap_events long: each event's island, the islands' first event and size,
     * where their events start in `grouped`, the order they run in, and the effects. */
    uint32_t *event_island, *island_first, *island_size, *island_start, *grouped;
    uint64_t *island_order;        /* (UINT32_MAX - size) << 32 | first event: largest first */
    uint32_t *size_slot;           /* the counting sort's buckets, one per island size */
    islands__effect *effect_slots; /* CT_ISLAND_MAX_EFFECTS per event */
    uint8_t *effect_count;
    uint32_t num_islands, num_shared_only;

    atomic_uint refused, errors;
    atomic_flag noted; /* the first refusal or error of a run is kept in `note` */
    char note[256];
    bool running;
    islands__contacts contacts[ISLANDS_MAX_CONTACT_WORLDS];
    uint32_t num_contacts;
    const ct_profiler_api_v1 *profiler; /* optional */
};

void islands__init(islands__t *sys, ct_allocator_t *a);
void islands__free(islands__t *sys);

/* Names: the id (1..) of a name, registering it (and for handlers and effects, replacing fn and
 * user_data); 0 for a bad name (1..31 of a-z 0-9 _) or a full table. find_* never register. */
uint32_t islands__handler_id(islands__t *sys, const char *name, ct_island_handler_f fn,
                             void *user_data);
uint32_t islands__effect_id(islands__t *sys, const char *name, ct_island_effect_f fn,
                            void *user_data);
uint32_t islands__field_id(islands__t *sys, const char *name);
uint32_t islands__find_effect(const islands__t *sys, const char *name);
uint32_t islands__find_field(const islands__t *sys, const char *name);

/* 0, or CT_ERR_NOMEM. */
int islands__set_shared(islands__t *sys, ct_entity_t e, bool shared);
/* 0, CT_ERR_INVALID with why in err, or CT_ERR_NOMEM. Entities are not checked for life here
 * (the module does it). */
int islands__post(islands__t *sys, const ct_island_event_t *event, char *err, size_t err_size);
/* Runs and applies every posted event; see ct_islands_api_v1.run. `parallel` may be NULL (one
 * thread); `threads` is how many it has. */
int islands__run(islands__t *sys, uint32_t mode, islands__parallel_f parallel, void *jobs,
                 uint32_t threads, ct_island_stats_t *stats);

/* Joins world's contacts (handlers `collision` and `ended`, either 0) or, with both 0, stops.
 * 0, CT_ERR_INVALID (an unknown handler id) or CT_ERR_FULL (ISLANDS_MAX_CONTACT_WORLDS). */
int islands__join_contacts(islands__t *sys, ct_world_o *world, uint32_t collision, uint32_t ended);
/* Posts the events of one physics step's stream of c's world (ct_physics.h, "Events"): per
 * collision an event of c->collision naming (a, b) with args (speed, impulse, 0, 0), per ended
 * contact one of c->ended naming (a, b); entities `alive` (NULL: all) refuses are left out, an
 * event left with none is dropped. Nothing when the stream is the one posted last. The number
 * posted, or CT_ERR_NOMEM (the events of the stream posted so far stay). */
int islands__post_contacts(islands__t *sys, islands__contacts *c, const void *stream, uint32_t size,
                           islands__alive_f alive);

double islands__get(ct_island_ctx_o *ctx, ct_entity_t e, uint32_t field);
bool islands__set(ct_island_ctx_o *ctx, ct_entity_t e, uint32_t field, double value);
bool islands__emit(ct_island_ctx_o *ctx, uint32_t effect, ct_entity_t target, const double *args,
                   uint32_t n);
/* For handlers: counts an error (a failed Lua handler) and keeps the first message. */
void islands__error(ct_island_ctx_o *ctx, const char *message);

double islands__value(const islands__t *sys, ct_entity_t e, uint32_t field);
int islands__set_value(islands__t *sys, ct_entity_t e, uint32_t field, double value);

#endif
