/* physics_rigid.c: one step of a world whose bodies rotate (v4), Box2D v3's "soft step" in 3D.
 *
 *   1. the bodies' world boxes from their rotations; candidate pairs from the grids and their
 *      order (physics_contacts.c), exactly as the translation-only step finds them;
 *   2. a manifold per pair (physics_manifold.c, on any threads), kept when it has a point within
 *      the speculative margin (2 cm plus what the pair can close in the step); each point finds
 *      its impulses of the last step by feature id (warm starting);
 *   3. RIGID_SUBSTEPS substeps of dt / RIGID_SUBSTEPS, each: gravity, forces and torques into
 *      velocities (then damping, and the implicit gyroscopic term), the warm start, one pass of
 *      soft contacts (a spring of RIGID_CONTACT_HERTZ, damping ratio RIGID_CONTACT_DAMPING,
 *      pushing out at most RIGID_PUSH_SPEED) with friction in a cone (anchored where the manifold
 *      was found, see RIGID_ANCHOR_SLIP), positions and rotations, then one relaxing pass
 *      without the push (so penetration is removed without adding velocity that lasts);
 *      (joints, physics_joints.c, are warm started before the contacts and solved after them in
 *      each pass);
 *   4. restitution, for points that came in faster than RIGID_BOUNCE_SPEED;
 *   5. the contacts as islands see them, sleep, the cache and the events.
 * The contacts are solved one after the other in entity-pair order on one thread, so every bit of
 * the result depends on the bodies only, never on the pool. Anchors are fixed at detection; the
 * separation of a point follows the bodies' motion through the substeps to first order (the moved
 * distance plus the turned angle crossed with the anchor), as Box2D's does. */
#include "physics_internal.h"
#include "physics_lanes.h"

#include <string.h>

#define RIGID_SUBSTEPS 4u
#ifndef RIGID_FRICTION_WHILE_PUSHING
#define RIGID_FRICTION_WHILE_PUSHING 1
#endif
#define RIGID_CONTACT_HERTZ 30.0f
#define RIGID_CONTACT_DAMPING 10.0f
#define RIGID_PUSH_SPEED 3.0f   /* m/s: the most a soft contact pushes overlapping bodies apart */
#define RIGID_BOUNCE_SPEED 1.0f /* m/s: slower contacts do not bounce */
#define RIGID_TOUCH 0.002f      /* m: closer shapes touch (events) */
/* Passes over the normal rows of an impact (a contact of several points, one of them coming in
 * faster than RIGID_BOUNCE_SPEED) in each solver pass and in the restitution pass. One sequential
 * pass over a face's four points is far from their joint answer when the speed to take away is
 * large: the first points push the whole body, the turn they give makes the others push more,
 * and a 250 m/s box stopped in one pass left its wall at 18.7 m/s (restitution 0), or at 279 m/s
 * (restitution 1). The impulses of a substep stay applied, and the next substep can only push
 * (an impulse is never negative), so such an overshoot is never taken back. Six passes bring the
 * four points to within 0.1% of their answer; resting contacts keep one pass. */
#define RIGID_IMPACT_PASSES 6u

void physics__rigid_free(physics__scene *s)
{
    physics__rigid *r = &s->rigid;
    struct {
        void **p;
        uint32_t *cap;
        size_t size;
    } const arrays[] = {
        {(void **)&r->narrow, &r->cap_narrow, sizeof *r->narrow},
        {(void **)&r->geo, &r->cap_geo, sizeof *r->geo},
        {(void **)&r->geo_at, &r->cap_geo_at, sizeof *r->geo_at},
        {(void **)&r->slid, &r->cap_slid, sizeof *r->slid},
        {(void **)&r->more, &r->cap_more, sizeof *r->more},
        {(void **)&r->made, &r->cap_made, sizeof *r->made},
        {(void **)&r->kept, &r->cap_kept, sizeof *r->kept},
        {(void **)&r->contact, &r->cap_contacts, sizeof *r->contact},
        {(void **)&r->cache, &r->cap_cache, sizeof *r->cache},
        {(void **)&r->next_cache, &r->cap_next_cache, sizeof *r->next_cache},
        {(void **)&r->body, &r->cap_body, sizeof *r->body},
        {(void **)&r->inv_i, &r->cap_inv_i, sizeof *r->inv_i},
        {(void **)&r->drive, &r->cap_drive, sizeof *r->drive},
        {(void **)&r->body_cut, &r->cap_body_cut, sizeof *r->body_cut},
    };
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++) {
        if (*arrays[k].p)
            ct_free(s->a, *arrays[k].p, (size_t)*arrays[k].cap * arrays[k].size);
        *arrays[k].p = NULL;
        *arrays[k].cap = 0;
    }
    r->num_contacts = r->num_cache = 0;
    physics__rigid_wide_free(s);
}

static inline physics__v3 rigid__mul(const float m[9], physics__v3 v)
{
    return v3(m[0] * v.x + m[1] * v.y + m[2] * v.z, m[3] * v.x + m[4] * v.y + m[5] * v.z,
              m[6] * v.x + m[7] * v.y + m[8] * v.z);
}

/* The row of direction d at anchors ra, rb: crosses, spins and effective mass. Inlined: a
 * contact makes one a point and two for its friction from the same bodies' inverse inertias
 * (called, the rows were 4.7% of convex_vs_mesh's instructions; inlined, the step takes 1%
 * fewer). */
static inline __attribute__((always_inline)) void
rigid__row(physics__rigid_row *row, const physics__rigid_body *a, const float ia[9],
           const physics__rigid_body *b, const float ib[9], physics__v3 ra, physics__v3 rb,
           physics__v3 d)
{
    row->ca = v3_cross(ra, d);
    row->cb = v3_cross(rb, d);
    row->ia = rigid__mul(ia, row->ca);
    row->ib = rigid__mul(ib, row->cb);
    const float k = a->inv_mass + b->inv_mass + v3_dot(row->ca, row->ia) + v3_dot(row->cb, row->ib);
    row->mass = k > 0.0f ? 1.0f / k : 0.0f;
}

/* The relative velocity of b against a along a row's direction d. */
static inline float rigid__speed(const physics__rigid_body *a, const physics__rigid_body *b,
                                 const physics__rigid_row *row, physics__v3 d)
{
    return v3_dot(v3_sub(b->v, a->v), d) + v3_dot(b->w, row->cb) - v3_dot(a->w, row->ca);
}

/* An impulse j along a row's direction d. */
static inline void rigid__push(physics__rigid_body *a, physics__rigid_body *b,
                               const physics__rigid_row *row, physics__v3 d, float j)
{
    a->v = v3_sub(a->v, v3_scale(d, j * a->inv_mass));
    a->w = v3_sub(a->w, v3_scale(row->ia, j));
    b->v = v3_add(b->v, v3_scale(d, j * b->inv_mass));
    b->w = v3_add(b->w, v3_scale(row->ib, j));
}

/* The cache entry of key, walking forward from *at (both sorted by key). */
static const physics__rigid_cached *rigid__cached(const physics__rigid *r, uint64_t key,
                                                  uint32_t *at)
{
    while (*at < r->num_cache && r->cache[*at].key < key)
        (*at)++;
    return *at < r->num_cache && r->cache[*at].key == key ? &r->cache[*at] : NULL;
}

/* ---- detection ------------------------------------------------------------------------------ */

typedef struct rigid__narrow_job {
    physics__scene *s;
    const physics__keyed_pair *order;
    uint32_t count;
    float dt;
} rigid__narrow_job;

/* Contact recycling, as Box3D does it: a manifold found at some pose of two bodies is used again
 * while they have moved, relative to each other, less than RIGID_RECYCLE_DISTANCE (the turn
 * counted at the bodies' far corners) and turned less than about 10 degrees each. Its points stay
 * where they were on the bodies, with their feature ids, and only their separations follow the
 * motion. Besides skipping most shape tests in a pile, this keeps a resting stack's points from
 * wandering with each step's rounding (the manifold found anew each step moved the points and
 * normals a little every step, and a 20-box tower leaning 2 mm a box toppled where Box3D's
 * stands). */
#define RIGID_RECYCLE_DISTANCE 0.05f
#define RIGID_RECYCLE_COS2 0.99240388f /* cos^2 of the half turn: about 10 degrees */
/* What r->kept says of a slice of pairs: after the shape tests, how many it keeps (low 16 bits)
 * and recycled (the next 14), and whether some pair wakes an island; once the contacts are made,
 * where its first contact is (the low 30 bits) and whether some contact may bounce. */
#define RIGID_SLICE_WAKES (1u << 31)
/* (After the shape tests only: some pair hits a sleeping island, NARROW_HIT.) */
#define RIGID_SLICE_HITS (1u << 30)
#define RIGID_SLICE_BOUNCY (1u << 30)
#define RIGID_SLICE_TURNS (1u << 29) /* some contact turns its anchors (rigid__turns) */
#define RIGID_SLICE_FIRST (RIGID_SLICE_TURNS - 1u)
/* Friction anchors: a contact's tangent rows pull back, softly (at its normals' bias rate, in the
 * pushing pass only, as the normals' push), what its bodies slid along the surface since the
 * manifold was found, at its centre (where its points, on both bodies, were one). Friction alone
 * works on velocities: what a pass leaves over moves the bodies for good and no later step sees
 * it as an error, so in a tall pile the small slips of every contact add up (the rows of
 * large_pyramid crept 5 cm sideways, its top cube 1.8 cm from step 200 to 1,000; Box3D's, which
 * has no anchors, 10 cm). The anchor holds while the bodies slid less than RIGID_ANCHOR_SLIP; then
 * the manifold is found again, which moves the anchor to where they are, so a box that slid and
 * stopped is pulled back by less than that. */
#define RIGID_ANCHOR_SLIP 0.005f

/* A pair with a mesh recycles its manifolds only while what they did not see lies further than
 * the pair can close in this step: their margin, less how far the body moved since (the recycling
 * test's bound on any point's motion), at least the margin it would be found with now less this
 * (m), the part of it that is not closing speed (SOLVER_MARGIN). Recycled for the usual 5 cm, a
 * board tipping off a ridge brought its end down 5 cm onto a floor its manifolds, found 3.5 cm
 * over it, did not have: it went 1.3 cm into it, and the deep find after threw it about. Reusing
 * them only 1 cm (a resting body) left a thin board rocking on a wavy mesh: found anew at each
 * turn of a degree, its manifolds changed each time. */
#define RIGID_RECYCLE_MESH_RESERVE SOLVER_MARGIN

/* The most (m) the turn of a body on a mesh adds to its pair's speculative margin in a step: a
 * board tipping over an edge brings its end down 2 cm a step, a spinning one far more, and past
 * this the sweeps of the continuous collision (physics_ccd.c, which count the turn at the body's
 * reach) catch it; a wider margin only makes the pair test more triangles (Jolt's convex shapes on
 * a mesh, 150 steps: 4.9% more instructions at 5 cm; 3.1% at 2 cm with physics_hull.c's rule for
 * a body clear of a triangle along a back-facing axis). */
#define RIGID_TURN_REACH 0.02f

/* The speculative margin of pair (i, j) in a step of dt: SOLVER_MARGIN and what the pair can close
 * in the step, rounded up to a millimetre's power of two (a snapshot keeps it in two bytes;
 * scaling by 1024 and back is exact, as ldexpf is, without its libm call: 1.5% of a step of bodies
 * on a mesh). With a mesh, the other body's turn closes too, at its reach (up to
 * RIGID_TURN_REACH; a ball's turn moves none of its surface): counted from its centre's speed
 * alone, the end of a board tipping off a ridge came down 2 cm a step, its centre nearly still,
 * and went 7 mm into the floor before its contacts saw it. */
static float rigid__margin(const physics__bodies *b, uint32_t i, uint32_t j, float dt)
{
    float closing = v3_len(v3_sub(b->velocity[j], b->velocity[i]));
    const uint32_t o = b->shape[i] == CT_BODY_MESH ? j : i;
    if ((b->shape[i] == CT_BODY_MESH || b->shape[j] == CT_BODY_MESH) &&
        b->shape[o] != CT_BODY_SPHERE)
        closing += f_min(v3_len(b->angular[o]) * v3_len(b->half[o]), RIGID_TURN_REACH / dt);
    return ceilf((SOLVER_MARGIN + closing * dt) * 1024.0f) * (1.0f / 1024.0f);
}

/* Whether the manifolds of pair (i, j) found at geometry g of an earlier step may be used again:
 * the bodies are still near that pose, no point of either having moved `reach` (m) since, less
 * what the pair can close in a step of `closing_dt` (s; 0 counts none) besides: a pair of convex
 * shapes (boxes, hulls, balls, capsules) counts it here, as a pair with a mesh does in its reach
 * (RIGID_RECYCLE_MESH_RESERVE), and also what their turn can close at their far corners (the
 * margin counts only the centres' speeds); cheaply, each speed by the sum of its components.
 * Recycled while they moved 5 cm, a cube dropped 4 cm with a quarter of a degree's tilt, its
 * lowest corner alone within the margin when its manifold was found, came down on that corner
 * and turned its others 2.9 cm into the floor; counting only the centres' speeds, a board landing
 * on one long edge turned at 3.8 rad/s and put the other 1.3 cm in (found anew every step, 0.3
 * mm; test_physics_box_reach). */
