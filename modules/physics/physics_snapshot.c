/* physics_snapshot.c: rollback (ct_physics.h, Snapshots). A snapshot is the world's dynamic
 * state in one flat buffer: every body's pose, velocities, pending forces and sleep, the contact
 * caches that warm start the next step (and what the recycling of rigid manifolds reads), the
 * joints whole (settings and accumulated impulses), the character movers and the point masses. Shapes, materials,
 * filters and static bodies are not in it: they are the world's, by reference. Restoring into the
 * same world (the same bodies in the same instance order, checked by a digest of their entities
 * and kinds) gives back every bit the next steps read, so restore then simulate gives the state
 * hashes of never having left.
 *
 * It also keeps the pairs a continuous sweep reported touching that no contact has taken over
 * (physics__ccd.reported): forgotten, the step after a restore reported the pair's contact again
 * or never said it ended. And, at its end, the bodies each sensor held at the last step (which
 * sensors there are is the world's, like filters): forgotten, a body in a sensor when the snapshot
 * was saved and out of it when it was restored entered it again (a trigger fired twice), one in it
 * at the restore left without having been in it. A world without sensors writes none of it.
 *
 * Format 6 packs it without losing a bit, to 119.3 bytes an awake body in a resting pile
 * (bench_physics' physics.snapshot_bytes_per_body on large_pyramid; format 5 took 131.2 there
 * once its middle cubes held a turn and pressed on their row's, format 4 140, format 2 462):
 *   - what the world makes again from the rest is left out: a body's world box (from its
 *     rotation), and a rigid contact's recycled manifold (its normal, anchors, separations and
 *     feature ids), which the restore finds again with physics__manifold at the poses, margin and
 *     reference face it was found with (physics__rigid_geo_find: the same inputs, the same bits);
 *   - those poses are a body's pose now, or one written for it already (a three-bit code says
 *     which of the last SEEN_POSES: the friction anchors renew a manifold once its bodies slid 5
 *     mm, so a resting body's contacts were found at steps of their own, three or four poses a
 *     body); the others are written as the difference of their float bits from a prediction
 *     (pose_predict: the pose now, moved as the contact's other body moved since) in 7-bit
 *     groups;
 *   - a body's rotation, velocities, pending forces and rest time appear only when some bit of
 *     them is set (a rotation's w as its difference from what x, y and z make it), a static body
 *     is a flag byte; its position, rotation and velocities are told from the bodies' before
 *     (snapshot__trend: a level's bodies stand in rows, spaced alike, at rest alike), each float
 *     as out_float_near's code, or written plain where that takes fewer bytes (a flag says so);
 *   - a contact's key is a byte when it is what the contacts before predict (the same
 *     neighbours as the body before's), its impulses there only when set, its sleep, reference
 *     face and margin only when not those of a resting contact;
 *   - a contact's impulses are what the world keeps of them (physics__rigid_quantise: 20-bit
 *     block floats), written as the multiples of their step, each the difference from a
 *     prediction (impulse_predict): the contact's own others (a face's points carry alike), or,
 *     where that takes fewer bytes, the contact's in the same place of the body before (a row's
 *     contacts carry alike);
 *   - joints, characters and point masses go member by member, zero members left out.
 * Damaged input is refused with the reason (the size, a count, a value out of ct_physics.h's
 * ranges, a manifold the world's shapes no longer give) and changes nothing: the whole snapshot
 * is read into scratch first and only then applied. */
#include "physics_internal.h"

#include <float.h>
#include <stdio.h>
#include <string.h>

#define SNAPSHOT_MAGIC 0x53505443u /* "CTPS" */
#define SNAPSHOT_VERSION 6u

typedef struct snapshot__header {
    uint32_t magic, version, size;
    uint32_t bodies, rigid_cache, cache, joints, next_joint, characters, points;
    uint32_t woke;
    uint32_t reported; /* the pairs a sweep reported touching (physics__ccd.reported) */
    uint64_t digest; /* of the bodies' entities and kinds, in instance order */
} snapshot__header;

/* A body's flags, a varint: which of its optional members follow, and its sleep. A moving body's
 * fit in its first byte. */
enum {
    BODY_STATIC = 1u, /* a static body at rest: nothing follows, nothing is restored */
    BODY_VELOCITY = 2u,
    BODY_ANGULAR = 4u,
    BODY_ROTATION = 8u, /* its rotation follows (else the identity) */
    BODY_ASLEEP = 16u,  /* its island's label follows */
    BODY_REST = 32u,    /* its rest time follows */
    BODY_FORCE = 64u,
    BODY_TORQUE = 128u,
    BODY_PLAIN = 256u, /* BODY_PLAIN << v: vector v (BODY_VECTORS) is written as its floats' bits */
    BODY_FLAGS = BODY_PLAIN << 4, /* past the last flag */
};

/* The vectors of a body told from the bodies before (snapshot__trend): its position, its
 * rotation's x, y and z, its velocities. */
enum { VECTOR_POSITION, VECTOR_ROTATION, VECTOR_VELOCITY, VECTOR_ANGULAR, BODY_VECTORS };

/* A rigid contact is written as: a head varint, a flag byte, what its flags say follows (its
 * sleep, reference face and margin), the poses written, its impulses.
 *
 * The head: the step from the contact before's a (entity id) in its low two bits (0, 1, 2, or 3
 * with the rest of the step as a varint after the head), its point count minus one in the next
 * two, and above them b as its offset from a (b's id - a's), zigzagged as the difference from
 * the offset predicted for it: the k-th contact of an a takes the offset of the k-th contact of
 * the a before (a pile's bodies touch the same neighbours: the next in the row, the two above),
 * else the contact before's plus one (1 for the first of an a). The keys ascend: a pair with a
 * mesh may have several contacts (physics__manifolds), one after the other, the same key. */
enum {
    CONTACT_TOUCHING = 1u,
    CONTACT_EXTRAS = 2u, /* sleep, reference face or margin differ from a resting contact's: a
                          * varint follows, (margin code << 2) | prefer_b << 1 | asleep */
    CONTACT_POSE_A = 2u, /* the shift of a's pose code (three bits), then b's */
    CONTACT_POSE_B = 5u,
};

/* How each of the two poses a contact's manifold was found at is written. Contacts found in the
 * same step share their bodies' poses then, and a static or sleeping body has not moved since. */
enum {
    POSE_NOW = 0u,     /* the body's pose now (as the snapshot has it) */
    POSE_WRITTEN = 1u, /* its seven numbers follow (out_float_near from pose_predict) */
    POSE_SEEN = 2u,    /* POSE_SEEN + k: the k-th last pose written for this body, k < SEEN_POSES */
};

/* The poses remembered per body. A body of a resting pile meets each of its neighbours with a
 * manifold found at some step of its own: three or four poses a body, written once each. */
#define SEEN_POSES 4u

/* The impulses' head varint: none (all zero), seven plain floats (never: the world keeps them
 * quantised, physics__rigid_quantise, but a snapshot need not trust that), or else
 * IMPULSES_STEP + (zigzag(x) << 1 | r), x the exponent of the step they are multiples of, r whether
 * they are told from the reference contact's (impulse_predict). */
#define IMPULSES_NONE 0u
#define IMPULSES_PLAIN 1u
#define IMPULSES_STEP 2u

/* The contacts of an a whose offsets predict the next a's. */
#define KEY_GROUP 8u

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

/* The bytes out_varint writes for v. */
static uint32_t varint_size(uint64_t v)
{
    return (uint32_t)(64 - __builtin_clzll(v | 1u) + 6) / 7u;
}

static void out_varint(snapshot__out *o, uint64_t v)
{
    if (!o->at) {
        o->n += varint_size(v);
        return;
    }
    while (v >= 0x80u) {
        out_u8(o, (uint8_t)(v | 0x80u));
        v >>= 7;
    }
    out_u8(o, (uint8_t)v);
}

/* A float's bits as an integer that orders as the floats do (-0.0 just below +0.0), so that the
 * difference of two near floats is small. These four go without branches (a negative's bits
 * flipped by a mask of its sign): the signs of a pile's velocities are a coin toss, and their
 * mispredicted branches took a fifth of a save's time. */
static int64_t float_order(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return (int64_t)(u & 0x7fffffffu) ^ -(int64_t)(u >> 31);
}

