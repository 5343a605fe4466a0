/*
 * network_replication.c: objects, after the seed post "A Bug in Object Replication and Message
 * Reordering".
 *
 * Per object and connection the sender runs  ANNOUNCE [wait for its ack] UPDATE... DESTROY.
 * The announce is CREATE when the migration counter is 0 and MIGRATE after a migration; both
 * carry the whole state, so either makes the object where it is missing. Updates go on the
 * unreliable stream with the fields changed since the version the peer acknowledged; a lost
 * update is not resent as such: the next tick sends the newest state of what is still
 * unacknowledged. Who sends: the owner, to everyone (peer-to-peer); in client-server mode a
 * client sends its objects to the host, and the host sends every object to every client but
 * its owner (the relay).
 *
 * Migration: the host picks the new owner and the next counter and tells that peer
 * (MIGRATE_ORDER, with the host's copy of the state) and, in peer-to-peer mode, every other peer
 * (MIGRATE_NOTICE, the same contents). The new owner then announces MIGRATE to everyone and, as
 * with a create, sends updates to a peer only after it acknowledged. Every CREATE, MIGRATE,
 * DESTROY and UPDATE carries the counter. Ownership is the host's word alone: a receiver applies
 *   CREATE (id, 0, owner, state): only from the peer whose namespace the id is in (the id's top
 *       byte), within that peer's quota of live objects; unless it knows the object as a
 *       tombstone, at a counter > 0, or at 0 with another owner or a state as new.
 *   MIGRATE (id, m, owner, state): from the host, like a create at counter m; from another peer,
 *       only when the host's notice (or order) made that peer the owner at exactly m; a MIGRATE
 *       ahead of the notice is answered ANNOUNCE_AGAIN, so the owner announces again later.
 *   MIGRATE_NOTICE / MIGRATE_ORDER: only from the host; they set owner, counter and state when
 *       the counter is newer than what is known (making the object where it is missing).
 *   UPDATE (id, m, version): only from the owner at exactly the current counter, and only newer
 *       versions.
 *   DESTROY (id, m): from the host, or from the owner at exactly its counter (ahead of the
 *       notice: ANNOUNCE_AGAIN, and the owner sends it again); a peer destroying what it does not
 *       own breaks the protocol. A destroy leaves a tombstone that refuses every later message
 *       for the id (ids are never reused, so a destroy is final: a destroy racing a migration
 *       wins, everywhere).
 * Every state received must be a valid pose (position within +-CT_TRANSFORM_MAX_POSITION, a
 * rotation that is not all zero): anything else breaks the protocol, so a bad pose is refused
 * once, on receipt, never by transforms every frame.
 * A peer that joins late learns from the host's notices who owns each migrated object.
 * So for the post's arrival order  M_ab(1) Ub Ub D(1) C(0) Ua(0)  at a third peer: M makes the
 * object owned by B at 1, B's updates apply, D leaves a tombstone at 1, then C(0) and A's
 * update are stale and ignored. The tombstones are kept (a FIFO reuses the oldest when the
 * table is full), which is what keeps a late CREATE from resurrecting an object.
 */
#include "network_session.h"

#include "ct_transform.h" /* CT_TRANSFORM_MAX_POSITION: the poses transforms accept */
#include "ct_array.h"

#include <math.h>

#define NOT_ANNOUNCED UINT32_MAX

/* ---- Messages ----------------------------------------------------------------------------
 * [type u8][origin u8][id varint][mig varint] then
 *   CREATE, MIGRATE, MIGRATE_ORDER, MIGRATE_NOTICE: [owner u8][version varint][mask u16][a float
 *                                                   per mask bit]
 *   UPDATE:                         [version varint][mask u16][a float per mask bit]
 *   DESTROY, ANNOUNCE_AGAIN:        nothing more */

static bool has_state(uint8_t type)
{
    return type != NET_R_DESTROY && type != NET_R_ANNOUNCE_AGAIN;
}
static bool has_owner(uint8_t type) { return has_state(type) && type != NET_R_UPDATE; }

void net_obj_msg_write(net_writer_t *w, const net_obj_msg_t *m)
{
    net_put_u8(w, m->type);
    net_put_u8(w, m->origin);
    net_put_varint(w, m->id);
    net_put_varint(w, m->mig);
    if (has_owner(m->type))
        net_put_u8(w, m->owner);
    if (!has_state(m->type))
        return;
    net_put_varint(w, m->version);
    net_put_u16(w, m->mask);
    for (uint32_t f = 0; f < NET_FIELDS; f++)
        if (m->mask >> f & 1)
            net_put_f32(w, m->fields[f]);
}

