/* physics_snapshot.c: rollback (ct_physics.h, Snapshots). A snapshot is the world's dynamic
 * state in one flat buffer: every body's pose, velocities, pending forces and sleep, the contact
 * caches that warm start the next step (and the poses rigid manifolds were found at, which the
 * next steps recycle), the joints' accumulated impulses, the character movers and the point
 * masses. Shapes, materials, filters and statics are not in it: they are the world's, by
 * reference. Restoring into the same world (the same bodies in the same instance order, checked
 * entity by entity) gives back every bit the next steps read, so restore then simulate gives the
 * state hashes of never having left.
 *
 * It is packed without losing a bit: what the world can make again from the rest (a body's world
 * bounding box, from its rotation) is left out; a body's velocities and pending forces only
 * appear when some bit of them is set (a flag byte says which); a rigid contact keeps only the
 * points it has, its key is the difference from the one before (they are sorted) in 7-bit
 * groups, and its friction and twist impulses only appear when set. */
#include "physics_internal.h"

#include <string.h>

#define SNAPSHOT_MAGIC 0x53505443u /* "CTPS" */
#define SNAPSHOT_VERSION 2u

typedef struct snapshot__header {
    uint32_t magic, version, size;
    uint32_t bodies, rigid_cache, cache, joints, next_joint, characters, points;
    uint32_t woke, pad;
} snapshot__header;

/* A body's flag byte: which of its optional members follow, and its sleep. */
enum {
    BODY_VELOCITY = 1u,
    BODY_ANGULAR = 2u,
    BODY_FORCE = 4u,
    BODY_TORQUE = 8u,
    BODY_ASLEEP = 16u,
};

/* A rigid contact's flag byte: its point count in the low bits, then these. */
enum {
    CONTACT_COUNT = 7u,
    CONTACT_TOUCHING = 8u,
    CONTACT_ASLEEP = 16u,
    CONTACT_FRICTION = 32u,
    CONTACT_TWIST = 64u,
};

/* A rigid contact's second byte: how each of its two recycle rotations (the bodies' rotations
 * when its manifold was found) is written, two bits each, a's then b's. Contacts found in the same
 * step share their bodies' rotations then, and a static or sleeping body has not turned since. */
enum {
    ROTATION_WRITTEN = 0u, /* its 16 bytes follow */
    ROTATION_NOW = 1u,     /* the body's rotation now */
    ROTATION_SEEN = 2u,    /* the last recycle rotation written for this body */
};

typedef struct snapshot__point {
    uint32_t entity;
    physics__v3 position, velocity, acceleration;
} snapshot__point;

/* Writes into a buffer, or only counts when `at` is NULL. */
typedef struct snapshot__out {
    uint8_t *at;
    uint64_t n;
} snapshot__out;

static void out_put(snapshot__out *o, const void *data, size_t n)
{
    if (o->at && n) {
        memcpy(o->at, data, n);
        o->at += n;
    }
    o->n += n;
}

static void out_u8(snapshot__out *o, uint8_t v) { out_put(o, &v, 1); }

static void out_varint(snapshot__out *o, uint64_t v)
{
    while (v >= 0x80u) {
        out_u8(o, (uint8_t)(v | 0x80u));
        v >>= 7;
    }
    out_u8(o, (uint8_t)v);
}

/* Some bit of the n bytes is set (a -0.0f counts: the next step would read it). */
static bool any_bit(const void *data, size_t n)
{
    const uint8_t *d = data;
    for (size_t k = 0; k < n; k++)
        if (d[k])
            return true;
    return false;
}

/* Reads from a buffer, refusing to run past its end; `ok` goes false at the first overrun. */
typedef struct snapshot__in {
    const uint8_t *at, *end;
    bool ok;
} snapshot__in;

