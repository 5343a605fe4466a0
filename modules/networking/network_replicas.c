/*
 * network_replicas.c: replicas for scripts (network_replicas.h): created and destroyed events,
 * the list, and interpolated transforms. Replicas are kept in a packed array with an open
 * addressing index from object id to position (backward-shift deletion, so no tombstones).
 */
#include "network_internal.h"

#include "ct_array.h"

#include <math.h>
#include <string.h>

#define LUA (network__m.lua)
#define LOG(level, ...) network__m.log->write(network__m.self, level, __VA_ARGS__)

static network__replicas_t *R(void) { return &network__m.state->replicas; }

static uint32_t hash(uint32_t object) { return object * 2654435761u; }

/* The slot holding `object`, or the empty one where it would go. */
static uint32_t slot_of(const network__replicas_t *r, uint32_t object)
{
    const uint32_t mask = r->slot_count - 1;
    uint32_t s = hash(object) & mask;
    while (r->slots[s] && r->items[r->slots[s] - 1].object != object)
        s = (s + 1) & mask;
    return s;
}

static uint32_t find(const network__replicas_t *r, uint32_t object)
{
    if (!r->slot_count)
        return UINT32_MAX;
    const uint32_t s = slot_of(r, object);
    return r->slots[s] ? r->slots[s] - 1 : UINT32_MAX;
}

static bool grow(network__replicas_t *r)
{
    if (!ct_array_reserve_of(network__m.a, &r->items, &r->cap, r->cap + 1, 64))
        return false;
    const uint32_t count = r->cap * 2;
    uint32_t *slots = ct_alloc(network__m.a, (size_t)count * sizeof *slots);
    if (!slots)
        return false; /* the items grew; the index stays as it was (still big enough for n) */
    memset(slots, 0, (size_t)count * sizeof *slots);
    ct_free(network__m.a, r->slots, (size_t)r->slot_count * sizeof *r->slots);
    r->slots = slots;
    r->slot_count = count;
    for (uint32_t i = 0; i < r->n; i++)
        r->slots[slot_of(r, r->items[i].object)] = i + 1;
    return true;
}

static void remove_slot(network__replicas_t *r, uint32_t s)
{
    const uint32_t mask = r->slot_count - 1;
    r->slots[s] = 0;
    /* Backward shift: move later entries of the run into the hole when their home allows. */
    for (uint32_t j = (s + 1) & mask; r->slots[j]; j = (j + 1) & mask) {
        const uint32_t home = hash(r->items[r->slots[j] - 1].object) & mask;
        if (((j - home) & mask) >= ((j - s) & mask)) {
            r->slots[s] = r->slots[j];
            r->slots[j] = 0;
            s = j;
        }
    }
}

static void event(uint32_t type, ct_entity_t e, uint32_t object, uint32_t owner)
{
    network__replicas_t *r = R();
    if (!r->events &&
        !(r->events = ct_alloc(network__m.a, NETWORK_REPLICA_EVENTS * sizeof *r->events))) {
        r->dropped++;
        return;
    }
    if (r->num_events == NETWORK_REPLICA_EVENTS) {
        r->dropped++;
        return;
    }
    r->events[r->num_events++] = (network__replica_event_t){type, e, object, owner};
}

static void fields_pose(const net_object_t *o, float pose[7])
{
    memcpy(pose, o->fields, 7 * sizeof *pose);
}

void network__replicas_created(ct_entity_t e, const net_object_t *o, double now)
{
    network__replicas_t *r = R();
    event(NETWORK_REPLICA_CREATED, e, o->id, o->owner);
    if (find(r, o->id) != UINT32_MAX)
        return;
    if ((r->n + 1) * 2 > r->slot_count && !grow(r)) {
        LOG(CT_LOG_ERROR, "replica of object %08x: no room to interpolate it; it moves in steps",
            o->id);
        return;
    }
    network__replica_t *p = &r->items[r->n];
    *p = (network__replica_t){.entity = e, .object = o->id, .version = o->version};
    float pose[7];
    fields_pose(o, pose);
    net_snapshots_add(&p->snaps, now, pose);
    r->slots[slot_of(r, o->id)] = ++r->n;
}

void network__replicas_destroyed(ct_entity_t e, uint32_t object, uint32_t owner)
{
    network__replicas_t *r = R();
    event(NETWORK_REPLICA_DESTROYED, e, object, owner);
    const uint32_t i = find(r, object);
    if (i == UINT32_MAX)
        return;
    remove_slot(r, slot_of(r, object));
    if (i != r->n - 1) {
        r->items[i] = r->items[r->n - 1];
        r->slots[slot_of(r, r->items[i].object)] = i + 1;
    }
    r->n--;
}

void network__replicas_clear(void)
{
    network__replicas_t *r = R();
    r->n = 0;
    if (r->slots)
        memset(r->slots, 0, (size_t)r->slot_count * sizeof *r->slots);
}

