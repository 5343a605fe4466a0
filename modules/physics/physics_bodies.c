/* physics_bodies.c: the body component's instances, structure of arrays. */
#include "physics_hull.h"
#include "physics_lanes.h"

#include "ct_array.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define BODY_FIELD(name)                                                                           \
    {                                                                                              \
        offsetof(physics__bodies, name), sizeof(*((physics__bodies *)0)->name)                     \
    }
static const physics__soa_field bodies__fields[] = {
    BODY_FIELD(entity),      BODY_FIELD(kind),
    BODY_FIELD(shape),       BODY_FIELD(position),
    BODY_FIELD(velocity),    BODY_FIELD(force),
    BODY_FIELD(half),        BODY_FIELD(synced),
    BODY_FIELD(inv_mass),    BODY_FIELD(restitution),
    BODY_FIELD(friction),    BODY_FIELD(layer),
    BODY_FIELD(mask),        BODY_FIELD(user_data),
    BODY_FIELD(asleep),      BODY_FIELD(rest),
    BODY_FIELD(island),      BODY_FIELD(rotation),
    BODY_FIELD(angular),     BODY_FIELD(torque),
    BODY_FIELD(inv_inertia), BODY_FIELD(extent),
    BODY_FIELD(radius),      BODY_FIELD(locks),
    BODY_FIELD(rotates),     BODY_FIELD(synced_rotation),
    BODY_FIELD(hull),        BODY_FIELD(compound),
    BODY_FIELD(mesh),        BODY_FIELD(damping),
    BODY_FIELD(mesh_told),
};
#define BODY_NUM_FIELDS ((uint32_t)(sizeof bodies__fields / sizeof bodies__fields[0]))

const char *physics__body_desc_error(const ct_body_desc_t *d)
{
    if (d->kind != CT_BODY_DYNAMIC && d->kind != CT_BODY_STATIC && d->kind != CT_BODY_KINEMATIC)
        return "kind (dynamic, static or kinematic)";
    if (d->shape == CT_BODY_BOX) {
        for (int k = 0; k < 3; k++)
            if (!f_within(d->half_extents[k], CT_PHYSICS_MIN_SIZE, CT_PHYSICS_MAX_SIZE))
                return "half_extents (each must be within [1e-3, 1e4] m)";
    } else if (d->shape == CT_BODY_SPHERE) {
        if (!f_within(d->radius, CT_PHYSICS_MIN_SIZE, CT_PHYSICS_MAX_SIZE))
            return "radius (must be within [1e-3, 1e4] m)";
    } else {
        return "shape (box or sphere)";
    }
    if (d->kind == CT_BODY_DYNAMIC && !f_within(d->mass, CT_PHYSICS_MIN_MASS, CT_PHYSICS_MAX_MASS))
        return "mass (a dynamic body needs a mass within [1e-6, 1e9] kg)";
    if (!f_within(d->restitution, 0.0f, 1.0f))
        return "restitution (must be within [0, 1])";
    if (!f_within(d->friction, 0.0f, CT_PHYSICS_MAX_FRICTION))
        return "friction (must be within [0, 100])";
    if (!v3_within(v3_load(d->position), CT_PHYSICS_MAX_POSITION))
        return "position (each coordinate must be within +-1e5 m)";
    if (!v3_speed_ok(v3_load(d->velocity)))
        return "velocity (must be finite, at most 1e4 m/s)";
    return NULL;
}

const char *physics__damping_error(float linear, float angular)
{
    if (!f_within(linear, 0.0f, CT_PHYSICS_MAX_DAMPING))
        return "linear_damping (must be within [0, 1e3] 1/s)";
    if (!f_within(angular, 0.0f, CT_PHYSICS_MAX_DAMPING))
        return "angular_damping (must be within [0, 1e3] 1/s)";
    return NULL;
}

const char *physics__bodies_set_damping(physics__bodies *b, uint32_t i, float linear, float angular)
{
    const char *bad = physics__damping_error(linear, angular);
    if (!bad)
        b->damping[i] = (physics__damping){linear, angular};
    return bad;
}

/* Room for n instances in all: the arrays double until they fit, so a spawn of many grows once. */
int physics__bodies_reserve(physics__bodies *b, uint32_t n)
{
    if (n > b->cap) {
        const uint32_t cap = ct_array_capacity(b->cap, n, 64);
        if (!cap || physics__soa_grow(b->a, b, &b->buffer, bodies__fields, BODY_NUM_FIELDS, b->n,
                                      b->cap, cap))
            return CT_ERR_NOMEM;
        b->cap = cap;
    }
    return physics__map_reserve(&b->map, n);
}