static float float_of_order(int64_t k)
{
    const uint64_t sign = (uint64_t)k >> 63;
    const uint32_t u = (uint32_t)((uint64_t)k ^ (0u - sign)) | (uint32_t)sign << 31;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint64_t zigzag(int64_t d)
{
    return ((uint64_t)d << 1) ^ (0u - ((uint64_t)d >> 63));
}

static int64_t unzigzag(uint64_t z)
{
    return (int64_t)(z >> 1) ^ -(int64_t)(z & 1u);
}

/* The low 23 bits of m in reverse order (the 32 bits' swapped in halves, bytes, nibbles, pairs and
 * single bits, then shifted down). */
static uint32_t reverse23(uint32_t m)
{
    m = m >> 16 | m << 16;
    m = (m >> 8 & 0x00ff00ffu) | (m & 0x00ff00ffu) << 8;
    m = (m >> 4 & 0x0f0f0f0fu) | (m & 0x0f0f0f0fu) << 4;
    m = (m >> 2 & 0x33333333u) | (m & 0x33333333u) << 2;
    m = (m >> 1 & 0x55555555u) | (m & 0x55555555u) << 1;
    return m >> 9;
}

/* A float's bits with its mantissa reversed: small when the float has few significant bits (0, 1,
 * 0.5, 44.5: where bodies were put), as the poses a resting pile's contacts were found at are. */
static uint64_t float_sparse(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return (uint64_t)reverse23(u & 0x7fffffu) << 9 | (u >> 31) << 8 | (u >> 23 & 0xffu);
}

static float float_of_sparse(uint64_t v)
{
    const uint32_t u = (uint32_t)(v >> 8 & 1u) << 31 | (uint32_t)(v & 0xffu) << 23 |
                       reverse23((uint32_t)(v >> 9) & 0x7fffffu);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* The float f, as the smaller of its difference from `near` (zigzag) and its sparse bits, the
 * low bit saying which (out_float_near writes it in 7-bit groups). */
static uint64_t float_near_code(float f, float near)
{
    const uint64_t d = zigzag(float_order(f) - float_order(near)), sp = float_sparse(f);
    return d <= sp ? d << 1 : sp << 1 | 1u;
}

static void out_float_near(snapshot__out *o, float f, float near)
{
    out_varint(o, float_near_code(f, near));
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

/* (Byte by byte from the buffer, not through in_take: a restore reads some 200,000 of them.) */
static uint64_t in_varint(snapshot__in *in)
{
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64 && in->ok && in->at < in->end; shift += 7) {
        const uint8_t byte = *in->at++;
        v |= (uint64_t)(byte & 0x7fu) << shift;
        if (!(byte & 0x80u))
            return v;
    }
    in->ok = false;
    return 0;
}

/* The inverse of out_float_near; a difference that leaves the floats' bits is refused. */
static float in_float_near(snapshot__in *in, float near)
{
    const uint64_t v = in_varint(in);
    if (v >> 34) {
        in->ok = false;
        return 0.0f;
    }
    if (v & 1u)
        return float_of_sparse(v >> 1);
    const int64_t k = float_order(near) + unzigzag(v >> 1);
    if (k < -(int64_t)0x80000000 || k > (int64_t)0x7fffffff) {
        in->ok = false;
        return 0.0f;
    }
    return float_of_order(k);
}

/* The last two of each body vector written (BODY_VECTORS; bodies without it left out). A level's
 * bodies are put in rows, a row's spaced alike and at rest alike, so a vector is told from the one
 * before moved as that one moved from the one before it (large_pyramid's positions take 2.4 bytes a
 * float so, its velocities 3.3). */
typedef struct snapshot__trend {
    physics__v3 last[BODY_VECTORS], before[BODY_VECTORS];
    uint32_t seen[BODY_VECTORS]; /* how many of the two are set */
} snapshot__trend;

/* What vector v is told from: float operations on written floats only (the reader makes the same
 * bits). */
static physics__v3 trend_predict(const snapshot__trend *t, uint32_t v)
{
    if (t->seen[v] < 2)
        return t->seen[v] ? t->last[v] : v3(0.0f, 0.0f, 0.0f);
    const physics__v3 last = t->last[v], p = v3_add(last, v3_sub(last, t->before[v]));
    return v3_finite(p) ? p : last;
}

static void trend_push(snapshot__trend *t, uint32_t v, physics__v3 x)
{
    t->before[v] = t->last[v];
    t->last[v] = x;
    t->seen[v] = t->seen[v] < 2u ? t->seen[v] + 1u : 2u;
}

/* Vector v of a body, x, told from the trend: its floats' codes (float_near_code), and whether it
 * takes fewer bytes as its floats' bits (bodies apart, or moving apart). */
static bool vector_codes(const snapshot__trend *t, uint32_t v, physics__v3 x, uint64_t code[3])
{
    const physics__v3 near = trend_predict(t, v);
    code[0] = float_near_code(x.x, near.x);
    code[1] = float_near_code(x.y, near.y);
    code[2] = float_near_code(x.z, near.z);
    return varint_size(code[0]) + varint_size(code[1]) + varint_size(code[2]) > sizeof x;
}

/* Vector v, x, as its codes (vector_codes), or plain. */
static void out_vector(snapshot__out *o, snapshot__trend *t, uint32_t v, physics__v3 x,
                       const uint64_t code[3], bool plain)
{
    if (plain) {
        out_put(o, &x, sizeof x);
    } else {
        out_varint(o, code[0]);
        out_varint(o, code[1]);
        out_varint(o, code[2]);
    }
    trend_push(t, v, x);
}

static physics__v3 in_vector(snapshot__in *in, snapshot__trend *t, uint32_t v, bool plain)
{
    physics__v3 x;
    if (plain) {
        in_take(in, &x, sizeof x);
    } else {
        const physics__v3 near = trend_predict(t, v);
        x.x = in_float_near(in, near.x);
        x.y = in_float_near(in, near.y);
        x.z = in_float_near(in, near.z);
    }
    trend_push(t, v, x);
    return x;
}

/* FNV-1a over the bodies' entity ids and kinds: a snapshot restores only into the bodies it was
 * saved from. */
static uint64_t bodies_digest(const physics__bodies *b)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint32_t i = 0; i < b->n; i++) {
        const uint32_t v[2] = {b->entity[i].id, b->kind[i]};
        const uint8_t *d = (const uint8_t *)v;
        for (size_t k = 0; k < sizeof v; k++)
            h = (h ^ d[k]) * 0x100000001b3ull;
    }
    return h;
}

/* A body's state as a snapshot holds it. */
typedef struct snapshot__body {
    physics__v3 position, velocity, angular, force, torque;
    physics__quat rotation;
    float rest;
    uint32_t island;
    uint32_t flags;
} snapshot__body;

/* A body's pose: what a contact's manifold was found at. */
typedef struct snapshot__pose {
    physics__v3 p;
    physics__quat q;
} snapshot__pose;

static bool pose_equal(const snapshot__pose *x, physics__v3 p, physics__quat q)
{
    return !memcmp(&x->p, &p, sizeof p) && !memcmp(&x->q, &q, sizeof q);
}

/* Per body instance, the last SEEN_POSES poses written for it (most recent first). */
typedef struct snapshot__seen {
    snapshot__pose pose[SEEN_POSES];
    uint32_t set; /* how many of them are set */
} snapshot__seen;

static void seen_push(snapshot__seen *x, snapshot__pose pose)
{
    memmove(&x->pose[1], &x->pose[0], (SEEN_POSES - 1u) * sizeof x->pose[0]);
    x->pose[0] = pose;
    x->set = x->set < SEEN_POSES ? x->set + 1u : SEEN_POSES;
}

static void *scratch_alloc(const physics__scene *s, size_t n)
{
    void *p = ct_alloc(s->a, n ? n : 1u);
    if (p)
        memset(p, 0, n ? n : 1u);
    return p;
}

static void scratch_free(const physics__scene *s, void *p, size_t n)
{
    if (p)
        ct_free(s->a, p, n ? n : 1u);
}

/* How pose (p, q) of body i (now at (now_p, now_q)) is written; a written one is remembered. */
static uint32_t pose_code(snapshot__seen *seen, uint32_t i, physics__v3 now_p, physics__quat now_q,
                          physics__v3 p, physics__quat q)
{
    const snapshot__pose x = {p, q};
    if (pose_equal(&x, now_p, now_q))
        return POSE_NOW;
    for (uint32_t k = 0; k < seen[i].set; k++)
        if (pose_equal(&seen[i].pose[k], p, q))
            return POSE_SEEN + k;
    seen_push(&seen[i], x);
    return POSE_WRITTEN;
}