bool net_obj_msg_read(net_reader_t *r, net_obj_msg_t *m, const char **why)
{
    memset(m, 0, sizeof *m);
    m->type = net_get_u8(r);
    m->origin = net_get_u8(r);
    m->id = net_get_varint(r);
    m->mig = net_get_varint(r);
    if (m->type < NET_R_CREATE || m->type > NET_R_ANNOUNCE_AGAIN) {
        *why = "not a replication message";
        return false;
    }
    if (has_owner(m->type))
        m->owner = net_get_u8(r);
    if (has_state(m->type)) {
        m->version = net_get_varint(r);
        m->mask = net_get_u16(r);
        for (uint32_t f = 0; f < NET_FIELDS; f++) {
            if (!(m->mask >> f & 1))
                continue;
            m->fields[f] = net_get_f32(r);
            if (!isfinite(m->fields[f])) {
                *why = "a non-finite field value";
                return false;
            }
        }
    }
    if (r->bad) {
        *why = "truncated replication message";
        return false;
    }
    if (net_left(r)) {
        *why = "trailing bytes after a replication message";
        return false;
    }
    if (!m->id || m->origin < 1 || m->origin > NET_MAX_PEER_ID ||
        (has_owner(m->type) && (m->owner < 1 || m->owner > NET_MAX_PEER_ID))) {
        *why = "an object or peer id out of range";
        return false;
    }
    if (m->type == NET_R_UPDATE && (!m->version || !m->mask)) {
        *why = "an update without a version or fields";
        return false;
    }
    return true;
}

/* ---- The table ------------------------------------------------------------------------------ */

static uint32_t hash_id(uint32_t id) { return id * 0x9e3779b1u; }

static uint32_t map_cap(const net_session_t *s) { return s->max_objects * 2; }

static uint32_t find_index(const net_session_t *s, uint32_t id)
{
    const uint32_t mask = map_cap(s) - 1;
    for (uint32_t i = hash_id(id) & mask, n = 0; n <= mask; i = (i + 1) & mask, n++) {
        if (!s->map[i])
            return UINT32_MAX;
        if (s->objects[s->map[i] - 1].id == id)
            return s->map[i] - 1;
    }
    return UINT32_MAX;
}

static void map_insert(net_session_t *s, uint32_t id, uint32_t index)
{
    const uint32_t mask = map_cap(s) - 1;
    uint32_t i = hash_id(id) & mask;
    while (s->map[i])
        i = (i + 1) & mask;
    s->map[i] = index + 1;
}

/* Linear probing removal by shifting back the entries that follow. */
static void map_remove(net_session_t *s, uint32_t id)
{
    const uint32_t mask = map_cap(s) - 1;
    uint32_t i = hash_id(id) & mask;
    while (s->map[i] && s->objects[s->map[i] - 1].id != id)
        i = (i + 1) & mask;
    if (!s->map[i])
        return;
    s->map[i] = 0;
    for (uint32_t j = (i + 1) & mask; s->map[j]; j = (j + 1) & mask) {
        const uint32_t home = hash_id(s->objects[s->map[j] - 1].id) & mask;
        if (((j - home) & mask) >= ((j - i) & mask)) {
            s->map[i] = s->map[j];
            s->map[j] = 0;
            i = j;
        }
    }
}

int net__replication_init(net_session_t *s, uint32_t max_objects)
{
    /* A power of two (the map is masked), at least 16. */
    const uint32_t cap = ct_array_capacity(16, max_objects, 16);
    if (cap & (cap - 1))
        return CT_ERR_INVALID;
    s->max_objects = cap;
    s->objects = ct_alloc(s->a, (size_t)cap * sizeof *s->objects);
    s->sync = ct_alloc(s->a, (size_t)cap * s->max_conns * sizeof *s->sync);
    s->map = ct_alloc(s->a, (size_t)cap * 2 * sizeof *s->map);
    s->tombstones = ct_alloc(s->a, (size_t)cap * sizeof *s->tombstones);
    s->free_list = ct_alloc(s->a, (size_t)cap * sizeof *s->free_list);
    /* Room for a few ticks of fates of every object at every connection, within 2^10..2^17. */
    const uint64_t wanted = (uint64_t)cap * s->max_conns * 4;
    const uint32_t records =
        ct_array_capacity(1024, wanted < (1u << 17) ? (uint32_t)wanted : 1u << 17, 1024);
    s->records = ct_alloc(s->a, (size_t)records * sizeof *s->records);
    s->records_mask = records - 1;
    if (!s->objects || !s->sync || !s->map || !s->tombstones || !s->free_list || !s->records)
        return CT_ERR_NOMEM;
    memset(s->map, 0, (size_t)cap * 2 * sizeof *s->map);
    memset(s->objects, 0, (size_t)cap * sizeof *s->objects);
    memset(s->records, 0, (size_t)records * sizeof *s->records);
    for (uint32_t i = 0; i < cap; i++)
        s->free_list[i] = cap - 1 - i;
    s->num_free = cap;
    s->next_token = 1;
    return 0;
}