ct_rigid_body_desc_t physics__rigid_of(const ct_body_desc_t *d)
{
    ct_rigid_body_desc_t r = {.kind = d->kind,
                              .shape = d->shape,
                              .radius = d->radius,
                              .mass = d->mass,
                              .restitution = d->restitution,
                              .friction = d->friction,
                              .locks = CT_BODY_LOCK_ROTATION};
    for (int k = 0; k < 3; k++) {
        r.half_extents[k] = d->half_extents[k];
        r.position[k] = d->position[k];
        r.velocity[k] = d->velocity[k];
    }
    return r;
}

static bool bodies__all_zero(const float *v, int n)
{
    for (int k = 0; k < n; k++)
        if (v[k] != 0.0f)
            return false;
    return true;
}

const char *physics__rigid_desc_error(const ct_rigid_body_desc_t *d)
{
    if (d->shape == CT_BODY_CAPSULE) {
        if (!f_within(d->radius, CT_PHYSICS_MIN_SIZE, CT_PHYSICS_MAX_SIZE))
            return "radius (must be within [1e-3, 1e4] m)";
        if (!f_within(d->half_height, 0.0f, CT_PHYSICS_MAX_SIZE))
            return "half_height (must be within [0, 1e4] m)";
    }
    ct_body_desc_t old = {.kind = d->kind,
                          .shape = d->shape == CT_BODY_CAPSULE ? CT_BODY_SPHERE : d->shape,
                          .radius = d->radius,
                          .mass = d->mass,
                          .restitution = d->restitution,
                          .friction = d->friction};
    for (int k = 0; k < 3; k++) {
        old.half_extents[k] = d->half_extents[k];
        old.position[k] = d->position[k];
        old.velocity[k] = d->velocity[k];
    }
    const char *bad = physics__body_desc_error(&old);
    if (bad)
        return strcmp(bad, "shape (box or sphere)") == 0 ? "shape (box, sphere or capsule)" : bad;
    const float *q = d->rotation;
    const float len = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!bodies__all_zero(q, 4) && !(fabsf(len - 1.0f) <= 1e-3f))
        return "rotation (x y z w of length 1 within 1e-3, or all zero)";
    const physics__v3 w = v3_load(d->angular_velocity);
    if (!(v3_within(w, CT_PHYSICS_MAX_ANGULAR_SPEED) &&
          v3_dot(w, w) <= CT_PHYSICS_MAX_ANGULAR_SPEED * CT_PHYSICS_MAX_ANGULAR_SPEED))
        return "angular_velocity (must be finite, at most 1e3 rad/s)";
    if (d->locks > CT_BODY_LOCK_ALL)
        return "locks (CT_BODY_LOCK_* bits only)";
    if (!bodies__all_zero(d->inertia, 3))
        for (int k = 0; k < 3; k++)
            if (!f_within(d->inertia[k], CT_PHYSICS_MIN_INERTIA, CT_PHYSICS_MAX_INERTIA))
                return "inertia (each within [1e-9, 1e15] kg m^2, or all zero)";
    return NULL;
}

const char *physics__given(const char *bad, const physics__given_field *fields, uint32_t count,
                           char *out, size_t size)
{
    if (!bad)
        return NULL;
    for (uint32_t f = 0; f < count; f++) {
        const physics__given_field *x = &fields[f];
        const size_t len = strlen(x->name);
        /* The whole name ("lower" is a name of its own in "lower, upper (...)", which a table
         * lists first): "radius" is no refusal of "radius_x". */
        if (strncmp(bad, x->name, len) != 0 || !strchr(" (:,", bad[len]))
            continue;
        int at = snprintf(out, size, "%s, given %s", bad, x->n > 1 ? "[" : "");
        for (uint32_t k = 0; k < x->n && at >= 0 && (size_t)at < size; k++) {
            const char *gap = k ? " " : "";
            at += x->form == 'x'
                      ? snprintf(out + at, size - (size_t)at, "%s0x%x", gap, (unsigned)x->v[k])
                  : x->form == 'u' ? snprintf(out + at, size - (size_t)at, "%s%.0f", gap, x->v[k])
                                   : snprintf(out + at, size - (size_t)at, "%s%g", gap, x->v[k]);
        }
        if (x->n > 1 && at >= 0 && (size_t)at < size)
            snprintf(out + at, size - (size_t)at, "]");
        return out;
    }
    return bad;
}