static bool rigid__recyclable(const physics__bodies *b, uint32_t i, uint32_t j,
                              const physics__rigid_geo *g, float reach, float closing_dt)
{
    const physics__quat qa = b->rotation[i], qb = b->rotation[j];
    const float ca = quat_dot(qa, g->qa), cb = quat_dot(qb, g->qb);
    if (f_min(ca * ca, cb * cb) <= RIGID_RECYCLE_COS2)
        return false;
    const physics__v3 d = v3_sub(b->position[j], b->position[i]), gd = physics__rigid_geo_d(g);
    const physics__v3 moved = v3_sub(quat_unrotate(qa, d), quat_unrotate(g->qa, gd));
    const float dist2 = v3_dot(moved, moved);
    if (!(reach > 0.0f) || dist2 >= reach * reach)
        return false;
    /* The relative turn since then, and how far it can move a far corner of either body. */
    const physics__quat qr =
        quat_mul(quat_conj(quat_mul(quat_conj(g->qa), g->qb)), quat_mul(quat_conj(qa), qb));
    const physics__v3 ea = b->kind[i] != CT_BODY_STATIC ? b->half[i] : v3(0, 0, 0);
    const physics__v3 eb = b->kind[j] != CT_BODY_STATIC ? b->half[j] : v3(0, 0, 0);
    const physics__v3 e = v3_max(ea, eb), r = v3(fabsf(qr.x), fabsf(qr.y), fabsf(qr.z));
    const physics__v3 arc = v3(r.y * e.z + r.z * e.y, r.z * e.x + r.x * e.z, r.x * e.y + r.y * e.x);
    float slack = reach - sqrtf(dist2);
    if (closing_dt > 0.0f) {
        const physics__v3 v = v3_sub(b->velocity[j], b->velocity[i]);
        const physics__v3 wa = b->angular[i], wb = b->angular[j];
        const float turn =
            fabsf(wa.x) + fabsf(wa.y) + fabsf(wa.z) + fabsf(wb.x) + fabsf(wb.y) + fabsf(wb.z);
        slack -= closing_dt * (fabsf(v.x) + fabsf(v.y) + fabsf(v.z) + turn * (e.x + e.y + e.z));
    }
    return slack > 0.0f && 4.0f * v3_dot(arc, arc) < slack * slack;
}

/* The manifold of pair (i, j) from cached contact old, found at an earlier step (recyclable),
 * and *slid, what the bodies slid at its centre since (its points' mean offset): whether its
 * friction anchor still holds (see RIGID_ANCHOR_SLIP). */
static bool rigid__recycle(const physics__bodies *b, uint32_t i, uint32_t j,
                           const physics__rigid_cached *old, physics__rigid_manifold *m,
                           physics__v3 *slid_out)
{
    const physics__rigid_geo *g = &old->geo;
    const physics__quat qa = b->rotation[i], qb = b->rotation[j];
    const physics__v3 d = v3_sub(b->position[j], b->position[i]), gd = physics__rigid_geo_d(g);
    /* Each point's separation follows the bodies: their offset and the turn of its anchors. */
    const physics__quat ta = quat_mul(qa, quat_conj(g->qa)), tb = quat_mul(qb, quat_conj(g->qb));
    m->normal = g->normal;
    m->count = old->count;
    physics__v3 slid = v3(0, 0, 0);
    for (uint32_t q = 0; q < old->count; q++) {
        const physics__v3 ra = g->ra[q], rb = v3_sub(ra, gd);
        const physics__v3 dp = v3_add(d, v3_sub(quat_rotate(tb, rb), quat_rotate(ta, ra)));
        m->sep[q] = g->sep[q] + v3_dot(dp, g->normal);
        m->id[q] = old->id[q];
        slid = v3_add(slid, dp);
    }
    /* The friction's anchor holds while the centre slid less than RIGID_ANCHOR_SLIP along the
     * surface; past that the manifold is found anew, where the bodies are. */
    slid = v3_scale(slid, 1.0f / (float)old->count);
    *slid_out = slid;
    const physics__v3 along = v3_sub(slid, v3_scale(g->normal, v3_dot(slid, g->normal)));
    return v3_dot(along, along) < RIGID_ANCHOR_SLIP * RIGID_ANCHOR_SLIP;
}

/* Whether bodies i and j may have several manifolds: a mesh and another body (a compound's
 * children have their own: physics__compound_mesh_manifolds). */
static inline bool rigid__several(const physics__bodies *b, uint32_t i, uint32_t j)
{
    return b->shape[i] == CT_BODY_MESH || b->shape[j] == CT_BODY_MESH;
}

/* What the step keeps of manifold from (its normal, and its points' separations and ids). */
static inline void rigid__keep_manifold(physics__rigid_manifold *to,
                                        const physics__manifold_out *from)
{
    to->normal = from->normal;
    to->count = from->count;
    for (uint32_t q = 0; q < from->count && q < PHYSICS_MANIFOLD_POINTS; q++) {
        to->sep[q] = from->p[q].sep;
        to->id[q] = from->p[q].id;
    }
}

/* The normal, anchors and separations of g from manifold m found at g's poses. */
static void rigid__geo_fill(physics__rigid_geo *g, const physics__manifold_out *m)
{
    g->normal = m->normal;
    for (uint32_t q = 0; q < m->count && q < PHYSICS_MANIFOLD_POINTS; q++) {
        g->ra[q] = v3_sub(m->p[q].point, g->pa);
        g->sep[q] = m->p[q].sep;
    }
}

void physics__rigid_geo_find(physics__bodies *view, uint32_t i, uint32_t j, uint32_t sub,
                             physics__rigid_geo *g, physics__manifold_out *m)
{
    view->position[i] = g->pa;
    view->rotation[i] = g->qa;
    view->position[j] = g->pb;
    view->rotation[j] = g->qb;
    physics__bodies_extent(view, i);
    physics__bodies_extent(view, j);
    if (!rigid__several(view, i, j)) {
        if (sub == 0)
            physics__manifold(view, i, j, g->margin, g->prefer_b != 0, m);
        else
            m->count = 0;
    } else {
        /* As the step asks for them (rigid__narrow_range). */
        physics__manifold_out all[PHYSICS_MESH_MANIFOLDS];
        const uint32_t made = physics__manifolds(view, i, j, g->margin, g->prefer_b != 0, all,
                                                 PHYSICS_MESH_MANIFOLDS);
        if (made > sub)
            *m = all[sub];
        else
            m->count = 0;
    }
    rigid__geo_fill(g, m);
}

/* The slot of sorted pair k's manifold sub, and how many slots it has (physics__rigid.more). */
static inline uint32_t rigid__slot(const physics__rigid *r, uint32_t k, uint32_t sub)
{
    return sub ? r->num_pairs + r->more[k] + sub - 1u : k;
}
static inline uint32_t rigid__slots(const physics__rigid *r, uint32_t k)
{
    return r->multi ? 1u + r->more[k + 1] - r->more[k] : 1u;
}

/* The manifold slots of the m sorted pairs (physics__rigid.more): a pair that may have several
 * manifolds has PHYSICS_MESH_MANIFOLDS. A world of no such pair keeps one a pair and no table. */
static int rigid__slot_pairs(physics__scene *s, const physics__keyed_pair *order, uint32_t m)
{
    const physics__bodies *b = &s->bodies;
    physics__rigid *r = &s->rigid;
    r->multi = false;
    r->num_pairs = m;
    for (uint32_t k = 0; k < m && !r->multi; k++)
        r->multi = rigid__several(b, order[k].a, order[k].b);
    if (!r->multi)
        return 0;
    if (physics__reserve(s->a, (void **)&r->more, &r->cap_more, m + 1u, sizeof *r->more))
        return CT_ERR_NOMEM;
    uint32_t n = 0;
    for (uint32_t k = 0; k < m; k++) {
        r->more[k] = n;
        n += rigid__several(b, order[k].a, order[k].b) ? PHYSICS_MESH_MANIFOLDS - 1u : 0u;
    }
    r->more[m] = n;
    return 0;
}

/* Whether manifold m of bodies i and j (one of them asleep, its velocities zero) is a hit: a
 * point of the other closes on it faster than NARROW_HIT_SPEED and reaches it within the step. */
static bool rigid__hits(const physics__bodies *b, uint32_t i, uint32_t j,
                        const physics__rigid_manifold *m, const physics__rigid_geo *g, float dt)
{
    for (uint32_t q = 0; q < m->count; q++) {
        /* (The point as it was found, on a as it is now: a recycled manifold's bodies moved
         * little since.) */
        const physics__v3 p = v3_add(b->position[i], g->ra[q]);
        const physics__v3 vi =
            v3_add(b->velocity[i], v3_cross(b->angular[i], v3_sub(p, b->position[i])));
        const physics__v3 vj =
            v3_add(b->velocity[j], v3_cross(b->angular[j], v3_sub(p, b->position[j])));
        /* (The normal points from i to j: the gap closes while vn < 0.) */
        const float vn = v3_dot(v3_sub(vj, vi), m->normal);
        if (-vn > NARROW_HIT_SPEED && m->sep[q] + vn * dt < 0.0f)
            return true;
    }
    return false;
}

/* Manifolds of the sorted pairs in slices [begin, end); each slice counts those it keeps. A pair
 * touching a sleeping island wakes it for the next step, as in the translation-only step; one
 * that hits it (rigid__hits) wakes it before the contacts are solved (physics__rigid_step). A pair
 * with a mesh finds a manifold for each way the triangles it touches face, into its slots; they
 * are recycled together (found at the same poses), each from its own cached contact. */
static void rigid__narrow_range(void *user, uint32_t begin, uint32_t end)
{
    const rigid__narrow_job *job = user;
    const physics__bodies *b = &job->s->bodies;
    physics__rigid *r = &job->s->rigid;
    for (uint32_t slice = begin; slice < end; slice++) {
        const uint32_t first = slice * SOLVER_SLICE_PAIRS;
        const uint32_t last =
            first + SOLVER_SLICE_PAIRS < job->count ? first + SOLVER_SLICE_PAIRS : job->count;
        uint32_t kept = 0, recycled = 0, wakes = 0;
        /* The pairs and the cache are both sorted by key: one merge walk from the slice's first,
         * for which box gave the reference face last step and for recycling. */
        uint32_t at = 0, hi = r->num_cache;
        while (at < hi) {
            const uint32_t mid = at + (hi - at) / 2;
            if (r->cache[mid].key < job->order[first].key)
                at = mid + 1;
            else
                hi = mid;
        }
        for (uint32_t k = first; k < last; k++) {
            const uint32_t i = job->order[k].a, j = job->order[k].b;
            const uint32_t slots = rigid__slots(r, k);
            const physics__rigid_cached *old = rigid__cached(r, job->order[k].key, &at);
            uint32_t made = 0;
            /* (A pair without a mesh finds its margin only when it finds its manifold.) */
            const bool mesh = rigid__several(b, i, j);
            float margin = mesh ? rigid__margin(b, i, j, job->dt) : 0.0f;
            bool held =
                old && old->count &&
                rigid__recyclable(b, i, j, &old->geo,
                                  f_min(mesh ? old->geo.margin - margin + RIGID_RECYCLE_MESH_RESERVE
                                             : old->geo.margin,
                                        RIGID_RECYCLE_DISTANCE),
                                  mesh ? 0.0f : job->dt);
            for (const physics__rigid_cached *o = old;
                 held && made < slots && o < r->cache + r->num_cache && o->key == old->key; o++) {
                const uint32_t slot = rigid__slot(r, k, made++);
                held = rigid__recycle(b, i, j, o, &r->narrow[slot], &r->slid[slot]);
                r->geo_at[slot] = &o->geo;
            }
            if (held) {
                recycled++;
            } else {
                made = 0;
                const bool prefer_b =
                    old && old->count && (old->id[0] & PHYSICS_MANIFOLD_REFERENCE_B);
                if (!mesh)
                    margin = rigid__margin(b, i, j, job->dt);
                physics__manifold_out all[PHYSICS_MESH_MANIFOLDS];
                if (slots == 1u) {
                    physics__manifold(b, i, j, margin, prefer_b, &all[0]);
                    made = all[0].count ? 1u : 0u;
                } else {
                    made = physics__manifolds(b, i, j, margin, prefer_b, all, slots);
                }
                for (uint32_t sub = 0; sub < made; sub++) {
                    const uint32_t slot = rigid__slot(r, k, sub);
                    physics__rigid_geo *g = &r->geo[slot];
                    g->qa = b->rotation[i];
                    g->qb = b->rotation[j];
                    g->pa = b->position[i];
                    g->pb = b->position[j];
                    g->margin = margin;
                    g->prefer_b = prefer_b;
                    rigid__geo_fill(g, &all[sub]);
                    r->geo_at[slot] = g;
                    rigid__keep_manifold(&r->narrow[slot], &all[sub]);
                    r->slid[slot] = v3(0, 0, 0);
                }
            }
            uint32_t flags = made ? NARROW_KEEP : 0u;
            if (flags && (b->asleep[i] | b->asleep[j])) {
                const uint32_t mover = b->asleep[i] ? j : i;
                if (b->rest[mover] == 0.0f || b->kind[mover] == CT_BODY_KINEMATIC)
                    flags |= NARROW_WAKE;
                for (uint32_t sub = 0; flags & NARROW_WAKE && sub < made; sub++)
                    if (rigid__hits(b, i, j, &r->narrow[rigid__slot(r, k, sub)],
                                    r->geo_at[rigid__slot(r, k, sub)], job->dt))
                        flags |= NARROW_HIT;
                if (physics__inv_mass(b, mover) == 0.0f)
                    flags &= ~NARROW_KEEP;
            }
            r->made[k] = (uint8_t)((flags & NARROW_KEEP ? made : 0u) | flags << 4);
            kept += flags & NARROW_KEEP ? made : 0u;
            wakes |= flags & (NARROW_WAKE | NARROW_HIT);
        }
        r->kept[slice] = kept | recycled << 16 | (wakes & NARROW_WAKE ? RIGID_SLICE_WAKES : 0u) |
                         (wakes & NARROW_HIT ? RIGID_SLICE_HITS : 0u);
    }
}