void net__replication_free(net_session_t *s)
{
    const size_t cap = s->max_objects;
    ct_free(s->a, s->objects, cap * sizeof *s->objects);
    ct_free(s->a, s->sync, cap * s->max_conns * sizeof *s->sync);
    ct_free(s->a, s->map, cap * 2 * sizeof *s->map);
    ct_free(s->a, s->tombstones, cap * sizeof *s->tombstones);
    ct_free(s->a, s->free_list, cap * sizeof *s->free_list);
    ct_free(s->a, s->records, ((size_t)s->records_mask + 1) * sizeof *s->records);
    s->objects = NULL;
}

static net_sync_t *sync_of(net_session_t *s, uint32_t index, uint32_t conn)
{
    return &s->sync[(size_t)index * s->max_conns + conn];
}

static void reset_sync(net_session_t *s, uint32_t index)
{
    for (uint32_t c = 0; c < s->max_conns; c++)
        *sync_of(s, index, c) = (net_sync_t){0, 0, NOT_ANNOUNCED, 0};
}

/* A slot for a new object; the oldest tombstone goes when none is free. */
static uint32_t new_object(net_session_t *s, uint32_t id)
{
    while (!s->num_free) {
        if (s->tomb_head == s->tomb_tail)
            return UINT32_MAX;
        const uint32_t old = s->tombstones[s->tomb_head++ % s->max_objects];
        if (s->objects[old].live)
            continue; /* brought back by the host's word since */
        map_remove(s, s->objects[old].id);
        s->free_list[s->num_free++] = old;
        s->num_objects--;
    }
    const uint32_t i = s->free_list[--s->num_free];
    memset(&s->objects[i], 0, sizeof s->objects[i]);
    s->objects[i].id = id;
    s->objects[i].fields[6] = 1; /* the identity rotation until a state says otherwise */
    if ((id & 0xffffff) > s->last_serial[id >> 24])
        s->last_serial[id >> 24] = id & 0xffffff; /* an id given again starts past it */
    reset_sync(s, i);
    map_insert(s, id, i);
    s->num_objects++;
    return i;
}

static void make_live(net_session_t *s, net_object_t *o)
{
    if (!o->live)
        s->live_of[o->id >> 24]++;
    o->live = 1;
}

static void make_tombstone(net_session_t *s, uint32_t index, uint32_t mig)
{
    net_object_t *o = &s->objects[index];
    const bool was_live = o->live;
    if (was_live)
        s->live_of[o->id >> 24]--;
    o->live = 0;
    o->mig = mig;
    if (s->tomb_tail - s->tomb_head == s->max_objects)
        s->tomb_head++; /* only after an object came back and died again: its oldest entry goes */
    s->tombstones[s->tomb_tail++ % s->max_objects] = index;
    if (was_live && s->ev.destroyed)
        s->ev.destroyed(s->ev.user, o->id);
}

const net_object_t *net_object_find(const net_session_t *s, uint32_t id)
{
    const uint32_t i = find_index(s, id);
    return i != UINT32_MAX && s->objects[i].live ? &s->objects[i] : NULL;
}

uint32_t *net_object_user(net_session_t *s, uint32_t id)
{
    const uint32_t i = find_index(s, id);
    return i != UINT32_MAX ? &s->objects[i].user : NULL;
}

static void write_state(net_object_t *o, uint16_t mask, const float *fields)
{
    o->version++;
    for (uint32_t f = 0; f < NET_FIELDS; f++) {
        if (mask >> f & 1) {
            o->fields[f] = fields[f];
            o->field_version[f] = o->version;
        }
    }
}

static bool finite_fields(uint16_t mask, const float *fields)
{
    for (uint32_t f = 0; f < NET_FIELDS; f++)
        if (mask >> f & 1 && !isfinite(fields[f]))
            return false;
    return true;
}