/* What a written pose is told apart from: the body's pose now, moved as the contact's other body
 * moved since (its pose then, `other`, against its pose now): a pile settles and sways as one, so
 * the two bodies of a contact moved alike. Float operations on stored floats only (the reader
 * makes the same bits); with no other (NULL) the pose now. */
static snapshot__pose pose_predict(physics__v3 now_p, physics__quat now_q,
                                   const snapshot__pose *other, physics__v3 other_now_p,
                                   physics__quat other_now_q)
{
    snapshot__pose x = {now_p, now_q};
    if (!other)
        return x;
    const float d[7] = {other->p.x - other_now_p.x, other->p.y - other_now_p.y,
                        other->p.z - other_now_p.z, other->q.x - other_now_q.x,
                        other->q.y - other_now_q.y, other->q.z - other_now_q.z,
                        other->q.w - other_now_q.w};
    x.p.x += d[0], x.p.y += d[1], x.p.z += d[2];
    x.q.x += d[3], x.q.y += d[4], x.q.z += d[5], x.q.w += d[6];
    return x;
}

static void out_pose(snapshot__out *o, const snapshot__pose *near, physics__v3 p, physics__quat q)
{
    out_float_near(o, p.x, near->p.x);
    out_float_near(o, p.y, near->p.y);
    out_float_near(o, p.z, near->p.z);
    out_float_near(o, q.x, near->q.x);
    out_float_near(o, q.y, near->q.y);
    out_float_near(o, q.z, near->q.z);
    out_float_near(o, q.w, near->q.w);
}

/* A unit quaternion's w as far as x, y and z say (its size; the sign is written apart). */
static float rotation_w(physics__quat q)
{
    return sqrtf(f_max(0.0f, 1.0f - (q.x * q.x + q.y * q.y + q.z * q.z)));
}

/* A rotation: x, y, z (a vector of the trend), then w as its difference from rotation_w with its
 * sign in the low bit (a byte for a rotation the world normalised). */
static void out_rotation(snapshot__out *o, snapshot__trend *t, physics__quat q,
                         const uint64_t code[3], bool plain)
{
    out_vector(o, t, VECTOR_ROTATION, v3(q.x, q.y, q.z), code, plain);
    const uint64_t d = zigzag(float_order(fabsf(q.w)) - float_order(rotation_w(q)));
    out_varint(o, d << 1 | (signbit(q.w) ? 1u : 0u));
}

static physics__quat in_rotation(snapshot__in *in, snapshot__trend *t, bool plain)
{
    const physics__v3 xyz = in_vector(in, t, VECTOR_ROTATION, plain);
    physics__quat q = {xyz.x, xyz.y, xyz.z, 1.0f};
    const uint64_t v = in_varint(in);
    const int64_t k = float_order(rotation_w(q)) + unzigzag(v >> 1);
    if (!in->ok || v >> 34 || k < 0 || k > (int64_t)0x7fffffff) {
        in->ok = false;
        return quat_identity();
    }
    const float w = float_of_order(k);
    q.w = v & 1u ? -w : w;
    return q;
}

/* Whether a body at rest in the static way: nothing of it is dynamic state. */
static bool body_static(const physics__bodies *b, uint32_t i)
{
    return b->kind[i] == CT_BODY_STATIC && !b->asleep[i] &&
           !any_bit(&b->velocity[i], sizeof(physics__v3)) &&
           !any_bit(&b->angular[i], sizeof(physics__v3)) &&
           !any_bit(&b->force[i], sizeof(physics__v3)) &&
           !any_bit(&b->torque[i], sizeof(physics__v3)) && !any_bit(&b->rest[i], sizeof(float));
}

/* A struct of 4-byte members (a joint, a character, a point mass): a bit per member saying
 * whether it is zero (a byte per eight), then the others. Joints' limits, motors and most of
 * their impulses are zero. */
static void out_words(snapshot__out *o, const void *data, size_t size)
{
    const uint8_t *d = data;
    const size_t n = size / 4u;
    for (size_t k = 0; k < n; k += 8) {
        uint8_t mask = 0;
        for (size_t w = k; w < n && w < k + 8; w++)
            mask |= (uint8_t)(any_bit(d + 4 * w, 4) << (w - k));
        out_u8(o, mask);
    }
    for (size_t w = 0; w < n; w++)
        if (any_bit(d + 4 * w, 4))
            out_put(o, d + 4 * w, 4);
}

static void in_words(snapshot__in *in, void *out, size_t size)
{
    uint8_t *d = out;
    const size_t n = size / 4u;
    uint8_t mask[32];
    memset(out, 0, size);
    for (size_t k = 0; k < n; k += 8)
        mask[k / 8] = in_u8(in);
    for (size_t w = 0; w < n; w++)
        if (mask[w / 8] >> (w % 8) & 1u)
            in_take(in, d + 4 * w, 4);
}

_Static_assert(sizeof(physics__joint) % 4 == 0 && sizeof(physics__joint) <= 4 * 8 * 32,
               "joints are packed as 4-byte words");
_Static_assert(sizeof(physics__character) % 4 == 0 && sizeof(snapshot__point) % 4 == 0,
               "characters and point masses are packed as 4-byte words");

/* The margin of a contact found between bodies at rest against each other, physics_rigid.c's
 * rounding of SOLVER_MARGIN up to a multiple of 2^-10 m, as that multiple. */
static int64_t margin_rest(void)
{
    return (int64_t)ceilf(SOLVER_MARGIN * 1024.0f);
}

/* A contact's margin as a number: the world rounds it up to a multiple of 2^-10 m
 * (physics_rigid.c), told by that multiple's difference from margin_rest (zigzag, low bit 0),
 * else by its float's from SOLVER_MARGIN (low bit 1). */
static uint64_t margin_code(float margin)
{
    const float k = ldexpf(margin, 10);
    if (k >= 0.0f && k < 268435456.0f && k == rintf(k) && !signbit(margin))
        return zigzag((int64_t)k - margin_rest()) << 1;
    return zigzag(float_order(margin) - float_order(SOLVER_MARGIN)) << 1 | 1u;
}

static float margin_of_code(uint64_t v)
{
    if (v >> 34)
        return NAN;
    if (!(v & 1u)) {
        const int64_t k = margin_rest() + unzigzag(v >> 1);
        return k < 0 || k >= 268435456 ? NAN : ldexpf((float)k, -10);
    }
    const int64_t k = float_order(SOLVER_MARGIN) + unzigzag(v >> 1);
    return k < -(int64_t)0x80000000 || k > (int64_t)0x7fffffff ? NAN : float_of_order(k);
}

/* v * 2^e, rounded as ldexpf rounds it: by a power of two a float holds, one multiplication (the
 * same single rounding; ldexpf is a libm call, 15% of a save's and a restore's instructions). */
static float scale2(float v, int e)
{
    if (e < -126 || e > 127)
        return ldexpf(v, e);
    const union {
        uint32_t bits;
        float f;
    } p = {(uint32_t)(127 + e) << 23};
    return v * p.f;
}

/* A contact's impulses as written: its n normal ones, then friction and twist. */
static uint32_t impulses_of(const physics__rigid_cached *c, uint32_t n, float v[7])
{
    for (uint32_t q = 0; q < n; q++)
        v[q] = c->jn[q];
    v[n] = c->f1, v[n + 1] = c->f2, v[n + 2] = c->twist;
    return n + 3u;
}

/* The reference contact's impulses (keys_reference) as multiples of 2^x, into r; false when there
 * is none to tell c's from (no reference, another point count, no impulses). */
static bool impulses_reference(const physics__rigid_cached *ref, uint32_t n, int x, int64_t r[7])
{
    if (!ref || ref->count != n)
        return false;
    float v[7];
    const uint32_t count = impulses_of(ref, n, v);
    bool any = false;
    for (uint32_t k = 0; k < count; k++) {
        /* (Exact: a power of two's scaling and a rounding; past the multiples' range, 0.) */
        const float m = rintf(scale2(v[k], -x));
        r[k] = fabsf(m) < 8388608.0f ? (int64_t)m : 0;
        any = any || r[k];
    }
    return any;
}

