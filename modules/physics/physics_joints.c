/* physics_joints.c: joints (ct_physics.h, Joints), solved in the rigid solver's substeps.
 *
 * Every joint is made of two kinds of constraint, solved on the bodies' present poses (anchors
 * and axes are turned by the rotations of the moment, not of the step's start, so a joint stays
 * exact however far the bodies turn in a step):
 *   - blocks of three rows solved at once: the point block (the anchors meet: fixed, hinge, ball)
 *     and the rotation block (the relative rotation stays the rest rotation: fixed, slider). A
 *     3 x 3 solve keeps a chain's links from fighting over axes, which three rows one after the
 *     other would;
 *   - scalar rows, each a direction and its anchors: the hinge's two axes it may not turn
 *     about, the slider's two directions it may not move along, limits (one row per side, which
 *     pushes only when that side is reached, a speculative gap closed like a contact's),
 *     motors (a target speed within the force they may apply) and the distance joint's spring.
 * Equalities are soft as Box2D v3's joints (60 Hz, damping ratio 2) while pushing and rigid
 * while relaxing; a spring keeps its own softness in both. Rows are solved first, the blocks
 * last, as Box2D does: what holds the bodies together has the last word. The accumulated
 * impulses warm start the next substep and the next step. Joints are solved after the contacts
 * in each pass: a link of a falling chain struck by the floor opened its joint by 3 cm when the
 * contacts had the last word, 6 mm now.
 *
 * A pass is a few stages (physics_stages.c), one per batch of joints that share no moving body,
 * each on any threads (physics__joints_colour): solved in one stage by one thread, Box3D's
 * joint_grid (19,800 joints) gained nothing from a second thread. */
#include "physics_internal.h"

#include <float.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* GCC's straight-line (SLP) vectoriser packs this file's 3 x 3 blocks into shuffles that cost
 * more than they save: at -O3 (the release build) Box3D's joint_grid took 46 ms a step with it and
 * 22.7 without (bench_physics, same run). It changes no result: the arithmetic and its order are
 * the same. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-slp-vectorize")
#endif

#define JOINT_HERTZ 60.0f
#define JOINT_DAMPING 2.0f
#define JOINT_PI 3.14159265f
/* Fewer joints than this are batched in waves, which keep the handle order's results, more in
 * colours (see physics__joints_colour). */
#define JOINT_COLOUR_MIN 2048u
/* Colours of the joints (bits of a body's uint64_t); a joint that finds none free goes to the
 * overflow after them. */
#define JOINT_COLOURS 63u
/* Joints a thread takes from a batch at a time. */
#define JOINT_SLICE 128u

/* ---- quaternions and small matrices ------------------------------------------------------ */

static inline physics__v3 joints__mat(const float m[9], physics__v3 v)
{
    return v3(m[0] * v.x + m[1] * v.y + m[2] * v.z, m[3] * v.x + m[4] * v.y + m[5] * v.z,
              m[6] * v.x + m[7] * v.y + m[8] * v.z);
}

/* The inverse of a 3 x 3 matrix (row major); zero when singular (a joint between two bodies
 * that cannot move). */
static void joints__invert(const float k[9], float out[9])
{
    const float c0 = k[4] * k[8] - k[5] * k[7], c1 = k[5] * k[6] - k[3] * k[8],
                c2 = k[3] * k[7] - k[4] * k[6];
    const float det = k[0] * c0 + k[1] * c1 + k[2] * c2;
    if (!(fabsf(det) > 1e-30f)) {
        memset(out, 0, 9 * sizeof *out);
        return;
    }
    const float id = 1.0f / det;
    out[0] = c0 * id;
    out[1] = (k[2] * k[7] - k[1] * k[8]) * id;
    out[2] = (k[1] * k[5] - k[2] * k[4]) * id;
    out[3] = c1 * id;
    out[4] = (k[0] * k[8] - k[2] * k[6]) * id;
    out[5] = (k[2] * k[3] - k[0] * k[5]) * id;
    out[6] = c2 * id;
    out[7] = (k[1] * k[6] - k[0] * k[7]) * id;
    out[8] = (k[0] * k[4] - k[1] * k[3]) * id;
}

/* Two unit vectors that make a right-handed basis with unit a. */
static void joints__basis(physics__v3 a, physics__v3 *b1, physics__v3 *b2)
{
    const physics__v3 seed = fabsf(a.x) < 0.57f ? v3(1, 0, 0) : v3(0, 1, 0);
    const physics__v3 t = v3_cross(a, seed);
    *b1 = v3_scale(t, 1.0f / v3_len(t));
    *b2 = v3_cross(a, *b1);
}

/* The angle (-pi, pi] of q's turn about unit axis (its twist). */
static float joints__twist(physics__quat q, physics__v3 axis)
{
    float angle = 2.0f * atan2f(q.x * axis.x + q.y * axis.y + q.z * axis.z, q.w);
    if (angle > JOINT_PI)
        angle -= 2.0f * JOINT_PI;
    else if (angle <= -JOINT_PI)
        angle += 2.0f * JOINT_PI;
    return angle;
}

/* ---- the joints' list ---------------------------------------------------------------------- */

static bool joints__v3_ok(const float v[3], float limit) { return v3_within(v3_load(v), limit); }