/* The pose that `fields` under `mask` make over `base`: what transforms accept (ct_transform.h). */
static bool valid_pose(const float *base, uint16_t mask, const float *fields)
{
    float pose[7];
    for (uint32_t f = 0; f < 7; f++)
        pose[f] = mask >> f & 1 ? fields[f] : base[f];
    for (uint32_t f = 0; f < 3; f++)
        if (!(fabsf(pose[f]) <= CT_TRANSFORM_MAX_POSITION))
            return false;
    return pose[3] != 0 || pose[4] != 0 || pose[5] != 0 || pose[6] != 0;
}

uint32_t net_object_spawn(net_session_t *s, const float *fields, uint16_t mask)
{
    static const float identity[NET_FIELDS] = {[6] = 1};
    if (!s->joined || !s->my_id || !finite_fields(mask, fields) || s->next_serial >= 0xffffff ||
        !valid_pose(identity, mask, fields))
        return 0;
    const uint32_t id = (uint32_t)s->my_id << 24 | ++s->next_serial;
    const uint32_t i = new_object(s, id);
    if (i == UINT32_MAX)
        return 0;
    net_object_t *o = &s->objects[i];
    o->owner = s->my_id;
    make_live(s, o);
    write_state(o, 0xffff, identity);
    write_state(o, mask, fields);
    return id;
}

int net_object_set(net_session_t *s, uint32_t id, uint16_t mask, const float *fields)
{
    const uint32_t i = find_index(s, id);
    if (i == UINT32_MAX || !s->objects[i].live)
        return CT_ERR_NOT_FOUND;
    if (s->objects[i].owner != s->my_id)
        return CT_ERR_INVALID;
    if (!finite_fields(mask, fields) || !valid_pose(s->objects[i].fields, mask, fields))
        return CT_ERR_INVALID;
    write_state(&s->objects[i], mask, fields);
    return 0;
}

/* Sends one reliable replication message to connection c; returns the ct_error of the send. */
static int send_obj(net_session_t *s, uint32_t conn, const net_obj_msg_t *m, uint32_t token)
{
    uint8_t b[16 + 4 * NET_FIELDS];
    net_writer_t w = net_writer(b, sizeof b);
    net_obj_msg_write(&w, m);
    return net_node_send(&s->node, conn, b, w.n, true, token);
}

static uint32_t new_record(net_session_t *s, uint32_t index, uint32_t conn, uint32_t version,
                           bool announce)
{
    uint32_t token = s->next_token++;
    if (!token)
        token = s->next_token++;
    /* A record still waiting when the ring comes round counts as lost (sent again if needed). */
    if (s->records[token & s->records_mask].token)
        net__replication_fate(s, s->records[token & s->records_mask].token, false);
    s->records[token & s->records_mask] =
        (net_record_t){token,         index,   s->objects[index].id, version, s->objects[index].mig,
                       (uint8_t)conn, announce};
    return token;
}

int net_object_destroy(net_session_t *s, uint32_t id)
{
    const uint32_t i = find_index(s, id);
    if (i == UINT32_MAX || !s->objects[i].live)
        return CT_ERR_NOT_FOUND;
    net_object_t *o = &s->objects[i];
    if (o->owner != s->my_id)
        return CT_ERR_INVALID;
    const net_obj_msg_t m = {.type = NET_R_DESTROY, .origin = s->my_id, .id = id, .mig = o->mig};
    for (uint32_t c = 0; c < s->max_conns; c++)
        if (s->id_of_conn[c] && s->conn_of_id[s->id_of_conn[c]] == (int16_t)c)
            send_obj(s, c, &m, 0);
    make_tombstone(s, i, o->mig);
    return 0;
}

/* Takes ownership at counter `mig` (ordered by the host): announce to everyone again. */
static void become_owner(net_session_t *s, uint32_t index, uint32_t mig)
{
    net_object_t *o = &s->objects[index];
    o->owner = s->my_id;
    o->mig = mig;
    make_live(s, o);
    o->version = 0;
    write_state(o, 0xffff, o->fields);
    reset_sync(s, index);
    if (s->ev.owner_changed)
        s->ev.owner_changed(s->ev.user, o->id, s->my_id);
}