static void in_take(snapshot__in *in, void *out, size_t n)
{
    if (!in->ok || (size_t)(in->end - in->at) < n) {
        in->ok = false;
        if (out && n)
            memset(out, 0, n);
        return;
    }
    if (out && n)
        memcpy(out, in->at, n);
    in->at += n;
}

static uint8_t in_u8(snapshot__in *in)
{
    uint8_t v = 0;
    in_take(in, &v, 1);
    return v;
}

static uint64_t in_varint(snapshot__in *in)
{
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        const uint8_t byte = in_u8(in);
        v |= (uint64_t)(byte & 0x7fu) << shift;
        if (!(byte & 0x80u))
            return v;
    }
    in->ok = false;
    return 0;
}

/* Per body instance, the last recycle rotation written (or read) for it. */
typedef struct snapshot__seen {
    physics__quat q;
    uint32_t set;
} snapshot__seen;

static snapshot__seen *seen_alloc(const physics__scene *s)
{
    const size_t n = s->bodies.n ? s->bodies.n : 1u;
    snapshot__seen *seen = ct_alloc(s->a, n * sizeof *seen);
    if (seen)
        memset(seen, 0, n * sizeof *seen);
    return seen;
}

static void seen_free(const physics__scene *s, snapshot__seen *seen)
{
    if (seen)
        ct_free(s->a, seen, (s->bodies.n ? s->bodies.n : 1u) * sizeof *seen);
}

/* How recycle rotation q of body entity e is written; a written one is remembered as seen. */
static uint32_t rotation_code(const physics__bodies *b, snapshot__seen *seen, uint64_t e,
                              const physics__quat *q)
{
    const uint32_t i = physics__bodies_find(b, (ct_entity_t){(uint32_t)e});
    if (i == UINT32_MAX)
        return ROTATION_WRITTEN;
    if (!memcmp(&b->rotation[i], q, sizeof *q))
        return ROTATION_NOW;
    if (seen[i].set && !memcmp(&seen[i].q, q, sizeof *q))
        return ROTATION_SEEN;
    seen[i].q = *q;
    seen[i].set = 1;
    return ROTATION_WRITTEN;
}

/* Reads recycle rotation q of body entity e written with `code` (the bodies already read);
 * false when the code names what is not there. */
static bool rotation_read(const physics__bodies *b, snapshot__seen *seen, uint64_t e, uint32_t code,
                          snapshot__in *in, physics__quat *q)
{
    const uint32_t i = physics__bodies_find(b, (ct_entity_t){(uint32_t)e});
    if (code == ROTATION_WRITTEN) {
        in_take(in, q, sizeof *q);
        if (i != UINT32_MAX)
            seen[i].q = *q, seen[i].set = 1;
        return true;
    }
    if (i == UINT32_MAX || (code == ROTATION_SEEN && !seen[i].set) || code > ROTATION_SEEN)
        return false;
    *q = code == ROTATION_NOW ? b->rotation[i] : seen[i].q;
    return true;
}