/* The solver state of every body: velocities, and for the ones that move their inverse mass and
 * world inverse inertia (zero for static, kinematic and sleeping bodies). */
/* physics__rigid_drive's flags: the velocity pass changes the body (awake, dynamic), damps it, and
 * adds its gyroscopic term; the body's rotation changed in a substep (rigid__positions_range). */
#define RIGID_DRIVE_MOVES 1u
#define RIGID_DRIVE_DAMPED 2u
#define RIGID_DRIVE_GYROSCOPIC 4u
#define RIGID_DRIVE_TURNED 8u

typedef struct rigid__gather_job {
    physics__scene *s;
    float h; /* the substep */
} rigid__gather_job;

/* Body i's physics__rigid_drive for substeps of h: what rigid__velocities_range computed in every
 * substep from values that do not change within the step (the forces, torques and damping are
 * set before it, the world inverse inertia once at its start), by the same operations. */
static void rigid__drive_of(physics__scene *s, uint32_t i, float h)
{
    const physics__bodies *b = &s->bodies;
    const physics__rigid_body *x = &s->rigid.body[i];
    physics__rigid_drive *d = &s->rigid.drive[i];
    d->flags = 0;
    if (x->inv_mass == 0.0f || b->kind[i] != CT_BODY_DYNAMIC)
        return;
    d->flags = RIGID_DRIVE_MOVES;
    d->dv = v3_scale(v3_add(s->gravity, v3_scale(b->force[i], x->inv_mass)), h);
    d->dw = v3_scale(rigid__mul(s->rigid.inv_i[i].m, b->torque[i]), h);
    const physics__damping c = b->damping[i]; /* v5 set_damping; 0: every bit as before */
    if (c.linear != 0.0f || c.angular != 0.0f) {
        d->flags |= RIGID_DRIVE_DAMPED;
        d->damp_v = physics__damping_factor(c.linear, h);
        d->damp_w = physics__damping_factor(c.angular, h);
    }
    const physics__v3 m = b->inv_inertia[i];
    if (!(b->locks[i] & CT_BODY_LOCK_ROTATION) && m.x > 0.0f && m.y > 0.0f && m.z > 0.0f &&
        !(m.x == m.y && m.y == m.z)) {
        d->flags |= RIGID_DRIVE_GYROSCOPIC;
        d->ix = 1.0f / m.x;
        d->iy = 1.0f / m.y;
        d->iz = 1.0f / m.z;
        d->ga = h * (d->iz - d->iy);
        d->gb = h * (d->ix - d->iz);
        d->gc = h * (d->iy - d->ix);
    }
}

/* The world inverse inertias, then the drives, of n (1 to 4) moving bodies. */
static void rigid__gather_moving(physics__scene *s, const uint32_t moving[4], uint32_t n, float h)
{
    float *inv_i[4];
    for (uint32_t k = 0; k < n; k++)
        inv_i[k] = s->rigid.inv_i[moving[k]].m;
    physics__world_inv_inertia4(&s->bodies, moving, n, inv_i);
    for (uint32_t k = 0; k < n; k++)
        rigid__drive_of(s, moving[k], h);
}

static void rigid__gather_range(void *user, uint32_t begin, uint32_t end)
{
    const rigid__gather_job *job = user;
    physics__scene *s = job->s;
    const float h = job->h;
    const physics__bodies *b = &s->bodies;
    physics__rigid_body *st = s->rigid.body;
    const uint32_t last = end * SOLVER_SLICE_BOXES < b->n ? end * SOLVER_SLICE_BOXES : b->n;
    /* The moving bodies' inverse inertias four at a time (physics__world_inv_inertia4), then
     * their drives (which read them): rigid__gather_moving. */
    uint32_t moving[4], n = 0;
    for (uint32_t i = begin * SOLVER_SLICE_BOXES; i < last; i++) {
        physics__rigid_body *x = &st[i];
        x->v = b->velocity[i];
        x->w = b->angular[i];
        x->dp = x->dq = v3(0, 0, 0);
        x->inv_mass = physics__inv_mass(b, i);
        if (!(x->inv_mass > 0.0f)) {
            memset(s->rigid.inv_i[i].m, 0, sizeof s->rigid.inv_i[i].m);
            rigid__drive_of(s, i, h);
            continue;
        }
        moving[n++] = i;
        if (n == 4) {
            rigid__gather_moving(s, moving, n, h);
            n = 0;
        }
    }
    if (n)
        rigid__gather_moving(s, moving, n, h);
}

typedef struct rigid__colour_job {
    physics__scene *s;
    const physics__keyed_pair *order;
    uint32_t m, n; /* pairs, contacts */
    float h;       /* the substep (the bodies' drives) */
} rigid__colour_job;

/* Item 0 colours the contacts (physics__rigid_wide_colour: one thread, each contact's colour
 * depends on those before it), item 1 the joints (physics__joints_colour: the same); item 2 + t
 * gathers slice t of bodies (rigid__gather_range, any threads). The colourings read the bodies'
 * own arrays, not what the gathering writes, so the threads gather while one or two colour: the
 * contacts' colouring was the longest stretch of the step that one thread ran alone, and the
 * joints' (made after the gathering) a fortieth of joint_grid's step. */
static void rigid__colour_gather_range(void *user, uint32_t begin, uint32_t end)
{
    const rigid__colour_job *job = user;
    rigid__gather_job gather = {job->s, job->h};
    for (uint32_t i = begin; i < end; i++) {
        if (i == 0)
            physics__rigid_wide_colour(job->s, job->order, job->m, job->n);
        else if (i == 1)
            physics__joints_colour(job->s);
        else
            rigid__gather_range(&gather, i - 2, i - 1);
    }
}

/* The world boxes of the rotating bodies that move, from their rotations (a slice of bodies). */
static void rigid__extent_range(void *user, uint32_t begin, uint32_t end)
{
    physics__bodies *b = user;
    const uint32_t last = end * SOLVER_SLICE_BOXES < b->n ? end * SOLVER_SLICE_BOXES : b->n;
    for (uint32_t i = begin * SOLVER_SLICE_BOXES; i < last; i++)
        if (b->rotates[i] && !physics__fixed(b, i))
            physics__bodies_extent(b, i);
}

typedef struct rigid__contact_job {
    physics__scene *s;
    const physics__keyed_pair *order;
    uint32_t m, n; /* pairs, contacts */
    float h;       /* the substep */
    float static_rate, static_mass, static_impulse, rate, mass, impulse;
} rigid__contact_job;

/* Whether cached contact x had a point of manifold m (by id). */
static bool rigid__had_points(const physics__rigid_cached *x, const physics__rigid_manifold *m)
{
    for (uint32_t q = 0; q < m->count; q++)
        for (uint32_t o = 0; o < x->count; o++)
            if (x->id[o] == m->id[q])
                return true;
    return false;
}

/* Anchors that turn with the bodies. A capsule's contact point is not a point of the capsule:
 * rolling, its surface at the point moves on while the point stays beside its axis. What the
 * capsule carries along is the point of its axis nearest the contact, and the contact stays where
 * it is from that point. The contacts of boxes and hulls keep the anchors where their manifold was
 * found, their rows fixed for the step and their separations following the bodies' turns to first
 * order (Box3D's fixed anchors); a capsule lying on a floor while it rolls and yaws turns its
 * axis's ends about its roll, and with those anchors its rows saw none of an end coming down:
 * rolling at 2 m/s and yawing at 5 rad/s it sank 5.3 mm, at 3 m/s and 10 rad/s 12.8 mm
 * (test_physics_shapes). The contacts of a capsule turn their anchors with the bodies at every
 * substep (rigid__turn_range) and take their separations where they are, while its axis turns
 * less than RIGID_TURN_MOST a substep. A rod tumbling faster is past where its manifold's points
 * mean anything within the step, turned anchors or fixed: turning them there too, 16 of
 * test_physics_ccd's room of bullets left it without the sweeps instead of 10, and a rod passed
 * its plank at rest even with them. */
#define RIGID_TURN_MOST 0.0625f /* rad a substep: 15 rad/s at 60 steps a second */

/* Whether the contact of bodies i and j turns its anchors in a step of substeps h: one of them is
 * a capsule or a compound with a capsule child or a ball child off its centre
 * (physics__compound_turns), and no capsule of the two turns its axis (nor such a ball its centre)
 * RIGID_TURN_MOST in a substep. */
static bool rigid__turns(const physics__bodies *b, const physics__rigid_body *body, uint32_t i,
                         uint32_t j, float h)
{
    bool capsule = false;
    const uint32_t x[2] = {i, j};
    for (uint32_t k = 0; k < 2; k++) {
        float fastest;
        if (b->shape[x[k]] == CT_BODY_COMPOUND) {
            if (!physics__compound_turns(b->compound[x[k]], b->rotation[x[k]], body[x[k]].w,
                                         &fastest))
                continue;
        } else if (b->shape[x[k]] == CT_BODY_CAPSULE) {
            const physics__v3 axis = quat_rotate(b->rotation[x[k]], v3(0, 1, 0));
            fastest = v3_len(v3_cross(body[x[k]].w, axis));
        } else {
            continue;
        }
        capsule = true;
        if (fastest * h >= RIGID_TURN_MOST)
            return false;
    }
    return capsule;
}

/* A contact's anchors (c->turns): fixed where its manifold was found, turned with the bodies at
 * every substep (a capsule's: rigid__turns), or turned once, when the contact is made, to where
 * the bodies are at the step's start (a recycled manifold whose bodies turned since it was found:
 * rigid__turned_since). */
#define RIGID_ANCHORS_FIXED 0u
#define RIGID_ANCHORS_TURN 1u
#define RIGID_ANCHORS_TURNED 2u

/* Whether a body of this shape is one whose recycled edges and corners turn
 * (rigid__turned_since): a box, a hull, or a compound (of those, or with balls and capsules,
 * whose anchors turn as theirs do: physics__compound_turn_anchor). A compound crate of one box
 * child, its anchors kept where they were found, fell off its edge 8 steps after the box crate
 * and, rocked over the top, fell back the way it came (test_crate_falls_off_its_edge). */
static inline bool rigid__flat(uint8_t shape)
{
    return shape == CT_BODY_BOX || shape == CT_BODY_HULL || shape == CT_BODY_COMPOUND;
}

/* Whether the anchors of manifold g of bodies i and j (count points), recycled, are turned with
 * the bodies when its contact is made: it is an edge's or a corner's (one or two points: a body
 * pivots on them) between boxes, hulls and compounds (rigid__flat), and a body turned since it
 * was found. Kept where they were found, for the 10
 * degrees a manifold is recycled (RIGID_RECYCLE_COS2), their levers were those of the pose it was
 * found at: a crate rocking up onto its edge, its manifold found just before the top, was pushed
 * back by the floor as if it had not passed it, and fell back the way it came or balanced there
 * (the demo's crate on its edge, 100 frames); let go 0.01 rad past the balance, a cube fell 8
 * steps after a rigid body on that edge would (1 turned: test_crate_falls_off_its_edge). A face's
 * anchors stay where they were found: they hold a tower's cubes as found (turned with them, a
 * 20-cube tower leaning 2 mm a cube, test_leaning_tower_stands, toppled), and a settled pile
 * keeps its bits. */
static bool rigid__turned_since(const physics__bodies *b, uint32_t i, uint32_t j,
                                const physics__rigid_geo *g, uint32_t count)
{
    const bool flat = rigid__flat(b->shape[i]) && rigid__flat(b->shape[j]);
    return flat && count <= 2u &&
           (memcmp(&b->rotation[i], &g->qa, sizeof g->qa) ||
            memcmp(&b->rotation[j], &g->qb, sizeof g->qb));
}

/* Anchor r of body i, found when i's rotation was q, as i is now: a capsule's moved with the point
 * of its axis nearest it (its segment along its own y), a ball's kept where it is from its centre
 * (the ball's point nearest the other body is its centre less its radius along the normal,
 * whichever way it turns), a compound's moved with what carries it of its child
 * (physics__compound_turn_anchor), any other body's turned with it. Turned with the ball, a ball's
 * point went round off the normal, whose push then spun it: a ball rolling at 0.5 m/s along a
 * lying capsule, pressed against it, slowed to 0.487 m/s and fell 2.8 cm behind in 4 s with
 * nothing doing work on it (test_ball_rolling_along_a_capsule_keeps_its_speed); spinning about
 * the vertical as it lay pressed against one, a ball sped up rolling along it. */
static inline physics__v3 rigid__turn_anchor(const physics__bodies *b, uint32_t i, physics__quat q,
                                             physics__v3 r)
{
    if (b->shape[i] == CT_BODY_SPHERE)
        return r;
    if (b->shape[i] == CT_BODY_COMPOUND)
        return physics__compound_turn_anchor(b->compound[i], q, b->rotation[i], r);
    if (b->shape[i] != CT_BODY_CAPSULE)
        return quat_rotate(quat_mul(b->rotation[i], quat_conj(q)), r);
    const float half = b->half[i].y - b->radius[i];
    const physics__v3 was = quat_rotate(q, v3(0, 1, 0)),
                      now = quat_rotate(b->rotation[i], v3(0, 1, 0));
    const float t = f_max(-half, f_min(v3_dot(r, was), half));
    return v3_add(r, v3_scale(v3_sub(now, was), t));
}