const char *physics__joint_desc_error(const ct_joint_desc_t *d)
{
    if (d->type > CT_JOINT_DISTANCE)
        return "type (fixed, hinge, ball, slider or distance)";
    if (d->flags & ~(uint32_t)(CT_JOINT_LIMIT | CT_JOINT_MOTOR | CT_JOINT_COLLIDE))
        return "flags (CT_JOINT_LIMIT, CT_JOINT_MOTOR and CT_JOINT_COLLIDE only)";
    if (!joints__v3_ok(d->anchor, CT_PHYSICS_MAX_POSITION))
        return "anchor (each coordinate within +-1e5 m)";
    if (d->type == CT_JOINT_DISTANCE && !joints__v3_ok(d->anchor_b, CT_PHYSICS_MAX_POSITION))
        return "anchor_b (each coordinate within +-1e5 m)";
    const physics__v3 axis = v3_load(d->axis);
    if (d->type != CT_JOINT_FIXED && d->type != CT_JOINT_DISTANCE &&
        !(v3_within(axis, 1e3f) && v3_len(axis) >= 1e-3f))
        return "axis (a direction of length at least 1e-3, each component within +-1e3)";
    const bool angles = d->type == CT_JOINT_HINGE || d->type == CT_JOINT_BALL;
    const float lim = angles ? JOINT_PI : CT_PHYSICS_MAX_SIZE;
    if ((d->flags & CT_JOINT_LIMIT) &&
        !(f_within(d->lower, -lim, lim) && f_within(d->upper, -lim, lim) && d->lower <= d->upper))
        return angles ? "lower, upper (within [-pi, pi] rad, lower <= upper)"
                      : "lower, upper (within [-1e4, 1e4] m, lower <= upper)";
    if (d->type == CT_JOINT_DISTANCE && (d->flags & CT_JOINT_LIMIT) && d->lower < 0.0f)
        return "lower (a distance: at least 0 m)";
    if (d->type == CT_JOINT_BALL && (d->flags & CT_JOINT_LIMIT) &&
        !f_within(d->cone_angle, 0.0f, JOINT_PI))
        return "cone_angle (within [0, pi] rad)";
    if (!f_within(d->motor_speed, -CT_PHYSICS_MAX_SPEED, CT_PHYSICS_MAX_SPEED))
        return "motor_speed (within +-1e4)";
    if (!f_within(d->max_motor_force, 0.0f, CT_PHYSICS_MAX_FORCE))
        return "max_motor_force (within [0, 1e12])";
    if ((d->flags & CT_JOINT_MOTOR) && d->type != CT_JOINT_HINGE && d->type != CT_JOINT_SLIDER)
        return "flags (a motor is for hinges and sliders)";
    if (!f_within(d->length, 0.0f, CT_PHYSICS_MAX_SIZE))
        return "length (within [0, 1e4] m)";
    if (!f_within(d->spring_hertz, 0.0f, 1e3f))
        return "spring_hertz (within [0, 1e3])";
    if (!f_within(d->spring_damping, 0.0f, 1e3f))
        return "spring_damping (within [0, 1e3])";
    return NULL;
}

const char *physics__joint_given(const ct_joint_desc_t *d, const char *bad, char *out, size_t size)
{
    const float *a = d->anchor, *b = d->anchor_b, *x = d->axis;
    const physics__given_field fields[] = {
        {"type", 1, 'u', {d->type}},
        {"flags", 1, 'x', {d->flags}},
        {"anchor", 3, 'g', {a[0], a[1], a[2]}},
        {"anchor_b", 3, 'g', {b[0], b[1], b[2]}},
        {"axis", 3, 'g', {x[0], x[1], x[2]}},
        {"lower, upper", 2, 'g', {d->lower, d->upper}},
        {"lower", 1, 'g', {d->lower}},
        {"cone_angle", 1, 'g', {d->cone_angle}},
        {"motor_speed", 1, 'g', {d->motor_speed}},
        {"max_motor_force", 1, 'g', {d->max_motor_force}},
        {"length", 1, 'g', {d->length}},
        {"spring_hertz", 1, 'g', {d->spring_hertz}},
        {"spring_damping", 1, 'g', {d->spring_damping}},
    };
    return physics__given(bad, fields, sizeof fields / sizeof fields[0], out, size);
}

/* A joint's anchors in its bodies' frames: the difference of two positions within the ranges,
 * turned (each coordinate within twice the range times the square root of three). */
#define JOINT_MAX_LOCAL (4.0f * CT_PHYSICS_MAX_POSITION)

/* Whether n floats are of length 1 (an axis, a rotation), as a restored joint's must be. */
static bool joints__unit(const float *v, uint32_t n)
{
    float l = 0.0f;
    for (uint32_t k = 0; k < n; k++)
        l += v[k] * v[k];
    return isfinite(l) && fabsf(l - 1.0f) < 1e-3f;
}

static bool joints__finite(const float *v, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++)
        if (!isfinite(v[k]))
            return false;
    return true;
}

const char *physics__joint_restored_error(const physics__bodies *b, const physics__joint *j)
{
    /* The desc's ranges, on what the joint kept of it (its anchors are checked below, in the
     * frames it keeps them in; a length it measured may be past the desc's range). */
    const ct_joint_desc_t d = {.type = j->type,
                               .flags = j->flags,
                               .axis = {j->axis_b.x, j->axis_b.y, j->axis_b.z},
                               .lower = j->lower,
                               .upper = j->upper,
                               .cone_angle = j->cone,
                               .motor_speed = j->motor_speed,
                               .max_motor_force = j->motor_max,
                               .spring_hertz = j->hertz,
                               .spring_damping = j->damping};
    const char *bad = physics__joint_desc_error(&d);
    if (bad)
        return bad;
    if (!f_within(j->length, 0.0f, JOINT_MAX_LOCAL))
        return "length (within [0, 4e5] m)";
    if (j->ea == j->eb || physics__bodies_find(b, (ct_entity_t){j->eb}) == UINT32_MAX ||
        (j->ea && physics__bodies_find(b, (ct_entity_t){j->ea}) == UINT32_MAX))
        return "bodies (an entity without a body in the world, or one body twice)";
    if (!v3_within(j->la, JOINT_MAX_LOCAL) || !v3_within(j->lb, JOINT_MAX_LOCAL))
        return "anchors (each coordinate within +-4e5 m of its body)";
    if (!joints__unit(&j->axis_a.x, 3) || !joints__unit(&j->axis_b.x, 3) ||
        !joints__unit(&j->rest.x, 4))
        return "axes or rest rotation (not of length 1)";
    if (!v3_within(j->lin_j, FLT_MAX) || !v3_within(j->ang_j, FLT_MAX) ||
        !v3_within(j->force, FLT_MAX) || !v3_within(j->torque, FLT_MAX) ||
        !joints__finite(j->row_j, PHYSICS_JOINT_ROWS))
        return "impulses or forces (NaN or infinite)";
    return NULL;
}

