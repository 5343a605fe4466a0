/* physics_snapshot.c: rollback (ct_physics.h, Snapshots). A snapshot is the world's dynamic
 * state in one flat buffer: every body's pose, velocities, pending forces and sleep, the contact
 * caches that warm start the next step, the joints' accumulated impulses, the character movers
 * and the point masses. Shapes, materials, filters and statics are not in it: they are the
 * world's, by reference. Restoring into the same world (the same bodies in the same instance
 * order, checked entity by entity) gives back every bit the next steps read, so restore then
 * simulate gives the state hashes of never having left. */
#include "physics_internal.h"

#include <string.h>

#define SNAPSHOT_MAGIC 0x53505443u /* "CTPS" */
#define SNAPSHOT_VERSION 1u

typedef struct snapshot__header {
    uint32_t magic, version, size;
    uint32_t bodies, rigid_cache, cache, joints, next_joint, characters, points;
    uint32_t woke, pad;
} snapshot__header;

/* One body: 104 bytes. */
typedef struct snapshot__body {
    uint32_t entity, island;
    float rest;
    uint8_t asleep, pad[3];
    physics__v3 position, velocity, angular, force, torque;
    physics__quat rotation;
    physics__v3 extent;
} snapshot__body;

typedef struct snapshot__point {
    uint32_t entity;
    physics__v3 position, velocity, acceleration;
} snapshot__point;

static uint64_t snapshot__bytes(const physics__scene *s, const physics__points *p)
{
    return sizeof(snapshot__header) + (uint64_t)s->bodies.n * sizeof(snapshot__body) +
           (uint64_t)s->rigid.num_cache * sizeof(physics__rigid_cached) +
           (uint64_t)s->num_cache * sizeof(physics__cached) +
           (uint64_t)s->joints.n * sizeof(physics__joint) +
           (uint64_t)s->characters.n * sizeof(physics__character) +
           (uint64_t)(p ? p->n : 0) * sizeof(snapshot__point);
}

uint32_t physics__snapshot_size(const physics__scene *s, const physics__points *p)
{
    const uint64_t n = snapshot__bytes(s, p);
    return n <= UINT32_MAX ? (uint32_t)n : 0u;
}

/* Copies n bytes from *at into out (which may be NULL when n is 0) and moves on. */
static void snapshot__take(const uint8_t **at, void *out, size_t n)
{
    if (n)
        memcpy(out, *at, n);
    *at += n;
}

/* Appends n bytes at *at. */
static void snapshot__put(uint8_t **at, const void *data, size_t n)
{
    if (n)
        memcpy(*at, data, n);
    *at += n;
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
    uint8_t *at = buffer;
    snapshot__put(&at, &h, sizeof h);
    for (uint32_t i = 0; i < b->n; i++) {
        snapshot__body x;
        memset(&x, 0, sizeof x);
        x.entity = b->entity[i].id;
        x.island = b->island[i];
        x.rest = b->rest[i];
        x.asleep = b->asleep[i];
        x.position = b->position[i];
        x.velocity = b->velocity[i];
        x.angular = b->angular[i];
        x.force = b->force[i];
        x.torque = b->torque[i];
        x.rotation = b->rotation[i];
        x.extent = b->extent[i];
        snapshot__put(&at, &x, sizeof x);
    }
    snapshot__put(&at, s->rigid.cache, (size_t)s->rigid.num_cache * sizeof *s->rigid.cache);
    snapshot__put(&at, s->cache, (size_t)s->num_cache * sizeof *s->cache);
    snapshot__put(&at, s->joints.j, (size_t)s->joints.n * sizeof *s->joints.j);
    snapshot__put(&at, s->characters.c, (size_t)s->characters.n * sizeof *s->characters.c);
    for (uint32_t i = 0; p && i < p->n; i++) {
        const snapshot__point x = {p->entity[i].id, p->position[i], p->velocity[i],
                                   p->acceleration[i]};
        snapshot__put(&at, &x, sizeof x);
    }
    return need;
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
    const uint64_t want = sizeof h + (uint64_t)h.bodies * sizeof(snapshot__body) +
                          (uint64_t)h.rigid_cache * sizeof(physics__rigid_cached) +
                          (uint64_t)h.cache * sizeof(physics__cached) +
                          (uint64_t)h.joints * sizeof(physics__joint) +
                          (uint64_t)h.characters * sizeof(physics__character) +
                          (uint64_t)h.points * sizeof(snapshot__point);
    if (h.size != size || want != size)
        return "the snapshot's size does not match its contents (cut short or damaged)";
    if (h.bodies != s->bodies.n || h.points != (p ? p->n : 0u))
        return "the world has other bodies or point masses than when it was saved";
    const uint8_t *at = (const uint8_t *)buffer + sizeof h;
    for (uint32_t i = 0; i < h.bodies; i++, at += sizeof(snapshot__body)) {
        uint32_t e;
        memcpy(&e, at, sizeof e);
        if (e != s->bodies.entity[i].id)
            return "the world's bodies are not those it was saved with (or not in that order)";
    }
    at += (size_t)h.rigid_cache * sizeof(physics__rigid_cached) +
          (size_t)h.cache * sizeof(physics__cached) + (size_t)h.joints * sizeof(physics__joint) +
          (size_t)h.characters * sizeof(physics__character);
    for (uint32_t i = 0; i < h.points; i++, at += sizeof(snapshot__point)) {
        uint32_t e;
        memcpy(&e, at, sizeof e);
        if (e != p->entity[i].id)
            return "the world's point masses are not those it was saved with";
    }
    return NULL;
}