/* What the k-th multiple of a contact's impulses (m, its n normal ones then friction and twist)
 * is told from, m[0..k) known. Without a reference (r NULL): a normal one from the one before (a
 * face's points carry alike), the fourth of a face from the plane of the other three (its corners
 * go round the face), the rest from 0. With one: the reference's, the normal ones moved as the
 * one before differs from the reference's (a row's contacts carry alike, a bit more each). */
static int64_t impulse_predict(const int64_t *m, uint32_t k, uint32_t n, const int64_t *r)
{
    if (k == 0 || k >= n)
        return r ? r[k] : 0;
    if (r)
        return m[k - 1] + (r[k] - r[k - 1]);
    return k == 3 ? m[0] + (m[2] - m[1]) : m[k - 1];
}

/* The bytes of the multiples m as told from r (or without it, NULL). */
static uint32_t impulses_size(const int64_t *m, uint32_t count, uint32_t n, const int64_t *r)
{
    uint32_t size = 0;
    for (uint32_t k = 0; k < count; k++)
        size += varint_size(zigzag(m[k] - impulse_predict(m, k, n, r)));
    return size;
}

/* The impulses (IMPULSES_*): as multiples of 2^x, the exponent physics__rigid_quantise rounded
 * them with (or, should they not all be multiples of it, plain), each as its difference from
 * impulse_predict's (zigzagged), with or without the reference contact's (ref), whichever takes
 * fewer bytes. */
static void out_impulses(snapshot__out *o, const physics__rigid_cached *c, uint32_t n,
                         const physics__rigid_cached *ref)
{
    float v[7], largest = 0.0f;
    const uint32_t count = impulses_of(c, n, v);
    if (!any_bit(v, count * sizeof *v)) {
        out_varint(o, IMPULSES_NONE);
        return;
    }
    for (uint32_t k = 0; k < count; k++)
        largest = f_max(largest, fabsf(v[k]));
    bool plain = !(largest > PHYSICS_IMPULSE_TINY);
    int x = plain ? 0 : physics__impulse_exponent(largest);
    /* Rounding may have carried the largest to the next power of two: a step down covers it. */
    for (int tries = 0; tries < 2 && !plain; tries++) {
        bool exact = true;
        for (uint32_t k = 0; k < count; k++) {
            const float m = scale2(v[k], -x);
            exact = exact && m == rintf(m) && fabsf(m) < 4194304.0f && !signbit(v[k] + 0.0f) ==
                                                                       !signbit(v[k]);
        }
        if (exact)
            break;
        plain = tries == 1;
        x--;
    }
    if (plain) {
        out_varint(o, IMPULSES_PLAIN);
        out_put(o, v, count * sizeof *v);
        return;
    }
    int64_t m[7], r[7];
    for (uint32_t k = 0; k < count; k++)
        m[k] = (int64_t)scale2(v[k], -x);
    const bool told = impulses_reference(ref, n, x, r) &&
                      impulses_size(m, count, n, r) < impulses_size(m, count, n, NULL);
    out_varint(o, IMPULSES_STEP + (zigzag(x) << 1 | told));
    for (uint32_t k = 0; k < count; k++)
        out_varint(o, zigzag(m[k] - impulse_predict(m, k, n, told ? r : NULL)));
}

/* The prediction of contact keys (see the head's comment), the same for writing and reading, and
 * of the contacts their impulses are told from. */
typedef struct snapshot__keys {
    uint32_t last_a, last_b;
    uint32_t k;      /* contacts of the current a so far */
    uint32_t prev_n; /* offsets kept of the a before */
    int64_t last_offset;
    int64_t prev[KEY_GROUP], offset[KEY_GROUP];
    /* The contacts of the a before and of this one (as written or read), and the last one. */
    const physics__rigid_cached *prev_at[KEY_GROUP], *at[KEY_GROUP], *last;
} snapshot__keys;

/* A new a begins. */
static void keys_next_a(snapshot__keys *x)
{
    memcpy(x->prev, x->offset, sizeof x->prev);
    memcpy(x->prev_at, x->at, sizeof x->prev_at);
    x->prev_n = x->k < KEY_GROUP ? x->k : KEY_GROUP;
    x->k = 0;
}

static int64_t keys_predict(const snapshot__keys *x)
{
    return x->k < x->prev_n ? x->prev[x->k] : x->k ? x->last_offset + 1 : 1;
}

/* The contact whose impulses the next one's are told from: the one of the a before in its place
 * (the same neighbour one along the row), else the one before (NULL for the first). */
static const physics__rigid_cached *keys_reference(const snapshot__keys *x)
{
    return x->k < x->prev_n ? x->prev_at[x->k] : x->last;
}

static void keys_take(snapshot__keys *x, uint32_t ea, uint32_t eb, const physics__rigid_cached *c)
{
    const int64_t offset = (int64_t)eb - (int64_t)ea;
    if (x->k < KEY_GROUP)
        x->offset[x->k] = offset, x->at[x->k] = c;
    x->k++;
    x->last_offset = offset;
    x->last_a = ea, x->last_b = eb;
    x->last = c;
}

/* One rigid contact (i, j: its bodies' instances). */
static void out_contact(snapshot__out *o, const physics__bodies *b, snapshot__seen *seen,
                        snapshot__keys *keys, const physics__rigid_cached *c, uint32_t i,
                        uint32_t j)
{
    const physics__rigid_geo *g = &c->geo;
    const uint32_t n = c->count < PHYSICS_MANIFOLD_POINTS ? c->count : PHYSICS_MANIFOLD_POINTS;
    const uint32_t ea = (uint32_t)(c->key >> 32), eb = (uint32_t)c->key;
    const uint32_t step = ea - keys->last_a;
    if (step)
        keys_next_a(keys);
    const int64_t miss = (int64_t)eb - (int64_t)ea - keys_predict(keys);
    out_varint(o, zigzag(miss) << 4 | (uint64_t)(n - 1u) << 2 | (step < 3u ? step : 3u));
    if (step >= 3u)
        out_varint(o, step - 3u);
    const physics__rigid_cached *ref = keys_reference(keys);
    keys_take(keys, ea, eb, c);
    const uint32_t code_a = pose_code(seen, i, b->position[i], b->rotation[i], g->pa, g->qa);
    const uint32_t code_b = pose_code(seen, j, b->position[j], b->rotation[j], g->pb, g->qb);
    /* (Margin code 0: the margin of a pair at rest against each other.) */
    const bool extras = c->asleep || g->prefer_b || margin_code(g->margin) != 0u;
    out_u8(o, (uint8_t)((c->touching ? CONTACT_TOUCHING : 0u) | (extras ? CONTACT_EXTRAS : 0u) |
                        code_a << CONTACT_POSE_A | code_b << CONTACT_POSE_B));
    if (extras)
        out_varint(o, margin_code(g->margin) << 2 | (g->prefer_b ? 2u : 0u) | (c->asleep ? 1u : 0u));
    /* a's pose is told from b's when b's is known already, b's from a's always. */
    const snapshot__pose then_a = {g->pa, g->qa}, then_b = {g->pb, g->qb};
    if (code_a == POSE_WRITTEN) {
        const snapshot__pose near =
            pose_predict(b->position[i], b->rotation[i], code_b == POSE_WRITTEN ? NULL : &then_b,
                         b->position[j], b->rotation[j]);
        out_pose(o, &near, g->pa, g->qa);
    }
    if (code_b == POSE_WRITTEN) {
        const snapshot__pose near = pose_predict(b->position[j], b->rotation[j], &then_a,
                                                 b->position[i], b->rotation[i]);
        out_pose(o, &near, g->pb, g->qb);
    }
    out_impulses(o, c, n, ref);
}

/* The sensors holding bodies, to the snapshot's end: each as the step of its entity id from the
 * one before, the count of its bodies and their ids, each as its step from the one before (both
 * lists are sorted). */
static void out_sensors(snapshot__out *o, const physics__sensors *x)
{
    uint32_t last = 0;
    for (uint32_t k = 0; k < x->n; k++) {
        const physics__sensor *r = &x->s[k];
        if (!r->count)
            continue;
        out_varint(o, r->entity - last);
        out_varint(o, r->count);
        last = r->entity;
        for (uint32_t q = 0, id = 0; q < r->count; q++) {
            out_varint(o, x->inside[r->first + q] - id);
            id = x->inside[r->first + q];
        }
    }
}

