/* gameplay_islands.c: the islands core (gameplay_islands.h). */
#include "gameplay_islands.h"

#include "ct_array.h"
#include "ct_hash.h"
#include "ct_physics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

void islands__init(islands__t *sys, ct_allocator_t *a)
{
    memset(sys, 0, sizeof *sys);
    sys->a = a;
    atomic_init(&sys->refused, 0);
    atomic_init(&sys->errors, 0);
    atomic_flag_clear(&sys->noted);
}

static void free_rows(islands__t *sys)
{
    const size_t n = sys->cap_rows;
    ct_free(sys->a, sys->row_entity, n * sizeof *sys->row_entity);
    ct_free(sys->a, sys->row_value, n * CT_ISLAND_MAX_FIELDS * sizeof *sys->row_value);
    ct_free(sys->a, sys->row, n * sizeof *sys->row);
}

static void free_events(islands__t *sys)
{
    const size_t n = sys->cap_events;
    ct_free(sys->a, sys->events, n * sizeof *sys->events);
    ct_free(sys->a, sys->event_rows, n * CT_ISLAND_MAX_ENTITIES * sizeof *sys->event_rows);
    ct_free(sys->a, sys->event_island, n * sizeof *sys->event_island);
    ct_free(sys->a, sys->island_first, n * sizeof *sys->island_first);
    ct_free(sys->a, sys->island_size, n * sizeof *sys->island_size);
    ct_free(sys->a, sys->island_start, n * sizeof *sys->island_start);
    ct_free(sys->a, sys->grouped, n * sizeof *sys->grouped);
    ct_free(sys->a, sys->island_order, n * sizeof *sys->island_order);
    ct_free(sys->a, sys->effect_slots, n * CT_ISLAND_MAX_EFFECTS * sizeof *sys->effect_slots);
    ct_free(sys->a, sys->effect_count, n * sizeof *sys->effect_count);
    ct_free(sys->a, sys->size_slot, n * sizeof *sys->size_slot);
}

void islands__free(islands__t *sys)
{
    free_rows(sys);
    free_events(sys);
    ct_entity_pages_free(&sys->index, sys->a);
    islands__init(sys, sys->a);
}

/* ---- names --------------------------------------------------------------------------------- */

static bool name_ok(const char *name)
{
    const size_t n = name ? strlen(name) : 0;
    if (n == 0 || n >= ISLANDS_NAME_SIZE)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') ||
              name[i] == '_'))
            return false;
    return true;
}

uint32_t islands__handler_id(islands__t *sys, const char *name, ct_island_handler_f fn,
                             void *user_data)
{
    if (!name_ok(name) || !fn)
        return 0;
    uint32_t i = 0;
    while (i < sys->num_handlers && strcmp(sys->handlers[i].name, name))
        i++;
    if (i == ISLANDS_MAX_NAMES)
        return 0;
    if (i == sys->num_handlers)
        snprintf(sys->handlers[sys->num_handlers++].name, ISLANDS_NAME_SIZE, "%s", name);
    sys->handlers[i].fn = fn, sys->handlers[i].user_data = user_data;
    return i + 1;
}

uint32_t islands__find_effect(const islands__t *sys, const char *name)
{
    for (uint32_t i = 0; name && i < sys->num_effects; i++)
        if (!strcmp(sys->effects[i].name, name))
            return i + 1;
    return 0;
}

uint32_t islands__effect_id(islands__t *sys, const char *name, ct_island_effect_f fn,
                            void *user_data)
{
    if (!name_ok(name) || !fn)
        return 0;
    uint32_t i = islands__find_effect(sys, name);
    if (!i) {
        if (sys->num_effects == ISLANDS_MAX_NAMES)
            return 0;
        i = ++sys->num_effects;
        snprintf(sys->effects[i - 1].name, ISLANDS_NAME_SIZE, "%s", name);
    }
    sys->effects[i - 1].fn = fn, sys->effects[i - 1].user_data = user_data;
    return i;
}