int net_object_migrate(net_session_t *s, uint32_t id, uint8_t owner)
{
    const uint32_t i = find_index(s, id);
    if (!s->is_host)
        return CT_ERR_INVALID;
    if (i == UINT32_MAX || !s->objects[i].live)
        return CT_ERR_NOT_FOUND;
    net_object_t *o = &s->objects[i];
    if (owner == o->owner)
        return 0;
    if (owner == s->my_id) {
        become_owner(s, i, o->mig + 1);
        return 0;
    }
    if (s->conn_of_id[owner] < 0)
        return CT_ERR_NOT_FOUND;
    /* The host's copy becomes the new owner's first state (version 1 at the new counter), and
     * the host's own record follows the decision at once, so a second order before the new
     * owner's MIGRATE arrives takes the next counter, never the same one twice. */
    o->owner = owner;
    o->mig++;
    o->version = 0;
    write_state(o, 0xffff, o->fields);
    reset_sync(s, i);
    if (s->ev.owner_changed)
        s->ev.owner_changed(s->ev.user, id, owner);
    net_obj_msg_t m = {.type = NET_R_MIGRATE_ORDER,
                       .origin = s->my_id,
                       .owner = owner,
                       .id = id,
                       .mig = o->mig,
                       .version = o->version,
                       .mask = 0xffff};
    memcpy(m.fields, o->fields, sizeof m.fields);
    const int err = send_obj(s, (uint32_t)s->conn_of_id[owner], &m, 0);
    /* Everyone else hears it from us too: a MIGRATE from the new owner is believed only then. */
    m.type = NET_R_MIGRATE_NOTICE;
    for (uint32_t c = 0; s->mode == NET_MODE_PEER_TO_PEER && c < s->max_conns; c++)
        if (s->id_of_conn[c] && s->id_of_conn[c] != owner &&
            s->conn_of_id[s->id_of_conn[c]] == (int16_t)c)
            send_obj(s, c, &m, 0);
    return err;
}

/* ---- Receiving ------------------------------------------------------------------------------ */

/* Asks the sender of a MIGRATE or DESTROY that came before the host's word to send it again. */
static void ask_again(net_session_t *s, uint32_t conn, const net_obj_msg_t *m)
{
    const net_obj_msg_t again = {
        .type = NET_R_ANNOUNCE_AGAIN, .origin = s->my_id, .id = m->id, .mig = m->mig};
    send_obj(s, conn, &again, 0);
}

/* Sets owner, counter and state from a message (an announce, or the host's word). */
static void apply_state(net_session_t *s, uint32_t i, const net_obj_msg_t *m, bool existed)
{
    net_object_t *o = &s->objects[i];
    const uint8_t old_owner = o->owner;
    make_live(s, o);
    o->owner = m->owner;
    o->mig = m->mig;
    o->version = m->version;
    for (uint32_t f = 0; f < NET_FIELDS; f++) {
        if (m->mask >> f & 1)
            o->fields[f] = m->fields[f];
        o->field_version[f] = m->version;
    }
    /* Relays start this object afresh with everyone (the host in client-server mode). */
    reset_sync(s, i);
    if (!existed && s->ev.created)
        s->ev.created(s->ev.user, m->id);
    if (existed && old_owner != m->owner && s->ev.owner_changed)
        s->ev.owner_changed(s->ev.user, m->id, m->owner);
    if (s->ev.applied)
        s->ev.applied(s->ev.user, m->id, m->owner, m->mig, m->version);
}

/* CREATE, MIGRATE, and the host's MIGRATE_NOTICE. `trusted`: the host's own word (or, in
 * client-server mode, what it relays after checking it). Returns -1 with *why on a breach. */
static int announce_received(net_session_t *s, uint32_t conn, const net_obj_msg_t *m, bool trusted,
                             const char **why)
{
    uint32_t i = find_index(s, m->id);
    const net_object_t *known = i != UINT32_MAX ? &s->objects[i] : NULL;
    const bool notice = m->type == NET_R_MIGRATE_NOTICE;
    if (!valid_pose(known ? known->fields : (const float[NET_FIELDS]){[6] = 1}, m->mask,
                    m->fields)) {
        *why = "a state that is not a valid pose";
        return -1;
    }
    /* Stale: a tombstone (unless the host's word is at a newer counter: a destroy by an owner the
     * object had already been taken from loses to the migration, as it did at the host), a newer
     * counter, or at the same counter another owner or no newer state (the host knows the counter
     * it ordered before the new owner's announce comes). */
    bool stale =
        known && ((!known->live && (!trusted || known->mig >= m->mig)) ||
                  (known->live && (known->mig > m->mig ||
                                   (known->mig == m->mig &&
                                    (known->owner != m->owner || m->version <= known->version)))));
    /* A peer's MIGRATE is believed only at the counter and owner the host's word set. */
    const bool confirmed = trusted || m->type == NET_R_CREATE ||
                           (known && known->mig == m->mig && known->owner == m->owner);
    if (!stale && !confirmed) {
        if (s->is_host) {
            *why = "a migration the host never ordered";
            return -1;
        }
        ask_again(s, conn, m);
        stale = true;
    }
    if (stale) {
        if (m->type == NET_R_CREATE)
            s->stats.stale_creates++;
        else
            s->stats.stale_migrations++;
        return 0;
    }
    const bool existed = known && known->live;
    if (!known) {
        const uint8_t creator = (uint8_t)(m->id >> 24);
        if (!trusted && !notice && creator != s->my_id &&
            s->live_of[creator] >= s->max_objects_per_peer) {
            *why = "more live objects than its quota";
            return -1;
        }
        i = new_object(s, m->id);
        if (i == UINT32_MAX)
            return 0; /* full of live objects: the announce is dropped, the owner's next tick retries */
    }
    apply_state(s, i, m, existed);
    if (m->type == NET_R_CREATE)
        s->stats.creates_applied++;
    else
        s->stats.migrations_applied++;
    return 0;
}