/* The anchors of manifold g's point q as bodies i and j are now (ra from i's centre, rb from j's:
 * rigid__turn_anchor). */
static inline void rigid__turned_point(const physics__bodies *b, uint32_t i, uint32_t j,
                                       const physics__rigid_geo *g, uint32_t q, physics__v3 *ra,
                                       physics__v3 *rb)
{
    *ra = rigid__turn_anchor(b, i, g->qa, g->ra[q]);
    *rb = rigid__turn_anchor(b, j, g->qb, v3_sub(g->ra[q], physics__rigid_geo_d(g)));
}

/* The anchors of manifold g's first `count` points as bodies i and j are now
 * (rigid__turned_point), and the points' separations: g's, and how far the two anchors moved
 * apart along the normal since (as rigid__recycle measures them). */
static void rigid__turned(const physics__bodies *b, uint32_t i, uint32_t j,
                          const physics__rigid_geo *g, uint32_t count, physics__v3 *ra,
                          physics__v3 *rb, float *sep)
{
    const physics__v3 d = v3_sub(b->position[j], b->position[i]);
    for (uint32_t q = 0; q < count; q++) {
        rigid__turned_point(b, i, j, g, q, &ra[q], &rb[q]);
        sep[q] = g->sep[q] + v3_dot(v3_add(d, v3_sub(rb[q], ra[q])), g->normal);
    }
}

/* The rows of contact c (its count, normal and tangents set) at anchors ra and rb (from a's and
 * b's centres): each point's normal row and lever, the friction's rows at their centre and the
 * inverse of its 2 x 2 mass. */
static void rigid__contact_rows(physics__rigid_contact *c, const physics__rigid_body *A,
                                const float ia[9], const physics__rigid_body *B, const float ib[9],
                                const physics__v3 *ra, const physics__v3 *rb)
{
    physics__v3 ca = v3(0, 0, 0), cb = v3(0, 0, 0);
    for (uint32_t q = 0; q < c->count; q++) {
        rigid__row(&c->p[q].n, A, ia, B, ib, ra[q], rb[q], c->normal);
        ca = v3_add(ca, ra[q]);
        cb = v3_add(cb, rb[q]);
    }
    const float inv_count = 1.0f / (float)c->count;
    ca = v3_scale(ca, inv_count);
    cb = v3_scale(cb, inv_count);
    c->center_a = ca;
    for (uint32_t q = 0; q < c->count; q++)
        c->p[q].lever = v3_len(v3_sub(ra[q], ca));
    rigid__row(&c->f1, A, ia, B, ib, ca, cb, c->t1);
    rigid__row(&c->f2, A, ia, B, ib, ca, cb, c->t2);
    const float m = A->inv_mass + B->inv_mass;
    const float k11 = m + v3_dot(c->f1.ca, c->f1.ia) + v3_dot(c->f1.cb, c->f1.ib);
    const float k22 = m + v3_dot(c->f2.ca, c->f2.ia) + v3_dot(c->f2.cb, c->f2.ib);
    const float k12 = v3_dot(c->f1.ca, c->f2.ia) + v3_dot(c->f1.cb, c->f2.ib);
    const float det = k11 * k22 - k12 * k12, inv_det = det != 0.0f ? 1.0f / det : 0.0f;
    c->k11 = k22 * inv_det;
    c->k22 = k11 * inv_det;
    c->k12 = -k12 * inv_det;
}

/* Contact c of sorted pair pk from its manifold in slot k, with its warm start from the cache
 * (walked from *at). */
static void rigid__make_contact(const rigid__contact_job *job, physics__rigid_contact *c,
                                uint32_t pk, uint32_t k, uint32_t *at_cache)
{
    physics__scene *s = job->s;
    const physics__bodies *b = &s->bodies;
    physics__rigid *r = &s->rigid;
    const physics__keyed_pair *order = job->order;
    const float static_rate = job->static_rate, static_mass = job->static_mass,
                static_impulse = job->static_impulse, rate = job->rate, mass = job->mass,
                impulse = job->impulse;
    uint32_t at = *at_cache;
    const physics__rigid_manifold *mo = &r->narrow[k];
    const physics__rigid_geo *geo = r->geo_at[k];
    const uint32_t i = order[pk].a, j = order[pk].b;
    const physics__rigid_body *A = &r->body[i], *B = &r->body[j];
    const physics__v3 nn = mo->normal;
    physics__rigid_tangents(nn, &c->t1, &c->t2);
    c->key = order[pk].key;
    c->pair = k;
    c->a = i;
    c->b = j;
    c->count = mo->count;
    c->normal = nn;
    c->friction = sqrtf(b->friction[i] * b->friction[j]);
    c->restitution = f_max(b->restitution[i], b->restitution[j]);
    const bool fixed = A->inv_mass == 0.0f || B->inv_mass == 0.0f;
    c->bias_rate = fixed ? static_rate : rate;
    c->mass_scale = fixed ? static_mass : mass;
    c->impulse_scale = fixed ? static_impulse : impulse;
    /* Last step's contacts of the pair: one, or one per manifold of a pair with a mesh
     * (whose ways may come in another order now). Points find their impulses by id
     * among all of them; friction and twist come from the one whose normal is nearest. */
    const physics__rigid_cached *first_old = rigid__cached(r, c->key, &at), *old = NULL;
    uint32_t olds = 0;
    if (first_old) {
        float nearest = -INFINITY;
        for (; at + olds < r->num_cache && r->cache[at + olds].key == c->key; olds++) {
            const physics__rigid_cached *x = &r->cache[at + olds];
            const float d = v3_dot(x->geo.normal, nn);
            /* (Of equal normals, the one that had these points: a compound's children on flat
             * ground, the four legs of a table, all push one way.) */
            if (d > nearest ||
                (d == nearest && !rigid__had_points(old, mo) && rigid__had_points(x, mo)))
                nearest = d, old = x;
        }
    }
    c->cached = old ? (uint32_t)(old - r->cache) : UINT32_MAX;
    const float *ia = r->inv_i[i].m, *ib = r->inv_i[j].m;
    /* The anchors as they were found (the separation follows the turn in the solver, to first
     * order), or turned to now (a capsule's: rigid__turns; a recycled manifold's whose bodies
     * turned since: rigid__turned_since; once the contact is made, only its own flag says so). */
    physics__v3 ra[PHYSICS_MANIFOLD_POINTS], rb[PHYSICS_MANIFOLD_POINTS];
    float sep[PHYSICS_MANIFOLD_POINTS];
    c->turns = rigid__turns(b, r->body, i, j, job->h)         ? RIGID_ANCHORS_TURN
               : rigid__turned_since(b, i, j, geo, mo->count) ? RIGID_ANCHORS_TURNED
                                                              : RIGID_ANCHORS_FIXED;
    if (c->turns) {
        rigid__turned(b, i, j, geo, c->count, ra, rb, sep);
    } else {
        for (uint32_t q = 0; q < c->count; q++) {
            ra[q] = geo->ra[q];
            rb[q] = v3_sub(ra[q], physics__rigid_geo_d(geo));
            sep[q] = mo->sep[q];
        }
    }
    rigid__contact_rows(c, A, ia, B, ib, ra, rb);
    for (uint32_t q = 0; q < c->count; q++) {
        physics__rigid_point *p = &c->p[q];
        p->sep = sep[q];
        p->id = mo->id[q];
        p->rel_vn = rigid__speed(A, B, &p->n, nn);
        p->n.j = p->max_jn = 0.0f;
        bool matched = false;
        for (uint32_t e = 0; e < olds && !matched; e++) {
            const physics__rigid_cached *x = &r->cache[at + e];
            for (uint32_t o = 0; o < x->count; o++)
                if (x->id[o] == p->id) {
                    p->n.j = x->jn[o];
                    matched = true;
                    break;
                }
        }
    }
    c->passes = 1u;
    for (uint32_t q = 0; c->count > 1u && q < c->count; q++)
        if (c->p[q].rel_vn < -RIGID_BOUNCE_SPEED)
            c->passes = RIGID_IMPACT_PASSES;
    c->anchor1 = c->anchor2 = 0.0f;
    /* (Not for a body and mesh, which may have several manifolds: each pulling back to its own
     * centre, they kept a cube on the bunny's back rocking at 8.5 cm/s.) */
    if (!r->multi || !rigid__several(b, i, j)) {
        /* The anchor: b's point at the centre from a's (one point where the manifold was found),
         * along the tangents. What they slid was measured when the manifold was recycled (the
         * points' mean offset is the centre's: the offsets are linear in the points), so it is
         * not turned and offset here again from the bodies' poses. */
        const physics__v3 slid = r->slid[k];
        c->anchor1 = c->bias_rate * v3_dot(slid, c->t1);
        c->anchor2 = c->bias_rate * v3_dot(slid, c->t2);
    }
    c->twist_a = rigid__mul(ia, nn);
    c->twist_b = rigid__mul(ib, nn);
    const float kt = v3_dot(nn, c->twist_a) + v3_dot(nn, c->twist_b);
    c->twist_mass = kt > 0.0f ? 1.0f / kt : 0.0f;
    c->f1.j = c->f2.j = 0.0f;
    if (old && !memcmp(&old->geo.normal, &nn, sizeof nn)) {
        c->f1.j = old->f1;
        c->f2.j = old->f2;
    } else if (old) {
        /* A new normal: last step's friction, turned onto its tangents. */
        physics__v3 o1, o2;
        physics__rigid_tangents(old->geo.normal, &o1, &o2);
        const physics__v3 f = v3_add(v3_scale(o1, old->f1), v3_scale(o2, old->f2));
        c->f1.j = v3_dot(f, c->t1);
        c->f2.j = v3_dot(f, c->t2);
    }
    c->twist_j = old ? old->twist : 0.0f;
    *at_cache = at;
}

/* What the step keeps of contact c (its impulses come from the solver: wide__finish_range). */
static void rigid__keep_contact(physics__rigid_kept *k, const physics__rigid_contact *c)
{
    k->key = c->key;
    k->a = c->a;
    k->b = c->b;
    k->count = c->count;
    k->pair = c->pair;
    k->passes = c->passes;
    k->turns = c->turns;
    k->normal = c->normal;
    k->center_a = c->center_a;
    k->restitution = c->restitution;
    for (uint32_t q = 0; q < c->count; q++) {
        k->p[q].sep = c->p[q].sep;
        k->p[q].rel_vn = c->p[q].rel_vn;
        k->p[q].id = c->p[q].id;
    }
}

/* The row of point q of contact c, made again as rigid__make_contact made it (the same inputs:
 * the manifold's anchors, the step's masses and inertias; the same bits), or as the last substep
 * turned it (rigid__turn_range: the bodies have not moved since); anchors turned once are turned
 * again to where the bodies are now. */
static void rigid__point_row(const physics__scene *s, const physics__rigid_kept *c, uint32_t q,
                             physics__rigid_row *row)
{
    const physics__rigid *r = &s->rigid;
    const physics__rigid_geo *g = r->geo_at[c->pair];
    physics__v3 ra = g->ra[q], rb = v3_sub(ra, physics__rigid_geo_d(g));
    if (c->turns)
        rigid__turned_point(&s->bodies, c->a, c->b, g, q, &ra, &rb);
    rigid__row(row, &r->body[c->a], r->inv_i[c->a].m, &r->body[c->b], r->inv_i[c->b].m, ra, rb,
               c->normal);
}

/* Contact k's rows and separations turned to where its bodies are now (rigid__turns): its
 * points' separations as the solver takes them (physics__rigid_solve_contact: the point's, plus
 * the bodies' moves since the step began along the rows), so that here they are the turned
 * anchors' own. */
static void rigid__turn_contact(physics__scene *s, uint32_t k)
{
    const physics__rigid *r = &s->rigid;
    const physics__rigid_kept *kc = &r->contact[k];
    const physics__rigid_body *A = &r->body[kc->a], *B = &r->body[kc->b];
    physics__rigid_contact c;
    c.count = kc->count;
    c.normal = kc->normal;
    physics__rigid_tangents(c.normal, &c.t1, &c.t2);
    physics__v3 ra[PHYSICS_MANIFOLD_POINTS], rb[PHYSICS_MANIFOLD_POINTS];
    float sep[PHYSICS_MANIFOLD_POINTS];
    rigid__turned(&s->bodies, kc->a, kc->b, r->geo_at[kc->pair], c.count, ra, rb, sep);
    rigid__contact_rows(&c, A, r->inv_i[kc->a].m, B, r->inv_i[kc->b].m, ra, rb);
    float least = INFINITY;
    for (uint32_t q = 0; q < c.count; q++)
        least = f_min(least, sep[q]);
    s->rigid.contact[k].turned_sep = least;
    const float moved = v3_dot(v3_sub(B->dp, A->dp), c.normal);
    for (uint32_t q = 0; q < c.count; q++)
        c.p[q].sep = sep[q] - moved - v3_dot(B->dq, c.p[q].n.cb) + v3_dot(A->dq, c.p[q].n.ca);
    physics__rigid_wide_rows(&s->rigid, k, &c);
}

/* The contacts with a capsule (slices [begin, end) of sorted pairs, whose first contacts r->kept
 * holds; on any threads: each writes its own lanes) turned to where their bodies are now
 * (rigid__turns), after each substep's move. */
static void rigid__turn_range(void *user, uint32_t begin, uint32_t end)
{
    physics__scene *s = user;
    physics__rigid *r = &s->rigid;
    const uint32_t slices = physics__pair_slices(r->num_pairs);
    for (uint32_t slice = begin; slice < end; slice++) {
        if (!(r->kept[slice] & RIGID_SLICE_TURNS))
            continue;
        const uint32_t last =
            slice + 1 < slices ? r->kept[slice + 1] & RIGID_SLICE_FIRST : r->num_contacts;
        for (uint32_t k = r->kept[slice] & RIGID_SLICE_FIRST; k < last; k++)
            if (r->contact[k].turns == RIGID_ANCHORS_TURN)
                rigid__turn_contact(s, k);
    }
}