/* Everything after the header, into o (counted only when o->at is NULL). */
static void snapshot__write(const physics__scene *s, const physics__points *p, snapshot__seen *seen,
                            snapshot__out *o)
{
    const physics__bodies *b = &s->bodies;
    const physics__quat identity = quat_identity();
    snapshot__trend trend = {0};
    for (uint32_t i = 0; i < b->n; i++) {
        if (body_static(b, i)) {
            out_varint(o, BODY_STATIC);
            continue;
        }
        uint32_t flags = (any_bit(&b->velocity[i], sizeof(physics__v3)) ? BODY_VELOCITY : 0u) |
                         (any_bit(&b->angular[i], sizeof(physics__v3)) ? BODY_ANGULAR : 0u) |
                         (any_bit(&b->force[i], sizeof(physics__v3)) ? BODY_FORCE : 0u) |
                         (any_bit(&b->torque[i], sizeof(physics__v3)) ? BODY_TORQUE : 0u) |
                         (b->asleep[i] ? BODY_ASLEEP : 0u) |
                         (any_bit(&b->rest[i], sizeof(float)) ? BODY_REST : 0u) |
                         (memcmp(&b->rotation[i], &identity, sizeof identity) ? BODY_ROTATION : 0u);
        const physics__quat q = b->rotation[i];
        const physics__v3 vector[BODY_VECTORS] = {b->position[i], v3(q.x, q.y, q.z),
                                                  b->velocity[i], b->angular[i]};
        const bool has[BODY_VECTORS] = {true, flags & BODY_ROTATION, flags & BODY_VELOCITY,
                                        flags & BODY_ANGULAR};
        uint64_t code[BODY_VECTORS][3];
        for (uint32_t v = 0; v < BODY_VECTORS; v++)
            if (has[v] && vector_codes(&trend, v, vector[v], code[v]))
                flags |= BODY_PLAIN << v;
        out_varint(o, flags);
        if (flags & BODY_ASLEEP)
            out_put(o, &b->island[i], sizeof(uint32_t));
        if (flags & BODY_REST)
            out_put(o, &b->rest[i], sizeof(float));
        for (uint32_t v = 0; v < BODY_VECTORS; v++) {
            const bool plain = flags & BODY_PLAIN << v;
            if (v == VECTOR_ROTATION && has[v])
                out_rotation(o, &trend, q, code[v], plain);
            else if (has[v])
                out_vector(o, &trend, v, vector[v], code[v], plain);
        }
        if (flags & BODY_FORCE)
            out_put(o, &b->force[i], sizeof(physics__v3));
        if (flags & BODY_TORQUE)
            out_put(o, &b->torque[i], sizeof(physics__v3));
    }
    snapshot__keys keys = {0};
    for (uint32_t k = 0; k < s->rigid.num_cache; k++) {
        /* (A pair's contacts follow each other, sub 0, 1, ...: physics_rigid.c keeps them so.) */
        const physics__rigid_cached *c = &s->rigid.cache[k];
        const uint32_t i = physics__bodies_find(b, (ct_entity_t){(uint32_t)(c->key >> 32)}),
                       j = physics__bodies_find(b, (ct_entity_t){(uint32_t)c->key});
        if (i != UINT32_MAX && j != UINT32_MAX && c->count)
            out_contact(o, b, seen, &keys, c, i, j);
        /* (else never: a cached contact has points, and its bodies are there) */
    }
    /* The pairs a sweep reported touching, as their keys' steps from the one before. */
    uint64_t last = 0;
    for (uint32_t k = 0; k < s->ccd.num_reported; k++) {
        out_varint(o, s->ccd.reported[k] - last);
        last = s->ccd.reported[k];
    }
    out_put(o, s->cache, (size_t)s->num_cache * sizeof *s->cache);
    for (uint32_t k = 0; k < s->joints.n; k++)
        out_words(o, &s->joints.j[k], sizeof *s->joints.j);
    for (uint32_t k = 0; k < s->characters.n; k++)
        out_words(o, &s->characters.c[k], sizeof *s->characters.c);
    for (uint32_t i = 0; p && i < p->n; i++) {
        const snapshot__point x = {p->entity[i].id, p->position[i], p->velocity[i],
                                   p->acceleration[i]};
        out_words(o, &x, sizeof x);
    }
    out_sensors(o, &s->sensors);
}

uint32_t physics__snapshot_size(const physics__scene *s, const physics__points *p)
{
    const size_t seen_size = (size_t)s->bodies.n * sizeof(snapshot__seen);
    snapshot__seen *seen = scratch_alloc(s, seen_size);
    if (!seen)
        return 0;
    snapshot__out o = {NULL, sizeof(snapshot__header)};
    snapshot__write(s, p, seen, &o);
    scratch_free(s, seen, seen_size);
    return o.n <= UINT32_MAX ? (uint32_t)o.n : 0u;
}

uint32_t physics__snapshot_save(const physics__scene *s, const physics__points *p, void *buffer,
                                uint32_t size)
{
    const uint32_t need = physics__snapshot_size(s, p);
    if (!need || size < need || !buffer)
        return 0;
    const physics__bodies *b = &s->bodies;
    const snapshot__header h = {SNAPSHOT_MAGIC,
                                SNAPSHOT_VERSION,
                                need,
                                b->n,
                                s->rigid.num_cache,
                                s->num_cache,
                                s->joints.n,
                                s->joints.next_id,
                                s->characters.n,
                                p ? p->n : 0u,
                                s->woke,
                                s->ccd.num_reported,
                                bodies_digest(b)};
    const size_t seen_size = (size_t)b->n * sizeof(snapshot__seen);
    snapshot__seen *seen = scratch_alloc(s, seen_size);
    if (!seen)
        return 0;
    snapshot__out o = {buffer, 0};
    out_put(&o, &h, sizeof h);
    snapshot__write(s, p, seen, &o);
    scratch_free(s, seen, seen_size);
    return need;
}

/* A snapshot read into scratch: applied only once all of it was read and found good. */
typedef struct snapshot__read {
    snapshot__header h;
    snapshot__body *body;
    physics__rigid_cached *rigid;
    snapshot__seen *seen;
    physics__bodies view; /* the world's bodies with poses of their own, for finding manifolds */
    physics__v3 *view_position, *view_extent;
    physics__quat *view_rotation;
    const uint8_t *cache; /* the translation-only contacts' bytes */
    physics__joint *joints;
    physics__character *characters;
    snapshot__point *points;
    uint64_t *reported; /* the pairs a sweep reported touching */
    const uint8_t *sensors; /* the sensors' lists of bodies (out_sensors), checked */
    uint32_t sensors_size, sensor_ids;
} snapshot__read;

static void read_free(const physics__scene *s, snapshot__read *r)
{
    const size_t n = s->bodies.n;
    scratch_free(s, r->body, n * sizeof *r->body);
    scratch_free(s, r->seen, n * sizeof *r->seen);
    scratch_free(s, r->view_position, n * sizeof *r->view_position);
    scratch_free(s, r->view_extent, n * sizeof *r->view_extent);
    scratch_free(s, r->view_rotation, n * sizeof *r->view_rotation);
    scratch_free(s, r->rigid, (size_t)r->h.rigid_cache * sizeof *r->rigid);
    scratch_free(s, r->joints, (size_t)r->h.joints * sizeof *r->joints);
    scratch_free(s, r->characters, (size_t)r->h.characters * sizeof *r->characters);
    scratch_free(s, r->points, (size_t)r->h.points * sizeof *r->points);
    scratch_free(s, r->reported, (size_t)r->h.reported * sizeof *r->reported);
    memset(r, 0, sizeof *r);
}

static const char *const CUT = "the snapshot's size does not match its contents (cut short or "
                               "damaged)";

static bool quat_ok(physics__quat q)
{
    const float l = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
    return isfinite(l) && fabsf(l - 1.0f) < 1e-3f;
}

/* Whether a velocity read is one a world can hold: the step clamps a body's speeds to `max`
 * (ct_physics.h's ranges) as it integrates them, but the contacts solved after may leave a light
 * body faster until the next step (a 0.1 kg bar hit at 250 m/s off its centre spins at 1,300
 * rad/s), and a snapshot of the world as it is must restore. A thousand times the range keeps
 * out what damage makes of the bits (NaN, infinities, numbers whose squares overflow). */
static bool speed_ok(physics__v3 v, float max)
{
    const float limit = 1000.0f * max;
    return v3_within(v, limit) && v3_dot(v, v) <= limit * limit;
}