const char *physics__rigid_given(const ct_rigid_body_desc_t *d, const char *bad, char *out,
                                 size_t size)
{
    const float *he = d->half_extents, *p = d->position, *v = d->velocity, *w = d->angular_velocity,
                *i = d->inertia, *q = d->rotation;
    const physics__given_field fields[] = {
        {"kind", 1, 'u', {d->kind}},
        {"shape", 1, 'u', {d->shape}},
        {"radius", 1, 'g', {d->radius}},
        {"half_height", 1, 'g', {d->half_height}},
        {"half_extents", 3, 'g', {he[0], he[1], he[2]}},
        {"mass", 1, 'g', {d->mass}},
        {"restitution", 1, 'g', {d->restitution}},
        {"friction", 1, 'g', {d->friction}},
        {"position", 3, 'g', {p[0], p[1], p[2]}},
        {"velocity", 3, 'g', {v[0], v[1], v[2]}},
        {"angular_velocity", 3, 'g', {w[0], w[1], w[2]}},
        {"locks", 1, 'x', {d->locks}},
        {"inertia", 3, 'g', {i[0], i[1], i[2]}},
        {"rotation", 4, 'g', {q[0], q[1], q[2], q[3]}},
    };
    return physics__given(bad, fields, sizeof fields / sizeof fields[0], out, size);
}

/* Principal moments of a solid shape of even density. */
static physics__v3 bodies__inertia(const ct_rigid_body_desc_t *d)
{
    return physics__shape_inertia(d->shape, v3_load(d->half_extents), d->radius, d->half_height,
                                  d->mass);
}

physics__v3 physics__shape_inertia(uint32_t shape, physics__v3 half, float radius,
                                   float half_height, float m)
{
    if (shape == CT_BODY_SPHERE) {
        const float i = 0.4f * m * radius * radius;
        return v3(i, i, i);
    }
    if (shape == CT_BODY_CAPSULE) {
        const float r = radius, hh = half_height, r2 = r * r;
        const float vc = 2.0f * hh, vs = 4.0f / 3.0f * r; /* volumes over pi r^2 */
        const float mc = m * vc / (vc + vs), ms = m - mc;
        const float axial = mc * 0.5f * r2 + ms * 0.4f * r2;
        const float across =
            mc * (3.0f * r2 + 4.0f * hh * hh) / 12.0f + ms * (0.4f * r2 + hh * hh + 0.75f * hh * r);
        return v3(across, axial, across);
    }
    const float x = half.x, y = half.y, z = half.z;
    return v3(m / 3.0f * (y * y + z * z), m / 3.0f * (x * x + z * z), m / 3.0f * (x * x + y * y));
}

void physics__bodies_classify(physics__bodies *b, uint32_t i)
{
    const uint8_t was = b->rotates[i];
    /* A static body's locks mean nothing: only its shape and rotation can ask for the rigid
     * solver. */
    const bool moves = b->kind[i] != CT_BODY_STATIC;
    b->rotates[i] = (moves && ((b->locks[i] & CT_BODY_LOCK_ROTATION) != CT_BODY_LOCK_ROTATION ||
                               (b->locks[i] & 7u))) ||
                    !quat_is_identity(b->rotation[i]) || b->shape[i] == CT_BODY_CAPSULE ||
                    b->shape[i] == CT_BODY_HULL || b->shape[i] == CT_BODY_COMPOUND ||
                    b->shape[i] == CT_BODY_MESH;
    b->num_rotating += (uint32_t)b->rotates[i] - was;
    physics__bodies_extent(b, i);
}

void physics__bodies_extent(physics__bodies *b, uint32_t i)
{
    const physics__quat q = b->rotation[i];
    if (b->shape[i] == CT_BODY_HULL && b->hull[i] && !quat_is_identity(q)) {
        /* Its corners turned: tighter than the turned bounding box. */
        const physics__hull *h = b->hull[i];
        physics__v3 e = v3(0, 0, 0);
        for (uint32_t k = 0; k < h->num_vertices; k++) {
            const physics__v3 v = quat_rotate(q, h->vertex[k]);
            e = v3_max(e, v3(fabsf(v.x), fabsf(v.y), fabsf(v.z)));
        }
        b->extent[i] = e;
        return;
    }
    if (b->shape[i] == CT_BODY_COMPOUND && b->compound[i] && !quat_is_identity(q)) {
        /* A ball round every child: turning cannot take it out. */
        const float r = b->compound[i]->bound;
        b->extent[i] = v3(r, r, r);
        return;
    }
    if (b->shape[i] == CT_BODY_SPHERE || quat_is_identity(q)) {
        b->extent[i] = b->half[i];
        return;
    }
    if (b->shape[i] == CT_BODY_CAPSULE) {
        const float r = b->radius[i];
        const physics__v3 a = quat_rotate(q, v3(0.0f, b->half[i].y - r, 0.0f));
        b->extent[i] = v3(fabsf(a.x) + r, fabsf(a.y) + r, fabsf(a.z) + r);
        return;
    }
    const physics__v3 h = b->half[i];
    const physics__v3 ax = quat_rotate(q, v3(h.x, 0, 0)), ay = quat_rotate(q, v3(0, h.y, 0)),
                      az = quat_rotate(q, v3(0, 0, h.z));
    b->extent[i] =
        v3(fabsf(ax.x) + fabsf(ay.x) + fabsf(az.x), fabsf(ax.y) + fabsf(ay.y) + fabsf(az.y),
           fabsf(ax.z) + fabsf(ay.z) + fabsf(az.z));
}