/* Everything after the header, into o (counted only when o->at is NULL). */
static void snapshot__write(const physics__scene *s, const physics__points *p, snapshot__seen *seen,
                            snapshot__out *o)
{
    const physics__bodies *b = &s->bodies;
    for (uint32_t i = 0; i < b->n; i++) {
        const uint8_t flags =
            (uint8_t)((any_bit(&b->velocity[i], sizeof(physics__v3)) ? BODY_VELOCITY : 0u) |
                      (any_bit(&b->angular[i], sizeof(physics__v3)) ? BODY_ANGULAR : 0u) |
                      (any_bit(&b->force[i], sizeof(physics__v3)) ? BODY_FORCE : 0u) |
                      (any_bit(&b->torque[i], sizeof(physics__v3)) ? BODY_TORQUE : 0u) |
                      (b->asleep[i] ? BODY_ASLEEP : 0u));
        out_put(o, &b->entity[i].id, sizeof(uint32_t));
        out_put(o, &b->island[i], sizeof(uint32_t));
        out_put(o, &b->rest[i], sizeof(float));
        out_u8(o, flags);
        out_put(o, &b->position[i], sizeof(physics__v3));
        out_put(o, &b->rotation[i], sizeof(physics__quat));
        if (flags & BODY_VELOCITY)
            out_put(o, &b->velocity[i], sizeof(physics__v3));
        if (flags & BODY_ANGULAR)
            out_put(o, &b->angular[i], sizeof(physics__v3));
        if (flags & BODY_FORCE)
            out_put(o, &b->force[i], sizeof(physics__v3));
        if (flags & BODY_TORQUE)
            out_put(o, &b->torque[i], sizeof(physics__v3));
    }
    uint64_t key = 0;
    for (uint32_t k = 0; k < s->rigid.num_cache; k++) {
        const physics__rigid_cached *c = &s->rigid.cache[k];
        const uint32_t n = c->count < PHYSICS_MANIFOLD_POINTS ? c->count : PHYSICS_MANIFOLD_POINTS;
        const uint8_t flags =
            (uint8_t)(n | (c->touching ? CONTACT_TOUCHING : 0u) |
                      (c->asleep ? CONTACT_ASLEEP : 0u) |
                      (any_bit(&c->friction, sizeof c->friction) ? CONTACT_FRICTION : 0u) |
                      (any_bit(&c->twist, sizeof c->twist) ? CONTACT_TWIST : 0u));
        const uint32_t code_a = rotation_code(b, seen, c->key >> 32, &c->geo.qa),
                       code_b = rotation_code(b, seen, c->key & UINT32_MAX, &c->geo.qb);
        out_varint(o, c->key - key);
        key = c->key;
        out_u8(o, flags);
        out_u8(o, (uint8_t)(code_a | code_b << 2));
        for (uint32_t q = 0; q < n; q++)
            out_varint(o, c->id[q]);
        out_put(o, c->jn, n * sizeof *c->jn);
        if (flags & CONTACT_FRICTION)
            out_put(o, &c->friction, sizeof c->friction);
        if (flags & CONTACT_TWIST)
            out_put(o, &c->twist, sizeof c->twist);
        if (code_a == ROTATION_WRITTEN)
            out_put(o, &c->geo.qa, sizeof c->geo.qa);
        if (code_b == ROTATION_WRITTEN)
            out_put(o, &c->geo.qb, sizeof c->geo.qb);
        out_put(o, &c->geo.d, sizeof c->geo.d);
        out_put(o, &c->geo.normal, sizeof c->geo.normal);
        out_put(o, c->geo.ra, n * sizeof *c->geo.ra);
        out_put(o, c->geo.sep, n * sizeof *c->geo.sep);
    }
    out_put(o, s->cache, (size_t)s->num_cache * sizeof *s->cache);
    out_put(o, s->joints.j, (size_t)s->joints.n * sizeof *s->joints.j);
    out_put(o, s->characters.c, (size_t)s->characters.n * sizeof *s->characters.c);
    for (uint32_t i = 0; p && i < p->n; i++) {
        const snapshot__point x = {p->entity[i].id, p->position[i], p->velocity[i],
                                   p->acceleration[i]};
        out_put(o, &x, sizeof x);
    }
}

uint32_t physics__snapshot_size(const physics__scene *s, const physics__points *p)
{
    snapshot__seen *seen = seen_alloc(s);
    if (!seen)
        return 0;
    snapshot__out o = {NULL, sizeof(snapshot__header)};
    snapshot__write(s, p, seen, &o);
    seen_free(s, seen);
    return o.n <= UINT32_MAX ? (uint32_t)o.n : 0u;
}