int physics__snapshot_restore(physics__scene *s, physics__points *p, const void *buffer,
                              uint32_t size)
{
    if (physics__snapshot_check(s, p, buffer, size))
        return CT_ERR_INVALID;
    snapshot__header h;
    memcpy(&h, buffer, sizeof h);
    physics__rigid *r = &s->rigid;
    if (physics__reserve(s->a, (void **)&r->cache, &r->cap_cache, h.rigid_cache,
                         sizeof *r->cache) ||
        physics__reserve(s->a, (void **)&s->cache, &s->cap_cache, h.cache, sizeof *s->cache) ||
        physics__reserve(s->a, (void **)&s->joints.j, &s->joints.cap, h.joints,
                         sizeof *s->joints.j) ||
        physics__reserve(s->a, (void **)&s->characters.c, &s->characters.cap, h.characters,
                         sizeof *s->characters.c))
        return CT_ERR_NOMEM;
    physics__bodies *b = &s->bodies;
    const uint8_t *at = (const uint8_t *)buffer + sizeof h;
    for (uint32_t i = 0; i < h.bodies; i++, at += sizeof(snapshot__body)) {
        snapshot__body x;
        memcpy(&x, at, sizeof x);
        b->island[i] = x.island;
        b->rest[i] = x.rest;
        b->asleep[i] = x.asleep;
        b->position[i] = x.position;
        b->velocity[i] = x.velocity;
        b->angular[i] = x.angular;
        b->force[i] = x.force;
        b->torque[i] = x.torque;
        b->rotation[i] = x.rotation;
        b->extent[i] = x.extent;
    }
    snapshot__take(&at, r->cache, (size_t)h.rigid_cache * sizeof *r->cache);
    r->num_cache = h.rigid_cache;
    snapshot__take(&at, s->cache, (size_t)h.cache * sizeof *s->cache);
    s->num_cache = h.cache;
    snapshot__take(&at, s->joints.j, (size_t)h.joints * sizeof *s->joints.j);
    s->joints.n = h.joints;
    s->joints.next_id = h.next_joint;
    snapshot__take(&at, s->characters.c, (size_t)h.characters * sizeof *s->characters.c);
    s->characters.n = h.characters;
    for (uint32_t i = 0; i < h.points; i++, at += sizeof(snapshot__point)) {
        snapshot__point x;
        memcpy(&x, at, sizeof x);
        p->position[i] = x.position;
        p->velocity[i] = x.velocity;
        p->acceleration[i] = x.acceleration;
    }
    s->woke = h.woke != 0;
    /* Both grids are made again from the restored bodies; nothing is quiet until a step says so. */
    s->bp_stale = s->fixed_stale = true;
    s->num_escaped = 0;
    s->quiet = false;
    return 0;
}