/* A locked rotation axis (bits 3..5 of locks) turns by nothing: its row and column are zero. */
static inline void bodies__lock_inertia(uint8_t locks, float out[9])
{
    const uint32_t locked = locks >> 3 & 7u;
    for (int r = 0; locked && r < 3; r++)
        for (int k = 0; k < 3; k++)
            if ((locked >> r & 1u) || (locked >> k & 1u))
                out[r * 3 + k] = 0.0f;
}

void physics__world_inv_inertia(const physics__bodies *b, uint32_t i, float out[9])
{
    const physics__quat q = b->rotation[i];
    const physics__v3 d = b->inv_inertia[i];
    const physics__v3 c0 = quat_rotate(q, v3(1, 0, 0)), c1 = quat_rotate(q, v3(0, 1, 0)),
                      c2 = quat_rotate(q, v3(0, 0, 1));
    /* The body's axes in the world, as arrays: indexed by a loop counter, v3_get's choice of
     * member was a branch per entry (a rigid body's nine entries are made every step). */
    const float a0[3] = {c0.x, c0.y, c0.z}, a1[3] = {c1.x, c1.y, c1.z}, a2[3] = {c2.x, c2.y, c2.z};
    for (int r = 0; r < 3; r++) {
        const float x = a0[r] * d.x, y = a1[r] * d.y, z = a2[r] * d.z;
        for (int k = 0; k < 3; k++)
            out[r * 3 + k] = x * a0[k] + y * a1[k] + z * a2[k];
    }
    bodies__lock_inertia(b->locks[i], out);
}

void physics__world_inv_inertia4(const physics__bodies *b, const uint32_t body[4], uint32_t n,
                                 float *out[4])
{
    const physics__quat *q[4];
    const physics__v3 *d[4];
    float w[4], *to[4]; /* (the lanes past n repeat lane 0 and are not written) */
    for (uint32_t k = 0; k < 4; k++) {
        const uint32_t i = body[k < n ? k : 0];
        q[k] = &b->rotation[i];
        d[k] = &b->inv_inertia[i];
        w[k] = q[k]->w;
        to[k] = out[k < n ? k : 0];
    }
    const v3x4 u = v3x4_gather(&q[0]->x, &q[1]->x, &q[2]->x, &q[3]->x);
    const v3x4 m = v3x4_gather(&d[0]->x, &d[1]->x, &d[2]->x, &d[3]->x);
    const f32x4 qw = f32x4_load(w), zero = f32x4_splat(0.0f), one = f32x4_splat(1.0f);
    /* The axes, and the rows, as physics__world_inv_inertia's: the unit vectors' zeros are
     * multiplied as there (a product's sign of zero can reach a sum of zeros). */
    const v3x4 c0 = v3x4_quat_rotate(u, qw, (v3x4){one, zero, zero}),
               c1 = v3x4_quat_rotate(u, qw, (v3x4){zero, one, zero}),
               c2 = v3x4_quat_rotate(u, qw, (v3x4){zero, zero, one});
    const f32x4 a0[3] = {c0.x, c0.y, c0.z}, a1[3] = {c1.x, c1.y, c1.z}, a2[3] = {c2.x, c2.y, c2.z};
    const uint32_t lanes = (1u << n) - 1u;
    for (int r = 0; r < 3; r++) {
        const f32x4 x = f32x4_mul(a0[r], m.x), y = f32x4_mul(a1[r], m.y), z = f32x4_mul(a2[r], m.z);
        f32x4 row[3];
        for (int k = 0; k < 3; k++)
            row[k] =
                f32x4_add(f32x4_add(f32x4_mul(x, a0[k]), f32x4_mul(y, a1[k])), f32x4_mul(z, a2[k]));
        v3x4_scatter(to[0] + 3 * r, to[1] + 3 * r, to[2] + 3 * r, to[3] + 3 * r,
                     (v3x4){row[0], row[1], row[2]}, lanes);
    }
    for (uint32_t k = 0; k < n; k++)
        bodies__lock_inertia(b->locks[body[k]], out[k]);
}