/* The pose of instance i, or the world's. */
static void joints__pose(const physics__bodies *b, uint32_t i, physics__v3 *p, physics__quat *q)
{
    *p = i == UINT32_MAX ? v3(0, 0, 0) : b->position[i];
    *q = i == UINT32_MAX ? quat_identity() : b->rotation[i];
}

int physics__joints_add(physics__scene *s, uint32_t a, uint32_t b, const ct_joint_desc_t *d,
                        uint32_t *id)
{
    physics__joints *js = &s->joints;
    if (js->next_id == UINT32_MAX ||
        physics__reserve_keep(s->a, (void **)&js->j, &js->cap, js->n + 1, sizeof *js->j))
        return CT_ERR_NOMEM;
    const physics__bodies *bs = &s->bodies;
    physics__v3 pa, pb;
    physics__quat qa, qb;
    joints__pose(bs, a, &pa, &qa);
    joints__pose(bs, b, &pb, &qb);
    physics__joint *j = &js->j[js->n++];
    js->keys_made = false;
    /* The API's a is B here: desc's anchor is on B, anchor_b (distance joints) on A. */
    const physics__v3 anchor_b = v3_load(d->anchor);
    const physics__v3 anchor = d->type == CT_JOINT_DISTANCE ? v3_load(d->anchor_b) : anchor_b;
    physics__v3 axis = v3_load(d->axis);
    axis = d->type == CT_JOINT_FIXED || d->type == CT_JOINT_DISTANCE
               ? v3(1, 0, 0)
               : v3_scale(axis, 1.0f / v3_len(axis));
    if (js->next_id == 0)
        js->next_id = 1;
    *j = (physics__joint){
        .id = js->next_id++,
        .type = d->type,
        .flags = d->flags,
        .ea = a == UINT32_MAX ? 0u : bs->entity[a].id,
        .eb = bs->entity[b].id,
        .a = a,
        .b = b,
        .la = quat_unrotate(qa, v3_sub(anchor, pa)),
        .lb = quat_unrotate(qb, v3_sub(anchor_b, pb)),
        .axis_a = quat_unrotate(qa, axis),
        .axis_b = quat_unrotate(qb, axis),
        .rest = quat_mul(quat_conj(qa), qb),
        .lower = d->lower,
        .upper = d->upper,
        .cone = d->cone_angle,
        .motor_speed = d->motor_speed,
        .motor_max = d->max_motor_force,
        .length = d->length > 0.0f ? d->length : v3_len(v3_sub(anchor_b, anchor)),
        .hertz = d->spring_hertz,
        .damping = d->spring_damping,
    };
    *id = j->id;
    return 0;
}