/* Asks for the lines of the `size` bytes at p: both, when they straddle two. A body's solver
 * state (52 bytes) and its inertia (36) straddle a line boundary four times in five and every
 * other time: prefetched by their first byte only, the second line of each was still a miss, and
 * on two threads the bodies are gathered by either core (rigid__colour_gather_range), so the miss
 * was often a line the other core held (hundreds of nanoseconds on a VM's cores). */
static inline void rigid__prefetch(const void *p, size_t size)
{
    __builtin_prefetch(p);
    __builtin_prefetch((const char *)p + size - 1);
}

/* The contacts of slices [begin, end) of sorted pairs (on any threads): each slice's first contact
 * is r->kept[slice] (counted in order before), and the cache is walked from the slice's first
 * key. */
static void rigid__contact_range(void *user, uint32_t begin, uint32_t end)
{
    const rigid__contact_job *job = user;
    physics__rigid *r = &job->s->rigid;
    const physics__keyed_pair *order = job->order;
    for (uint32_t slice = begin; slice < end; slice++) {
        const uint32_t first = slice * SOLVER_SLICE_PAIRS;
        const uint32_t last =
            first + SOLVER_SLICE_PAIRS < job->m ? first + SOLVER_SLICE_PAIRS : job->m;
        const uint32_t from = r->kept[slice] & RIGID_SLICE_FIRST;
        uint32_t n = from;
        bool bouncy = false, turns = false;
        uint32_t at = 0, hi = r->num_cache;
        while (at < hi) {
            const uint32_t mid = at + (hi - at) / 2;
            if (r->cache[mid].key < order[first].key)
                at = mid + 1;
            else
                hi = mid;
        }
        /* Each pair's kept manifolds (none when the narrow phase dropped it), in its slots. */
        for (uint32_t pk = first; pk < last; pk++) {
            /* The bodies of a pair further on (pairs go by entity, bodies by instance: their
             * loads missed the cache). */
            if (pk + 2u < last) {
                const uint32_t a = order[pk + 2u].a, b = order[pk + 2u].b;
                rigid__prefetch(&r->body[a], sizeof *r->body);
                rigid__prefetch(&r->body[b], sizeof *r->body);
                rigid__prefetch(&r->inv_i[a], sizeof *r->inv_i);
                rigid__prefetch(&r->inv_i[b], sizeof *r->inv_i);
            }
            for (uint32_t sub = 0; sub < (r->made[pk] & 15u); sub++, n++) {
                /* Made here, kept in its solver lane and in what the step keeps (L1 to both:
                 * the whole contact was written to memory and read back into the lane). */
                physics__rigid_contact c;
                rigid__make_contact(job, &c, pk, rigid__slot(r, pk, sub), &at);
                physics__rigid_wide_lane(r, n, &c);
                rigid__keep_contact(&r->contact[n], &c);
                bouncy |= c.restitution > 0.0f;
                turns |= c.turns == RIGID_ANCHORS_TURN;
            }
        }
        r->kept[slice] =
            from | (bouncy ? RIGID_SLICE_BOUNCY : 0u) | (turns ? RIGID_SLICE_TURNS : 0u);
    }
}

/* The kept manifolds become contacts, in order, with their warm starts and masses: where each
 * slice's contacts begin and the islands to wake (in order, from the slices that wake any), then
 * the contacts on any threads. */
static int rigid__contacts(physics__scene *s, const physics__keyed_pair *order, uint32_t m, float h)
{
    physics__bodies *b = &s->bodies;
    physics__rigid *r = &s->rigid;
    const uint32_t slices = physics__pair_slices(m);
    uint32_t n = 0;
    for (uint32_t slice = 0; slice < slices; slice++) {
        const uint32_t kept = r->kept[slice];
        r->kept[slice] = n;
        n += kept & 0xffffu;
        const uint32_t last = slice * SOLVER_SLICE_PAIRS + SOLVER_SLICE_PAIRS < m
                                  ? slice * SOLVER_SLICE_PAIRS + SOLVER_SLICE_PAIRS
                                  : m;
        for (uint32_t k = slice * SOLVER_SLICE_PAIRS; kept & RIGID_SLICE_WAKES && k < last; k++)
            if (r->made[k] >> 4 & NARROW_WAKE)
                physics__contacts_want_awake(s, b->asleep[order[k].a] ? order[k].a : order[k].b);
    }
    if (physics__reserve(s->a, (void **)&r->contact, &r->cap_contacts, n, sizeof *r->contact) ||
        physics__rigid_wide_reserve(s, n) || physics__joints_colour_reserve(s))
        return CT_ERR_NOMEM;
    rigid__contact_job job = {s, order, m, n, h, 0, 0, 0, 0, 0, 0};
    /* As Box3D: the spring softens for long substeps; against what does not move it is twice as
     * stiff and half as damped. */
    const float hertz = f_min(RIGID_CONTACT_HERTZ, 0.125f / h);
    physics__soft(2.0f * hertz, 0.5f * RIGID_CONTACT_DAMPING, h, &job.static_rate, &job.static_mass,
                  &job.static_impulse);
    physics__soft(hertz, RIGID_CONTACT_DAMPING, h, &job.rate, &job.mass, &job.impulse);
    /* The colouring (physics_rigid_wide.c: one thread, each contact's colour depends on those
     * before it) comes first, so that each contact writes its solver block's lane as it is made
     * (the blocks, filled from the contacts after, were read in colour order: a cache miss a
     * contact); the joints' batches are made and the bodies' solver state is gathered beside it. */
    const rigid__colour_job colour = {s, order, m, n, h};
    physics__stages_add(&r->stages, s->a, rigid__colour_gather_range, (void *)&colour,
                        sizeof colour, 2 + (b->n + SOLVER_SLICE_BOXES - 1) / SOLVER_SLICE_BOXES, 1);
    int err = physics__stages_run(&r->stages, s->a, s->pool, s->pool_timed);
    r->num_contacts = n;
    if (!err)
        err = physics__rigid_wide_prepare(s);
    if (!err) {
        physics__stages_add(&r->stages, s->a, rigid__contact_range, &job, 0, slices, 1);
        physics__rigid_wide_seal(s);
        err = physics__stages_run(&r->stages, s->a, s->pool, s->pool_timed);
    }
    if (err) {
        r->num_contacts = 0; /* (none half made for anything to read) */
        return CT_ERR_NOMEM;
    }
    r->bouncy = r->turns = false;
    for (uint32_t slice = 0; slice < slices; slice++) {
        r->bouncy |= (r->kept[slice] & RIGID_SLICE_BOUNCY) != 0;
        r->turns |= (r->kept[slice] & RIGID_SLICE_TURNS) != 0;
    }
    return 0;
}

/* ---- the substeps ----------------------------------------------------------------------------- */

/* Locked axes keep no velocity (the impulses moved them: zeroed before every position update). */
static inline void rigid__lock(physics__rigid_body *x, uint8_t l)
{
    if (!(l & CT_BODY_LOCK_ALL))
        return;
    x->v = v3(l & CT_BODY_LOCK_LINEAR_X ? 0.0f : x->v.x, l & CT_BODY_LOCK_LINEAR_Y ? 0.0f : x->v.y,
              l & CT_BODY_LOCK_LINEAR_Z ? 0.0f : x->v.z);
    x->w =
        v3(l & CT_BODY_LOCK_ANGULAR_X ? 0.0f : x->w.x, l & CT_BODY_LOCK_ANGULAR_Y ? 0.0f : x->w.y,
           l & CT_BODY_LOCK_ANGULAR_Z ? 0.0f : x->w.z);
}

/* A row of J^-1 f by Cramer's rule (rigid__gyroscopic4): (c f.x + (p0 p1 - q0 q1) f.y +
 * (r0 r1 - s0 s1) f.z) / det, the adjugate's row c, p, r times f, as the scalar expression rounds. */
static inline f32x4 rigid__adjugate_row4(f32x4 c, f32x4 p0, f32x4 p1, f32x4 q0, f32x4 q1, f32x4 r0,
                                         f32x4 r1, f32x4 s0, f32x4 s1, v3x4 f, f32x4 inv_det)
{
    const f32x4 p = f32x4_sub(f32x4_mul(p0, p1), f32x4_mul(q0, q1)),
                r = f32x4_sub(f32x4_mul(r0, r1), f32x4_mul(s0, s1));
    return f32x4_mul(f32x4_add(f32x4_add(f32x4_mul(c, f.x), f32x4_mul(p, f.y)), f32x4_mul(r, f.z)),
                     inv_det);
}

/* J^-1 f of rigid__gyroscopic4 for principal moments `moment` and their differences times h, g
 * (a, b, c), at w in the body's frame; *det is J's determinant. */
static inline v3x4 rigid__newton4(v3x4 moment, v3x4 g, v3x4 w, f32x4 *det)
{
    /* J's entries by index (J0, J4, J8 are the moments) and f, whose products are J's. */
    const f32x4 J0 = moment.x, J4 = moment.y, J8 = moment.z;
    const f32x4 J1 = f32x4_mul(g.x, w.z), J2 = f32x4_mul(g.x, w.y), J3 = f32x4_mul(g.y, w.z),
                J5 = f32x4_mul(g.y, w.x), J6 = f32x4_mul(g.z, w.y), J7 = f32x4_mul(g.z, w.x);
    const v3x4 f = {f32x4_mul(J2, w.z), f32x4_mul(J3, w.x), f32x4_mul(J7, w.y)};
    /* The cofactors of J's first column give its determinant; the adjugate's rows times f the
     * answer. */
    const f32x4 c0 = f32x4_sub(f32x4_mul(J4, J8), f32x4_mul(J5, J7)),
                c1 = f32x4_sub(f32x4_mul(J5, J6), f32x4_mul(J3, J8)),
                c2 = f32x4_sub(f32x4_mul(J3, J7), f32x4_mul(J4, J6));
    *det = f32x4_add(f32x4_add(f32x4_mul(J0, c0), f32x4_mul(J1, c1)), f32x4_mul(J2, c2));
    const f32x4 id = f32x4_div(f32x4_splat(1.0f), *det);
    return (v3x4){rigid__adjugate_row4(c0, J2, J7, J1, J8, J1, J5, J2, J4, f, id),
                  rigid__adjugate_row4(c1, J0, J8, J2, J6, J2, J3, J0, J5, f, id),
                  rigid__adjugate_row4(c2, J1, J6, J0, J7, J0, J4, J1, J3, f, id)};
}

/* The lanes (bits) whose determinant and answer's components are all finite (a sum of
 * infinities of either sign is one or NaN). */
static inline uint32_t rigid__finite4(v3x4 x, f32x4 det)
{
    const f32x4 inf = f32x4_splat(INFINITY);
    return mask32x4_bits(f32x4_greater(inf, f32x4_abs(det))) &
           mask32x4_bits(f32x4_greater(inf, f32x4_abs(f32x4_add(f32x4_add(x.x, x.y), x.z))));
}

/* The gyroscopic term of bodies spinning at w (world axes) for a substep h, implicitly: one
 * Newton step on  I (w2 - w) + h w2 x (I w2) = 0  in the body's frame, where the inertia I is
 * diagonal (stable for spinning long bodies; Box2D v3's and Box3D's scheme). There
 *   J = I + h (skew(w) I - skew(I w))  and  f = h w x (I w)
 * are written with the differences of the principal moments, a = h (Iz - Iy), b = h (Ix - Iz)
 * and c = h (Iy - Ix), which is what they are made of:
 *   J = [Ix, a wz, a wy; b wz, Iy, b wx; c wy, c wx, Iz],  f = (a wy wz, b wz wx, c wx wy),
 * so an axisymmetric body's moment about its axis is exactly kept (a, b or c is exactly 0), and
 * the answer is w minus J^-1 f turned back to world axes (Cramer's rule: no inverse). Only the
 * change is turned back, so w keeps its bits where the change is 0. The moments and a, b, c are
 * the body's drive's (rigid__drive_of, once a step). The caller skips a body of equal moments (a
 * ball, a cube), whose term is exactly 0: in jolt_high_speed one body in three, and every cube of
 * the pyramids.
 * Four bodies at a time (body[k] in lane k; the first n are written back, the lanes after them
 * repeat lane 0): the same operations in the same order as one at a time, so each body gets the
 * same bits in any lane. One at a time it was a tenth of convex_vs_mesh's instructions (three in
 * four of its bodies are boxes, capsules and hulls). */