static int update_received(net_session_t *s, const net_obj_msg_t *m, const char **why)
{
    const uint32_t i = find_index(s, m->id);
    net_object_t *o = i != UINT32_MAX ? &s->objects[i] : NULL;
    if (!o || !o->live || o->owner != m->origin || o->mig != m->mig || m->version <= o->version) {
        s->stats.stale_updates++;
        return 0;
    }
    if (!valid_pose(o->fields, m->mask, m->fields)) {
        *why = "an update to a pose out of range";
        return -1;
    }
    o->version = m->version;
    for (uint32_t f = 0; f < NET_FIELDS; f++) {
        if (m->mask >> f & 1) {
            o->fields[f] = m->fields[f];
            o->field_version[f] = m->version;
        }
    }
    s->stats.updates_applied++;
    if (s->ev.applied)
        s->ev.applied(s->ev.user, m->id, m->origin, m->mig, m->version);
    return 0;
}

static int destroy_received(net_session_t *s, uint32_t conn, const net_obj_msg_t *m, bool trusted,
                            const char **why)
{
    uint32_t i = find_index(s, m->id);
    const net_object_t *o = i != UINT32_MAX ? &s->objects[i] : NULL;
    /* A tombstone, an older counter, or (from a peer) an object we never knew: nothing to do. A
     * peer's destroy never plants a tombstone for an unknown id, or it could keep another peer's
     * future objects from ever appearing; the only one who could still announce an object we do
     * not know is its owner, who destroyed it. */
    if ((o && !o->live) || (o && m->mig < o->mig) || (!o && !trusted)) {
        s->stats.stale_destroys++;
        return 0;
    }
    if (!trusted && o && m->mig == o->mig && m->origin != o->owner) {
        *why = "a destroy of an object the peer does not own";
        return -1;
    }
    if (!trusted && m->mig > o->mig) {
        /* The owner at a counter the host has not told us about yet: believed once its word is
         * here. The host itself knows every counter. */
        if (s->is_host) {
            *why = "a destroy of an object the peer does not own";
            return -1;
        }
        ask_again(s, conn, m);
        s->stats.stale_destroys++;
        return 0;
    }
    if (!o && (i = new_object(s, m->id)) == UINT32_MAX)
        return 0;
    make_tombstone(s, i, m->mig > s->objects[i].mig ? m->mig : s->objects[i].mig);
    s->stats.destroys_applied++;
    /* The relay passes it on to every other client. */
    if (s->mode == NET_MODE_CLIENT_SERVER && s->is_host)
        for (uint32_t c = 0; c < s->max_conns; c++)
            if (c != conn && s->id_of_conn[c] && s->conn_of_id[s->id_of_conn[c]] == (int16_t)c)
                send_obj(s, c, m, 0);
    return 0;
}

/* A peer asks us to send again what it could not believe yet: our announce of an object we own
 * at that counter, or our destroy of it. Anything else is stale (we no longer own it). */
static void again_received(net_session_t *s, uint32_t conn, const net_obj_msg_t *m)
{
    const uint32_t i = find_index(s, m->id);
    net_object_t *o = i != UINT32_MAX ? &s->objects[i] : NULL;
    if (!o || o->mig != m->mig || o->owner != s->my_id)
        return;
    if (o->live) {
        sync_of(s, i, conn)->announced_mig = NOT_ANNOUNCED;
        return;
    }
    const net_obj_msg_t d = {.type = NET_R_DESTROY, .origin = s->my_id, .id = o->id, .mig = o->mig};
    send_obj(s, conn, &d, 0);
}