physics__joint *physics__joints_find(physics__scene *s, uint32_t id)
{
    physics__joints *js = &s->joints;
    uint32_t lo = 0, hi = js->n;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (js->j[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < js->n && js->j[lo].id == id ? &js->j[lo] : NULL;
}

/* Wakes the bodies of joint j (found by entity: instances may have moved since the last step). */
static void joints__wake(physics__scene *s, const physics__joint *j)
{
    const uint32_t a = j->ea ? physics__bodies_find(&s->bodies, (ct_entity_t){j->ea}) : UINT32_MAX;
    const uint32_t b = physics__bodies_find(&s->bodies, (ct_entity_t){j->eb});
    if (a != UINT32_MAX)
        physics__scene_wake(s, a);
    if (b != UINT32_MAX)
        physics__scene_wake(s, b);
}

/* Removes joint k, keeping the handle order. */
static void joints__erase(physics__joints *js, uint32_t k)
{
    memmove(&js->j[k], &js->j[k + 1], (size_t)(js->n - k - 1) * sizeof *js->j);
    js->n--;
    js->keys_made = false;
}

bool physics__joints_remove(physics__scene *s, uint32_t id)
{
    physics__joint *j = physics__joints_find(s, id);
    if (!j)
        return false;
    joints__wake(s, j);
    joints__erase(&s->joints, (uint32_t)(j - s->joints.j));
    s->quiet = false;
    return true;
}

void physics__joints_drop_entity(physics__scene *s, uint32_t e)
{
    physics__joints *js = &s->joints;
    uint32_t kept = 0;
    for (uint32_t k = 0; k < js->n; k++) {
        if (js->j[k].ea == e || js->j[k].eb == e)
            joints__wake(s, &js->j[k]);
        else
            js->j[kept++] = js->j[k];
    }
    if (kept != js->n)
        js->keys_made = false;
    js->n = kept;
}

int physics__joints_drop_entities(physics__scene *s, const ct_entity_t *entities, uint32_t n)
{
    physics__joints *js = &s->joints;
    if (!js->n || !n)
        return 0;
    /* One pass over the joints against a set of the dying, instead of one pass per entity: a
     * chain of 10,000 destroyed at once took 316 ms that way, and 100,000 would take 30 s. */
    physics__map dying = {.a = s->a};
    if (physics__map_reserve(&dying, n))
        return CT_ERR_NOMEM;
    for (uint32_t k = 0; k < n; k++)
        physics__map_upsert(&dying, entities[k].id, k);
    uint32_t kept = 0;
    for (uint32_t k = 0; k < js->n; k++) {
        const physics__joint *j = &js->j[k];
        if ((j->ea && physics__map_get(&dying, j->ea) != UINT32_MAX) ||
            physics__map_get(&dying, j->eb) != UINT32_MAX)
            joints__wake(s, j);
        else if (kept++ != k)
            js->j[kept - 1] = *j;
    }
    if (kept != js->n)
        s->quiet = false, js->keys_made = false;
    js->n = kept;
    physics__map_free(&dying);
    return 0;
}

void physics__joints_free(physics__scene *s)
{
    physics__joints *js = &s->joints;
    if (js->j)
        ct_free(s->a, js->j, (size_t)js->cap * sizeof *js->j);
    if (js->keys)
        ct_free(s->a, js->keys, (size_t)js->cap_keys * sizeof *js->keys);
    if (js->order)
        ct_free(s->a, js->order, (size_t)js->cap_order * sizeof *js->order);
    if (js->batch)
        ct_free(s->a, js->batch, (size_t)js->cap_batch * sizeof *js->batch);
    if (js->start)
        ct_free(s->a, js->start, (size_t)js->cap_start * sizeof *js->start);
    if (js->used)
        ct_free(s->a, js->used, (size_t)js->cap_used * sizeof *js->used);
    *js = (physics__joints){.next_id = js->next_id};
}

/* ---- geometry --------------------------------------------------------------------------------- */

/* A joint's geometry at the bodies' present poses. */
typedef struct joints__geo {
    physics__quat qa, qb;
    physics__v3 ra, rb; /* anchors from the centres, world axes */
    physics__v3 d;      /* B's anchor from A's */
    physics__v3 aa, ab; /* the axis as each body carries it */
} joints__geo;

static void joints__geometry(const physics__bodies *b, const physics__joint *j, joints__geo *g)
{
    physics__v3 pa, pb;
    joints__pose(b, j->a, &pa, &g->qa);
    joints__pose(b, j->b, &pb, &g->qb);
    g->ra = quat_rotate(g->qa, j->la);
    g->rb = quat_rotate(g->qb, j->lb);
    g->d = v3_sub(v3_add(pb, g->rb), v3_add(pa, g->ra));
    g->aa = quat_rotate(g->qa, j->axis_a);
    g->ab = quat_rotate(g->qb, j->axis_b);
}

/* B's rotation against A's since the joint was made, in A's frame. */
static physics__quat joints__relative(const physics__joint *j, const joints__geo *g)
{
    return quat_mul(quat_mul(quat_conj(g->qa), g->qb), quat_conj(j->rest));
}

float physics__joint_value(const physics__scene *s, const physics__joint *j)
{
    physics__joint copy = *j;
    copy.a = j->ea ? physics__bodies_find(&s->bodies, (ct_entity_t){j->ea}) : UINT32_MAX;
    copy.b = physics__bodies_find(&s->bodies, (ct_entity_t){j->eb});
    if (copy.b == UINT32_MAX)
        return 0.0f;
    joints__geo g;
    joints__geometry(&s->bodies, &copy, &g);
    switch (j->type) {
    case CT_JOINT_HINGE:
    case CT_JOINT_BALL: return joints__twist(joints__relative(j, &g), j->axis_a);
    case CT_JOINT_SLIDER: return v3_dot(g.d, g.aa);
    case CT_JOINT_DISTANCE: return v3_len(g.d);
    default: return 0.0f;
    }
}

/* ---- rows ----------------------------------------------------------------------------------- */

enum { ROW_EQUAL, ROW_LIMIT, ROW_MOTOR, ROW_SPRING };

/* One scalar row: Cdot = n . (vB - vA) + cb . wB - ca . wA, and its position error c. */
typedef struct joints__row {
    physics__v3 n, ca, cb;
    float c;
    uint32_t kind, slot; /* slot: its accumulated impulse, row_j[slot] */
} joints__row;

static joints__row joints__linear(physics__v3 n, physics__v3 ra, physics__v3 rb, float c,
                                  uint32_t kind, uint32_t slot)
{
    return (joints__row){n, v3_cross(ra, n), v3_cross(rb, n), c, kind, slot};
}

static joints__row joints__angular(physics__v3 d, float c, uint32_t kind, uint32_t slot)
{
    return (joints__row){v3(0, 0, 0), d, d, c, kind, slot};
}

/* The scalar rows of joint j in solving order; returns their number. */
static uint32_t joints__rows(const physics__joint *j, const joints__geo *g, joints__row *rows)
{
    uint32_t n = 0;
    const bool limit = j->flags & CT_JOINT_LIMIT, motor = j->flags & CT_JOINT_MOTOR;
    physics__v3 b1, b2;
    switch (j->type) {
    case CT_JOINT_HINGE: {
        const float angle = limit ? joints__twist(joints__relative(j, g), j->axis_a) : 0.0f;
        if (motor)
            rows[n++] = joints__angular(g->aa, 0.0f, ROW_MOTOR, 0);
        if (limit) {
            rows[n++] = joints__angular(g->aa, angle - j->lower, ROW_LIMIT, 1);
            rows[n++] = joints__angular(v3_scale(g->aa, -1.0f), j->upper - angle, ROW_LIMIT, 2);
        }
        joints__basis(g->aa, &b1, &b2);
        rows[n++] = joints__angular(v3_cross(g->ab, b1), v3_dot(g->ab, b1), ROW_EQUAL, 3);
        rows[n++] = joints__angular(v3_cross(g->ab, b2), v3_dot(g->ab, b2), ROW_EQUAL, 4);
        break;
    }
    case CT_JOINT_BALL:
        if (limit) {
            const float cosine = f_min(f_max(v3_dot(g->aa, g->ab), -1.0f), 1.0f);
            const physics__v3 tilt = v3_cross(g->aa, g->ab);
            const float len = v3_len(tilt);
            physics__v3 dir;
            if (len > 1e-6f)
                dir = v3_scale(tilt, -1.0f / len);
            else
                joints__basis(g->aa, &dir, &b2);
            rows[n++] = joints__angular(dir, j->cone - acosf(cosine), ROW_LIMIT, 0);
            const float twist = joints__twist(joints__relative(j, g), j->axis_a);
            rows[n++] = joints__angular(g->aa, twist - j->lower, ROW_LIMIT, 1);
            rows[n++] = joints__angular(v3_scale(g->aa, -1.0f), j->upper - twist, ROW_LIMIT, 2);
        }
        break;
    case CT_JOINT_SLIDER: {
        /* A's side of a linear row acts at B's anchor: the anchors need not meet. */
        const physics__v3 ra = v3_add(g->ra, g->d);
        const float along = v3_dot(g->d, g->aa);
        if (motor)
            rows[n++] = joints__linear(g->aa, ra, g->rb, 0.0f, ROW_MOTOR, 0);
        if (limit) {
            rows[n++] = joints__linear(g->aa, ra, g->rb, along - j->lower, ROW_LIMIT, 1);
            rows[n++] =
                joints__linear(v3_scale(g->aa, -1.0f), ra, g->rb, j->upper - along, ROW_LIMIT, 2);
        }
        joints__basis(g->aa, &b1, &b2);
        rows[n++] = joints__linear(b1, ra, g->rb, v3_dot(g->d, b1), ROW_EQUAL, 3);
        rows[n++] = joints__linear(b2, ra, g->rb, v3_dot(g->d, b2), ROW_EQUAL, 4);
        break;
    }
    case CT_JOINT_DISTANCE: {
        const float len = v3_len(g->d);
        const physics__v3 u = len > 1e-6f ? v3_scale(g->d, 1.0f / len) : v3(0, 1, 0);
        const bool spring = j->hertz > 0.0f;
        if (spring || !limit)
            rows[n++] = joints__linear(u, g->ra, g->rb, len - j->length,
                                       spring ? ROW_SPRING : ROW_EQUAL, 0);
        if (limit) {
            rows[n++] = joints__linear(u, g->ra, g->rb, len - j->lower, ROW_LIMIT, 1);
            rows[n++] =
                joints__linear(v3_scale(u, -1.0f), g->ra, g->rb, j->upper - len, ROW_LIMIT, 2);
        }
        break;
    }
    default: break;
    }
    return n;
}

static bool joints__has_point(const physics__joint *j)
{
    return j->type == CT_JOINT_FIXED || j->type == CT_JOINT_HINGE || j->type == CT_JOINT_BALL;
}

static bool joints__has_rotation(const physics__joint *j)
{
    return j->type == CT_JOINT_FIXED || j->type == CT_JOINT_SLIDER;
}

/* ---- the solver --------------------------------------------------------------------------------- */

/* The two bodies' solver states. One that no impulse moves (the world, a static, kinematic or
 * sleeping body: no inverse mass, no inverse inertia) is a copy: the joints of a batch may share
 * it (physics__joints_colour), and writing it back would change nothing but a -0. */
typedef struct joints__pair {
    physics__rigid_body *A, *B;
    const float *ia, *ib;
    physics__rigid_body still[2];
} joints__pair;

static const float joints__no_inertia[9];

/* Whether instance i (UINT32_MAX: the world) is moved by impulses. */
static inline bool joints__moves(const physics__rigid *r, uint32_t i)
{
    return i != UINT32_MAX && r->body[i].inv_mass != 0.0f;
}

static inline void joints__bodies(physics__scene *s, const physics__joint *j, joints__pair *p)
{
    physics__rigid *r = &s->rigid;
    const uint32_t ends[2] = {j->a, j->b};
    physics__rigid_body *at[2];
    for (int e = 0; e < 2; e++) {
        const uint32_t i = ends[e];
        if (joints__moves(r, i)) {
            at[e] = &r->body[i];
        } else {
            p->still[e] = i == UINT32_MAX ? (physics__rigid_body){0} : r->body[i];
            at[e] = &p->still[e];
        }
    }
    p->A = at[0];
    p->B = at[1];
    p->ia = j->a == UINT32_MAX ? joints__no_inertia : r->inv_i[j->a].m;
    p->ib = j->b == UINT32_MAX ? joints__no_inertia : r->inv_i[j->b].m;
}

static void joints__row_apply(const joints__pair *p, const joints__row *row, float lambda)
{
    p->A->v = v3_sub(p->A->v, v3_scale(row->n, lambda * p->A->inv_mass));
    p->A->w = v3_sub(p->A->w, v3_scale(joints__mat(p->ia, row->ca), lambda));
    p->B->v = v3_add(p->B->v, v3_scale(row->n, lambda * p->B->inv_mass));
    p->B->w = v3_add(p->B->w, v3_scale(joints__mat(p->ib, row->cb), lambda));
}

/* The linear impulse P at the anchors (B gets +P). */
static void joints__point_apply(const joints__pair *p, const joints__geo *g, physics__v3 P)
{
    p->A->v = v3_sub(p->A->v, v3_scale(P, p->A->inv_mass));
    p->A->w = v3_sub(p->A->w, joints__mat(p->ia, v3_cross(g->ra, P)));
    p->B->v = v3_add(p->B->v, v3_scale(P, p->B->inv_mass));
    p->B->w = v3_add(p->B->w, joints__mat(p->ib, v3_cross(g->rb, P)));
}

static void joints__rotation_apply(const joints__pair *p, physics__v3 L)
{
    p->A->w = v3_sub(p->A->w, joints__mat(p->ia, L));
    p->B->w = v3_add(p->B->w, joints__mat(p->ib, L));
}

static int joints__cmp_u64(const void *x, const void *y)
{
    const uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* The instance of entity e's body: where it was at the last step while it is still there
 * (instances move only when bodies are removed), else looked up. */
static uint32_t joints__instance(const physics__bodies *b, uint32_t e, uint32_t was)
{
    return was < b->n && b->entity[was].id == e ? was : physics__bodies_find(b, (ct_entity_t){e});
}

/* Whether body i of a joint is to wake because the joint's other body o moves: both sleep
 * together (see physics_islands.c). */
static inline bool joints__to_wake(const physics__bodies *b, uint32_t i, uint32_t o)
{
    return i != UINT32_MAX && o != UINT32_MAX && b->asleep[i] && !b->asleep[o] &&
           b->kind[o] != CT_BODY_STATIC;
}

typedef struct joints__begin_job {
    physics__scene *s;
    atomic_uint first_wake; /* the first joint whose bodies are to wake (js->n: none) */
} joints__begin_job;

/* Slices [begin, end) of JOINT_SLICE joints (on any threads): each joint's bodies, found again,
 * and the first whose bodies are to wake as the bodies are now. */
static void joints__begin_range(void *user, uint32_t begin, uint32_t end)
{
    joints__begin_job *job = user;
    const physics__bodies *b = &job->s->bodies;
    physics__joints *js = &job->s->joints;
    const uint32_t last = end * JOINT_SLICE < js->n ? end * JOINT_SLICE : js->n;
    for (uint32_t k = begin * JOINT_SLICE; k < last; k++) {
        physics__joint *j = &js->j[k];
        j->a = j->ea ? joints__instance(b, j->ea, j->a) : UINT32_MAX;
        j->b = joints__instance(b, j->eb, j->b);
        if (joints__to_wake(b, j->a, j->b) || joints__to_wake(b, j->b, j->a)) {
            uint32_t first = atomic_load_explicit(&job->first_wake, memory_order_relaxed);
            while (k < first && !atomic_compare_exchange_weak_explicit(
                                    &job->first_wake, &first, k, memory_order_relaxed,
                                    memory_order_relaxed))
                ;
            return;
        }
    }
}

int physics__joints_begin(physics__scene *s)
{
    physics__bodies *b = &s->bodies;
    physics__joints *js = &s->joints;
    /* The keys change only with the joints: sorted again after a change (a grid's 19,800 took
     * a twentieth of its step). */
    if (!js->keys_made) {
        if (physics__reserve(s->a, (void **)&js->keys, &js->cap_keys, js->n, sizeof *js->keys))
            return CT_ERR_NOMEM;
        js->num_keys = 0;
        for (uint32_t k = 0; k < js->n; k++) {
            const physics__joint *j = &js->j[k];
            if (!(j->flags & CT_JOINT_COLLIDE) && j->ea)
                js->keys[js->num_keys++] =
                    j->ea < j->eb ? (uint64_t)j->ea << 32 | j->eb : (uint64_t)j->eb << 32 | j->ea;
        }
        if (js->num_keys > 1)
            qsort(js->keys, js->num_keys, sizeof *js->keys, joints__cmp_u64);
        js->keys_made = true;
    }
    /* The bodies are found on any threads. A wake changes what the joints after it see, so the
     * wakes go one joint after the other, from the first joint that wakes anything: before it
     * none did, and the bodies are as they were. (A slice stops at its first: the joints after
     * it are found again here.) */
    joints__begin_job job = {.s = s};
    atomic_init(&job.first_wake, js->n);
    const uint32_t slices = (js->n + JOINT_SLICE - 1u) / JOINT_SLICE;
    physics__pool_run(s->pool, slices, joints__begin_range, &job);
    const uint32_t first = atomic_load_explicit(&job.first_wake, memory_order_relaxed);
    for (uint32_t k = first; k < js->n; k++) {
        physics__joint *j = &js->j[k];
        j->a = j->ea ? joints__instance(b, j->ea, j->a) : UINT32_MAX;
        j->b = joints__instance(b, j->eb, j->b);
        if (joints__to_wake(b, j->a, j->b))
            physics__scene_wake(s, j->a);
        if (joints__to_wake(b, j->b, j->a))
            physics__scene_wake(s, j->b);
    }
    return 0;
}

void physics__joints_filter_pairs(const physics__scene *s, physics__keyed_pair *order,
                                  uint32_t *count)
{
    const physics__joints *js = &s->joints;
    /* (Without joints the keys are stale: the translation-only step never makes them.) */
    if (!js->n || !js->num_keys)
        return;
    uint32_t kept = 0, at = 0;
    for (uint32_t k = 0; k < *count; k++) {
        while (at < js->num_keys && js->keys[at] < order[k].key)
            at++;
        if (at < js->num_keys && js->keys[at] == order[k].key)
            continue;
        order[kept++] = order[k];
    }
    *count = kept;
}

/* Joint j's impulses of the last substep (or step), applied again. */
static void joints__warm_start(physics__scene *s, const physics__joint *j)
{
    joints__row rows[PHYSICS_JOINT_ROWS];
    joints__pair p;
    joints__bodies(s, j, &p);
    joints__geo g;
    joints__geometry(&s->bodies, j, &g);
    const uint32_t n = joints__rows(j, &g, rows);
    for (uint32_t q = 0; q < n; q++)
        joints__row_apply(&p, &rows[q], j->row_j[rows[q].slot]);
    if (joints__has_point(j))
        joints__point_apply(&p, &g, j->lin_j);
    if (joints__has_rotation(j))
        joints__rotation_apply(&p, j->ang_j);
}

/* The rotation vector (world axes) that would turn B back to its rest rotation against A. */
static physics__v3 joints__rotation_error(const physics__joint *j, const joints__geo *g)
{
    physics__quat e = quat_mul(g->qb, quat_conj(quat_mul(g->qa, j->rest)));
    if (e.w < 0.0f)
        e = (physics__quat){-e.x, -e.y, -e.z, -e.w};
    return v3(2.0f * e.x, 2.0f * e.y, 2.0f * e.z);
}

/* The softness of the joints' equalities for substeps of h (physics__soft's three factors). */
typedef struct joints__soft {
    float rate, mass_scale, impulse_scale;
} joints__soft;

/* A pass of joint j (soft with use_bias, rigid without). */
static void joints__solve(physics__scene *s, physics__joint *j, float h, bool use_bias,
                          joints__soft soft)
{
    const float inv_h = 1.0f / h;
    const float rate = soft.rate, mass_scale = soft.mass_scale, impulse_scale = soft.impulse_scale;
    joints__row rows[PHYSICS_JOINT_ROWS];
    joints__pair p;
    joints__bodies(s, j, &p);
    physics__rigid_body *A = p.A, *B = p.B;
    joints__geo g;
    joints__geometry(&s->bodies, j, &g);
    const uint32_t n = joints__rows(j, &g, rows);
    for (uint32_t q = 0; q < n; q++) {
        const joints__row *row = &rows[q];
        const physics__v3 ia = joints__mat(p.ia, row->ca), ib = joints__mat(p.ib, row->cb);
        const float nn = v3_dot(row->n, row->n);
        const float kk =
            (A->inv_mass + B->inv_mass) * nn + v3_dot(row->ca, ia) + v3_dot(row->cb, ib);
        if (!(kk > 0.0f))
            continue;
        const float m = 1.0f / kk;
        const float cdot =
            v3_dot(row->n, v3_sub(B->v, A->v)) + v3_dot(row->cb, B->w) - v3_dot(row->ca, A->w);
        float *acc = &j->row_j[row->slot];
        float lambda;
        if (row->kind == ROW_MOTOR) {
            const float most = j->motor_max * h;
            const float next = f_min(f_max(*acc - m * (cdot - j->motor_speed), -most), most);
            lambda = next - *acc;
            *acc = next;
        } else if (row->kind == ROW_SPRING) {
            float sr, sm, si;
            physics__soft(j->hertz, j->damping, h, &sr, &sm, &si);
            lambda = -sm * m * (cdot + sr * row->c) - si * *acc;
            *acc += lambda;
        } else if (row->kind == ROW_LIMIT) {
            float bias = 0.0f, ms = 1.0f, is = 0.0f;
            if (row->c > 0.0f)
                bias = row->c * inv_h; /* not there yet: close the gap, no more */
            else if (use_bias)
                bias = rate * row->c, ms = mass_scale, is = impulse_scale;
            const float next = f_max(*acc - ms * m * (cdot + bias) - is * *acc, 0.0f);
            lambda = next - *acc;
            *acc = next;
        } else {
            const float bias = use_bias ? rate * row->c : 0.0f;
            const float ms = use_bias ? mass_scale : 1.0f, is = use_bias ? impulse_scale : 0.0f;
            lambda = -ms * m * (cdot + bias) - is * *acc;
            *acc += lambda;
        }
        joints__row_apply(&p, row, lambda);
    }
    const float ms = use_bias ? mass_scale : 1.0f, is = use_bias ? impulse_scale : 0.0f;
    if (joints__has_rotation(j)) {
        float K[9], Kinv[9];
        for (int e = 0; e < 9; e++)
            K[e] = p.ia[e] + p.ib[e];
        joints__invert(K, Kinv);
        const physics__v3 c =
            use_bias ? v3_scale(joints__rotation_error(j, &g), rate) : v3(0, 0, 0);
        const physics__v3 cdot = v3_add(v3_sub(B->w, A->w), c);
        const physics__v3 L =
            v3_sub(v3_scale(joints__mat(Kinv, cdot), -ms), v3_scale(j->ang_j, is));
        j->ang_j = v3_add(j->ang_j, L);
        joints__rotation_apply(&p, L);
    }
    if (joints__has_point(j)) {
        /* K e = (mA + mB) e + (IA (rA x e)) x rA + (IB (rB x e)) x rB, column by column. */
        float K[9], Kinv[9];
        const physics__v3 axes[3] = {v3(1, 0, 0), v3(0, 1, 0), v3(0, 0, 1)};
        for (int col = 0; col < 3; col++) {
            const physics__v3 e = axes[col];
            const physics__v3 kc =
                v3_add(v3_scale(e, A->inv_mass + B->inv_mass),
                       v3_add(v3_cross(joints__mat(p.ia, v3_cross(g.ra, e)), g.ra),
                              v3_cross(joints__mat(p.ib, v3_cross(g.rb, e)), g.rb)));
            K[col] = kc.x, K[3 + col] = kc.y, K[6 + col] = kc.z;
        }
        joints__invert(K, Kinv);
        const physics__v3 vel =
            v3_sub(v3_add(B->v, v3_cross(B->w, g.rb)), v3_add(A->v, v3_cross(A->w, g.ra)));
        const physics__v3 cdot = v3_add(vel, use_bias ? v3_scale(g.d, rate) : v3(0, 0, 0));
        const physics__v3 P =
            v3_sub(v3_scale(joints__mat(Kinv, cdot), -ms), v3_scale(j->lin_j, is));
        j->lin_j = v3_add(j->lin_j, P);
        joints__point_apply(&p, &g, P);
    }
}

/* Joint j's force and torque on B over the last substep of h. */
static void joints__end(physics__scene *s, physics__joint *j, float h)
{
    const float inv_h = 1.0f / h;
    joints__row rows[PHYSICS_JOINT_ROWS];
    joints__geo g;
    joints__geometry(&s->bodies, j, &g);
    const uint32_t n = joints__rows(j, &g, rows);
    physics__v3 f = joints__has_point(j) ? j->lin_j : v3(0, 0, 0);
    physics__v3 t = joints__has_rotation(j) ? j->ang_j : v3(0, 0, 0);
    for (uint32_t q = 0; q < n; q++) {
        const float lambda = j->row_j[rows[q].slot];
        if (rows[q].n.x != 0.0f || rows[q].n.y != 0.0f || rows[q].n.z != 0.0f)
            f = v3_add(f, v3_scale(rows[q].n, lambda));
        else
            t = v3_add(t, v3_scale(rows[q].cb, lambda));
    }
    j->force = v3_scale(f, inv_h);
    j->torque = v3_scale(t, inv_h);
}

/* ---- batches ------------------------------------------------------------------------------------ */

int physics__joints_colour_reserve(physics__scene *s)
{
    physics__joints *js = &s->joints;
    const uint32_t n = js->n;
    if (!n)
        return 0;
    if (physics__reserve(s->a, (void **)&js->order, &js->cap_order, n, sizeof *js->order) ||
        physics__reserve(s->a, (void **)&js->batch, &js->cap_batch, n, sizeof *js->batch) ||
        physics__reserve(s->a, (void **)&js->start, &js->cap_start, n + 1, sizeof *js->start) ||
        physics__reserve(s->a, (void **)&js->used, &js->cap_used, s->bodies.n, sizeof *js->used))
        return CT_ERR_NOMEM;
    return 0;
}

/* Whether instance i (UINT32_MAX: the world) is moved by impulses, read from the bodies: what
 * joints__moves reads once the solver's states are gathered (physics__inv_mass), so the batches
 * can be made while they are. */
static inline bool joints__body_moves(const physics__bodies *b, uint32_t i)
{
    return i != UINT32_MAX && physics__inv_mass(b, i) != 0.0f;
}

void physics__joints_colour(physics__scene *s)
{
    physics__joints *js = &s->joints;
    const physics__bodies *b = &s->bodies;
    const uint32_t n = js->n;
    js->num_batches = 0;
    js->overflow = false;
    if (!n)
        return;
    if (s->bodies.n)
        memset(js->used, 0, (size_t)s->bodies.n * sizeof *js->used);
    /* A joint's batch depends on the joints before it and on which bodies move, never on the
     * threads. Fewer than JOINT_COLOUR_MIN joints go in waves: each joint one after the latest
     * wave of its moving bodies (js->used holding that number), so each body meets its joints in
     * handle order and the results are those of solving them one after the other, which
     * converges in fewer passes along a chain (its handles usually go up it) and leaves a scene
     * of many small ragdolls as many waves as one has joints, each as wide as there are ragdolls.
     * More are coloured as Box3D colours its constraint graph: each joint takes the lowest colour
     * neither of its moving bodies has yet, a grid's in a few colours (waves would be a long
     * diagonal front: 300 batches a pass for joint_grid). One that finds none joins the last
     * colour, the overflow, solved by one thread in handle order. A body that does not move is
     * nobody's: each joint reads it from a copy (joints__bodies). */
    const bool waves = n < JOINT_COLOUR_MIN;
    uint32_t batches = 0;
    for (uint32_t k = 0; k < n; k++) {
        const physics__joint *j = &js->j[k];
        js->batch[k] = UINT32_MAX;
        if (j->b == UINT32_MAX)
            continue; /* (its body is gone: not solved) */
        const bool ma = joints__body_moves(b, j->a), mb = joints__body_moves(b, j->b);
        const uint64_t ua = ma ? js->used[j->a] : 0u, ub = mb ? js->used[j->b] : 0u;
        uint32_t t;
        if (waves) {
            t = (uint32_t)(ua > ub ? ua : ub);
            if (ma)
                js->used[j->a] = t + 1u;
            if (mb)
                js->used[j->b] = t + 1u;
        } else {
            t = (uint32_t)__builtin_ctzll(~(ua | ub));
            if (t < JOINT_COLOURS) {
                if (ma)
                    js->used[j->a] |= 1ull << t;
                if (mb)
                    js->used[j->b] |= 1ull << t;
            }
        }
        js->batch[k] = t;
        batches = t + 1u > batches ? t + 1u : batches;
    }
    /* A counting sort by batch, stable: a batch keeps handle order. Every batch below the last
     * one used holds a joint (one took batch t because its bodies were in every batch below). */
    memset(js->start, 0, (size_t)(batches + 1u) * sizeof *js->start);
    for (uint32_t k = 0; k < n; k++)
        if (js->batch[k] != UINT32_MAX)
            js->start[js->batch[k] + 1u]++;
    for (uint32_t t = 0; t < batches; t++)
        js->start[t + 1u] += js->start[t];
    for (uint32_t k = 0; k < n; k++)
        if (js->batch[k] != UINT32_MAX)
            js->order[js->start[js->batch[k]]++] = k;
    /* (Each start moved to the next batch's: back one.) */
    for (uint32_t t = batches; t > 0; t--)
        js->start[t] = js->start[t - 1u];
    js->start[0] = 0;
    js->num_batches = batches;
    js->overflow = !waves && batches == JOINT_COLOURS + 1u;
}

/* A stage of joints: batch `batch`'s warm start or pass, or (PHYSICS_JOINTS_END) the forces of
 * every joint. */
typedef struct joints__job {
    physics__scene *s;
    float h;
    int mode;
    uint32_t batch;
} joints__job;

/* Slices [begin, end) of JOINT_SLICE joints of the job's batch (of all joints for the forces). */
static void joints__range(void *user, uint32_t begin, uint32_t end)
{
    const joints__job *job = user;
    physics__scene *s = job->s;
    physics__joints *js = &s->joints;
    const float h = job->h;
    if (job->mode == PHYSICS_JOINTS_END) {
        const uint32_t last = end * JOINT_SLICE < js->n ? end * JOINT_SLICE : js->n;
        for (uint32_t k = begin * JOINT_SLICE; k < last; k++)
            if (js->j[k].b != UINT32_MAX)
                joints__end(s, &js->j[k], h);
        return;
    }
    const uint32_t first = js->start[job->batch] + begin * JOINT_SLICE;
    const uint32_t last = js->start[job->batch] + end * JOINT_SLICE < js->start[job->batch + 1u]
                              ? js->start[job->batch] + end * JOINT_SLICE
                              : js->start[job->batch + 1u];
    if (job->mode == PHYSICS_WIDE_WARM) {
        for (uint32_t q = first; q < last; q++)
            joints__warm_start(s, &js->j[js->order[q]]);
        return;
    }
    joints__soft soft;
    physics__soft(f_min(JOINT_HERTZ, 0.25f / h), JOINT_DAMPING, h, &soft.rate, &soft.mass_scale,
                  &soft.impulse_scale);
    for (uint32_t q = first; q < last; q++)
        joints__solve(s, &js->j[js->order[q]], h, job->mode == PHYSICS_WIDE_PUSH, soft);
}

void physics__joints_stages(physics__scene *s, float h, int mode)
{
    const physics__joints *js = &s->joints;
    physics__stages *st = &s->rigid.stages;
    if (mode == PHYSICS_JOINTS_END) {
        const joints__job job = {s, h, mode, 0};
        physics__stages_add(st, s->a, joints__range, (void *)&job, sizeof job,
                            (js->n + JOINT_SLICE - 1u) / JOINT_SLICE, 1);
        return;
    }
    for (uint32_t t = 0; t < js->num_batches; t++) {
        const joints__job job = {s, h, mode, t};
        const uint32_t size = js->start[t + 1u] - js->start[t];
        /* The overflow's joints may share bodies: one item, one thread. */
        const bool serial = js->overflow && t + 1u == js->num_batches;
        physics__stages_add(st, s->a, joints__range, (void *)&job, sizeof job,
                            (size + JOINT_SLICE - 1u) / JOINT_SLICE, serial ? 0u : 1u);
    }
}