physics__v3 physics__world_inv_inertia_times(const physics__bodies *b, uint32_t i, physics__v3 v)
{
    float m[9];
    physics__world_inv_inertia(b, i, m);
    return v3(m[0] * v.x + m[1] * v.y + m[2] * v.z, m[3] * v.x + m[4] * v.y + m[5] * v.z,
              m[6] * v.x + m[7] * v.y + m[8] * v.z);
}

void physics__bodies_impulse_at(physics__bodies *b, uint32_t i, physics__v3 impulse, physics__v3 at)
{
    const physics__v3 dw =
        physics__world_inv_inertia_times(b, i, v3_cross(v3_sub(at, b->position[i]), impulse));
    physics__v3 v = v3_add(b->velocity[i], v3_scale(impulse, b->inv_mass[i]));
    physics__v3 av = v3_add(b->angular[i], dw);
    /* The speeds stay within their ranges (the direction kept). */
    if (v3_dot(v, v) > CT_PHYSICS_MAX_SPEED * CT_PHYSICS_MAX_SPEED)
        v = v3_scale(v, CT_PHYSICS_MAX_SPEED / v3_len(v));
    if (v3_dot(av, av) > CT_PHYSICS_MAX_ANGULAR_SPEED * CT_PHYSICS_MAX_ANGULAR_SPEED)
        av = v3_scale(av, CT_PHYSICS_MAX_ANGULAR_SPEED / v3_len(av));
    const uint32_t l = b->locks[i];
    b->velocity[i] = v3(l & 1u ? 0.0f : v.x, l & 2u ? 0.0f : v.y, l & 4u ? 0.0f : v.z);
    b->angular[i] = v3(l & 8u ? 0.0f : av.x, l & 16u ? 0.0f : av.y, l & 32u ? 0.0f : av.z);
}

int physics__bodies_add(physics__bodies *b, ct_entity_t e, const ct_body_desc_t *d)
{
    const ct_rigid_body_desc_t r = physics__rigid_of(d);
    return physics__bodies_add_rigid(b, e, &r);
}

int physics__bodies_add_rigid(physics__bodies *b, ct_entity_t e, const ct_rigid_body_desc_t *d)
{
    if (physics__map_get(&b->map, e.id) != UINT32_MAX)
        return CT_ERR_CONFLICT;
    if (physics__bodies_reserve(b, b->n + 1))
        return CT_ERR_NOMEM;
    const uint32_t i = b->n++;
    const bool dynamic = d->kind == CT_BODY_DYNAMIC;
    b->entity[i] = e;
    b->kind[i] = (uint8_t)d->kind;
    b->shape[i] = (uint8_t)d->shape;
    b->position[i] = b->synced[i] = v3_load(d->position);
    b->velocity[i] = d->kind == CT_BODY_STATIC ? v3(0, 0, 0) : v3_load(d->velocity);
    b->force[i] = v3(0, 0, 0);
    b->half[i] = d->shape == CT_BODY_SPHERE ? v3(d->radius, d->radius, d->radius)
                 : d->shape == CT_BODY_CAPSULE
                     ? v3(d->radius, d->half_height + d->radius, d->radius)
                     : v3_load(d->half_extents);
    b->inv_mass[i] = dynamic ? 1.0f / d->mass : 0.0f;
    b->restitution[i] = d->restitution;
    b->friction[i] = d->friction;
    b->damping[i] = (physics__damping){0.0f, 0.0f};
    b->mesh_told[i] = 0;
    b->layer[i] = 1u;
    b->mask[i] = UINT32_MAX;
    b->user_data[i] = 0;
    b->asleep[i] = 0;
    b->rest[i] = 0.0f;
    b->island[i] = 0;
    b->rotation[i] = bodies__all_zero(d->rotation, 4)
                         ? quat_identity()
                         : quat_normalize((physics__quat){d->rotation[0], d->rotation[1],
                                                          d->rotation[2], d->rotation[3]});
    b->angular[i] = d->kind == CT_BODY_STATIC ? v3(0, 0, 0) : v3_load(d->angular_velocity);
    b->torque[i] = v3(0, 0, 0);
    b->synced_rotation[i] = b->rotation[i];
    const physics__v3 inertia =
        bodies__all_zero(d->inertia, 3) ? bodies__inertia(d) : v3_load(d->inertia);
    b->inv_inertia[i] =
        dynamic ? v3(1.0f / inertia.x, 1.0f / inertia.y, 1.0f / inertia.z) : v3(0, 0, 0);
    b->radius[i] = d->radius;
    b->hull[i] = NULL;
    b->compound[i] = NULL;
    b->mesh[i] = NULL;
    b->locks[i] = (uint8_t)d->locks;
    b->rotates[i] = 0;
    physics__bodies_classify(b, i);
    *physics__map_upsert(&b->map, e.id, i) = i;
    return 0;
}