uint32_t islands__find_field(const islands__t *sys, const char *name)
{
    for (uint32_t i = 0; name && i < sys->num_fields; i++)
        if (!strcmp(sys->fields[i], name))
            return i + 1;
    return 0;
}

uint32_t islands__field_id(islands__t *sys, const char *name)
{
    if (!name_ok(name))
        return 0;
    uint32_t i = islands__find_field(sys, name);
    if (!i && sys->num_fields < CT_ISLAND_MAX_FIELDS) {
        snprintf(sys->fields[sys->num_fields], ISLANDS_NAME_SIZE, "%s", name);
        i = ++sys->num_fields;
    }
    return i;
}

/* ---- rows ---------------------------------------------------------------------------------- */

/* Grows `count` parallel arrays from `old` to `cap` items (items[i] bytes each) all or nothing:
 * new blocks are taken first, and only when every one was given are the old ones copied and
 * freed. */
static bool grow_all(ct_allocator_t *a, void **arrays[], const size_t items[], uint32_t count,
                     uint32_t old, uint32_t cap)
{
    void *fresh[16];
    for (uint32_t i = 0; i < count; i++) {
        fresh[i] = ct_alloc(a, (size_t)cap * items[i]);
        if (!fresh[i]) {
            while (i--)
                ct_free(a, fresh[i], (size_t)cap * items[i]);
            return false;
        }
    }
    for (uint32_t i = 0; i < count; i++) {
        if (old)
            memcpy(fresh[i], *arrays[i], (size_t)old * items[i]);
        ct_free(a, *arrays[i], (size_t)old * items[i]);
        *arrays[i] = fresh[i];
    }
    return true;
}

static bool grow_rows(islands__t *sys)
{
    const uint32_t old = sys->cap_rows, cap = ct_array_capacity(old, old + 1, 256);
    void **arrays[] = {(void **)&sys->row_entity, (void **)&sys->row_value, (void **)&sys->row};
    const size_t items[] = {sizeof *sys->row_entity, CT_ISLAND_MAX_FIELDS * sizeof *sys->row_value,
                            sizeof *sys->row};
    if (!grow_all(sys->a, arrays, items, 3, old, cap))
        return false;
    sys->cap_rows = cap;
    return true;
}

/* The row of a live entity of that index if there is one, else UINT32_MAX. Lock-free reads. */
static uint32_t row_of(const islands__t *sys, ct_entity_t e)
{
    const uint32_t *at = ct_entity_pages_entry(&sys->index, e);
    return at && *at && sys->row_entity[*at - 1].id == e.id ? *at - 1 : UINT32_MAX;
}

/* The row of e, made (or taken over from an older entity of the same index, values cleared). */
static uint32_t make_row(islands__t *sys, ct_entity_t e)
{
    if (!ct_entity_pages_reserve(&sys->index, sys->a, e))
        return UINT32_MAX;
    uint32_t *at = ct_entity_pages_entry(&sys->index, e);
    uint32_t r = *at ? *at - 1 : UINT32_MAX;
    if (r == UINT32_MAX) {
        if (sys->num_rows == sys->cap_rows && !grow_rows(sys))
            return UINT32_MAX;
        r = sys->num_rows++;
        *at = r + 1;
        sys->row[r].stamp = 0;
    } else if (sys->row_entity[r].id == e.id) {
        return r;
    }
    sys->row_entity[r] = e;
    sys->row[r].shared = 0;
    memset(sys->row_value + (size_t)r * CT_ISLAND_MAX_FIELDS, 0,
           CT_ISLAND_MAX_FIELDS * sizeof *sys->row_value);
    return r;
}

int islands__set_shared(islands__t *sys, ct_entity_t e, bool shared)
{
    const uint32_t r = make_row(sys, e);
    if (r == UINT32_MAX)
        return CT_ERR_NOMEM;
    sys->row[r].shared = shared;
    return 0;
}