bool network__replicas_pose(ct_entity_t e, const net_object_t *o, double now, float pose[7])
{
    network__replicas_t *r = R();
    const uint32_t i = find(r, o->id);
    if (i == UINT32_MAX || r->items[i].entity.id != e.id)
        return false;
    network__replica_t *p = &r->items[i];
    if (o->version != p->version) {
        float fresh[7];
        fields_pose(o, fresh);
        net_snapshots_add(&p->snaps, now, fresh);
        p->version = o->version;
    }
    const double delay = r->configured ? r->delay : 0.1,
                 extra = r->configured ? r->max_extrapolation : 0.1;
    bool extrapolated;
    if (delay <= 0) {
        fields_pose(o, pose);
        return true;
    }
    return net_snapshots_sample(&p->snaps, now - delay, extra, pose, &extrapolated);
}

void network__replicas_free(void)
{
    network__replicas_t *r = R();
    ct_free(network__m.a, r->items, (size_t)r->cap * sizeof *r->items);
    ct_free(network__m.a, r->slots, (size_t)r->slot_count * sizeof *r->slots);
    if (r->events)
        ct_free(network__m.a, r->events, NETWORK_REPLICA_EVENTS * sizeof *r->events);
    *r = (network__replicas_t){0};
}

/* ---- Lua ----------------------------------------------------------------------------------- */

static void set_number(lua_State *L, const char *key, double v)
{
    LUA->push_number(L, v);
    LUA->set_field(L, -2, key);
}

/* Network.replica_events() -> { {type = "created"|"destroyed", entity, object, owner}, ... } since
 * the last call, in order. */
static int l_replica_events(lua_State *L)
{
    network__replicas_t *r = R();
    LUA->new_table(L, (int)r->num_events, 0);
    for (uint32_t i = 0; i < r->num_events; i++) {
        const network__replica_event_t *ev = &r->events[i];
        LUA->new_table(L, 0, 4);
        const char *type = ev->type == NETWORK_REPLICA_CREATED ? "created" : "destroyed";
        LUA->push_string(L, type, strlen(type));
        LUA->set_field(L, -2, "type");
        set_number(L, "entity", ev->entity.id);
        set_number(L, "object", ev->object);
        set_number(L, "owner", ev->owner);
        LUA->set_index(L, -2, (int)i + 1);
    }
    if (r->dropped)
        LOG(CT_LOG_WARNING,
            "replica_events: %u events were dropped (more than %u between two reads)", r->dropped,
            NETWORK_REPLICA_EVENTS);
    r->num_events = r->dropped = 0;
    return 1;
}

/* Network.replicas() -> { {entity, object, owner}, ... }: this node's replicas now. */
static int l_replicas(lua_State *L)
{
    network__state_t *st = network__m.state;
    network__replicas_t *r = R();
    LUA->new_table(L, (int)r->n, 0);
    uint32_t k = 0;
    for (uint32_t i = 0; i < r->n; i++) {
        const net_object_t *o =
            st->running ? net_object_find(&st->session, r->items[i].object) : NULL;
        if (!o || o->owner == st->session.my_id)
            continue;
        LUA->new_table(L, 0, 3);
        set_number(L, "entity", r->items[i].entity.id);
        set_number(L, "object", r->items[i].object);
        set_number(L, "owner", o->owner);
        LUA->set_index(L, -2, (int)++k);
    }
    return 1;
}

/* Network.set_interpolation{ delay_ms = 100, max_extrapolation_ms = 100 }: 0 delay draws the
 * newest state as it arrives (steps). */
static int l_set_interpolation(lua_State *L)
{
    network__replicas_t *r = R();
    if (LUA->type(L, 1) != CT_LUA_TABLE)
        return LUA->error(L, "Network.set_interpolation: argument 1 is { delay_ms = 100, "
                             "max_extrapolation_ms = 100 }");
    LUA->get_field(L, 1, "delay_ms");
    const double delay = LUA->type(L, -1) == CT_LUA_NIL ? 100 : LUA->to_number(L, -1);
    LUA->get_field(L, 1, "max_extrapolation_ms");
    const double extra = LUA->type(L, -1) == CT_LUA_NIL ? 100 : LUA->to_number(L, -1);
    LUA->set_top(L, -3);
    if (!(delay >= 0 && delay <= 2000) || !(extra >= 0 && extra <= 2000))
        return LUA->error(
            L, "Network.set_interpolation: delay_ms and max_extrapolation_ms are 0..2000");
    r->delay = delay / 1000.0, r->max_extrapolation = extra / 1000.0, r->configured = true;
    return 0;
}

void network__replicas_register_lua(void)
{
    static const ct_lua_reg_t fns[] = {
        {"replica_events", l_replica_events},
        {"replicas", l_replicas},
        {"set_interpolation", l_set_interpolation},
    };
    LUA->register_module("Network", fns, sizeof fns / sizeof fns[0]);
}