/* The checks of a desc for a shape built beforehand (a hull, a compound): every field but the
 * shape's own sizes, which the build checked. */
static const char *bodies__built_desc_error(const ct_rigid_body_desc_t *d, uint32_t shape,
                                            const char *wrong_shape)
{
    if (d->shape != shape)
        return wrong_shape;
    ct_rigid_body_desc_t r = *d;
    r.shape = CT_BODY_SPHERE;
    r.radius = 1.0f;
    return physics__rigid_desc_error(&r);
}

/* ---- hulls shared by the bodies of one shape ------------------------------------------------ */

/* A hash of the shape's bytes (FNV-1a on 32-bit words), never the map's empty key. */
static uint64_t bodies__hull_key(const physics__hull *h)
{
    _Static_assert(PHYSICS_HULL_SHAPE_BYTES % 4u == 0, "a hull's shape is whole words");
    const unsigned char *bytes = (const unsigned char *)h;
    uint64_t k = 0xcbf29ce484222325ull;
    for (size_t o = 0; o < PHYSICS_HULL_SHAPE_BYTES; o += 4) {
        uint32_t w;
        memcpy(&w, bytes + o, 4);
        k = (k ^ w) * 0x100000001b3ull;
    }
    return k == PHYSICS_MAP_EMPTY ? 0 : k;
}

/* Where h is in the registry, or UINT32_MAX. */
static uint32_t bodies__hull_place(const physics__bodies *b, const physics__hull *h)
{
    const uint32_t k = physics__map_get(&b->hull_map, h->key);
    return k != UINT32_MAX && b->hulls[k] == h ? k : UINT32_MAX;
}

/* The registered hull of built's shape, or NULL; *key gets built's key. */
static physics__hull *bodies__hull_find(const physics__bodies *b, const physics__hull *built,
                                        uint64_t *key)
{
    *key = bodies__hull_key(built);
    const uint32_t k = physics__map_get(&b->hull_map, *key);
    return k != UINT32_MAX && memcmp(b->hulls[k], built, PHYSICS_HULL_SHAPE_BYTES) == 0
               ? b->hulls[k]
               : NULL;
}

/* Notes h (no equal one noted) under key, for the next of its shape to find. Another shape of the
 * same key (a collision), or no room to note it: h stays a hull of its own. */
static void bodies__hull_note(physics__bodies *b, physics__hull *h, uint64_t key)
{
    h->key = key;
    if (physics__map_get(&b->hull_map, key) == UINT32_MAX &&
        physics__map_reserve(&b->hull_map, b->num_hulls + 1) == 0 &&
        ct_array_reserve_of(b->a, &b->hulls, &b->cap_hulls, b->num_hulls + 1, 16)) {
        b->hulls[b->num_hulls] = h;
        *physics__map_upsert(&b->hull_map, key, b->num_hulls) = b->num_hulls;
        b->num_hulls++;
    }
}

physics__hull *physics__bodies_hull(physics__bodies *b, const physics__hull *built)
{
    uint64_t key;
    physics__hull *h = bodies__hull_find(b, built, &key);
    if (h)
        return h;
    h = ct_alloc(b->a, sizeof *h);
    if (!h)
        return NULL;
    memcpy(h, built, PHYSICS_HULL_SHAPE_BYTES);
    h->users = 0;
    bodies__hull_note(b, h, key);
    return h;
}

/* A body stops using h, or h found no use: the last user frees it (off the registry too). */
static void bodies__hull_release(physics__bodies *b, physics__hull *h)
{
    if (h->users > 1) {
        h->users--;
        return;
    }
    const uint32_t k = bodies__hull_place(b, h);
    if (k != UINT32_MAX) {
        physics__map_remove(&b->hull_map, h->key);
        const uint32_t last = --b->num_hulls;
        if (k != last) {
            b->hulls[k] = b->hulls[last];
            *physics__map_upsert(&b->hull_map, b->hulls[k]->key, k) = k;
        }
    }
    ct_free(b->a, h, sizeof *h);
}