double islands__value(const islands__t *sys, ct_entity_t e, uint32_t field)
{
    const uint32_t r = field && field <= sys->num_fields ? row_of(sys, e) : UINT32_MAX;
    return r == UINT32_MAX ? 0.0 : sys->row_value[(size_t)r * CT_ISLAND_MAX_FIELDS + field - 1];
}

int islands__set_value(islands__t *sys, ct_entity_t e, uint32_t field, double value)
{
    if (!field || field > sys->num_fields)
        return CT_ERR_INVALID;
    const uint32_t r = make_row(sys, e);
    if (r == UINT32_MAX)
        return CT_ERR_NOMEM;
    sys->row_value[(size_t)r * CT_ISLAND_MAX_FIELDS + field - 1] = value;
    return 0;
}

/* ---- posting ------------------------------------------------------------------------------- */

static bool grow_events(islands__t *sys)
{
    const uint32_t old = sys->cap_events, cap = ct_array_capacity(old, old + 1, 1024);
    void **arrays[] = {
        (void **)&sys->events,       (void **)&sys->event_rows,   (void **)&sys->event_island,
        (void **)&sys->island_first, (void **)&sys->island_size,  (void **)&sys->island_start,
        (void **)&sys->grouped,      (void **)&sys->island_order, (void **)&sys->effect_slots,
        (void **)&sys->effect_count, (void **)&sys->size_slot};
    const size_t items[] = {sizeof *sys->events,
                            CT_ISLAND_MAX_ENTITIES * sizeof *sys->event_rows,
                            sizeof *sys->event_island,
                            sizeof *sys->island_first,
                            sizeof *sys->island_size,
                            sizeof *sys->island_start,
                            sizeof *sys->grouped,
                            sizeof *sys->island_order,
                            CT_ISLAND_MAX_EFFECTS * sizeof *sys->effect_slots,
                            sizeof *sys->effect_count,
                            sizeof *sys->size_slot};
    if (!grow_all(sys->a, arrays, items, 11, old, cap))
        return false;
    sys->cap_events = cap;
    return true;
}

int islands__post(islands__t *sys, const ct_island_event_t *event, char *err, size_t err_size)
{
    if (!event || !event->type || event->type > sys->num_handlers) {
        snprintf(err, err_size, "no handler has id %u", event ? event->type : 0);
        return CT_ERR_INVALID;
    }
    if (event->num_entities == 0 || event->num_entities > CT_ISLAND_MAX_ENTITIES) {
        snprintf(err, err_size, "'%s': %u entities (1..%u)", sys->handlers[event->type - 1].name,
                 event->num_entities, CT_ISLAND_MAX_ENTITIES);
        return CT_ERR_INVALID;
    }
    if (sys->running) {
        snprintf(err, err_size, "'%s': posted during a run (post effects instead)",
                 sys->handlers[event->type - 1].name);
        return CT_ERR_INVALID;
    }
    if (sys->num_events == sys->cap_events && !grow_events(sys))
        return CT_ERR_NOMEM;
    uint32_t *rows = sys->event_rows + (size_t)sys->num_events * CT_ISLAND_MAX_ENTITIES;
    for (uint32_t i = 0; i < CT_ISLAND_MAX_ENTITIES; i++) {
        rows[i] = i < event->num_entities ? make_row(sys, event->entities[i]) : UINT32_MAX;
        if (i < event->num_entities && rows[i] == UINT32_MAX)
            return CT_ERR_NOMEM;
    }
    sys->events[sys->num_events++] = *event;
    return 0;
}

/* ---- physics contacts ---------------------------------------------------------------------- */