int net__replication_receive(net_session_t *s, uint32_t conn, uint8_t from, const uint8_t *d,
                             uint32_t len, const char **why)
{
    net_reader_t r = net_reader(d, len);
    net_obj_msg_t m;
    if (!net_obj_msg_read(&r, &m, why))
        return -1;
    /* Only the host relays on behalf of others; anyone else speaks for itself. */
    const bool relayed = s->mode == NET_MODE_CLIENT_SERVER && from == 1;
    if (m.origin != from && !relayed) {
        *why = "a replication message in another peer's name";
        return -1;
    }
    /* The host decides ownership; in client-server mode it also checked what it relays. */
    const bool trusted = from == 1 && !s->is_host;
    if (m.type == NET_R_MIGRATE_ORDER) {
        if (from != 1 || m.owner != s->my_id) {
            *why = "a migration order not from the host, or for another peer";
            return -1;
        }
        uint32_t i = find_index(s, m.id);
        if (!valid_pose(i != UINT32_MAX ? s->objects[i].fields : (const float[NET_FIELDS]){[6] = 1},
                        m.mask, m.fields)) {
            *why = "a state that is not a valid pose";
            return -1;
        }
        if (i != UINT32_MAX && s->objects[i].mig >= m.mig) {
            s->stats.stale_migrations++;
            return 0; /* a tombstone at an older counter comes back: the host's word wins */
        }
        /* The host's copy is the state the object starts from under its new owner. */
        const bool existed = i != UINT32_MAX && s->objects[i].live;
        if (i == UINT32_MAX && (i = new_object(s, m.id)) == UINT32_MAX)
            return 0;
        memcpy(s->objects[i].fields, m.fields, sizeof m.fields);
        if (!existed && s->ev.created)
            s->ev.created(s->ev.user, m.id);
        become_owner(s, i, m.mig);
        s->stats.migrations_applied++;
        return 0;
    }
    if (m.type == NET_R_MIGRATE_NOTICE &&
        (from != 1 || s->mode != NET_MODE_PEER_TO_PEER || m.owner == s->my_id)) {
        *why = "a migration notice not from the host, or about ourselves";
        return -1;
    }
    if ((m.type == NET_R_CREATE || m.type == NET_R_MIGRATE) && m.owner != m.origin) {
        *why = "an announce whose owner is not its sender";
        return -1;
    }
    if (m.type == NET_R_CREATE && ((m.id >> 24) != m.origin || m.mig != 0)) {
        *why = "a create outside its sender's id namespace or past counter 0";
        return -1;
    }
    if (m.type == NET_R_MIGRATE && !m.mig) {
        *why = "a migration at counter 0";
        return -1;
    }
    switch (m.type) {
    case NET_R_UPDATE: return update_received(s, &m, why);
    case NET_R_DESTROY: return destroy_received(s, conn, &m, trusted, why);
    case NET_R_ANNOUNCE_AGAIN: again_received(s, conn, &m); return 0;
    default: return announce_received(s, conn, &m, trusted, why);
    }
}

/* ---- Sending -------------------------------------------------------------------------------- */

void net__replication_fate(net_session_t *s, uint32_t token, bool delivered)
{
    net_record_t *rec = &s->records[token & s->records_mask];
    if (rec->token != token)
        return;
    rec->token = 0;
    /* Fates from before a migration (versions restart) or of a reused slot do not count. */
    if (s->objects[rec->object].id != rec->id || s->objects[rec->object].mig != rec->mig)
        return;
    net_sync_t *st = sync_of(s, rec->object, rec->conn);
    if (rec->announce) {
        if (st->announced_mig != rec->mig || st->ready)
            return;
        if (delivered) {
            st->ready = 1;
            if (rec->version > st->acked_version)
                st->acked_version = rec->version;
        } else {
            st->announced_mig = NOT_ANNOUNCED; /* its record was overwritten: announce again */
        }
        return;
    }
    if (delivered && rec->version > st->acked_version)
        st->acked_version = rec->version;
    if (st->inflight_version == rec->version)
        st->inflight_version = 0;
}

/* Whether this node sends object o to connection c. */
static bool sends_to(const net_session_t *s, const net_object_t *o, uint32_t c)
{
    const uint8_t peer = s->id_of_conn[c];
    if (!peer || s->conn_of_id[peer] != (int16_t)c || peer == o->owner)
        return false;
    if (o->owner == s->my_id)
        return true;
    return s->mode == NET_MODE_CLIENT_SERVER && s->is_host;
}