static void rigid__gyroscopic4(const physics__bodies *b, physics__rigid_body *st,
                               const physics__rigid_drive *drive, const uint32_t body[4],
                               uint32_t n)
{
    const physics__quat *q[4];
    const physics__rigid_drive *d[4];
    float *w_at[4], qw[4];
    for (uint32_t k = 0; k < 4; k++) {
        const uint32_t i = body[k < n ? k : 0];
        q[k] = &b->rotation[i];
        d[k] = &drive[i];
        w_at[k] = &st[i].w.x;
        qw[k] = q[k]->w;
    }
    const v3x4 u = v3x4_gather(&q[0]->x, &q[1]->x, &q[2]->x, &q[3]->x);
    const v3x4 w_world = v3x4_gather(w_at[0], w_at[1], w_at[2], w_at[3]);
    const v3x4 moment = v3x4_gather(&d[0]->ix, &d[1]->ix, &d[2]->ix, &d[3]->ix);
    const v3x4 g = v3x4_gather(&d[0]->ga, &d[1]->ga, &d[2]->ga, &d[3]->ga);
    const f32x4 w4 = f32x4_load(qw);
    const v3x4 un = {f32x4_negate(u.x), f32x4_negate(u.y), f32x4_negate(u.z)};
    const v3x4 w = v3x4_quat_rotate(un, w4, w_world);
    f32x4 det;
    v3x4 x = rigid__newton4(moment, g, w, &det);
    const f32x4 tiny = f32x4_splat(1e-30f);
    mask32x4 solvable = f32x4_greater(f32x4_abs(det), tiny);
    /* Moments whose products overflow a float (each may be given up to 1e15: a 1 km asteroid of
     * 1e9 kg has 1e14), whose determinant came out infinite or NaN (the answer then 0 or NaN, the
     * term left out: such a body never tumbled), are solved again divided by the largest (J and f
     * scale alike: the same answer; test_huge_moments_tumble_as_small_ones). Only there:
     * every other lane keeps its bits, and a lane still not finite keeps w, as one whose J is
     * singular (|det| <= 1e-30). */
    const uint32_t overflowed =
        ~rigid__finite4(x, det) & ~mask32x4_bits(f32x4_greater(tiny, f32x4_abs(det))) & 15u;
    if (overflowed) {
        float s[4];
        for (uint32_t k = 0; k < 4; k++)
            s[k] = 1.0f / f_max(f_max(d[k]->ix, d[k]->iy), d[k]->iz);
        const f32x4 scale = f32x4_load(s);
        f32x4 det_scaled;
        const v3x4 x_scaled =
            rigid__newton4(v3x4_scale(moment, scale), v3x4_scale(g, scale), w, &det_scaled);
        const mask32x4 redo = mask32x4_of_bits(overflowed);
        x = v3x4_pick(redo, x_scaled, x);
        det = f32x4_pick(redo, det_scaled, det);
        solvable = mask32x4_of_bits(mask32x4_bits(f32x4_greater(f32x4_abs(det), tiny)) &
                                    rigid__finite4(x, det));
    }
    const v3x4 turned = v3x4_pick(solvable, v3x4_sub(w_world, v3x4_quat_rotate(u, w4, x)), w_world);
    v3x4_scatter(w_at[0], w_at[1], w_at[2], w_at[3], turned, (1u << n) - 1u);
}

/* Gravity, forces and torques into the velocities of awake dynamic bodies; the gyroscopic term
 * implicitly (rigid__gyroscopic4). */
typedef struct rigid__body_job {
    physics__scene *s;
    float h;
} rigid__body_job;

/* Whether w is (+0, +0, +0), every bit clear: a body that has not turned yet (falling from where
 * it was placed). Its gyroscopic term is then w itself, every bit: the moments' products with +0
 * are zeros of either sign, so is J^-1 f and its turn back, and +0 less a zero is +0. The term
 * is left out there: in convex_vs_mesh the bodies fall for most of their first two seconds. */
static inline bool rigid__unspun(physics__v3 w)
{
    uint32_t bits[3];
    memcpy(bits, &w, sizeof bits);
    return (bits[0] | bits[1] | bits[2]) == 0u;
}

/* The end of body x's velocity update: its locked axes, then its speeds within their ranges. */
static inline void rigid__velocity_end(physics__rigid_body *x, uint8_t locks)
{
    rigid__lock(x, locks);
    const float vmax = CT_PHYSICS_MAX_SPEED, wmax = CT_PHYSICS_MAX_ANGULAR_SPEED;
    const float vv = v3_dot(x->v, x->v), ww = v3_dot(x->w, x->w);
    if (vv > vmax * vmax)
        x->v = v3_scale(x->v, vmax / sqrtf(vv));
    if (ww > wmax * wmax)
        x->w = v3_scale(x->w, wmax / sqrtf(ww));
}

/* The gyroscopic terms of n (1 to 4) bodies, then the ends of their velocity updates. */
static void rigid__turn_bodies(physics__scene *s, const uint32_t turning[4], uint32_t n)
{
    rigid__gyroscopic4(&s->bodies, s->rigid.body, s->rigid.drive, turning, n);
    for (uint32_t k = 0; k < n; k++)
        rigid__velocity_end(&s->rigid.body[turning[k]], s->bodies.locks[turning[k]]);
}

static void rigid__velocities_range(void *user, uint32_t begin, uint32_t end)
{
    const rigid__body_job *job = user;
    physics__scene *s = job->s;
    const physics__bodies *b = &s->bodies;
    physics__rigid_body *st = s->rigid.body;
    const physics__rigid_drive *drive = s->rigid.drive;
    const uint32_t last = s->rigid.body_cut[end];
    uint32_t turning[4], n = 0; /* bodies waiting for their gyroscopic term, four at a time */
    for (uint32_t i = s->rigid.body_cut[begin]; i < last; i++) {
        const physics__rigid_drive *d = &drive[i];
        if (!(d->flags & RIGID_DRIVE_MOVES))
            continue;
        physics__rigid_body *x = &st[i];
        /* (In locals: written through x, the drive's members were loaded again after each.) */
        physics__v3 v = v3_add(x->v, d->dv), w = v3_add(x->w, d->dw);
        if (d->flags & RIGID_DRIVE_DAMPED) {
            v = v3_scale(v, d->damp_v);
            w = v3_scale(w, d->damp_w);
        }
        x->v = v;
        x->w = w;
        if (!(d->flags & RIGID_DRIVE_GYROSCOPIC) || rigid__unspun(w)) {
            rigid__velocity_end(x, b->locks[i]);
            continue;
        }
        turning[n++] = i;
        if (n == 4) {
            rigid__turn_bodies(s, turning, n);
            n = 0;
        }
    }
    if (n)
        rigid__turn_bodies(s, turning, n);
}

/* Where the body stages' items begin (r->body_cut, and the bodies' end after the last), once the
 * contacts are made: at the body of each slice of SOLVER_SLICE_PAIRS contacts' first (its moving
 * one, the lower when both move), kept in order, and every SOLVER_SLICE_BOXES bodies between. The
 * threads take each stage's items from its two ends (physics_stages.c), and the colours' jobs go
 * by slice of contacts (physics_rigid_wide.c, wide__cut); the contacts go by entity pair, whose
 * lower entity is about their bodies' place in a world built in order (a pile's, a row's), so a
 * thread's bodies in the velocity and position passes are about those of the contacts it solves
 * in the colours: cut in slices of SOLVER_SLICE_BOXES, the threads met at one of a few places,
 * seldom where they met in the colours, and the bodies between (up to half a slice, every body
 * pass) had their velocities written by one core and read by the other. */
static int rigid__body_cuts(physics__scene *s)
{
    physics__rigid *r = &s->rigid;
    const uint32_t bodies = s->bodies.n;
    const uint32_t slices = physics__pair_slices(r->num_contacts);
    if (physics__reserve(s->a, (void **)&r->body_cut, &r->cap_body_cut,
                         slices + bodies / SOLVER_SLICE_BOXES + 2, sizeof *r->body_cut))
        return CT_ERR_NOMEM;
    /* (With no contacts, the bodies in items of SOLVER_SLICE_BOXES.) */
    const uint32_t ends = slices ? slices : 1;
    uint32_t items = 0, at = 0;
    for (uint32_t t = 1; t <= ends; t++) {
        uint32_t next = bodies;
        if (t < slices) {
            const physics__rigid_kept *c = &r->contact[t * SOLVER_SLICE_PAIRS];
            next = r->body[c->a].inv_mass > 0.0f ? c->a : c->b;
        }
        while (at < next) {
            r->body_cut[items++] = at;
            at = next - at > SOLVER_SLICE_BOXES ? at + SOLVER_SLICE_BOXES : next;
        }
    }
    r->body_cut[items] = bodies;
    r->num_body_items = items;
    return 0;
}

/* Bodies a job of the body stages takes at the least, on average: a job of fewer costs more in
 * its claim than in its bodies. */
#define RIGID_BODY_JOB 128u

/* The jobs of the body stages: as many of their items (rigid__body_cuts) a job as make
 * RIGID_BODY_JOB bodies on average. */
static uint32_t rigid__body_grain(const physics__scene *s)
{
    const uint64_t bodies = s->bodies.n ? s->bodies.n : 1u;
    return (uint32_t)(((uint64_t)s->rigid.num_body_items * RIGID_BODY_JOB + bodies - 1) / bodies);
}

/* A stage of fn over the body stages' items (rigid__body_cuts; on any threads). */
static void rigid__body_stage(physics__scene *s, ct_range_f fn, float h)
{
    const rigid__body_job job = {s, h};
    physics__stages_add(&s->rigid.stages, s->a, fn, (void *)&job, sizeof job,
                        s->rigid.num_body_items, rigid__body_grain(s));
}

/* Contact c's impulses of the last substep (or step), applied again. Two ways to save this walk
 * over the contacts were tried: applying them contact by contact inside the biased pass (the
 * contacts solved first then push as if the later ones held nothing, and a ten-box stack fell),
 * and summing them per body in the relaxing pass (no faster on large_pyramid, 23.9 against 24.2
 * ms, and the same stack drifted a centimetre from the changed rounding). */
void physics__rigid_warm_contact(const physics__rigid_contact *c, physics__rigid_body *A,
                                 physics__rigid_body *B)
{
    for (uint32_t q = 0; q < c->count; q++)
        rigid__push(A, B, &c->p[q].n, c->normal, c->p[q].n.j);
    rigid__push(A, B, &c->f1, c->t1, c->f1.j);
    rigid__push(A, B, &c->f2, c->t2, c->f2.j);
    A->w = v3_sub(A->w, v3_scale(c->twist_a, c->twist_j));
    B->w = v3_add(B->w, v3_scale(c->twist_b, c->twist_j));
}

/* One pass of contact c (mode PHYSICS_WIDE_PUSH, _RELAX or _SETTLE): the normals (soft when
 * pushing, rigid and without push when relaxing), then, but for _SETTLE, the twist and the
 * friction at the centre (Box3D applies friction only when relaxing: here in both passes, see
 * RIGID_FRICTION_WHILE_PUSHING; its anchor only while pushing). Where two moving bodies rest on
 * each other on more than one point (not an impact), the pushing pass's friction is the anchor
 * alone, a soft constraint as the normals are (their mass and impulse scales): solved on the
 * velocities there, rigidly against the soft normals, it kept a box on one 5 or 10 times lighter
 * rocking for ever at 0.02 to 0.06 rad/s (the warm start put back what the pass took out);
 * solved there not at all (Box3D's way), the rows of large_pyramid slid and its top moved 3 cm;
 * without the anchor, the top of a 30-row pyramid crept 2.2 mm. On one point (a ball, a
 * capsule's end) that anchor alone rolls the bodies: the balls and capsules of a resting pile
 * (test_resting_piles_fall_asleep) kept rolling at metres a second. The relaxing pass solves
 * friction on the velocities. order: the order of a resting contact's points
 * (physics__rigid_point_at; physics__rigid_step turns it every substep). physics_rigid_wide.c
 * does the same four contacts at a time (a block of an impact keeps its order). */
void physics__rigid_solve_contact(physics__rigid_contact *c, physics__rigid_body *A,
                                  physics__rigid_body *B, float inv_h, int mode, uint32_t order)
{
    const bool use_bias = mode == PHYSICS_WIDE_PUSH;
    if (mode == PHYSICS_WIDE_SETTLE && c->passes > 1u)
        return; /* (an impact: resting points only) */
    {
        const physics__v3 n = c->normal;
        const float moved = v3_dot(v3_sub(B->dp, A->dp), n);
        float total = 0.0f, twist_limit = 0.0f;
        for (uint32_t pass = 0; pass < c->passes; pass++)
            for (uint32_t at = 0; at < c->count; at++) {
                physics__rigid_point *p =
                    &c->p[c->passes == 1u ? physics__rigid_point_at(order, c->count, at) : at];
                /* The separation now, to first order: dot(dq x r, n) = dot(dq, r x n). */
                const float sep = p->sep + moved + v3_dot(B->dq, p->n.cb) - v3_dot(A->dq, p->n.ca);
                if (mode == PHYSICS_WIDE_SETTLE && sep > 0.0f)
                    continue; /* (resting points only) */
                float bias = 0.0f, mass_scale = 1.0f, impulse_scale = 0.0f;
                if (sep > 0.0f) {
                    bias = sep * inv_h; /* speculative: close the gap, no more */
                } else if (use_bias) {
                    bias = f_max(c->mass_scale * c->bias_rate * sep, -RIGID_PUSH_SPEED);
                    mass_scale = c->mass_scale;
                    impulse_scale = c->impulse_scale;
                }
                const float vn = rigid__speed(A, B, &p->n, n);
                const float j = f_max(
                    p->n.j - p->n.mass * (mass_scale * vn + bias) - impulse_scale * p->n.j, 0.0f);
                const float applied = j - p->n.j;
                p->n.j = j;
                p->max_jn = f_max(p->max_jn, applied);
                rigid__push(A, B, &p->n, n, applied);
            }
        if (mode == PHYSICS_WIDE_SETTLE)
            return;
        for (uint32_t q = 0; q < c->count; q++) {
            total += c->p[q].n.j;
            twist_limit += c->p[q].lever * c->p[q].n.j;
        }
        if (use_bias && !RIGID_FRICTION_WHILE_PUSHING)
            return;
        {
            const float spin = v3_dot(n, v3_sub(B->w, A->w));
            const float most = c->friction * twist_limit;
            const float j = f_min(f_max(c->twist_j - c->twist_mass * spin, -most), most);
            const float applied = j - c->twist_j;
            c->twist_j = j;
            A->w = v3_sub(A->w, v3_scale(c->twist_a, applied));
            B->w = v3_add(B->w, v3_scale(c->twist_b, applied));
        }
        float j1, j2;
        if (use_bias && c->passes == 1u && c->count > 1u && A->inv_mass > 0.0f &&
            B->inv_mass > 0.0f) { /* (the anchor alone, as a soft constraint) */
            const float u1 = c->mass_scale * c->anchor1, u2 = c->mass_scale * c->anchor2;
            j1 = c->f1.j - (c->k11 * u1 + c->k12 * u2) - c->impulse_scale * c->f1.j;
            j2 = c->f2.j - (c->k12 * u1 + c->k22 * u2) - c->impulse_scale * c->f2.j;
        } else {
            float v1 = rigid__speed(A, B, &c->f1, c->t1), v2 = rigid__speed(A, B, &c->f2, c->t2);
            if (use_bias) { /* the anchor (as the normals' push, only while pushing) */
                v1 += c->anchor1;
                v2 += c->anchor2;
            }
            j1 = c->f1.j - (c->k11 * v1 + c->k12 * v2);
            j2 = c->f2.j - (c->k12 * v1 + c->k22 * v2);
        }
        const float limit = c->friction * total, sq = j1 * j1 + j2 * j2;
        if (sq > limit * limit) {
            const float scale = sq > 0.0f ? limit / sqrtf(sq) : 0.0f;
            j1 *= scale;
            j2 *= scale;
        }
        rigid__push(A, B, &c->f1, c->t1, j1 - c->f1.j);
        rigid__push(A, B, &c->f2, c->t2, j2 - c->f2.j);
        c->f1.j = j1;
        c->f2.j = j2;
    }
}