int islands__join_contacts(islands__t *sys, ct_world_o *world, uint32_t collision, uint32_t ended)
{
    if (collision > sys->num_handlers || ended > sys->num_handlers)
        return CT_ERR_INVALID;
    uint32_t i = 0;
    while (i < sys->num_contacts && sys->contacts[i].world != world)
        i++;
    if (!collision && !ended) {
        if (i < sys->num_contacts)
            sys->contacts[i] = sys->contacts[--sys->num_contacts];
        return 0;
    }
    if (i == sys->num_contacts) {
        if (i == ISLANDS_MAX_CONTACT_WORLDS)
            return CT_ERR_FULL;
        /* A stream of size 0 posts nothing, so "last posted: empty" is a safe start. */
        sys->contacts[sys->num_contacts++] =
            (islands__contacts){.world = world, .last_digest = ct_murmur64a("", 0, 0)};
    }
    sys->contacts[i].collision = collision, sys->contacts[i].ended = ended;
    return 0;
}

/* The event of one stream entry naming a and b, less the dead; false when none is left. */
static bool contact_event(ct_island_event_t *e, uint32_t a, uint32_t b, islands__alive_f alive)
{
    const uint32_t ids[2] = {a, b};
    e->num_entities = 0;
    for (uint32_t i = 0; i < 2; i++)
        if (ids[i] && (!alive || alive((ct_entity_t){ids[i]})))
            e->entities[e->num_entities++] = (ct_entity_t){ids[i]};
    return e->num_entities > 0;
}

int islands__post_contacts(islands__t *sys, islands__contacts *c, const void *stream, uint32_t size,
                           islands__alive_f alive)
{
    /* Two steps in a row never hold the same stream (a collision is a contact that began in its
     * step, an ended one a contact that ended: neither can happen again at once), so an
     * unchanged stream is the step that was posted already. */
    const uint64_t digest = ct_murmur64a(stream, size, 0);
    if (size == c->last_size && digest == c->last_digest)
        return 0;
    const uint32_t before = sys->num_events;
    uint32_t at = 0;
    char err[96];
    for (const ct_physics_event_header_t *h; (h = ct_physics_event_next(stream, size, &at));) {
        ct_island_event_t e = {0};
        if (h->type == CT_PHYSICS_EVENT_COLLISION && c->collision &&
            h->size >= sizeof(ct_physics_collision_event_t)) {
            ct_physics_collision_event_t ev;
            memcpy(&ev, h + 1, sizeof ev);
            e.type = c->collision, e.args[0] = ev.speed, e.args[1] = ev.impulse;
            if (!contact_event(&e, ev.a, ev.b, alive))
                continue;
        } else if (h->type == CT_PHYSICS_EVENT_CONTACT_ENDED && c->ended &&
                   h->size >= sizeof(ct_physics_contact_ended_event_t)) {
            ct_physics_contact_ended_event_t ev;
            memcpy(&ev, h + 1, sizeof ev);
            e.type = c->ended;
            if (!contact_event(&e, ev.a, ev.b, alive))
                continue;
        } else {
            continue; /* a kind not joined, or one this code does not know */
        }
        if (islands__post(sys, &e, err, sizeof err)) {
            sys->num_events =
                before; /* all of the stream or none of it: the next run tries again */
            return CT_ERR_NOMEM;
        }
    }
    c->last_size = size, c->last_digest = digest;
    return (int)(sys->num_events - before);
}

/* ---- islands ------------------------------------------------------------------------------- */

static uint32_t find(islands__row *row, uint32_t r)
{
    while (row[r].parent != r) {
        row[r].parent = row[row[r].parent].parent; /* path halving */
        r = row[r].parent;
    }
    return r;
}

/* Unions each event's non-shared rows, gives every event its island, groups the events by
 * island (in post order within one) and orders the islands largest first. */