void net__replication_send(net_session_t *s)
{
    uint32_t budget[256];
    for (uint32_t c = 0; c < s->max_conns; c++)
        budget[c] = s->update_budget ? s->update_budget : UINT32_MAX;
    /* Objects take turns from a rotating start, so a budget that runs out does not starve the
     * same ones every tick. */
    const uint32_t start = s->send_cursor;
    s->send_cursor = (s->send_cursor + 97) & (s->max_objects - 1);
    for (uint32_t n = 0; n < s->max_objects; n++) {
        const uint32_t i = (start + n) & (s->max_objects - 1);
        const net_object_t *o = &s->objects[i];
        if (!o->id || !o->live ||
            (o->owner != s->my_id && !(s->is_host && s->mode == NET_MODE_CLIENT_SERVER)))
            continue;
        for (uint32_t c = 0; c < s->max_conns; c++) {
            if (!sends_to(s, o, c))
                continue;
            net_sync_t *st = sync_of(s, i, c);
            if (st->announced_mig != o->mig) {
                net_obj_msg_t m = {.type = o->mig ? NET_R_MIGRATE : NET_R_CREATE,
                                   .origin = o->owner,
                                   .owner = o->owner,
                                   .id = o->id,
                                   .mig = o->mig,
                                   .version = o->version,
                                   .mask = 0xffff};
                memcpy(m.fields, o->fields, sizeof m.fields);
                if (send_obj(s, c, &m, new_record(s, i, c, o->version, true)) == 0) {
                    *st = (net_sync_t){0, 0, o->mig, 0};
                    s->stats.announces_sent++;
                }
                continue;
            }
            if (!st->ready || o->version <= st->acked_version || st->inflight_version >= o->version)
                continue;
            net_obj_msg_t m = {.type = NET_R_UPDATE,
                               .origin = o->owner,
                               .id = o->id,
                               .mig = o->mig,
                               .version = o->version};
            for (uint32_t f = 0; f < NET_FIELDS; f++) {
                if (o->field_version[f] > st->acked_version) {
                    m.mask |= (uint16_t)(1u << f);
                    m.fields[f] = o->fields[f];
                }
            }
            /* The budget counts what goes on the wire: the message and its 2-byte framing. */
            uint8_t b[16 + 4 * NET_FIELDS];
            net_writer_t w = net_writer(b, sizeof b);
            net_obj_msg_write(&w, &m);
            if (w.n + 2 > budget[c])
                continue; /* over this tick's budget: a later tick sends it */
            budget[c] -= w.n + 2;
            const uint32_t token = new_record(s, i, c, o->version, false);
            if (net_node_send(&s->node, c, b, w.n, false, token) == 0) {
                st->inflight_version = o->version;
                s->stats.updates_sent++;
                s->stats.update_bytes_sent += w.n;
            }
        }
    }
}

void net__replication_peer_joined(net_session_t *s, uint32_t conn)
{
    for (uint32_t i = 0; i < s->max_objects; i++)
        *sync_of(s, i, conn) = (net_sync_t){0, 0, NOT_ANNOUNCED, 0};
    /* A peer-to-peer joiner believes another peer's MIGRATE only on the host's word: it gets the
     * word for every object that migrated before it came. */
    const uint8_t joiner = s->id_of_conn[conn];
    for (uint32_t i = 0; s->is_host && s->mode == NET_MODE_PEER_TO_PEER && i < s->max_objects;
         i++) {
        const net_object_t *o = &s->objects[i];
        if (!o->id || !o->live || !o->mig || o->owner == s->my_id || o->owner == joiner)
            continue;
        net_obj_msg_t m = {.type = NET_R_MIGRATE_NOTICE,
                           .origin = s->my_id,
                           .owner = o->owner,
                           .id = o->id,
                           .mig = o->mig,
                           .version = o->version,
                           .mask = 0xffff};
        memcpy(m.fields, o->fields, sizeof m.fields);
        send_obj(s, conn, &m, 0);
    }
}

/* The host takes over what the leaver owned (it may hand it on with net_object_migrate). */
void net__replication_peer_left(net_session_t *s, uint8_t peer_id)
{
    if (!s->is_host)
        return;
    for (uint32_t i = 0; i < s->max_objects; i++)
        if (s->objects[i].id && s->objects[i].live && s->objects[i].owner == peer_id)
            become_owner(s, i, s->objects[i].mig + 1);
}