uint32_t physics__snapshot_save(const physics__scene *s, const physics__points *p, void *buffer,
                                uint32_t size)
{
    const uint32_t need = physics__snapshot_size(s, p);
    if (!need || size < need || !buffer)
        return 0;
    const physics__bodies *b = &s->bodies;
    const snapshot__header h = {
        SNAPSHOT_MAGIC,     SNAPSHOT_VERSION, need,        b->n,
        s->rigid.num_cache, s->num_cache,     s->joints.n, s->joints.next_id,
        s->characters.n,    p ? p->n : 0u,    s->woke,     0};
    snapshot__seen *seen = seen_alloc(s);
    if (!seen)
        return 0;
    snapshot__out o = {buffer, 0};
    out_put(&o, &h, sizeof h);
    snapshot__write(s, p, seen, &o);
    seen_free(s, seen);
    return need;
}

/* Reads the snapshot after its header. With apply false it only checks (nothing is written, and
 * the arrays need not have room); with apply true it writes the state into s and p, whose arrays
 * were made big enough, and which a check passed. NULL when it fits the world. */
static const char *snapshot__read(physics__scene *s, physics__points *p, const snapshot__header *h,
                                  snapshot__seen *seen, snapshot__in *in, bool apply)
{
    physics__bodies *b = &s->bodies;
    for (uint32_t i = 0; i < h->bodies; i++) {
        uint32_t e, island;
        float rest;
        physics__v3 pos, v[4] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
        physics__quat q;
        in_take(in, &e, sizeof e);
        in_take(in, &island, sizeof island);
        in_take(in, &rest, sizeof rest);
        const uint8_t flags = in_u8(in);
        in_take(in, &pos, sizeof pos);
        in_take(in, &q, sizeof q);
        for (unsigned k = 0; k < 4; k++)
            if (flags & (1u << k))
                in_take(in, &v[k], sizeof v[k]);
        if (!in->ok)
            return "the snapshot's size does not match its contents (cut short or damaged)";
        if (e != b->entity[i].id)
            return "the world's bodies are not those it was saved with (or not in that order)";
        if (!apply)
            continue;
        b->island[i] = island;
        b->rest[i] = rest;
        b->asleep[i] = (flags & BODY_ASLEEP) != 0;
        b->position[i] = pos;
        b->rotation[i] = q;
        b->velocity[i] = v[0];
        b->angular[i] = v[1];
        b->force[i] = v[2];
        b->torque[i] = v[3];
        physics__bodies_extent(b, i);
    }
    uint64_t key = 0;
    for (uint32_t k = 0; k < h->rigid_cache; k++) {
        physics__rigid_cached c;
        memset(&c, 0, sizeof c);
        key += in_varint(in);
        c.key = key;
        const uint8_t flags = in_u8(in);
        const uint32_t n = flags & CONTACT_COUNT;
        if (n > PHYSICS_MANIFOLD_POINTS)
            return "the snapshot's size does not match its contents (cut short or damaged)";
        c.count = n;
        c.touching = (flags & CONTACT_TOUCHING) != 0;
        c.asleep = (flags & CONTACT_ASLEEP) != 0;
        const uint8_t codes = in_u8(in);
        for (uint32_t q = 0; q < n; q++) {
            const uint64_t id = in_varint(in);
            if (id > UINT32_MAX)
                in->ok = false;
            c.id[q] = (uint32_t)id;
        }
        in_take(in, c.jn, n * sizeof *c.jn);
        if (flags & CONTACT_FRICTION)
            in_take(in, &c.friction, sizeof c.friction);
        if (flags & CONTACT_TWIST)
            in_take(in, &c.twist, sizeof c.twist);
        /* Bodies come first: in a restore, the rotations now are those of the snapshot. */
        if (!rotation_read(b, seen, key >> 32, codes & 3u, in, &c.geo.qa) ||
            !rotation_read(b, seen, key & UINT32_MAX, codes >> 2, in, &c.geo.qb))
            return "the snapshot's contacts name bodies or rotations it does not have";
        in_take(in, &c.geo.d, sizeof c.geo.d);
        in_take(in, &c.geo.normal, sizeof c.geo.normal);
        in_take(in, c.geo.ra, n * sizeof *c.geo.ra);
        in_take(in, c.geo.sep, n * sizeof *c.geo.sep);
        if (apply)
            s->rigid.cache[k] = c;
    }
    in_take(in, apply ? s->cache : NULL, (size_t)h->cache * sizeof *s->cache);
    in_take(in, apply ? s->joints.j : NULL, (size_t)h->joints * sizeof *s->joints.j);
    in_take(in, apply ? s->characters.c : NULL, (size_t)h->characters * sizeof *s->characters.c);
    for (uint32_t i = 0; i < h->points; i++) {
        snapshot__point x;
        in_take(in, &x, sizeof x);
        if (!in->ok)
            break;
        if (x.entity != p->entity[i].id)
            return "the world's point masses are not those it was saved with";
        if (apply) {
            p->position[i] = x.position;
            p->velocity[i] = x.velocity;
            p->acceleration[i] = x.acceleration;
        }
    }
    if (!in->ok || in->at != in->end)
        return "the snapshot's size does not match its contents (cut short or damaged)";
    return NULL;
}