static void build(islands__t *sys)
{
    const uint32_t stamp = ++sys->stamp, num = sys->num_events;
    islands__row *row = sys->row;
    const uint32_t *event_rows = sys->event_rows;
    for (uint32_t k = 0; k < num; k++) {
        const uint32_t *rows = event_rows + (size_t)k * CT_ISLAND_MAX_ENTITIES;
        uint32_t first = UINT32_MAX;
        for (uint32_t i = 0; i < CT_ISLAND_MAX_ENTITIES && rows[i] != UINT32_MAX; i++) {
            const uint32_t r = rows[i];
            if (row[r].shared)
                continue;
            if (row[r].stamp != stamp)
                row[r].stamp = stamp, row[r].parent = r, row[r].island = UINT32_MAX,
                row[r].rank = 0;
            if (first == UINT32_MAX) {
                first = r;
                continue;
            }
            /* Union by rank keeps the trees shallow. Which row ends up the root changes nothing
             * seen: islands are numbered by their first events in the pass below. */
            const uint32_t a = find(row, first), b = find(row, r);
            if (a == b)
                continue;
            if (row[a].rank < row[b].rank)
                row[a].parent = b;
            else if (row[a].rank > row[b].rank)
                row[b].parent = a;
            else
                row[b].parent = a, row[a].rank++;
        }
        sys->event_island[k] = first; /* its first non-shared row until the pass below */
    }
    uint32_t n = 0, shared_only = 0;
    for (uint32_t k = 0; k < num; k++) {
        const uint32_t first = sys->event_island[k];
        uint32_t island;
        if (first == UINT32_MAX) {
            island = n++; /* shared entities only: an island of its own */
            shared_only++;
            sys->island_first[island] = k, sys->island_size[island] = 0;
        } else {
            const uint32_t root = find(row, first);
            if (row[root].island == UINT32_MAX) {
                row[root].island = n;
                sys->island_first[n] = k, sys->island_size[n] = 0;
                n++;
            }
            island = row[root].island;
        }
        sys->event_island[k] = island;
        sys->island_size[island]++;
    }
    sys->num_islands = n;
    sys->num_shared_only = shared_only;
    uint32_t at = 0;
    for (uint32_t i = 0; i < n; i++) {
        sys->island_start[i] = at;
        at += sys->island_size[i];
    }
    for (uint32_t k = 0; k < sys->num_events; k++)
        sys->grouped[sys->island_start[sys->event_island[k]]++] = k;
    for (uint32_t i = 0; i < n; i++) /* back to the starts */
        sys->island_start[i] -= sys->island_size[i];
    /* Islands are numbered in the order of their first events, so a stable counting sort by
     * size (largest first) leaves ties in that order: no comparison sort. */
    uint32_t largest = 0;
    for (uint32_t i = 0; i < n; i++)
        largest = sys->island_size[i] > largest ? sys->island_size[i] : largest;
    uint32_t *slot = sys->size_slot;
    memset(slot, 0, (size_t)largest * sizeof *slot);
    for (uint32_t i = 0; i < n; i++)
        slot[sys->island_size[i] - 1]++;
    for (uint32_t size = largest, pos = 0; size > 0; size--) {
        const uint32_t c = slot[size - 1];
        slot[size - 1] = pos;
        pos += c;
    }
    for (uint32_t i = 0; i < n; i++)
        sys->island_order[slot[sys->island_size[i] - 1]++] =
            (uint64_t)(UINT32_MAX - sys->island_size[i]) << 32 | sys->island_first[i];
}

/* Events naming shared entities only (a serial run has no build to count them). */
static uint32_t count_shared_only(const islands__t *sys)
{
    uint32_t count = 0;
    for (uint32_t k = 0; k < sys->num_events; k++) {
        const uint32_t *rows = sys->event_rows + (size_t)k * CT_ISLAND_MAX_ENTITIES;
        bool shared_only = true;
        for (uint32_t i = 0; i < CT_ISLAND_MAX_ENTITIES && rows[i] != UINT32_MAX; i++)
            shared_only &= sys->row[rows[i]].shared != 0;
        count += shared_only;
    }
    return count;
}