/* Positions and rotations of the bodies that move (awake dynamic and kinematic). */
static void rigid__positions_range(void *user, uint32_t begin, uint32_t end)
{
    const rigid__body_job *job = user;
    physics__scene *s = job->s;
    const float h = job->h;
    physics__bodies *b = &s->bodies;
    physics__rigid_body *st = s->rigid.body;
    const uint32_t last = s->rigid.body_cut[end];
    for (uint32_t i = s->rigid.body_cut[begin]; i < last; i++) {
        if (b->kind[i] == CT_BODY_STATIC || b->asleep[i])
            continue;
        physics__rigid_body *x = &st[i];
        if (b->kind[i] == CT_BODY_DYNAMIC)
            rigid__lock(x, b->locks[i]);
        const physics__v3 move = v3_scale(x->v, h), turn = v3_scale(x->w, h);
        b->position[i] = v3_add(b->position[i], move);
        x->dp = v3_add(x->dp, move);
        if (turn.x != 0.0f || turn.y != 0.0f || turn.z != 0.0f) {
            b->rotation[i] = quat_integrate(b->rotation[i], x->w, h);
            x->dq = v3_add(x->dq, turn);
            s->rigid.drive[i].flags |= RIGID_DRIVE_TURNED;
        }
    }
}

/* The solved velocities back to the bodies that move, the world boxes of those that turned from
 * their new rotations, and the forces of the step spent (the body stages' items, rigid__body_cuts:
 * on any threads). */
static void rigid__scatter_range(void *user, uint32_t begin, uint32_t end)
{
    physics__scene *s = user;
    physics__bodies *b = &s->bodies;
    physics__rigid *r = &s->rigid;
    const uint32_t last = r->body_cut[end];
    for (uint32_t i = r->body_cut[begin]; i < last; i++) {
        if (b->kind[i] == CT_BODY_DYNAMIC)
            rigid__lock(&r->body[i], b->locks[i]);
        if (b->kind[i] != CT_BODY_STATIC && !b->asleep[i]) {
            b->velocity[i] = r->body[i].v;
            b->angular[i] = r->body[i].w;
            /* (One that did not turn keeps the box rigid__extent_range gave it, or it had asleep,
             * from the same rotation: in convex_vs_mesh half the bodies' steps are falls.) */
            if (b->rotates[i] && (r->drive[i].flags & RIGID_DRIVE_TURNED))
                physics__bodies_extent(b, i);
        }
        b->force[i] = b->torque[i] = v3(0, 0, 0);
    }
}

/* Points that came in faster than RIGID_BOUNCE_SPEED and pushed leave with restitution times that
 * speed. */
static void rigid__restitution(physics__scene *s)
{
    physics__rigid *r = &s->rigid;
    if (!r->bouncy)
        return;
    for (uint32_t k = 0; k < r->num_contacts; k++) {
        physics__rigid_kept *c = &r->contact[k];
        if (c->restitution == 0.0f)
            continue;
        physics__rigid_body *A = &r->body[c->a], *B = &r->body[c->b];
        for (uint32_t pass = 0; pass < c->passes; pass++)
            for (uint32_t q = 0; q < c->count; q++) {
                physics__rigid_kept_point *p = &c->p[q];
                if (p->rel_vn > -RIGID_BOUNCE_SPEED || p->max_jn == 0.0f)
                    continue;
                physics__rigid_row row;
                rigid__point_row(s, c, q, &row);
                const float vn = rigid__speed(A, B, &row, c->normal);
                const float j = f_max(p->jn - row.mass * (vn + c->restitution * p->rel_vn), 0.0f);
                rigid__push(A, B, &row, c->normal, j - p->jn);
                p->jn = j;
            }
    }
}

static void rigid__restitution_range(void *user, uint32_t begin, uint32_t end)
{
    (void)begin;
    (void)end;
    rigid__restitution(user);
}

/* ---- after the solve -------------------------------------------------------------------------- */

/* The separation of contact c's deepest point now. */
static float rigid__separation(const physics__scene *s, const physics__rigid_kept *c)
{
    const physics__rigid *r = &s->rigid;
    const physics__rigid_body *A = &r->body[c->a], *B = &r->body[c->b];
    const physics__rigid_geo *g = r->geo_at[c->pair];
    const physics__v3 gd = physics__rigid_geo_d(g);
    float least = INFINITY;
    /* Turned at every substep, its last turn's (the bodies have not moved since, unless one was
     * stopped at the world's border: physics__scene_keep_inside). */
    if (c->turns == RIGID_ANCHORS_TURN && s->report.escaped == 0)
        return c->turned_sep;
    if (c->turns) {
        physics__v3 ra[PHYSICS_MANIFOLD_POINTS], rb[PHYSICS_MANIFOLD_POINTS];
        float sep[PHYSICS_MANIFOLD_POINTS];
        rigid__turned(&s->bodies, c->a, c->b, g, c->count, ra, rb, sep);
        for (uint32_t q = 0; q < c->count; q++)
            least = f_min(least, sep[q]);
        return least;
    }
    const float moved = v3_dot(v3_sub(B->dp, A->dp), c->normal);
    for (uint32_t q = 0; q < c->count; q++) {
        /* (The rows' crosses, as rigid__row made them.) */
        const physics__v3 ca = v3_cross(g->ra[q], c->normal),
                          cb = v3_cross(v3_sub(g->ra[q], gd), c->normal);
        least = f_min(least, c->p[q].sep + moved + v3_dot(B->dq, cb) - v3_dot(A->dq, ca));
    }
    return least;
}

/* The contacts as physics_islands.c reads them: which bodies touch (its rule for the rigid step
 * reads no depth, see islands__resting). */
static int rigid__island_contacts(physics__scene *s)
{
    const physics__rigid *r = &s->rigid;
    physics__contacts *c = &s->contacts;
    if (physics__contacts_reserve(s, r->num_contacts))
        return CT_ERR_NOMEM;
    for (uint32_t k = 0; k < r->num_contacts; k++) {
        c->a[k] = r->contact[k].a;
        c->b[k] = r->contact[k].b;
    }
    c->n = r->num_contacts;
    return 0;
}

static bool rigid__still_asleep(const physics__scene *s, uint64_t key)
{
    const physics__bodies *b = &s->bodies;
    const uint32_t i = physics__bodies_find(b, (ct_entity_t){(uint32_t)(key >> 32)});
    const uint32_t j = physics__bodies_find(b, (ct_entity_t){(uint32_t)key});
    return i != UINT32_MAX && j != UINT32_MAX && physics__fixed(b, i) && physics__fixed(b, j);
}

static int rigid__ended(physics__events *events, uint64_t key)
{
    const ct_physics_contact_ended_event_t ev = {(uint32_t)(key >> 32), (uint32_t)key};
    return physics__events_write(events, CT_PHYSICS_EVENT_CONTACT_ENDED, &ev, sizeof ev);
}

/* The new cache (this step's contacts merged with the old ones of sleeping islands) and the
 * events, as in physics_contacts.c, on the pool (see physics__merge_begin). */
typedef struct rigid__merge_job {
    physics__scene *s;
    uint32_t slices;
    bool write;   /* false: count */
    bool counted; /* writing where the count placed each slice; false: where its contacts are */
} rigid__merge_job;

/* The cache entry of contact c, its impulses quantised: whether it touches. */
static bool rigid__remember_contact(const physics__scene *s, const physics__rigid_kept *c,
                                    uint32_t sub, physics__rigid_cached *e, float *total,
                                    uint32_t *first)
{
    const physics__bodies *b = &s->bodies;
    const physics__rigid *r = &s->rigid;
    float deepest = 0.0f;
    *total = 0.0f;
    *first = 0;
    *e = (physics__rigid_cached){.key = c->key,
                                 .count = c->count,
                                 .sub = (uint16_t)sub,
                                 .asleep = physics__fixed(b, c->a) && physics__fixed(b, c->b)};
    for (uint32_t q = 0; q < c->count; q++) {
        e->id[q] = c->p[q].id;
        e->jn[q] = c->p[q].jn;
        *total += c->p[q].jn;
        if (c->p[q].jn > deepest)
            deepest = c->p[q].jn, *first = q;
    }
    e->f1 = c->f1;
    e->f2 = c->f2;
    e->geo = *r->geo_at[c->pair];
    e->twist = c->twist;
    physics__rigid_quantise(e);
    e->touching = rigid__separation(s, c) <= RIGID_TOUCH && *total > 0.0f;
    return e->touching;
}

/* Where slice t of the merge begins: at contact t * SOLVER_SLICE_PAIRS, moved on past the rest of
 * a pair whose manifolds began in the slice before (a pair's contacts are merged by one slice:
 * its events are the pair's). */
static uint32_t rigid__merge_first(const physics__rigid *r, uint32_t t)
{
    uint32_t k = t * SOLVER_SLICE_PAIRS;
    if (k >= r->num_contacts)
        return r->num_contacts;
    while (k > 0 && k < r->num_contacts && r->contact[k].key == r->contact[k - 1].key)
        k++;
    return k;
}

/* The key of contact k, or past every key when k is the end. */
static inline uint64_t rigid__merge_key(const physics__rigid *r, uint32_t k)
{
    return k < r->num_contacts ? r->contact[k].key : UINT64_MAX;
}

/* Slice t of the merge: counts its entries into s->merge[3t + 1], or writes them from there on
 * (leaving there where it ended; not counted, from its first contact's place) and its events into
 * s->merge_events[t] (s->merge[3t + 2]: PHYSICS_MERGE_NOMEM when memory ran out,
 * PHYSICS_MERGE_ASLEEP when it wrote an entry of bodies that do not move). A pair touches while any
 * of its manifolds does; its collision event is its manifold that pushes most. */
static void rigid__merge_slice(const rigid__merge_job *job, uint32_t t)
{
    physics__scene *s = job->s;
    const physics__bodies *b = &s->bodies;
    physics__rigid *r = &s->rigid;
    const bool write = job->write;
    const uint32_t k0 = rigid__merge_first(r, t);
    const uint32_t k1 = t + 1 < job->slices ? rigid__merge_first(r, t + 1) : r->num_contacts;
    uint32_t *m = &s->merge[3 * t];
    physics__events *events = &s->merge_events[t];
    if (!write || !job->counted)
        m[0] = t > 0 ? physics__merge_find(r->cache, sizeof *r->cache, 0, r->num_cache,
                                           rigid__merge_key(r, k0))
                     : 0;
    if (write && !job->counted)
        m[1] = k0;
    if (write) {
        m[2] = 0;
        events->size = 0;
    }
    physics__rigid_cached *next = r->next_cache;
    uint32_t at = m[0], n = write ? m[1] : 0;
    bool asleep = false;
    /* The next slice's first (its count may be running: found again here). */
    const uint64_t next_key = rigid__merge_key(r, k1);
    const uint32_t end = t + 1 < job->slices ? physics__merge_find(r->cache, sizeof *r->cache, at,
                                                                   r->num_cache, next_key)
                                             : r->num_cache;
    for (uint32_t k = k0; k <= k1;) {
        const physics__rigid_kept *c = k < k1 ? &r->contact[k] : NULL;
        /* The old contacts of pairs before this one that this step did not find. */
        while (at < end && (!c || r->cache[at].key < c->key)) {
            const uint64_t key = r->cache[at].key;
            if (r->cache[at].asleep && (!s->woke || rigid__still_asleep(s, key))) {
                for (; at < end && r->cache[at].key == key; at++) {
                    if (write)
                        next[n] = r->cache[at];
                    n++;
                }
                asleep = true;
                continue;
            }
            bool touching = false;
            for (; at < end && r->cache[at].key == key; at++)
                touching |= r->cache[at].touching != 0;
            if (write && touching && rigid__ended(events, key)) {
                m[2] = PHYSICS_MERGE_NOMEM;
                return;
            }
        }
        if (!c)
            break;
        bool was = false;
        for (; at < end && r->cache[at].key == c->key; at++)
            was |= r->cache[at].touching != 0;
        /* The pair's contacts: k up to (not with) last. */
        uint32_t last = k;
        while (last < k1 && r->contact[last].key == c->key)
            last++;
        if (!write) {
            n += last - k;
            k = last;
            continue;
        }
        bool is = false;
        float most = -1.0f;
        uint32_t loudest = k, loudest_first = 0;
        for (uint32_t g = k; g < last; g++) {
            float total;
            uint32_t first;
            is |= rigid__remember_contact(s, &r->contact[g], g - k, &next[n++], &total, &first);
            asleep |= next[n - 1].asleep != 0;
            if (next[n - 1].touching && total > most)
                most = total, loudest = g, loudest_first = first;
        }
        k = last;
        if (was && !is && rigid__ended(events, c->key)) {
            m[2] = PHYSICS_MERGE_NOMEM;
            return;
        }
        if (was || !is)
            continue;
        const physics__rigid_kept *l = &r->contact[loudest];
        ct_physics_collision_event_t ev = {.a = b->entity[l->a].id,
                                           .b = b->entity[l->b].id,
                                           .impulse = most,
                                           .speed = f_max(-l->p[loudest_first].rel_vn, 0.0f)};
        v3_store(v3_add(b->position[l->a], l->center_a), ev.point);
        v3_store(l->normal, ev.normal);
        if (physics__events_write(events, CT_PHYSICS_EVENT_COLLISION, &ev, sizeof ev)) {
            m[2] = PHYSICS_MERGE_NOMEM;
            return;
        }
    }
    m[1] = n; /* counting: the slice's count; writing: where it ended */
    if (write && asleep)
        m[2] = PHYSICS_MERGE_ASLEEP;
}