const char *physics__snapshot_check(const physics__scene *s, const physics__points *p,
                                    const void *buffer, uint32_t size)
{
    snapshot__header h;
    if (!buffer || size < sizeof h)
        return "the snapshot is shorter than its header";
    memcpy(&h, buffer, sizeof h);
    if (h.magic != SNAPSHOT_MAGIC || h.version != SNAPSHOT_VERSION)
        return "not a physics snapshot (or of another version)";
    if (h.size != size)
        return "the snapshot's size does not match its contents (cut short or damaged)";
    if (h.bodies != s->bodies.n || h.points != (p ? p->n : 0u))
        return "the world has other bodies or point masses than when it was saved";
    snapshot__seen *seen = seen_alloc(s);
    if (!seen)
        return "out of memory while checking the snapshot";
    snapshot__in in = {(const uint8_t *)buffer + sizeof h, (const uint8_t *)buffer + size, true};
    /* Only reads: nothing is written with apply false. */
    const char *why =
        snapshot__read((physics__scene *)s, (physics__points *)p, &h, seen, &in, false);
    seen_free(s, seen);
    return why;
}

int physics__snapshot_restore(physics__scene *s, physics__points *p, const void *buffer,
                              uint32_t size)
{
    if (physics__snapshot_check(s, p, buffer, size))
        return CT_ERR_INVALID;
    snapshot__header h;
    memcpy(&h, buffer, sizeof h);
    physics__rigid *r = &s->rigid;
    snapshot__seen *seen = seen_alloc(s);
    if (!seen)
        return CT_ERR_NOMEM;
    if (physics__reserve(s->a, (void **)&r->cache, &r->cap_cache, h.rigid_cache,
                         sizeof *r->cache) ||
        physics__reserve(s->a, (void **)&s->cache, &s->cap_cache, h.cache, sizeof *s->cache) ||
        physics__reserve(s->a, (void **)&s->joints.j, &s->joints.cap, h.joints,
                         sizeof *s->joints.j) ||
        physics__reserve(s->a, (void **)&s->characters.c, &s->characters.cap, h.characters,
                         sizeof *s->characters.c)) {
        seen_free(s, seen);
        return CT_ERR_NOMEM;
    }
    snapshot__in in = {(const uint8_t *)buffer + sizeof h, (const uint8_t *)buffer + size, true};
    snapshot__read(s, p, &h, seen, &in, true);
    seen_free(s, seen);
    r->num_cache = h.rigid_cache;
    s->num_cache = h.cache;
    s->joints.n = h.joints;
    s->joints.next_id = h.next_joint;
    s->characters.n = h.characters;
    s->woke = h.woke != 0;
    /* Both grids are made again from the restored bodies; nothing is quiet until a step says so. */
    s->bp_stale = s->fixed_stale = true;
    s->num_escaped = 0;
    s->quiet = false;
    return 0;
}
