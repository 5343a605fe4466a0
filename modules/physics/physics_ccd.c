/* physics_ccd.c: continuous collision, so that a fast body never passes through what does not move.
 *
 * Speculative contacts (physics_rigid.c, physics_contacts.c) stop most fast bodies: a contact is
 * kept when the gap is under what the pair can close in the step. They are found from the poses at
 * the start of the step, though, and a body that turns, or meets a face that was not the nearest
 * feature then (a bullet passing a wall's edge at an angle), can still cross a thin wall. So after
 * each step, as Box2D v3 does, a body whose velocities carry it more than half of its own thinnest
 * half size in the step ("fast") is swept from where it started to where it ended against the
 * static and sleeping bodies its path meets (the fixed grid), by conservative advancement:
 *
 *   t = 0; repeat: the separation d of the body at pose(t) and the other shape, along the axis n
 *   that the manifold reports (a gap along any axis is never more than the true distance); the
 *   gap along n closes at most at rate  max(0, move . n) + turn * reach  per unit of t, so
 *   t += (d - target) / rate keeps the shapes apart; stop when d is within the target (a hit) or
 *   t reaches 1 or the rate is 0 (a miss).
 *
 * pose(t) moves the centre along the straight line and turns the body at a constant rate about one
 * axis (from the start to the end rotation). A hit moves the body back to the earliest hit's pose
 * and keeps its velocities, so the next step's speculative contact stops it there (and bounces it
 * by its restitution). A hit does not count when the body ends the step touching what it hit, no
 * deeper than a quarter of its thinnest half size (a box landing on the ground at speed: the solver
 * already stopped it there). A body that starts the step touching something (a fast box sliding
 * on a floor, a spinning capsule lying against a wall) is swept against it to a lower target: a
 * hit is a pose that much deeper than where it started, so it slides on but cannot go through.
 *
 * Awake dynamic bodies are not swept against each other (a bullet against a thin falling plank can
 * still pass). The pass runs on the calling thread in body order, so the result depends on the
 * bodies only. */
#include "physics_internal.h"
#include "physics_hull.h"

#include <stdlib.h>
#include <string.h>

/* A hit stops the body this far (m) before the other shape: the next step's contact closes it. */
#define CCD_TARGET 0.005f
/* A fast body moves more than this fraction of its thinnest half size in a step (Box2D's). */
#define CCD_FAST_FRACTION 0.5f
/* A body that starts the step touching something may go this fraction of its thinnest half size
 * deeper into it before that counts as a hit. */
#define CCD_DEEPER_FRACTION 0.25f
/* Conservative advancement converges in a few iterations head-on and in a few dozen at grazing
 * angles; past this many the body is taken to miss (it was kept apart up to there). */
#define CCD_MAX_ITERATIONS 40u

void physics__ccd_free(physics__scene *s)
{
    physics__ccd *c = &s->ccd;
    if (c->start)
        ct_free(s->a, c->start, (size_t)c->cap_start * sizeof *c->start);
    if (c->start_rotation)
        ct_free(s->a, c->start_rotation,
                (size_t)c->cap_start_rotation * sizeof *c->start_rotation);
    memset(c, 0, sizeof *c);
}

int physics__ccd_begin(physics__scene *s)
{
    physics__ccd *c = &s->ccd;
    const physics__bodies *b = &s->bodies;
    c->hits = 0;
    if (c->off || b->n == 0)
        return 0;
    if (physics__reserve(s->a, (void **)&c->start, &c->cap_start, b->n, sizeof *c->start) ||
        physics__reserve(s->a, (void **)&c->start_rotation, &c->cap_start_rotation, b->n,
                         sizeof *c->start_rotation))
        return CT_ERR_NOMEM;
    memcpy(c->start, b->position, (size_t)b->n * sizeof *c->start);
    memcpy(c->start_rotation, b->rotation, (size_t)b->n * sizeof *c->start_rotation);
    return 0;
}

/* The rotation from q0 that turns by t times the rotation from q0 to q1 (about one axis, the
 * shorter way), and that rotation's angle. */
typedef struct ccd__turn {
    physics__quat q0;
    physics__v3 axis; /* body axes */
    float angle;      /* rad, in [0, pi] */
} ccd__turn;