/* The bodies, into r->body (static ones from the world). */
static const char *read_bodies(const physics__scene *s, snapshot__read *r, snapshot__in *in)
{
    const physics__bodies *b = &s->bodies;
    snapshot__trend trend = {0};
    for (uint32_t i = 0; i < b->n; i++) {
        snapshot__body *x = &r->body[i];
        const uint64_t flags = in_varint(in);
        x->flags = (uint32_t)flags;
        x->rotation = quat_identity();
        if (!in->ok)
            return CUT;
        if (flags & BODY_STATIC) {
            if (flags != BODY_STATIC || b->kind[i] != CT_BODY_STATIC)
                return "the snapshot's bodies are not those of the world (a static one is not)";
            x->position = b->position[i];
            x->rotation = b->rotation[i];
            continue;
        }
        /* (A vector's plain flag only where the vector is written.) */
        const uint64_t has = BODY_PLAIN << VECTOR_POSITION |
                             (flags & BODY_ROTATION ? BODY_PLAIN << VECTOR_ROTATION : 0u) |
                             (flags & BODY_VELOCITY ? BODY_PLAIN << VECTOR_VELOCITY : 0u) |
                             (flags & BODY_ANGULAR ? BODY_PLAIN << VECTOR_ANGULAR : 0u);
        if (flags >= BODY_FLAGS || (flags & ~(uint64_t)(BODY_PLAIN - 1u) & ~has))
            return "a body's flags in the snapshot are damaged";
        if (flags & BODY_ASLEEP)
            in_take(in, &x->island, sizeof x->island);
        if (flags & BODY_REST)
            in_take(in, &x->rest, sizeof x->rest);
        x->position = in_vector(in, &trend, VECTOR_POSITION, flags & BODY_PLAIN << VECTOR_POSITION);
        if (flags & BODY_ROTATION)
            x->rotation = in_rotation(in, &trend, flags & BODY_PLAIN << VECTOR_ROTATION);
        if (flags & BODY_VELOCITY)
            x->velocity =
                in_vector(in, &trend, VECTOR_VELOCITY, flags & BODY_PLAIN << VECTOR_VELOCITY);
        if (flags & BODY_ANGULAR)
            x->angular = in_vector(in, &trend, VECTOR_ANGULAR, flags & BODY_PLAIN << VECTOR_ANGULAR);
        if (flags & BODY_FORCE)
            in_take(in, &x->force, sizeof x->force);
        if (flags & BODY_TORQUE)
            in_take(in, &x->torque, sizeof x->torque);
        if (!in->ok)
            return CUT;
        if (!v3_within(x->position, CT_PHYSICS_MAX_POSITION))
            return "a body's position in the snapshot is out of range";
        if (!quat_ok(x->rotation))
            return "a body's rotation in the snapshot is not a unit quaternion";
        if (!speed_ok(x->velocity, CT_PHYSICS_MAX_SPEED) ||
            !speed_ok(x->angular, CT_PHYSICS_MAX_ANGULAR_SPEED))
            return "a body's velocity in the snapshot is out of range";
        if (!v3_within(x->force, CT_PHYSICS_MAX_FORCE) ||
            !v3_within(x->torque, CT_PHYSICS_MAX_TORQUE))
            return "a body's pending force or torque in the snapshot is out of range";
        if (!(x->rest >= 0.0f && x->rest <= 1e30f))
            return "a body's rest time in the snapshot is out of range";
    }
    return NULL;
}

/* A pose of body i not written (`code` says which), into *x; false when there is no such one. */
static bool known_pose(const snapshot__read *r, uint32_t i, uint32_t code, snapshot__pose *x)
{
    if (code == POSE_NOW) {
        *x = (snapshot__pose){r->body[i].position, r->body[i].rotation};
        return true;
    }
    if (code < POSE_SEEN || code - POSE_SEEN >= r->seen[i].set)
        return false;
    *x = r->seen[i].pose[code - POSE_SEEN];
    return true;
}

/* A written pose of body i, told from `near`, into *x (and remembered). */
static bool read_pose(snapshot__read *r, uint32_t i, const snapshot__pose *near, snapshot__in *in,
                      snapshot__pose *x)
{
    x->p.x = in_float_near(in, near->p.x);
    x->p.y = in_float_near(in, near->p.y);
    x->p.z = in_float_near(in, near->p.z);
    x->q.x = in_float_near(in, near->q.x);
    x->q.y = in_float_near(in, near->q.y);
    x->q.z = in_float_near(in, near->q.z);
    x->q.w = in_float_near(in, near->q.w);
    if (!in->ok || !v3_within(x->p, CT_PHYSICS_MAX_POSITION) || !quat_ok(x->q))
        return false;
    seen_push(&r->seen[i], *x);
    return true;
}

/* A contact's impulses (out_impulses, told from ref's or not) into c; NULL, or why not. */
static const char *read_impulses(snapshot__in *in, physics__rigid_cached *c, uint32_t n,
                                 const physics__rigid_cached *ref)
{
    float v[7] = {0};
    const uint32_t count = n + 3u;
    const uint64_t head = in_varint(in);
    if (head == IMPULSES_PLAIN) {
        in_take(in, v, count * sizeof *v);
    } else if (head != IMPULSES_NONE) {
        const uint64_t code = head - IMPULSES_STEP;
        const int64_t x = code >> 12 ? 1000 : unzigzag(code >> 1);
        if (x < -400 || x > 400)
            in->ok = false;
        int64_t m[7] = {0}, r[7];
        const bool told = (code & 1u) != 0;
        if (in->ok && told && !impulses_reference(ref, n, (int)x, r))
            return "a contact's impulses in the snapshot are told from a contact that has none";
        for (uint32_t k = 0; k < count && in->ok; k++) {
            const uint64_t z = in_varint(in);
            const int64_t d = z >> 48 ? INT64_MAX / 2 : unzigzag(z);
            m[k] = impulse_predict(m, k, n, told ? r : NULL) + d;
            if (m[k] <= -(1 << 22) || m[k] >= (1 << 22))
                in->ok = false;
            v[k] = in->ok ? scale2((float)m[k], (int)x) : 0.0f;
        }
    }
    if (!in->ok)
        return CUT;
    for (uint32_t q = 0; q < count; q++)
        if (!(fabsf(v[q]) <= 1e30f && (q >= n || v[q] >= 0.0f)))
            return "a contact's impulses in the snapshot are out of range";
    for (uint32_t q = 0; q < n; q++)
        c->jn[q] = v[q];
    c->f1 = v[n], c->f2 = v[n + 1], c->twist = v[n + 2];
    return NULL;
}