/* ---- bodies of shapes built beforehand ------------------------------------------------------ */

/* The shapes a body owns (allocated from the bodies' allocator): one at most, the others NULL. A
 * hull it shares with the bodies of its shape. */
typedef struct bodies__owned {
    physics__hull *hull;
    physics__compound *compound;
    physics__mesh *mesh;
} bodies__owned;

static void bodies__free_owned(physics__bodies *b, bodies__owned o)
{
    if (o.hull)
        bodies__hull_release(b, o.hull);
    /* A compound's hulls, shared once its body was added (physics__bodies_add_compound), go as a
     * body's do; physics__compound_free frees the rest. */
    for (uint32_t k = 0; o.compound && k < o.compound->count; k++)
        if (o.compound->child[k].hull && o.compound->child[k].hull->users) {
            bodies__hull_release(b, o.compound->child[k].hull);
            o.compound->child[k].hull = NULL;
        }
    physics__compound_free(b->a, o.compound);
    physics__mesh_free(b->a, o.mesh);
}

static bodies__owned bodies__owned_by(const physics__bodies *b, uint32_t i)
{
    return (bodies__owned){b->hull[i], b->compound[i], b->mesh[i]};
}

/* Adds the body of r (its shape and inertia set) that owns `o`, its bounds `half` about its
 * centre; frees o when it fails (a hull only when no body uses it). */
static int bodies__add_owning(physics__bodies *b, ct_entity_t e, const ct_rigid_body_desc_t *r,
                              bodies__owned o, physics__v3 half)
{
    const int err = physics__bodies_add_rigid(b, e, r);
    if (err) {
        if (o.hull && o.hull->users)
            o.hull = NULL; /* the bodies using it keep it */
        bodies__free_owned(b, o);
        return err;
    }
    const uint32_t i = b->n - 1;
    if (o.hull)
        o.hull->users++;
    b->hull[i] = o.hull;
    b->compound[i] = o.compound;
    b->mesh[i] = o.mesh;
    b->half[i] = half;
    b->radius[i] = 0.0f;
    physics__bodies_extent(b, i);
    return 0;
}

/* Adds the body of a shape built beforehand (o) whose inertia per unit mass is unit_inertia
 * (desc->inertia, when not all zero, replaces it); frees o when it fails. */
static int bodies__add_built(physics__bodies *b, ct_entity_t e, const ct_rigid_body_desc_t *d,
                             uint32_t shape, physics__v3 unit_inertia, bodies__owned o,
                             physics__v3 half)
{
    ct_rigid_body_desc_t r = *d;
    r.shape = shape;
    if (bodies__all_zero(d->inertia, 3)) {
        r.inertia[0] = d->mass * unit_inertia.x;
        r.inertia[1] = d->mass * unit_inertia.y;
        r.inertia[2] = d->mass * unit_inertia.z;
        if (d->kind != CT_BODY_DYNAMIC)
            r.inertia[0] = r.inertia[1] = r.inertia[2] = 1.0f; /* unused: no inverse inertia */
    }
    return bodies__add_owning(b, e, &r, o, half);
}

const char *physics__compound_desc_error(const ct_rigid_body_desc_t *d)
{
    return bodies__built_desc_error(d, CT_BODY_COMPOUND,
                                    "shape (add_compound_body makes CT_BODY_COMPOUND bodies)");
}

int physics__bodies_add_compound(physics__bodies *b, ct_entity_t e, const ct_rigid_body_desc_t *d,
                                 physics__compound *c)
{
    /* The box about the centre that holds every child's bounding box. */
    physics__v3 half = v3(0, 0, 0);
    for (uint32_t k = 0; k < c->count; k++) {
        const physics__child *x = &c->child[k];
        const physics__v3 h = x->half, p = x->position;
        const physics__v3 ax = quat_rotate(x->rotation, v3(h.x, 0, 0)),
                          ay = quat_rotate(x->rotation, v3(0, h.y, 0)),
                          az = quat_rotate(x->rotation, v3(0, 0, h.z));
        const physics__v3 e3 = x->shape == CT_BODY_SPHERE
                                   ? h
                                   : v3(fabsf(ax.x) + fabsf(ay.x) + fabsf(az.x),
                                        fabsf(ax.y) + fabsf(ay.y) + fabsf(az.y),
                                        fabsf(ax.z) + fabsf(ay.z) + fabsf(az.z));
        half = v3_max(half, v3(fabsf(p.x) + e3.x, fabsf(p.y) + e3.y, fabsf(p.z) + e3.z));
    }
    const int err = bodies__add_built(b, e, d, CT_BODY_COMPOUND, c->inertia,
                                      (bodies__owned){.compound = c}, half);
    if (err)
        return err;
    /* Its hull children are shared like hull bodies' (each built in a block of its own, which
     * stays its own when there is no memory for the shared copy). */
    for (uint32_t k = 0; k < c->count; k++) {
        physics__child *x = &c->child[k];
        if (!x->hull)
            continue;
        physics__hull *shared = physics__bodies_hull(b, x->hull);
        if (shared) {
            ct_free(b->a, x->hull, sizeof *x->hull);
            x->hull = shared;
        }
        x->hull->users++;
    }
    return 0;
}