static inline physics__quat ccd__mul(physics__quat a, physics__quat b)
{
    return (physics__quat){a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                           a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                           a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
                           a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}

static ccd__turn ccd__turn_of(physics__quat q0, physics__quat q1)
{
    ccd__turn t = {q0, v3(1, 0, 0), 0.0f};
    physics__quat r = ccd__mul((physics__quat){-q0.x, -q0.y, -q0.z, q0.w}, q1);
    if (r.w < 0.0f)
        r = (physics__quat){-r.x, -r.y, -r.z, -r.w};
    const float s = sqrtf(r.x * r.x + r.y * r.y + r.z * r.z);
    if (s > 1e-7f) {
        t.axis = v3(r.x / s, r.y / s, r.z / s);
        t.angle = 2.0f * atan2f(s, r.w);
    }
    return t;
}

static physics__quat ccd__turn_at(const ccd__turn *t, float f)
{
    if (t->angle == 0.0f)
        return t->q0;
    const float half = 0.5f * t->angle * f, s = sinf(half);
    return quat_normalize(ccd__mul(
        t->q0, (physics__quat){t->axis.x * s, t->axis.y * s, t->axis.z * s, cosf(half)}));
}

/* The thinnest half size of body i, and the farthest its surface reaches from its centre. */
static float ccd__thinnest(const physics__bodies *b, uint32_t i)
{
    if (b->shape[i] == CT_BODY_SPHERE || b->shape[i] == CT_BODY_CAPSULE)
        return b->radius[i];
    return f_min(b->half[i].x, f_min(b->half[i].y, b->half[i].z));
}

static float ccd__reach(const physics__bodies *b, uint32_t i)
{
    if (b->shape[i] == CT_BODY_HULL && b->hull[i]) {
        const physics__hull *h = b->hull[i];
        float most = 0.0f;
        for (uint32_t k = 0; k < h->num_vertices; k++)
            most = f_max(most, v3_dot(h->vertex[k], h->vertex[k]));
        return sqrtf(most);
    }
    return b->shape[i] == CT_BODY_SPHERE    ? b->radius[i]
           : b->shape[i] == CT_BODY_CAPSULE ? b->half[i].y
                                            : v3_len(b->half[i]);
}

typedef struct ccd__sweep {
    physics__scene *s;
    uint32_t i; /* the fast body */
    physics__v3 p0, move;
    ccd__turn turn;
    float reach;
    float best; /* the earliest hit so far (1: none) */
} ccd__sweep;

/* Body i posed at fraction f of its sweep (its world box too, which the manifold reads). */
static void ccd__pose(ccd__sweep *w, float f)
{
    physics__bodies *b = &w->s->bodies;
    b->position[w->i] = v3_add(w->p0, v3_scale(w->move, f));
    b->rotation[w->i] = ccd__turn_at(&w->turn, f);
    physics__bodies_extent(b, w->i);
}

/* The separation of body i (as posed) and body j, and the axis it is measured along (from i to
 * j): the least of the manifold's points (INFINITY when none is within margin). */
static float ccd__separation(physics__bodies *b, uint32_t i, uint32_t j, float margin,
                             physics__v3 *normal)
{
    physics__manifold_out m;
    physics__manifold(b, i, j, margin, false, &m);
    *normal = m.normal;
    float least = INFINITY;
    for (uint32_t q = 0; q < m.count; q++)
        least = f_min(least, m.p[q].sep);
    return least;
}

/* The first fraction in (0, best) at which body i comes within `target` of body j, or best. */
static float ccd__advance(ccd__sweep *w, uint32_t j, float target, float margin)
{
    physics__bodies *b = &w->s->bodies;
    const float turn_speed = w->turn.angle * w->reach;
    float f = 0.0f;
    for (uint32_t k = 0; k < CCD_MAX_ITERATIONS && f < w->best; k++) {
        ccd__pose(w, f);
        physics__v3 n;
        const float d = ccd__separation(b, w->i, j, margin, &n);
        if (d <= target)
            return f > 0.0f ? f : w->best;
        if (d == INFINITY)
            return w->best; /* out of reach for the whole sweep */
        const float rate = f_max(v3_dot(w->move, n), 0.0f) + turn_speed;
        if (rate <= 1e-9f)
            return w->best;
        f += (d - target + 0.5f * CCD_TARGET) / rate;
    }
    return w->best;
}

static int ccd__cmp_u64(const void *x, const void *y)
{
    const uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

/* Whether a joint between bodies i and j turns their contacts off (physics__joints_begin made the
 * sorted keys of this step). */
static bool ccd__joined(const physics__scene *s, uint32_t i, uint32_t j)
{
    if (!s->joints.n || !s->joints.num_keys)
        return false;
    const uint32_t ei = s->bodies.entity[i].id, ej = s->bodies.entity[j].id;
    const uint64_t key = ei < ej ? (uint64_t)ei << 32 | ej : (uint64_t)ej << 32 | ei;
    return bsearch(&key, s->joints.keys, s->joints.num_keys, sizeof key, ccd__cmp_u64) != NULL;
}

static int ccd__visit(void *user, uint32_t box)
{
    ccd__sweep *w = user;
    physics__scene *s = w->s;
    physics__bodies *b = &s->bodies;
    const uint32_t j = s->fixed_body[box], i = w->i;
    if (j == i || !(b->layer[i] & b->mask[j]) || !(b->layer[j] & b->mask[i]))
        return 0;
    if (ccd__joined(s, i, j))
        return 0;
    /* No pose of the sweep comes closer to j than the start by more than the move and the turn
     * can close, so what is farther apart needs no points: a wider margin only makes the manifold
     * find more (a mesh's every triangle within it, each by its full polytope test: with 1 m
     * more, Jolt's character scene spent over half its time here). */
    const float margin = v3_len(w->move) + w->turn.angle * w->reach + 2.0f * CCD_TARGET;
    physics__v3 n;
    ccd__pose(w, 0.0f);
    const float start = ccd__separation(b, i, j, margin, &n);
    const float allowed = CCD_DEEPER_FRACTION * ccd__thinnest(b, i);
    if (start > CCD_TARGET) {
        /* Apart at the start: a hit on the way counts unless the body ends the step touching the
         * other shape (the solver stopped it there: a box landing on the ground at speed). */
        const float f = ccd__advance(w, j, CCD_TARGET, margin);
        if (f < w->best) {
            ccd__pose(w, 1.0f);
            const float end = ccd__separation(b, i, j, margin, &n);
            if (end > CCD_TARGET || end < -allowed)
                w->best = f;
        }
    } else {
        /* Touching at the start (sliding on a floor, lying against a wall): only a pose that
         * goes deeper into it than a quarter of the body's thinnest half size counts. */
        w->best = ccd__advance(w, j, f_min(start, 0.0f) - allowed, margin);
    }
    return 0;
}

int physics__ccd_end(physics__scene *s, float dt)
{
    physics__ccd *c = &s->ccd;
    physics__bodies *b = &s->bodies;
    if (c->off || b->n == 0)
        return 0;
    bool grid = false;
    for (uint32_t i = 0; i < b->n; i++) {
        if (b->kind[i] != CT_BODY_DYNAMIC || b->asleep[i])
            continue;
        ccd__sweep w = {.s = s, .i = i, .p0 = c->start[i]};
        w.move = v3_sub(b->position[i], w.p0);
        w.turn = ccd__turn_of(c->start_rotation[i], b->rotation[i]);
        w.reach = ccd__reach(b, i);
        /* Fast by its velocities, as Box2D's test: a body that the position passes pushed out of
         * an overlap moved without the speed to tunnel. */
        const float travel = (v3_len(b->velocity[i]) + v3_len(b->angular[i]) * w.reach) * dt;
        if (!(travel > CCD_FAST_FRACTION * ccd__thinnest(b, i)))
            continue;
        if (!grid) {
            if (physics__scene_fill_fixed(s))
                return CT_ERR_NOMEM;
            grid = true;
        }
        const physics__v3 end = b->position[i];
        const physics__quat end_rotation = b->rotation[i];
        const physics__v3 end_extent = b->extent[i];
        /* The boxes the swept body covers: its box at both ends, and whatever lies between. */
        const physics__v3 lo = v3_min(v3_sub(w.p0, v3(w.reach, w.reach, w.reach)),
                                      v3_sub(end, v3(w.reach, w.reach, w.reach)));
        const physics__v3 hi = v3_max(v3_add(w.p0, v3(w.reach, w.reach, w.reach)),
                                      v3_add(end, v3(w.reach, w.reach, w.reach)));
        w.best = 1.0f;
        physics__broadphase_visit(&s->fixed, lo, hi, ccd__visit, &w);
        if (w.best < 1.0f) {
            ccd__pose(&w, w.best);
            c->hits++;
            s->bp_stale = true;
            s->quiet = false;
        } else {
            b->position[i] = end;
            b->rotation[i] = end_rotation;
            b->extent[i] = end_extent;
        }
    }
    return 0;
}