static void handle(islands__t *sys, uint32_t k)
{
    const ct_island_event_t *e = &sys->events[k];
    const islands__handler *h = &sys->handlers[e->type - 1];
    ct_island_ctx_o ctx = {sys, k};
    h->fn(h->user_data, e, &ctx);
}

static void run_islands(void *user_data, uint32_t begin, uint32_t end)
{
    islands__t *sys = user_data;
    for (uint32_t i = begin; i < end; i++) {
        const uint32_t island = sys->event_island[(uint32_t)sys->island_order[i]];
        /* The largest runs first and has a name of its own, so the viewer shows its share of
         * "islands.run" (one island that swallows the frame is the thing to see). */
        ct_profile_scope_t scope =
            ct_profile_scope_begin(sys->profiler, i ? "island" : "islands.largest");
        for (uint32_t j = 0; j < sys->island_size[island]; j++)
            handle(sys, sys->grouped[sys->island_start[island] + j]);
        ct_profile_scope_end(&scope);
    }
}

int islands__run(islands__t *sys, uint32_t mode, islands__parallel_f parallel, void *jobs,
                 uint32_t threads, ct_island_stats_t *stats)
{
    ct_island_stats_t st = {.events = sys->num_events, .threads = 1};
    atomic_store(&sys->refused, 0);
    atomic_store(&sys->errors, 0);
    atomic_flag_clear(&sys->noted);
    sys->note[0] = '\0';
    if (sys->num_events)
        memset(sys->effect_count, 0, sys->num_events);
    sys->running = true;
    double t0 = now_ms();
    if (mode == CT_ISLANDS_SERIAL) {
        double t1 = now_ms();
        for (uint32_t k = 0; k < sys->num_events; k++)
            handle(sys, k);
        st.run_ms = now_ms() - t1;
        st.islands = sys->num_events ? 1 : 0;
        st.largest = sys->num_events;
    } else {
        ct_profile_scope_t scope = ct_profile_scope_begin(sys->profiler, "islands.build");
        build(sys);
        ct_profile_scope_end(&scope);
        const double t1 = now_ms();
        st.build_ms = t1 - t0;
        st.islands = sys->num_islands;
        st.largest = sys->num_islands ? UINT32_MAX - (uint32_t)(sys->island_order[0] >> 32) : 0;
        scope = ct_profile_scope_begin(sys->profiler, "islands.run");
        if (mode == CT_ISLANDS_PARALLEL && parallel && threads > 1 && sys->num_islands > 1) {
            parallel(jobs, sys->num_islands, run_islands, sys);
            st.threads = threads < sys->num_islands ? threads : sys->num_islands;
        } else {
            run_islands(sys, 0, sys->num_islands);
        }
        ct_profile_scope_end(&scope);
        st.run_ms = now_ms() - t1;
    }
    sys->running = false;
    st.shared_only = mode == CT_ISLANDS_SERIAL ? count_shared_only(sys) : sys->num_shared_only;
    /* Effects, in the order of the events that emitted them. */
    const double t2 = now_ms();
    ct_profile_scope_t scope = ct_profile_scope_begin(sys->profiler, "islands.apply");
    for (uint32_t k = 0; k < sys->num_events; k++)
        for (uint32_t j = 0; j < sys->effect_count[k]; j++) {
            const islands__effect *fx = &sys->effect_slots[(size_t)k * CT_ISLAND_MAX_EFFECTS + j];
            const islands__effect_type *t = &sys->effects[fx->type - 1];
            t->fn(t->user_data, fx->target, fx->args, fx->n);
            st.effects++;
        }
    ct_profile_scope_end(&scope);
    st.apply_ms = now_ms() - t2;
    st.refused = atomic_load(&sys->refused);
    st.errors = atomic_load(&sys->errors);
    sys->num_events = 0;
    if (stats)
        *stats = st;
    return 0;
}