int physics__bodies_add_mesh(physics__bodies *b, ct_entity_t e, const ct_rigid_body_desc_t *d,
                             physics__mesh *m)
{
    ct_rigid_body_desc_t r = *d;
    r.shape = CT_BODY_MESH;
    r.inertia[0] = r.inertia[1] = r.inertia[2] = 1.0f; /* static: unused */
    return bodies__add_owning(b, e, &r, (bodies__owned){.mesh = m}, m->half);
}

const char *physics__hull_desc_error(const ct_rigid_body_desc_t *d)
{
    return bodies__built_desc_error(d, CT_BODY_HULL,
                                    "shape (add_hull_body makes CT_BODY_HULL bodies)");
}

int physics__bodies_add_hull(physics__bodies *b, ct_entity_t e, const ct_rigid_body_desc_t *d,
                             physics__hull *h)
{
    return bodies__add_built(b, e, d, CT_BODY_HULL, h->inertia, (bodies__owned){.hull = h},
                             h->half);
}

uint32_t physics__bodies_find(const physics__bodies *b, ct_entity_t e)
{
    return physics__map_get(&b->map, e.id);
}

bool physics__bodies_remove(physics__bodies *b, ct_entity_t e)
{
    const uint32_t i = physics__map_get(&b->map, e.id);
    if (i == UINT32_MAX)
        return false;
    const uint32_t last = --b->n;
    bodies__free_owned(b, bodies__owned_by(b, i));
    if (i == last)
        b->num_rotating -= b->rotates[i];
    if (i != last) {
        b->entity[i] = b->entity[last];
        b->kind[i] = b->kind[last];
        b->shape[i] = b->shape[last];
        b->position[i] = b->position[last];
        b->velocity[i] = b->velocity[last];
        b->force[i] = b->force[last];
        b->half[i] = b->half[last];
        b->synced[i] = b->synced[last];
        b->inv_mass[i] = b->inv_mass[last];
        b->restitution[i] = b->restitution[last];
        b->friction[i] = b->friction[last];
        b->damping[i] = b->damping[last];
        b->mesh_told[i] = b->mesh_told[last];
        b->layer[i] = b->layer[last];
        b->mask[i] = b->mask[last];
        b->user_data[i] = b->user_data[last];
        b->asleep[i] = b->asleep[last];
        b->rest[i] = b->rest[last];
        b->island[i] = b->island[last];
        b->num_rotating -= b->rotates[i];
        b->rotation[i] = b->rotation[last];
        b->angular[i] = b->angular[last];
        b->torque[i] = b->torque[last];
        b->inv_inertia[i] = b->inv_inertia[last];
        b->extent[i] = b->extent[last];
        b->radius[i] = b->radius[last];
        b->locks[i] = b->locks[last];
        b->rotates[i] = b->rotates[last];
        b->synced_rotation[i] = b->synced_rotation[last];
        b->hull[i] = b->hull[last];
        b->compound[i] = b->compound[last];
        b->mesh[i] = b->mesh[last];
        *physics__map_upsert(&b->map, b->entity[i].id, i) = i;
    }
    physics__map_remove(&b->map, e.id);
    return true;
}

void physics__bodies_free(physics__bodies *b)
{
    for (uint32_t i = 0; i < b->n; i++)
        bodies__free_owned(b, bodies__owned_by(b, i));
    physics__soa_free(b->a, &b->buffer, bodies__fields, BODY_NUM_FIELDS, b->cap);
    physics__mesh_near_free(b);
    physics__map_free(&b->map);
    if (b->hulls)
        ct_free(b->a, b->hulls, (size_t)b->cap_hulls * sizeof *b->hulls);
    b->hulls = NULL;
    physics__map_free(&b->hull_map);
    b->n = b->cap = b->num_rotating = b->num_hulls = b->cap_hulls = 0;
}