/* The rigid contacts, into r->rigid, their manifolds found again. */
static const char *read_rigid(const physics__scene *s, snapshot__read *r, snapshot__in *in)
{
    const physics__bodies *b = &s->bodies;
    snapshot__keys keys = {0};
    uint32_t sub = 0;
    for (uint32_t k = 0; k < r->h.rigid_cache; k++) {
        physics__rigid_cached *c = &r->rigid[k];
        physics__rigid_geo *g = &c->geo;
        const uint64_t head = in_varint(in);
        const uint64_t step = (head & 3u) < 3u ? head & 3u : 3u + in_varint(in);
        const uint8_t flags = in_u8(in);
        const uint64_t extras = flags & CONTACT_EXTRAS ? in_varint(in) : 0u;
        if (!in->ok)
            return CUT;
        /* Keys ascend: a's id never falls, and b's rises past a's, or the one before's unless
         * this is the next manifold of the same pair. */
        const uint64_t ea = (uint64_t)keys.last_a + step;
        if (!step && !k)
            return "the snapshot's contacts are not in order (or name no bodies)";
        if (ea > UINT32_MAX || head >> 44)
            return "the snapshot's contacts are not in order (or name no bodies)";
        if (step)
            keys_next_a(&keys);
        const int64_t offset = keys_predict(&keys) + unzigzag(head >> 4);
        const int64_t eb = (int64_t)ea + offset;
        if (offset < 1 || eb > (int64_t)UINT32_MAX || (!step && eb < (int64_t)keys.last_b))
            return "the snapshot's contacts are not in order (or name no bodies)";
        const bool again = !step && eb == (int64_t)keys.last_b;
        sub = again ? sub + 1u : 0u;
        if (sub >= PHYSICS_MESH_MANIFOLDS)
            return "a pair of the snapshot has more contacts than a pair can have";
        const physics__rigid_cached *ref = keys_reference(&keys);
        keys_take(&keys, (uint32_t)ea, (uint32_t)eb, c);
        c->key = ea << 32 | (uint64_t)eb;
        c->sub = (uint16_t)sub;
        const uint32_t n = (uint32_t)(head >> 2 & 3u) + 1u;
        g->margin = margin_of_code(extras >> 2);
        if (!(g->margin >= 0.0f && g->margin <= 2.0f * CT_PHYSICS_MAX_SPEED * CT_PHYSICS_MAX_DT))
            return "a contact's margin in the snapshot is out of range";
        c->count = n;
        c->touching = (flags & CONTACT_TOUCHING) != 0;
        c->asleep = (extras & 1u) != 0;
        g->prefer_b = (extras & 2u) != 0;
        const uint32_t i = physics__bodies_find(b, (ct_entity_t){(uint32_t)ea}),
                       j = physics__bodies_find(b, (ct_entity_t){(uint32_t)eb});
        if (i == UINT32_MAX || j == UINT32_MAX)
            return "the snapshot's contacts name bodies the world does not have";
        /* The poses not written first: a written one is told from the other's (out_contact). */
        const uint32_t code_a = flags >> CONTACT_POSE_A & 7u, code_b = flags >> CONTACT_POSE_B & 7u;
        snapshot__pose pa, pb;
        bool ok = (code_a == POSE_WRITTEN || known_pose(r, i, code_a, &pa)) &&
                  (code_b == POSE_WRITTEN || known_pose(r, j, code_b, &pb));
        if (ok && code_a == POSE_WRITTEN) {
            const snapshot__pose near =
                pose_predict(r->body[i].position, r->body[i].rotation,
                             code_b == POSE_WRITTEN ? NULL : &pb, r->body[j].position,
                             r->body[j].rotation);
            ok = read_pose(r, i, &near, in, &pa);
        }
        if (ok && code_b == POSE_WRITTEN) {
            const snapshot__pose near = pose_predict(r->body[j].position, r->body[j].rotation, &pa,
                                                     r->body[i].position, r->body[i].rotation);
            ok = read_pose(r, j, &near, in, &pb);
        }
        if (!ok)
            return in->ok ? "a contact's pose in the snapshot is damaged (or out of range)" : CUT;
        g->pa = pa.p, g->qa = pa.q, g->pb = pb.p, g->qb = pb.q;
        const char *why = read_impulses(in, c, n, ref);
        if (why)
            return why;
        /* The manifold, found again where it was found: the same inputs give the same bits. */
        physics__manifold_out m;
        physics__rigid_geo_find(&r->view, i, j, sub, g, &m);
        if (m.count != n)
            return "a contact of the snapshot is not what the world's shapes give (shapes changed "
                   "since the save, or the snapshot is damaged)";
        for (uint32_t q = 0; q < n; q++)
            c->id[q] = m.p[q].id;
    }
    return NULL;
}

/* The pairs a sweep reported touching, into r->reported: keys ascending, each of two bodies (the
 * lower id first; a body removed since may be one: the next step ends them). */
static const char *read_reported(const physics__scene *s, snapshot__read *r, snapshot__in *in)
{
    /* Each takes a byte at least: a count past the bytes left is damage, not a request. */
    if (r->h.reported > (size_t)(in->end - in->at))
        return CUT;
    r->reported = scratch_alloc(s, (size_t)r->h.reported * sizeof *r->reported);
    if (!r->reported)
        return "out of memory while reading the snapshot";
    uint64_t last = 0;
    for (uint32_t k = 0; k < r->h.reported; k++) {
        const uint64_t step = in_varint(in);
        if (!in->ok)
            return CUT;
        const uint64_t key = last + step;
        if (!step || key < last || !(key >> 32) || (key >> 32) >= (key & 0xffffffffu))
            return "the snapshot's pairs hit by sweeps are not in order (or name no bodies)";
        r->reported[k] = last = key;
    }
    return NULL;
}

/* The next id of a sorted list out_sensors wrote: the step from `last`, at least 1 and within 32
 * bits (else in->ok is false). */
static uint32_t in_id_after(snapshot__in *in, uint32_t last)
{
    const uint64_t step = in_varint(in);
    if (!step || step > UINT32_MAX - last)
        in->ok = false;
    return in->ok ? last + (uint32_t)step : 0u;
}

/* The sensors' lists, the rest of the snapshot: checked here, put in place by apply_sensors. */
static const char *read_sensors(snapshot__read *r, snapshot__in *in)
{
    r->sensors = in->at;
    r->sensors_size = (uint32_t)(in->end - in->at);
    for (uint32_t sensor = 0; in->ok && in->at < in->end;) {
        sensor = in_id_after(in, sensor);
        const uint64_t count = in_varint(in);
        /* Each id takes a byte at least: a count past the bytes left is damage. */
        if (!in->ok || !count || count > (uint64_t)(in->end - in->at))
            return "the snapshot's sensors are not in order (or hold no bodies)";
        for (uint32_t q = 0, id = 0; q < count; q++)
            id = in_id_after(in, id);
        if (!in->ok)
            return "the snapshot's sensors are not in order (or hold no bodies)";
        r->sensor_ids += (uint32_t)count;
    }
    return NULL;
}

/* Puts the lists read_sensors checked into the world's sensors (x->inside holds r->sensor_ids);
 * a sensor of the world without one in the snapshot holds nothing, one of the snapshot's that
 * is no sensor now is skipped. */
static void apply_sensors(physics__sensors *x, const snapshot__read *r)
{
    snapshot__in in = {r->sensors, r->sensors + r->sensors_size, true};
    uint32_t used = 0, k = 0;
    for (uint32_t sensor = 0; in.at < in.end;) {
        sensor = in_id_after(&in, sensor);
        const uint32_t count = (uint32_t)in_varint(&in);
        for (; k < x->n && x->s[k].entity < sensor; k++)
            x->s[k].first = x->s[k].count = 0;
        const bool kept = k < x->n && x->s[k].entity == sensor;
        if (kept)
            x->s[k].first = used, x->s[k].count = count;
        for (uint32_t q = 0, id = 0; q < count; q++) {
            id = in_id_after(&in, id);
            if (kept)
                x->inside[used++] = id;
        }
        k += kept;
    }
    for (; k < x->n; k++)
        x->s[k].first = x->s[k].count = 0;
}

/* Reads all of a snapshot into r (allocated here; read_free frees it), checking it fits the world
 * as it is. NULL, or why not. */
/* The joints, characters and point masses read, checked as the bodies are: values a world can
 * hold (a NaN anchor restored flung its body to the world's border; a NaN point mass stayed NaN).
 * The reason names the part and its field; it is kept per thread, past read_free. */
static const char *read_parts_error(const physics__scene *s, const snapshot__read *r)
{
    static _Thread_local char why[192];
    const snapshot__header *h = &r->h;
    for (uint32_t k = 0; k < h->joints; k++) {
        const physics__joint *j = &r->joints[k];
        /* physics__joints_find searches the ids, ascending; new joints take next_joint on. */
        const char *bad = !(j->id > (k ? r->joints[k - 1].id : 0u) && j->id < h->next_joint)
                              ? "id (ascending from 1, below the next joint's)"
                              : physics__joint_restored_error(&s->bodies, j);
        if (bad) {
            snprintf(why, sizeof why, "joint %u (entities %u and %u) in the snapshot: %s refused",
                     j->id, j->eb, j->ea, bad);
            return why;
        }
    }
    for (uint32_t k = 0; k < h->characters; k++) {
        const char *bad = physics__character_restored_error(&r->characters[k]);
        if (bad) {
            snprintf(why, sizeof why, "character %u in the snapshot: %s refused",
                     r->characters[k].entity, bad);
            return why;
        }
    }
    /* A point mass is never held to the ranges by its steps (it falls on without a border), so
     * what a world can hold is finite. */
    for (uint32_t k = 0; k < h->points; k++) {
        const snapshot__point *x = &r->points[k];
        if (!v3_within(x->position, FLT_MAX) || !v3_within(x->velocity, FLT_MAX) ||
            !v3_within(x->acceleration, FLT_MAX)) {
            snprintf(why, sizeof why,
                     "point mass %u in the snapshot: position, velocity or acceleration (NaN or "
                     "infinite) refused",
                     x->entity);
            return why;
        }
    }
    return NULL;
}