static void rigid__merge_range(void *user, uint32_t begin, uint32_t end)
{
    for (uint32_t t = begin; t < end; t++)
        rigid__merge_slice(user, t);
}

static int rigid__remember(physics__scene *s)
{
    physics__rigid *r = &s->rigid;
    /* Without a pool the merge is one slice, written as it is walked: the count that lets slices
     * write side by side would be a second walk over both lists for nothing (the same bits: the
     * slices' result is one walk's). */
    const bool serial = !s->pool.parallel_for;
    const uint32_t slices = r->num_contacts && !serial
                                ? physics__pair_slices(r->num_contacts)
                                : 1;
    if (physics__reserve(s->a, (void **)&r->next_cache, &r->cap_next_cache,
                         r->num_contacts + r->num_cache, sizeof *r->next_cache) ||
        physics__merge_begin(s, slices))
        return CT_ERR_NOMEM;
    /* The old cache keeps only entries of bodies that do not move (asleep): with none of those,
     * each slice's entries are its contacts, and it writes them from its first contact's place
     * with no count before (a walk over both lists, as long as the writing's on two threads).
     * The slices are stages (physics_stages.c) as the contacts' are (rigid__contact_range): each
     * thread merges about the slices whose contacts it made, and the next step's contacts read
     * the entries it writes. */
    rigid__merge_job job = {s, slices, serial || !r->cache_asleep, false};
    uint32_t n = r->num_contacts;
    if (!job.write) {
        physics__stages_add(&r->stages, s->a, rigid__merge_range, &job, sizeof job, slices, 1);
        if (physics__stages_run(&r->stages, s->a, s->pool, s->pool_timed))
            return CT_ERR_NOMEM;
        n = physics__merge_places(s, slices);
        job.write = job.counted = true;
    }
    physics__stages_add(&r->stages, s->a, rigid__merge_range, &job, sizeof job, slices, 1);
    if (physics__stages_run(&r->stages, s->a, s->pool, s->pool_timed))
        return CT_ERR_NOMEM;
    if (!job.counted)
        n = s->merge[3 * (slices - 1) + 1];
    r->cache_asleep = false;
    for (uint32_t t = 0; t < slices; t++)
        r->cache_asleep |= (s->merge[3 * t + 2] & PHYSICS_MERGE_ASLEEP) != 0;
    if (physics__merge_events(s, slices))
        return CT_ERR_NOMEM;
    physics__rigid_cached *t = r->cache;
    const uint32_t cap = r->cap_cache;
    r->cache = r->next_cache;
    r->cap_cache = r->cap_next_cache;
    r->next_cache = t;
    r->cap_next_cache = cap;
    r->num_cache = n;
    s->woke = false;
    return 0;
}

/* The step's pairs (candidates, in key order) and their manifolds (rigid__narrow_range). */
static int rigid__detect(physics__scene *s, float dt, const physics__keyed_pair **order,
                         uint32_t *count)
{
    physics__bodies *b = &s->bodies;
    physics__rigid *r = &s->rigid;
    uint32_t m;
    if (physics__scene_candidates(s, dt) || physics__contacts_order(s, order, &m))
        return CT_ERR_NOMEM;
    *count = m;
    physics__mesh_near_reserve(b);
    const uint32_t slices = physics__pair_slices(m);
    uint32_t num_slots = m;
    if (rigid__slot_pairs(s, *order, m))
        return CT_ERR_NOMEM;
    if (r->multi)
        num_slots += r->more[m];
    if (physics__reserve(s->a, (void **)&r->narrow, &r->cap_narrow, num_slots, sizeof *r->narrow) ||
        physics__reserve(s->a, (void **)&r->geo, &r->cap_geo, num_slots, sizeof *r->geo) ||
        physics__reserve(s->a, (void **)&r->geo_at, &r->cap_geo_at, num_slots, sizeof *r->geo_at) ||
        physics__reserve(s->a, (void **)&r->slid, &r->cap_slid, num_slots, sizeof *r->slid) ||
        physics__reserve(s->a, (void **)&r->made, &r->cap_made, m, sizeof *r->made) ||
        physics__reserve(s->a, (void **)&r->kept, &r->cap_kept, slices, sizeof *r->kept))
        return CT_ERR_NOMEM;
    /* Stages (physics_stages.c), whose threads take the slices from the two ends as the
     * contacts' (rigid__contact_range) do: each core makes the contacts of about the manifolds it
     * found, which a pool's shared cursor dealt to the two cores in turn. */
    rigid__narrow_job job = {s, *order, m, dt};
    physics__stages_add(&r->stages, s->a, rigid__narrow_range, &job, sizeof job, slices, 1);
    if (physics__stages_run(&r->stages, s->a, s->pool, s->pool_timed))
        return CT_ERR_NOMEM;
    r->recycled = 0;
    for (uint32_t slice = 0; slice < slices; slice++)
        r->recycled += r->kept[slice] >> 16 & 0x3fffu;
    return 0;
}

/* Wakes the sleeping islands that the pairs found hit (NARROW_HIT), in pair order; whether any. */
static bool rigid__wake_hits(physics__scene *s, const physics__keyed_pair *order, uint32_t m)
{
    const physics__bodies *b = &s->bodies;
    const physics__rigid *r = &s->rigid;
    const uint32_t slices = physics__pair_slices(m);
    bool any = false;
    for (uint32_t slice = 0; slice < slices; slice++) {
        if (!(r->kept[slice] & RIGID_SLICE_HITS))
            continue;
        const uint32_t last = slice * SOLVER_SLICE_PAIRS + SOLVER_SLICE_PAIRS < m
                                  ? slice * SOLVER_SLICE_PAIRS + SOLVER_SLICE_PAIRS
                                  : m;
        for (uint32_t k = slice * SOLVER_SLICE_PAIRS; k < last; k++)
            if (r->made[k] >> 4 & NARROW_HIT) {
                physics__contacts_want_awake(s, b->asleep[order[k].a] ? order[k].a : order[k].b);
                any = true;
            }
    }
    if (any)
        physics__islands_wake_listed(s);
    return any;
}

int physics__rigid_step(physics__scene *s, float dt)
{
    physics__bodies *b = &s->bodies;
    physics__rigid *r = &s->rigid;
    s->events.size = 0;
    s->report = (physics__step_report){0};
    s->num_wake = 0;
    if (physics__reserve(s->a, (void **)&s->island_rest, &s->cap_island_rest, b->n,
                         sizeof *s->island_rest) ||
        physics__reserve(s->a, (void **)&s->islands, &s->cap_islands, b->n, sizeof *s->islands) ||
        physics__reserve(s->a, (void **)&r->body, &r->cap_body, b->n, sizeof *r->body) ||
        physics__reserve(s->a, (void **)&r->inv_i, &r->cap_inv_i, b->n, sizeof *r->inv_i) ||
        physics__reserve(s->a, (void **)&r->drive, &r->cap_drive, b->n, sizeof *r->drive))
        return CT_ERR_NOMEM;
    if (physics__joints_begin(s))
        return CT_ERR_NOMEM;
    physics__pool_run(s->pool, (b->n + SOLVER_SLICE_BOXES - 1) / SOLVER_SLICE_BOXES,
                      rigid__extent_range, b);
    const physics__keyed_pair *order;
    uint32_t m;
    if (rigid__detect(s, dt, &order, &m))
        return CT_ERR_NOMEM;
    /* A body that hits a sleeping island (a bullet into a sleeping crate) wakes it now, and the
     * pairs are found again with its bodies awake: taken for fixed in this step, the island
     * stopped the body dead and woke at the next step with nothing of the hit. The island's
     * bodies are still, so the second time no pair hits a sleeping one that the first did not. */
    if (rigid__wake_hits(s, order, m) && rigid__detect(s, dt, &order, &m))
        return CT_ERR_NOMEM;
    for (uint32_t i = 0; i < b->n; i++)
        s->report.awake += b->kind[i] == CT_BODY_DYNAMIC && !b->asleep[i];
    const uint32_t substeps = RIGID_SUBSTEPS;
    const float h = dt / (float)substeps, inv_h = 1.0f / h;
    if (rigid__contacts(s, order, m, h) || rigid__body_cuts(s))
        return CT_ERR_NOMEM;
    /* The substeps' passes are stages of one parallel section (physics_stages.c): each starts
     * when the one before has finished, as if called one after the other. */
    for (uint32_t step = 0; step < substeps; step++) {
        /* Each resting manifold's points are solved in a new order each substep, so that over a
         * step's four each point of a face comes first once (physics__rigid_point_at): one
         * sequential pass favours the points it meets first (they push before the others and the
         * body turns away from the later ones), always the same way round in a resting pile, and
         * large_pyramid's rows leaned and turned with it. Only turning the order round every
         * other substep still met the same side of a face first (first to last and last to first
         * both start on one edge of a box's face), and the 90-row pile leaned off its plane and
         * back by half a centimetre at the top over 1,000 steps. An impact's points keep their
         * order: its passes (RIGID_IMPACT_PASSES) leave little to favour, and turning them round
         * let a bullet of test_physics_ccd's room through a wall. */
        const uint32_t order = step & 3u;
        rigid__body_stage(s, rigid__velocities_range, h);
        physics__joints_stages(s, h, PHYSICS_WIDE_WARM);
        physics__rigid_wide_pass(s, PHYSICS_WIDE_WARM, inv_h, order);
        physics__rigid_wide_pass(s, PHYSICS_WIDE_PUSH, inv_h, order);
        physics__joints_stages(s, h, PHYSICS_WIDE_PUSH);
        rigid__body_stage(s, rigid__positions_range, h);
        if (r->turns)
            physics__stages_add(&r->stages, s->a, rigid__turn_range, s, 0,
                                physics__pair_slices(m), 1);
        physics__rigid_wide_pass(s, PHYSICS_WIDE_RELAX, inv_h, order);
        physics__joints_stages(s, h, PHYSICS_WIDE_RELAX);
        /* The step's velocities end with the normals relaxed once more the other way round: the
         * colours last to first and each face's points in the reverse order of the pass before
         * (a symmetric Gauss-Seidel sweep). One sweep always in the same direction leaves the
         * contacts met first pushing harder (the colours follow the entity-pair order, which
         * in a pile goes from one side to the other), and what it leaves over swayed
         * large_pyramid's rows from side to side for seconds after it settled (its top 1.2 cm
         * at step 200; 0.75 with this sweep). Normals only (friction and twist were solved just
         * before, and the sweep costs half a pass) and resting points only: an impact's passes
         * and a speculative point's gap are left as the step solved them (swept again, they let
         * 11 of test_physics_ccd's bullets through the room's walls without sweeps, 5 before). */
        if (step + 1 == substeps)
            physics__rigid_wide_pass(s, PHYSICS_WIDE_SETTLE, inv_h, order ^ 1u);
    }
    physics__rigid_wide_finish(s);
    physics__joints_stages(s, h, PHYSICS_JOINTS_END);
    if (r->bouncy)
        physics__stages_add(&r->stages, s->a, rigid__restitution_range, s, 0, 1, 0);
    physics__stages_add(&r->stages, s->a, rigid__scatter_range, s, 0, r->num_body_items,
                        rigid__body_grain(s));
    if (physics__stages_run(&r->stages, s->a, s->pool, s->pool_timed))
        return CT_ERR_NOMEM;
    physics__scene_keep_inside(s);
    if (s->sleeping && rigid__island_contacts(s))
        return CT_ERR_NOMEM;
    physics__islands_wake_listed(s);
    physics__islands_sleep(s, dt, r->body);
    /* The grid of moving boxes was built from the bodies' paths without their turning: queries
     * rebuild it. */
    s->bp_stale = true;
    s->num_escaped = 0;
    if (rigid__remember(s))
        return CT_ERR_NOMEM;
    physics__scene_settle(s);
    return 0;
}