/* ---- inside a handler ---------------------------------------------------------------------- */

/* Counts a refusal and keeps the first one's description. */
static void refuse(ct_island_ctx_o *ctx, const char *what, ct_entity_t e)
{
    islands__t *sys = ctx->sys;
    atomic_fetch_add(&sys->refused, 1);
    if (!atomic_flag_test_and_set(&sys->noted))
        snprintf(sys->note, sizeof sys->note, "event %u ('%s'): %s entity %u", ctx->event,
                 sys->handlers[sys->events[ctx->event].type - 1].name, what, e.id);
}

void islands__error(ct_island_ctx_o *ctx, const char *message)
{
    islands__t *sys = ctx->sys;
    atomic_fetch_add(&sys->errors, 1);
    if (!atomic_flag_test_and_set(&sys->noted))
        snprintf(sys->note, sizeof sys->note, "event %u ('%s'): %s", ctx->event,
                 sys->handlers[sys->events[ctx->event].type - 1].name, message);
}

/* The row of e when the event names it, else UINT32_MAX. */
static uint32_t event_row(const ct_island_ctx_o *ctx, ct_entity_t e)
{
    const islands__t *sys = ctx->sys;
    const ct_island_event_t *ev = &sys->events[ctx->event];
    for (uint32_t i = 0; i < ev->num_entities; i++)
        if (ev->entities[i].id == e.id)
            return sys->event_rows[(size_t)ctx->event * CT_ISLAND_MAX_ENTITIES + i];
    return UINT32_MAX;
}

double islands__get(ct_island_ctx_o *ctx, ct_entity_t e, uint32_t field)
{
    const islands__t *sys = ctx->sys;
    uint32_t r = event_row(ctx, e);
    if (r == UINT32_MAX) {
        r = row_of(sys, e);
        if (r != UINT32_MAX && !sys->row[r].shared)
            r = UINT32_MAX;
    }
    if (r == UINT32_MAX || !field || field > sys->num_fields) {
        refuse(ctx,
               field && field <= sys->num_fields ? "read of a field of"
                                                 : "read of an unknown field of",
               e);
        return 0.0;
    }
    return sys->row_value[(size_t)r * CT_ISLAND_MAX_FIELDS + field - 1];
}

bool islands__set(ct_island_ctx_o *ctx, ct_entity_t e, uint32_t field, double value)
{
    islands__t *sys = ctx->sys;
    const uint32_t r = event_row(ctx, e);
    if (r == UINT32_MAX || sys->row[r].shared || !field || field > sys->num_fields) {
        refuse(ctx,
               r != UINT32_MAX && sys->row[r].shared ? "write (emit an effect instead) to shared"
               : !field || field > sys->num_fields   ? "write of an unknown field to"
                                                     : "write to a not named",
               e);
        return false;
    }
    sys->row_value[(size_t)r * CT_ISLAND_MAX_FIELDS + field - 1] = value;
    return true;
}

bool islands__emit(ct_island_ctx_o *ctx, uint32_t effect, ct_entity_t target, const double *args,
                   uint32_t n)
{
    islands__t *sys = ctx->sys;
    uint8_t *count = &sys->effect_count[ctx->event];
    if (!effect || effect > sys->num_effects || n > CT_ISLAND_MAX_ARGS ||
        *count == CT_ISLAND_MAX_EFFECTS) {
        refuse(ctx, *count == CT_ISLAND_MAX_EFFECTS ? "a ninth effect for" : "a bad effect for",
               target);
        return false;
    }
    islands__effect *fx =
        &sys->effect_slots[(size_t)ctx->event * CT_ISLAND_MAX_EFFECTS + (*count)++];
    *fx = (islands__effect){.type = effect, .n = n, .target = target};
    for (uint32_t i = 0; i < n; i++)
        fx->args[i] = args[i];
    return true;
}