static const char *snapshot__read_all(const physics__scene *s, const physics__points *p,
                                      const void *buffer, uint32_t size, snapshot__read *r)
{
    memset(r, 0, sizeof *r);
    if (!buffer || size < sizeof r->h)
        return "the snapshot is shorter than its header";
    memcpy(&r->h, buffer, sizeof r->h);
    const snapshot__header *h = &r->h;
    if (h->magic != SNAPSHOT_MAGIC)
        return "not a physics snapshot (its magic is not \"CTPS\")";
    if (h->version != SNAPSHOT_VERSION) {
        r->h.rigid_cache = 0;
        return h->version < SNAPSHOT_VERSION
                   ? "the snapshot is of an older format (its version field is below 6, the one "
                     "this build reads: format 5 wrote bodies' floats plain and impulses apart, "
                     "format 4 packed contacts another way and kept no sweep hits, format 3 had "
                     "one contact a pair, format 2 carried whole manifolds)"
                   : "the snapshot is of a newer format (its version field is past 6, the one "
                     "this build reads)";
    }
    if (h->size != size)
        return CUT;
    const physics__bodies *b = &s->bodies;
    if (h->bodies != b->n || h->points != (p ? p->n : 0u) || h->digest != bodies_digest(b))
        return "the world has other bodies or point masses than when it was saved";
    /* Each contact takes at least 4 bytes: a count past that is damage, not a request for memory. */
    if (h->rigid_cache > size / 4u)
        return CUT;
    const size_t n = b->n;
    r->body = scratch_alloc(s, n * sizeof *r->body);
    r->seen = scratch_alloc(s, n * sizeof *r->seen);
    r->view_position = scratch_alloc(s, n * sizeof *r->view_position);
    r->view_extent = scratch_alloc(s, n * sizeof *r->view_extent);
    r->view_rotation = scratch_alloc(s, n * sizeof *r->view_rotation);
    r->rigid = scratch_alloc(s, (size_t)h->rigid_cache * sizeof *r->rigid);
    if (!r->body || !r->seen || !r->view_position || !r->view_extent || !r->view_rotation ||
        !r->rigid)
        return "out of memory while reading the snapshot";
    r->view = *b;
    r->view.position = r->view_position;
    r->view.extent = r->view_extent;
    r->view.rotation = r->view_rotation;
    snapshot__in in = {(const uint8_t *)buffer + sizeof r->h, (const uint8_t *)buffer + size, true};
    const char *why = read_bodies(s, r, &in);
    if (!why)
        why = read_rigid(s, r, &in);
    if (!why)
        why = read_reported(s, r, &in);
    if (why)
        return why;
    r->cache = in.at;
    in_take(&in, NULL, (size_t)h->cache * sizeof *s->cache);
    if (!in.ok)
        return CUT;
    /* Each packed struct takes at least its mask bytes: counts past the bytes left are damage. */
    const size_t left = (size_t)(in.end - in.at);
    if (h->joints > left || h->characters > left)
        return CUT;
    r->joints = scratch_alloc(s, (size_t)h->joints * sizeof *r->joints);
    r->characters = scratch_alloc(s, (size_t)h->characters * sizeof *r->characters);
    r->points = scratch_alloc(s, (size_t)h->points * sizeof *r->points);
    if (!r->joints || !r->characters || !r->points)
        return "out of memory while reading the snapshot";
    for (uint32_t k = 0; k < h->joints; k++)
        in_words(&in, &r->joints[k], sizeof *r->joints);
    for (uint32_t k = 0; k < h->characters; k++)
        in_words(&in, &r->characters[k], sizeof *r->characters);
    for (uint32_t k = 0; k < h->points; k++)
        in_words(&in, &r->points[k], sizeof *r->points);
    if (!in.ok)
        return CUT;
    why = read_sensors(r, &in);
    if (why)
        return why;
    for (uint32_t i = 0; i < h->points; i++)
        if (r->points[i].entity != p->entity[i].id)
            return "the world's point masses are not those it was saved with";
    /* The bodies' digest holds kinds, not roles: another world (or this one after a character's
     * body came back as a plain kinematic one) can match it with other characters. Their movers
     * must be the world's own: each has a contact record the world made with it (its callback). */
    if (h->characters != s->characters.n)
        return "the world's characters are not those it was saved with";
    for (uint32_t k = 0; k < h->characters; k++)
        if (r->characters[k].entity != s->characters.c[k].entity)
            return "the world's characters are not those it was saved with";
    return read_parts_error(s, r);
}

const char *physics__snapshot_check(const physics__scene *s, const physics__points *p,
                                    const void *buffer, uint32_t size)
{
    snapshot__read r;
    const char *why = snapshot__read_all(s, p, buffer, size, &r);
    read_free(s, &r);
    return why;
}

int physics__snapshot_restore(physics__scene *s, physics__points *p, const void *buffer,
                              uint32_t size)
{
    return physics__snapshot_restore_why(s, p, buffer, size, NULL);
}

int physics__snapshot_restore_why(physics__scene *s, physics__points *p, const void *buffer,
                                  uint32_t size, const char **why)
{
    snapshot__read r;
    const char *bad = snapshot__read_all(s, p, buffer, size, &r);
    if (why)
        *why = bad;
    if (bad) {
        read_free(s, &r);
        return CT_ERR_INVALID;
    }
    const snapshot__header h = r.h;
    physics__rigid *rg = &s->rigid;
    if (physics__reserve(s->a, (void **)&rg->cache, &rg->cap_cache, h.rigid_cache,
                         sizeof *rg->cache) ||
        physics__reserve(s->a, (void **)&s->cache, &s->cap_cache, h.cache, sizeof *s->cache) ||
        physics__reserve(s->a, (void **)&s->joints.j, &s->joints.cap, h.joints,
                         sizeof *s->joints.j) ||
        physics__reserve(s->a, (void **)&s->characters.c, &s->characters.cap, h.characters,
                         sizeof *s->characters.c) ||
        physics__reserve(s->a, (void **)&s->ccd.reported, &s->ccd.cap_reported, h.reported,
                         sizeof *s->ccd.reported) ||
        physics__reserve(s->a, (void **)&s->sensors.inside, &s->sensors.cap_inside, r.sensor_ids,
                         sizeof *s->sensors.inside)) {
        read_free(s, &r);
        return CT_ERR_NOMEM;
    }
    physics__bodies *b = &s->bodies;
    for (uint32_t i = 0; i < b->n; i++) {
        const snapshot__body *x = &r.body[i];
        if (x->flags & BODY_STATIC)
            continue;
        b->island[i] = x->island;
        b->rest[i] = x->rest;
        b->asleep[i] = (x->flags & BODY_ASLEEP) != 0;
        b->position[i] = x->position;
        b->rotation[i] = x->rotation;
        b->velocity[i] = x->velocity;
        b->angular[i] = x->angular;
        b->force[i] = x->force;
        b->torque[i] = x->torque;
        physics__bodies_extent(b, i);
    }
    if (h.rigid_cache)
        memcpy(rg->cache, r.rigid, (size_t)h.rigid_cache * sizeof *rg->cache);
    if (h.cache)
        memcpy(s->cache, r.cache, (size_t)h.cache * sizeof *s->cache);
    if (h.joints)
        memcpy(s->joints.j, r.joints, (size_t)h.joints * sizeof *s->joints.j);
    if (h.characters)
        memcpy(s->characters.c, r.characters, (size_t)h.characters * sizeof *s->characters.c);
    if (h.reported)
        memcpy(s->ccd.reported, r.reported, (size_t)h.reported * sizeof *s->ccd.reported);
    for (uint32_t i = 0; i < h.points; i++) {
        p->position[i] = r.points[i].position;
        p->velocity[i] = r.points[i].velocity;
        p->acceleration[i] = r.points[i].acceleration;
    }
    apply_sensors(&s->sensors, &r);
    read_free(s, &r);
    rg->num_cache = h.rigid_cache;
    rg->cache_asleep = true; /* (the next merge counts: physics__rigid.cache_asleep) */
    s->num_cache = h.cache;
    s->joints.n = h.joints;
    s->joints.next_id = h.next_joint;
    s->joints.keys_made = false;
    s->characters.n = h.characters;
    s->woke = h.woke != 0;
    s->ccd.num_reported = h.reported;
    /* Both grids are made again from the restored bodies; nothing is quiet until a step says so. */
    s->bp_stale = s->fixed_stale = true;
    s->num_escaped = 0;
    s->quiet = false;
    return 0;
}
