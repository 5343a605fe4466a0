/* physics_ccd.c: continuous collision, so that a fast body does not pass through other bodies.
 *
 * Speculative contacts (physics_rigid.c, physics_contacts.c) stop most fast bodies: a contact is
 * kept when the gap is under what the pair can close in the step. They are found from the poses at
 * the start of the step, though, and a body that turns, or meets a face that was not the nearest
 * feature then (a bullet passing a wall's edge at an angle), can still cross a thin wall. So after
 * each step, as Box2D v3 does, a body whose velocities carry it more than half of its own thinnest
 * half size in the step ("fast") is swept from where it started to where it ended against the
 * static and sleeping bodies its path meets (the fixed grid), by conservative advancement:
 *
 *   t = 0; repeat: the separation d of the body at pose(t) and the other shape, along an axis n
 *   (their distance by GJK, physics_distance.c, or near contact the least point of their
 *   manifold; a gap along any axis is never more than the true distance); the gap along n closes
 *   at most at rate  max(0, move . n) + turn * reach  per unit of t, so t += (d - target) / rate
 *   keeps the shapes apart; stop when d is within the target (a hit) or t reaches 1 or the rate
 *   is 0 (a miss). When d is GJK's gap of two convex shapes along n (the least over the whole of
 *   each shape: a support gap), it changes by  -(move . n)  plus at most  |n x turn| * reach
 *   either way (turn: the axis times the angle; a turn about n moves no point along n), n staying
 *   fixed, so the rate is  move . n + |n x turn| * reach  (each body's), and a rate of 0 or less
 *   is a miss: that gap can only open for the rest of the step. (A manifold's gap is not one: it
 *   measures the features it found, and a mesh's next triangle leans another way; with the same
 *   rule a thin board resting on the bunny sank into the triangles beside the one measured, and
 *   the solver's pushes out rocked it until it was thrown off.)
 *
 * pose(t) moves the centre along the straight line and turns the body at a constant rate about one
 * axis (from the start to the end rotation, the way its angular velocity turns it: the long way
 * round for a body spinning more than half a turn a step). A hit moves the body back to the
 * earliest hit's pose and, as Jolt's linear cast does, resolves the hit there: the speed at which
 * the two close at the hit's deepest point is taken away (given back times their restitution),
 * with friction, so a body the sweep holds never gathers speed into what holds it; and it keeps
 * no more kinetic energy than it ended the step with, less what the height the hit put it back
 * up is worth (ccd__no_more_energy), so a body held up by its sweeps never gathers the speed of a
 * fall it did not make. A sweep that runs out of iterations stops the body where it last
 * measured it apart. A hit does not count
 * when the body ends the step touching what it hit, no deeper than a quarter of its thinnest half
 * size (a box landing on the ground at speed: the solver already stopped it there). A body that starts the step touching something (a fast box sliding
 * on a floor, a spinning capsule lying against a wall) is swept against it to a lower target: a
 * hit is a pose deeper than a quarter of its thinnest half size (or than it started, when it
 * started deeper), so it slides on but cannot go through.
 *
 * A fast body is swept against the other moving bodies too (dynamic and kinematic), as Jolt's
 * linear casts are: the other moves through the step as well (from its start pose to where it
 * ended, at the same fraction), so the gap closes at the two bodies' relative speed plus both
 * turns. Of two moving bodies only the one of higher rank (its travel in the step over its
 * thinnest half size; then the larger entity id) is swept against the other, and the fast bodies
 * are swept lowest rank first: a plank that is itself fast (a thin body is, at 0.3 m/s) has
 * finished its own sweeps before a bullet is swept against it, and a bullet that hits it goes
 * back to where it was relative to the plank then, carried with the plank to where it is now
 * (the next step's contact finds the two as they met). The order depends on the bodies only, so
 * the result does too (one or two threads). The pass runs on the calling thread. */
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
/* How much deeper (m) than it started a body that starts the step deeper than that may go. */
#define CCD_CREEP 0.0001f
/* Conservative advancement converges in a few iterations head-on and in a few dozen at grazing
 * angles; past this many the body stops where it was last measured apart. */
#define CCD_MAX_ITERATIONS 40u
/* What the separations of a sweep are looked for within, past the distance it covers (m). */
#define CCD_MARGIN 0.05f
/* m/s: a hit closing slower than this does not bounce (the solver's RIGID_BOUNCE_SPEED). */
#define CCD_BOUNCE_SPEED 1.0f

/* How many fast bodies ahead of the one being swept its arrays' lines are fetched. */
#define CCD_AHEAD 4u
/* Candidate pairs of moving bodies past this many per moving body (or past the scene's
 * ccd.list_limit) are not listed: each fast body then asks the grid of paths for its own. */
#define CCD_LIST_PAIRS_PER_BODY 32u
/* The lists are made when at least one moving body in this many is fast; fewer fast bodies each
 * query the grid of paths (a bullet fired into a pile of awake boxes makes one query, not a walk
 * over the pile's pairs). */
#define CCD_LIST_SHARE 4u
/* Fewer fast bodies than this, not listed, test every moving body's path box instead of asking a
 * grid of the paths: building that grid costs some 400 instructions a moving body, a walk over
 * the boxes some 10 a box for each fast body (bench convex_vs_mesh: 35 fast bodies a step among
 * 1,700 moving ones, and the grid was 2% of the step). The same boxes meet, in the same order
 * (so the walk serves too where the grid was built for lists that then passed their limit). */
#define CCD_WALK_FAST 32u

/* A fast body in the order the sweeps take them: by rank, then by entity id. The key is the
 * rank's bits over the id: a rank is positive (or +infinity), and the bits of positive floats
 * order as the floats do. */
typedef struct physics__ccd_order {
    uint64_t key;
    uint32_t body;
} physics__ccd_order;

int physics__ccd_begin(physics__scene *s)
{
    physics__ccd *c = &s->ccd;
    const physics__bodies *b = &s->bodies;
    c->hits = 0;
    if (c->off || b->n == 0)
        return 0;
    if (physics__reserve(s->a, (void **)&c->start, &c->cap_start, b->n, sizeof *c->start) ||
        physics__reserve(s->a, (void **)&c->start_rotation, &c->cap_start_rotation, b->n,
                         sizeof *c->start_rotation) ||
        physics__reserve(s->a, (void **)&c->start_angular, &c->cap_start_angular, b->n,
                         sizeof *c->start_angular))
        return CT_ERR_NOMEM;
    memcpy(c->start, b->position, (size_t)b->n * sizeof *c->start);
    memcpy(c->start_rotation, b->rotation, (size_t)b->n * sizeof *c->start_rotation);
    memcpy(c->start_angular, b->angular, (size_t)b->n * sizeof *c->start_angular);
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

/* `expect` (rad, about world axes) is the turn the body's angular velocity makes in the step: of
 * the turns about the axis that take q0 to q1 (the shorter one plus whole turns, either way) the
 * one nearest it along that axis. A body spinning faster than half a turn a step (a capsule at
 * 200 rad/s turns 3.3 rad at 60 Hz) turns the long way round: taken the shorter way its sweep
 * followed a motion opposite to the body's, and held the body where its real motion would lift
 * the end that touched (the next step's contact, found there, had nothing to take up). */
static ccd__turn ccd__turn_of(physics__quat q0, physics__quat q1, physics__v3 expect)
{
    ccd__turn t = {q0, v3(1, 0, 0), 0.0f};
    physics__quat r = ccd__mul((physics__quat){-q0.x, -q0.y, -q0.z, q0.w}, q1);
    if (r.w < 0.0f)
        r = (physics__quat){-r.x, -r.y, -r.z, -r.w};
    const float s = sqrtf(r.x * r.x + r.y * r.y + r.z * r.z);
    if (s > 1e-7f) {
        t.axis = v3(r.x / s, r.y / s, r.z / s);
        t.angle = 2.0f * atan2f(s, r.w);
        /* (r's axis is in q0's frame, `expect` in the world's) */
        const float along = v3_dot(quat_rotate(q0, t.axis), expect);
        const float two_pi = 6.28318531f;
        const float whole = floorf((along - t.angle) / two_pi + 0.5f);
        if (whole != 0.0f) {
            t.angle += whole * two_pi;
            if (t.angle < 0.0f) {
                t.angle = -t.angle;
                t.axis = v3_scale(t.axis, -1.0f);
            }
        }
    }
    return t;
}

static physics__quat ccd__turn_at(const ccd__turn *t, float f)
{
    if (t->angle == 0.0f)
        return t->q0;
    const float half = 0.5f * t->angle * f, s = sinf(half);
    return quat_normalize(
        ccd__mul(t->q0, (physics__quat){t->axis.x * s, t->axis.y * s, t->axis.z * s, cosf(half)}));
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
    /* (A compound's ball about its centre that holds every child: the corner of the box round
     * them all reaches further, and made its sweeps against moving bodies many more.) */
    if (b->shape[i] == CT_BODY_COMPOUND && b->compound[i])
        return b->compound[i]->bound;
    return b->shape[i] == CT_BODY_SPHERE    ? b->radius[i]
           : b->shape[i] == CT_BODY_CAPSULE ? b->half[i].y
                                            : v3_len(b->half[i]);
}

float physics__ccd_reach(const physics__bodies *b, uint32_t i)
{
    return ccd__reach(b, i);
}

/* A body's motion through the step: from its start pose along a straight line, turning at a
 * constant rate. */
typedef struct ccd__motion {
    uint32_t i;
    physics__v3 p0, move;
    ccd__turn turn;     /* once `turned` (ccd__turned) */
    physics__v3 expect; /* the turn its angular velocity made in the step (rad, world axes) */
    float reach;
    float arm; /* how far its surface moves per radian it turns, at most (ccd__arm) */
    bool turned;
} ccd__motion;

static ccd__motion ccd__motion_of(const physics__scene *s, uint32_t i, float dt)
{
    const physics__bodies *b = &s->bodies;
    ccd__motion m = {.i = i, .p0 = s->ccd.start[i]};
    m.move = v3_sub(b->position[i], m.p0);
    m.expect = v3_scale(b->angular[i], dt);
    m.reach = ccd__reach(b, i);
    return m;
}

/* How far body i's surface moves per radian it turns, at most: its reach, but none for a ball,
 * which turning about its centre leaves where it is (a spinning ball closes no gap, and its sweeps
 * took as many steps as a box's). */
static float ccd__arm(const physics__bodies *b, uint32_t i, float reach)
{
    return b->shape[i] == CT_BODY_SPHERE ? 0.0f : reach;
}

/* Motion m's turn, found when a sweep first needs it: most fast bodies meet nothing in a step,
 * and their turns (an arctangent each) went unused (bench jolt_high_speed: 1 body in 5 meets
 * anything). From its rotation at the start to where the solver left it, which it keeps until its
 * own sweep hits (that finds the turn first), and the angular velocity it had when the sweeps
 * began (a hit's response changes the velocity since): the turn it got before. */
static void ccd__turned(const physics__scene *s, ccd__motion *m)
{
    if (m->turned)
        return;
    m->turn = ccd__turn_of(s->ccd.start_rotation[m->i], s->bodies.rotation[m->i], m->expect);
    m->arm = ccd__arm(&s->bodies, m->i, m->reach);
    m->turned = true;
}

typedef struct ccd__sweep {
    physics__scene *s;
    ccd__motion self;  /* the fast body */
    ccd__motion other; /* the body it is swept against, when that one moves too */
    bool other_moves;
    float best;     /* the earliest hit so far (1: none) */
    uint32_t hit;   /* the body hit there (UINT32_MAX: none) */
    uint32_t moved; /* the moving body hit there (UINT32_MAX: none, or one that does not move) */
} ccd__sweep;

/* Motion m's body at fraction f of its motion; its world box too with `box` (a mesh's
 * manifold reads it to find the triangles near). */
static void ccd__pose_one(physics__bodies *b, const ccd__motion *m, float f, bool box)
{
    b->position[m->i] = v3_add(m->p0, v3_scale(m->move, f));
    b->rotation[m->i] = ccd__turn_at(&m->turn, f);
    if (box)
        physics__bodies_extent(b, m->i);
}

/* The fast body (and the other, when it moves) posed at fraction f of the step, with their
 * world boxes. */
static void ccd__pose(ccd__sweep *w, float f)
{
    ccd__pose_one(&w->s->bodies, &w->self, f, true);
    if (w->other_moves)
        ccd__pose_one(&w->s->bodies, &w->other, f, true);
}

/* The same without the world boxes, which only ccd__separation's manifolds need (and find). */
static void ccd__place(ccd__sweep *w, float f)
{
    ccd__pose_one(&w->s->bodies, &w->self, f, false);
    if (w->other_moves)
        ccd__pose_one(&w->s->bodies, &w->other, f, false);
}

/* The separation of the fast body (as placed) and body j, and the axis it is measured along (from
 * the fast body to j): INFINITY when they are further apart than margin. Shapes further apart
 * than CCD_TARGET are measured by their distance (physics__distance: GJK), which is all a sweep
 * step needs, where the manifold clipped faces and reduced points for it (bench jolt_high_speed:
 * a separation cost 2,600 instructions against 4,100 for a compound's, and the distance is the
 * larger bound, so the steps are longer); nearer ones, and meshes, by the least of their
 * manifold's points, which also measures how deep shapes that touch are. */
static float ccd__separation(ccd__sweep *w, uint32_t j, float margin, physics__v3 *normal,
                             bool *support, const physics__closing *closing, float *step)
{
    physics__bodies *b = &w->s->bodies;
    const uint32_t i = w->self.i;
    float gap;
    /* (*support on entry: *normal is GJK's axis of the pose before, where it starts now.) */
    if (physics__distance_from(b, i, j, CCD_TARGET, margin, *support ? *normal : v3(0, 0, 0),
                               closing, step, &gap, normal)) {
        *support = b->shape[i] != CT_BODY_COMPOUND && b->shape[j] != CT_BODY_COMPOUND;
        return gap;
    }
    *support = false;
    *step = NAN;
    physics__bodies_extent(b, i);
    if (w->other_moves)
        physics__bodies_extent(b, j);
    if (b->shape[i] == CT_BODY_COMPOUND || b->shape[j] == CT_BODY_COMPOUND)
        return physics__compound_separation(b, i, j, margin, normal);
    return physics__manifold_separation(b, i, j, margin, normal);
}

/* Motion m's turn through the step as a vector in world axes, times its arm: the most its surface
 * moves in the step by turning is this vector's length times the sine of its angle to the way
 * measured. (The turn's axis is in the body's axes at the start; the motion turns about it at a
 * constant rate, so in the world it stays that axis as the start rotation put it.) */
static physics__v3 ccd__spin(const ccd__motion *m)
{
    return v3_scale(quat_rotate(m->turn.q0, m->turn.axis), m->turn.angle * m->arm);
}

/* How the fast body and body j close through the step (for a compound's pairs of parts), each
 * pair's gap to be kept above `aim`. */
static physics__closing ccd__closing(const ccd__sweep *w, float aim)
{
    physics__closing c = {w->self.move, ccd__spin(&w->self), v3(0, 0, 0), aim};
    if (w->other_moves) {
        c.move = v3_sub(c.move, w->other.move);
        c.spin_j = ccd__spin(&w->other);
    }
    return c;
}

/* The first fraction in (0, best) at which the fast body comes within `target` of body j, or
 * best. A sweep that runs out of iterations before it reaches best (a spinning body grazing a
 * face closes the gap a little each time) stops where it last measured the two apart: letting it
 * go on to the end of its motion, as a miss, took a capsule spinning at 200 rad/s, pressed on a
 * floor, 0.68 m into it in one step (bench jolt_high_speed, with its turn taken the short way). */
static float ccd__advance(ccd__sweep *w, uint32_t j, float target, float margin, float start,
                          physics__v3 start_normal, bool start_support, float start_step)
{
    float turn_speed = w->self.turn.angle * w->self.arm;
    physics__v3 move = w->self.move;
    /* Each turn about its axis (fixed in the world through the step) times how far the body's
     * surface reaches: a point at r from the centre moves along n at (spin x r) . n, which is at
     * most |n x spin| |r| (a body turning about n closes no gap along n). */
    physics__v3 spin = ccd__spin(&w->self), other_spin = v3(0, 0, 0);
    if (w->other_moves) {
        turn_speed += w->other.turn.angle * w->other.arm;
        move = v3_sub(move, w->other.move);
        other_spin = ccd__spin(&w->other);
    }
    const physics__closing closing = ccd__closing(w, target - 0.5f * CCD_TARGET);
    float f = 0.0f, apart = 0.0f;
    physics__v3 n = start_normal;
    float d = start, step = start_step;
    bool support = start_support;
    for (uint32_t k = 0; k < CCD_MAX_ITERATIONS && f < w->best; k++) {
        /* (The first pose is the start, which the caller measured.) */
        if (k > 0) {
            ccd__place(w, f);
            d = ccd__separation(w, j, margin, &n, &support, &closing, &step);
        }
        if (d <= target)
            return f > 0.0f ? f : w->best;
        if (d == INFINITY)
            return w->best; /* out of reach for the whole sweep */
        if (!isnan(step)) { /* a compound's pairs, each by its own axis */
            if (!(step < INFINITY))
                return w->best;
            apart = f;
            f += step;
            continue;
        }
        /* (A support gap along n can only open while the two move apart along n faster than
         * their turns can close it: a miss; and it closes no faster than that rate. Nothing is
         * known of a manifold's gap along n but at the pose measured: its other features, a
         * mesh's other triangles, lean other ways, so only its approach bounds the rate, with
         * the whole of both turns.) */
        const float along = v3_dot(move, n);
        const float rate =
            support ? along + v3_len(v3_cross(n, spin)) + v3_len(v3_cross(n, other_spin))
                    : f_max(along, 0.0f) + turn_speed;
        if (rate <= 1e-9f)
            return w->best;
        apart = f;
        f += (d - target + 0.5f * CCD_TARGET) / rate;
    }
    return f < w->best && apart > 0.0f ? apart : w->best;
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

/* The sweep of the fast body against body j (static or asleep, or moving when w->other_moves). */
static void ccd__against(ccd__sweep *w, uint32_t j)
{
    physics__scene *s = w->s;
    physics__bodies *b = &s->bodies;
    const uint32_t i = w->self.i;
    if (j == i || !(b->layer[i] & b->mask[j]) || !(b->layer[j] & b->mask[i]))
        return;
    if (ccd__joined(s, i, j))
        return;
    ccd__turned(s, &w->self);
    /* Shapes further apart than the sweep can close never meet (ccd__advance leaves at the first
     * step then, whatever the distance): a wider margin only made a mesh test more triangles. */
    float margin = w->self.turn.angle * w->self.arm + CCD_MARGIN;
    margin += w->other_moves
                  ? v3_len(v3_sub(w->self.move, w->other.move)) + w->other.turn.angle * w->other.arm
                  : v3_len(w->self.move);
    physics__v3 n = v3(0, 0, 0);
    bool support = false;
    float step;
    ccd__place(w, 0.0f);
    const physics__closing closing = ccd__closing(w, 0.5f * CCD_TARGET);
    const float start = ccd__separation(w, j, margin, &n, &support, &closing, &step);
    const float allowed = CCD_DEEPER_FRACTION * ccd__thinnest(b, i);
    if (start > CCD_TARGET) {
        /* Apart at the start: a hit on the way counts unless the body ends the step touching the
         * other shape on the side it came from (the solver stopped it there: a box landing on the
         * ground at speed). Touching it from the far side is having gone through: a capsule that
         * a collision threw at 87 m/s into a wall 0.4 m thick came out of the step touching the
         * wall's outer face, and left the box of bench jolt_high_speed. */
        const physics__v3 approach = n;
        const float f = ccd__advance(w, j, CCD_TARGET, margin, start, n, support, step);
        if (f < w->best) {
            ccd__place(w, 1.0f);
            const float end = ccd__separation(w, j, margin, &n, &support, NULL, &step);
            if (end > CCD_TARGET || end < -allowed || !(v3_dot(n, approach) > 0.0f)) {
                w->best = f;
                w->hit = j;
                w->moved = w->other_moves ? j : UINT32_MAX;
            }
        }
    } else {
        /* Touching at the start (sliding on a floor, lying against a wall): only a pose deeper
         * into it than a quarter of the body's thinnest half size counts, or than it already is
         * when it starts deeper (a limit from where it started would let a spinning rod pressed
         * on a turning plank sink a little further every step, until it came out behind). A
         * body that starts deeper than that and moves out the way the contact pushes it (against
         * the normal found at the start, which the solver pushed along) goes free: the manifolds
         * of a body deep in a thin slab find the face to leave by anew at each pose, and the
         * sweep measuring by them held a capsule whose centre was inside a floor, bouncing it
         * back at 36.7 m/s each step against the solver's push (bench jolt_high_speed). */
        const physics__v3 out = w->other_moves ? v3_sub(w->self.move, w->other.move) : w->self.move;
        if (start < -allowed && v3_dot(out, n) < 0.0f)
            return;
        const float f =
            ccd__advance(w, j, f_min(start, -allowed) - CCD_CREEP, margin, start, n, support, NAN);
        if (f < w->best) {
            w->best = f;
            w->hit = j;
            w->moved = w->other_moves ? j : UINT32_MAX;
        }
    }
}

static int ccd__visit_fixed(void *user, uint32_t box)
{
    ccd__sweep *w = user;
    w->other_moves = false;
    ccd__against(w, w->s->fixed_body[box]);
    return 0;
}

/* Whether fast body i is swept against moving body j: of two moving bodies only the one later in
 * the order (higher rank, then larger entity id) is swept against the other, whose sweeps are
 * done by then. (Of a pair at most one is: a body whose rank is not a number is never fast.) */
static inline bool ccd__sweeps(const physics__ccd *c, const physics__bodies *b, uint32_t i,
                               uint32_t j)
{
    return c->fast[i] && !(c->rank[j] > c->rank[i] ||
                           (c->rank[j] == c->rank[i] && b->entity[j].id > b->entity[i].id));
}

/* The sweep of the fast body against moving body j (ccd__sweeps holds). j is posed along its own
 * motion while the sweep runs, then put back where the solver left it (bit for bit). */
static void ccd__against_moving(ccd__sweep *w, uint32_t j)
{
    physics__bodies *b = &w->s->bodies;
    const ccd__motion o = w->s->ccd.motion[j];
    /* Bodies whose reaches never meet along their relative motion cannot touch: the nearest the
     * centres come (a segment against a point) against both reaches. */
    const physics__v3 d0 = v3_sub(w->self.p0, o.p0), dm = v3_sub(w->self.move, o.move);
    const float mm = v3_dot(dm, dm);
    const float t = mm > 0.0f ? f_min(f_max(-v3_dot(d0, dm) / mm, 0.0f), 1.0f) : 0.0f;
    const float reach = w->self.reach + o.reach + CCD_TARGET;
    const physics__v3 nearest = v3_add(d0, v3_scale(dm, t));
    if (v3_dot(nearest, nearest) > reach * reach)
        return;
    ccd__turned(w->s, &w->s->ccd.motion[j]);
    const physics__v3 end = b->position[j], end_extent = b->extent[j];
    const physics__quat end_rotation = b->rotation[j];
    w->other = w->s->ccd.motion[j];
    w->other_moves = true;
    ccd__against(w, j);
    w->other_moves = false;
    b->position[j] = end;
    b->rotation[j] = end_rotation;
    b->extent[j] = end_extent;
}

/* The box that holds body i all through the step: its reach about both ends. */
static void ccd__path_box(const ccd__motion *m, physics__v3 end, physics__v3 *lo, physics__v3 *hi)
{
    const physics__v3 r = v3(m->reach, m->reach, m->reach);
    *lo = v3_min(v3_sub(m->p0, r), v3_sub(end, r));
    *hi = v3_max(v3_add(m->p0, r), v3_add(end, r));
}

/* A body as a hit's response sees it: its velocities, and what an impulse does to them. */
typedef struct ccd__body {
    physics__v3 v, w;
    float inv_mass;
    float inv_i[9]; /* world inverse inertia */
    uint8_t locks;
} ccd__body;

static physics__v3 ccd__mul3(const float m[9], physics__v3 t)
{
    return v3(m[0] * t.x + m[1] * t.y + m[2] * t.z, m[3] * t.x + m[4] * t.y + m[5] * t.z,
              m[6] * t.x + m[7] * t.y + m[8] * t.z);
}

/* Impulse p at r from x's centre (its locked axes keep no velocity). */
static void ccd__push(ccd__body *x, physics__v3 r, physics__v3 p)
{
    if (x->inv_mass == 0.0f)
        return;
    x->v = v3_add(x->v, v3_scale(p, x->inv_mass));
    x->w = v3_add(x->w, ccd__mul3(x->inv_i, v3_cross(r, p)));
    const uint8_t l = x->locks;
    if (l & CT_BODY_LOCK_ALL) {
        x->v =
            v3(l & CT_BODY_LOCK_LINEAR_X ? 0.0f : x->v.x, l & CT_BODY_LOCK_LINEAR_Y ? 0.0f : x->v.y,
               l & CT_BODY_LOCK_LINEAR_Z ? 0.0f : x->v.z);
        x->w = v3(l & CT_BODY_LOCK_ANGULAR_X ? 0.0f : x->w.x,
                  l & CT_BODY_LOCK_ANGULAR_Y ? 0.0f : x->w.y,
                  l & CT_BODY_LOCK_ANGULAR_Z ? 0.0f : x->w.z);
    }
}

/* The inverse of the mass a unit impulse along d at ra, rb (from a's and b's centres) meets. */
static float ccd__inv_mass_along(const ccd__body *a, physics__v3 ra, const ccd__body *b,
                                 physics__v3 rb, physics__v3 d)
{
    const physics__v3 ta = v3_cross(ra, d), tb = v3_cross(rb, d);
    return a->inv_mass + b->inv_mass + v3_dot(ta, ccd__mul3(a->inv_i, ta)) +
           v3_dot(tb, ccd__mul3(b->inv_i, tb));
}

/* The velocity of b's point at rb against a's at ra. */
static physics__v3 ccd__relative(const ccd__body *a, physics__v3 ra, const ccd__body *b,
                                 physics__v3 rb)
{
    return v3_sub(v3_add(b->v, v3_cross(b->w, rb)), v3_add(a->v, v3_cross(a->w, ra)));
}

static ccd__body ccd__body_of(const physics__bodies *b, uint32_t i)
{
    ccd__body x = {.inv_mass = physics__inv_mass(b, i), .locks = b->locks[i]};
    /* A static body's velocities are zero; a sleeping one's are until it wakes. */
    if (!physics__fixed(b, i)) {
        x.v = b->velocity[i];
        x.w = b->angular[i];
    }
    if (x.inv_mass > 0.0f)
        physics__world_inv_inertia(b, i, x.inv_i);
    else
        memset(x.inv_i, 0, sizeof x.inv_i);
    return x;
}

/* What a hit does to the velocities, as Jolt's linear cast resolves its hits: at the hit's
 * deepest point, the speed at which the fast body and the one it hit close along the normal is
 * taken away (and given back times their restitution past CCD_BOUNCE_SPEED), with friction
 * within the cone of that impulse, both solved together by a few passes (one normal pass and
 * one friction pass, as Jolt's, turned a capsule's spin into more speed than it had: friction at
 * a lever adds normal speed). Without it the body kept its velocities for the next step's
 * speculative contact to stop, which that contact, found where the body was stopped, did not
 * always do; a body held by its sweep every step then gathered gravity's speed without moving.
 * Both bodies are posed at the hit (w->best); a body that does not move, or sleeps, takes no
 * impulse. */
#define CCD_RESPONSE_PASSES 8u

/* A sweep's hit as a collision event (ccd__report), with its pair's key. */
typedef struct physics__ccd_hit {
    uint64_t key;
    ct_physics_collision_event_t ev;
} physics__ccd_hit;

/* The kinetic energy of body i's spin w (times two), by its principal moments. */
static float ccd__spin_energy(const physics__bodies *b, uint32_t i, physics__v3 w)
{
    const physics__v3 l = quat_unrotate(b->rotation[i], w), d = b->inv_inertia[i];
    return (d.x > 0.0f ? l.x * l.x / d.x : 0.0f) + (d.y > 0.0f ? l.y * l.y / d.y : 0.0f) +
           (d.z > 0.0f ? l.z * l.z / d.z : 0.0f);
}

/* A hit takes the swept body's spin away, never adds to it. A hit puts the body back where it
 * hit, which undoes (most of) the step's motion but not what the step did to its velocities: a
 * thin board lying into the bunny's scanned triangles, its turn out of them undone by its sweep
 * every step, kept the spin the solver gave it each step to turn out, and spun up to 86 rad/s
 * without moving; and friction at a lever turns some of what the hit itself stops into spin.
 * So the spin's energy after the hit is at most what it was at the start of the step and before
 * the hit, whichever is less; past that it is scaled back (its axis kept). */
static physics__v3 ccd__no_more_spin(const physics__bodies *b, uint32_t i, physics__v3 start,
                                     physics__v3 before, physics__v3 after)
{
    const float e0 = f_min(ccd__spin_energy(b, i, start), ccd__spin_energy(b, i, before));
    const float e1 = ccd__spin_energy(b, i, after);
    return e1 > e0 ? v3_scale(after, sqrtf(e0 / e1)) : after;
}

/* A hit takes energy away, never adds it. A hit puts the body back up the path it fell along
 * through the rest of the step, which gives back the height (the potential energy) of that part
 * of the fall, but not the speed the solver gave it for falling the whole step: a thin board
 * astride a step of the bunny, its fall into the triangles stopped by its sweep at 3 to 5% of
 * each step, kept each step's gravity (the hit's impulse at its deepest point took away the
 * closing there, not the fall of its centre) and gained 0.24 J in 3 steps without moving. So
 * the kinetic energy after the hit is at most what it was at the end of the step (end_v, end_w)
 * less what the height given back is worth; past that the velocities are scaled back, their
 * directions kept. (Both energies by the body's rotation at the hit.) */
static void ccd__no_more_energy(physics__scene *s, uint32_t i, physics__v3 end_v,
                                physics__v3 end_w, physics__v3 end, physics__v3 at)
{
    physics__bodies *b = &s->bodies;
    const float inv_mass = physics__inv_mass(b, i);
    if (!(inv_mass > 0.0f))
        return;
    const float height = v3_dot(s->gravity, v3_sub(end, at)); /* J/kg given back */
    if (!(height > 0.0f))
        return;
    const physics__v3 v = b->velocity[i], w = b->angular[i];
    const float was = v3_dot(end_v, end_v) / inv_mass + ccd__spin_energy(b, i, end_w);
    const float now = v3_dot(v, v) / inv_mass + ccd__spin_energy(b, i, w);
    const float most = f_max(was - 2.0f * height / inv_mass, 0.0f);
    if (now > most) {
        const float scale = sqrtf(most / now);
        b->velocity[i] = v3_scale(v, scale);
        b->angular[i] = v3_scale(w, scale);
    }
}

static void ccd__respond(ccd__sweep *w)
{
    physics__bodies *b = &w->s->bodies;
    const uint32_t i = w->self.i, j = w->hit;
    /* A sleeping body hit wakes, with its island, and takes its share of the hit (as Jolt wakes
     * what its linear casts hit): taken for fixed, it stopped a bullet as a wall would and
     * slept on. Its velocities were zeroed when it fell asleep. */
    if (b->kind[j] == CT_BODY_DYNAMIC && b->asleep[j])
        physics__scene_wake(w->s, j);
    w->other_moves = w->moved != UINT32_MAX;
    if (w->other_moves)
        w->other = w->s->ccd.motion[j];
    const physics__v3 end_j = b->position[j], end_extent_j = b->extent[j];
    const physics__quat end_rotation_j = b->rotation[j];
    ccd__pose(w, w->best);
    physics__manifold_out m;
    physics__manifold(b, i, j, CCD_MARGIN + CCD_TARGET, false, &m);
    ccd__body x = ccd__body_of(b, i), y = ccd__body_of(b, j);
    const physics__v3 at_i = b->position[i], at_j = b->position[j];
    if (w->other_moves) {
        b->position[j] = end_j;
        b->rotation[j] = end_rotation_j;
        b->extent[j] = end_extent_j;
        w->other_moves = false;
    }
    if (!m.count)
        return;
    uint32_t deepest = 0;
    for (uint32_t q = 1; q < m.count; q++)
        if (m.p[q].sep < m.p[deepest].sep)
            deepest = q;
    /* n points from i to j: the gap closes while j's point comes back along it. */
    const physics__v3 n = m.normal, point = m.p[deepest].point;
    const physics__v3 ri = v3_sub(point, at_i), rj = v3_sub(point, at_j);
    const float vn = v3_dot(ccd__relative(&x, ri, &y, rj), n);
    if (!(vn < 0.0f))
        return;
    const float restitution = f_max(b->restitution[i], b->restitution[j]);
    const float friction = sqrtf(b->friction[i] * b->friction[j]);
    const float target = -vn > CCD_BOUNCE_SPEED ? -restitution * vn : 0.0f;
    physics__v3 t[2];
    physics__rigid_tangents(n, &t[0], &t[1]);
    const float kn = ccd__inv_mass_along(&x, ri, &y, rj, n);
    const float kt[2] = {ccd__inv_mass_along(&x, ri, &y, rj, t[0]),
                         ccd__inv_mass_along(&x, ri, &y, rj, t[1])};
    if (!(kn > 0.0f))
        return;
    float jn = 0.0f, jt[2] = {0.0f, 0.0f};
    for (uint32_t pass = 0; pass < CCD_RESPONSE_PASSES; pass++) {
        const float now = v3_dot(ccd__relative(&x, ri, &y, rj), n);
        const float next = f_max(jn - now / kn, 0.0f);
        ccd__push(&x, ri, v3_scale(n, jn - next));
        ccd__push(&y, rj, v3_scale(n, next - jn));
        jn = next;
        const physics__v3 rel = ccd__relative(&x, ri, &y, rj);
        float f[2];
        for (int k = 0; k < 2; k++)
            f[k] = kt[k] > 0.0f ? jt[k] - v3_dot(rel, t[k]) / kt[k] : 0.0f;
        const float limit = friction * jn, sq = f[0] * f[0] + f[1] * f[1];
        if (sq > limit * limit) {
            const float scale = limit / sqrtf(sq);
            f[0] *= scale;
            f[1] *= scale;
        }
        const physics__v3 p = v3_add(v3_scale(t[0], f[0] - jt[0]), v3_scale(t[1], f[1] - jt[1]));
        ccd__push(&x, ri, v3_scale(p, -1.0f));
        ccd__push(&y, rj, p);
        jt[0] = f[0];
        jt[1] = f[1];
    }
    /* The bounce, along the normal alone. */
    const float now = v3_dot(ccd__relative(&x, ri, &y, rj), n);
    if (target > now) {
        ccd__push(&x, ri, v3_scale(n, (now - target) / kn));
        ccd__push(&y, rj, v3_scale(n, (target - now) / kn));
        jn += (target - now) / kn;
    }
    if (x.inv_mass > 0.0f) {
        b->velocity[i] = x.v;
        b->angular[i] = x.w;
    }
    if (y.inv_mass > 0.0f) {
        b->velocity[j] = y.v;
        b->angular[j] = y.w;
    }
    /* The event, as a contact's: a is the lower entity id, the normal from a to b. */
    physics__ccd *c = &w->s->ccd;
    if (jn > 0.0f && c->num_hit_events < c->cap_hit_event) {
        const uint32_t ei = b->entity[i].id, ej = b->entity[j].id;
        physics__ccd_hit *h = &c->hit_event[c->num_hit_events++];
        h->key = ei < ej ? (uint64_t)ei << 32 | ej : (uint64_t)ej << 32 | ei;
        h->ev = (ct_physics_collision_event_t){
            .a = ei < ej ? ei : ej, .b = ei < ej ? ej : ei, .impulse = jn, .speed = -vn};
        v3_store(point, h->ev.point);
        v3_store(ei < ej ? n : v3_scale(n, -1.0f), h->ev.normal);
    }
}

/* The fast bodies sorted by key: an LSD radix sort a byte a pass, over the bytes in which some
 * keys differ (entity ids are small, and ranks of one scene share their top bits), through tmp.
 * Keys are unique, so this is the order a comparison sort gives, at a few passes over n. */
static void ccd__sort_order(physics__ccd_order *order, physics__ccd_order *tmp, uint32_t n)
{
    uint64_t differ = 0;
    for (uint32_t k = 1; k < n; k++)
        differ |= order[k].key ^ order[0].key;
    physics__ccd_order *from = order, *to = tmp;
    for (uint32_t shift = 0; shift < 64; shift += 8) {
        if (!((differ >> shift) & 255u))
            continue;
        uint32_t place[256] = {0};
        for (uint32_t k = 0; k < n; k++)
            place[(from[k].key >> shift) & 255u]++;
        for (uint32_t d = 0, sum = 0; d < 256; d++) {
            const uint32_t count = place[d];
            place[d] = sum;
            sum += count;
        }
        for (uint32_t k = 0; k < n; k++)
            to[place[(from[k].key >> shift) & 255u]++] = from[k];
        physics__ccd_order *t = from;
        from = to;
        to = t;
    }
    if (from != order)
        memcpy(order, from, (size_t)n * sizeof *order);
}

typedef struct ccd__scan_job {
    physics__scene *s;
    float dt;
} ccd__scan_job;

/* Whether each body of slices [begin, end) of SOLVER_SLICE_BOXES is fast, and its rank (on any
 * threads: each body's flag and rank are its own). */
static void ccd__scan_range(void *user, uint32_t begin, uint32_t end)
{
    const ccd__scan_job *job = user;
    physics__ccd *c = &job->s->ccd;
    const physics__bodies *b = &job->s->bodies;
    const float dt = job->dt;
    const uint32_t last = end * SOLVER_SLICE_BOXES < b->n ? end * SOLVER_SLICE_BOXES : b->n;
    for (uint32_t i = begin * SOLVER_SLICE_BOXES; i < last; i++) {
        c->fast[i] = 0;
        c->rank[i] = 0.0f;
        if (b->kind[i] != CT_BODY_DYNAMIC || physics__fixed(b, i))
            continue;
        const float travel =
            (v3_len(b->velocity[i]) + v3_len(b->angular[i]) * ccd__arm(b, i, ccd__reach(b, i))) *
            dt;
        const float thinnest = ccd__thinnest(b, i);
        c->rank[i] = thinnest > 0.0f ? travel / thinnest : INFINITY;
        c->fast[i] = travel > CCD_FAST_FRACTION * thinnest;
    }
}

/* Which bodies are fast this step (by their velocities, as Box2D's test: a body that the
 * position passes pushed out of an overlap moved without the speed to tunnel), and the boxes of
 * the paths of every moving body when any is fast (physics__ccd_end builds their grid when it
 * needs it). Returns how many are fast. The test runs on the
 * pool; only the listing of the fast ones, mostly none, walks the flags here, eight at a time. */
static int ccd__find_fast(physics__scene *s, float dt, uint32_t *fast)
{
    physics__ccd *c = &s->ccd;
    physics__bodies *b = &s->bodies;
    if (physics__reserve(s->a, (void **)&c->fast, &c->cap_fast, b->n + 8, sizeof *c->fast) ||
        physics__reserve(s->a, (void **)&c->rank, &c->cap_rank, b->n, sizeof *c->rank) ||
        physics__reserve(s->a, (void **)&c->order, &c->cap_order, 2 * b->n, sizeof *c->order) ||
        physics__reserve(s->a, (void **)&c->motion, &c->cap_motion, b->n, sizeof *c->motion))
        return CT_ERR_NOMEM;
    ccd__scan_job job = {s, dt};
    physics__pool_run(s->pool, (b->n + SOLVER_SLICE_BOXES - 1) / SOLVER_SLICE_BOXES,
                      ccd__scan_range, &job);
    memset(c->fast + b->n, 0, 8);
    uint32_t n = 0;
    for (uint32_t i = 0; i < b->n; i += 8) {
        uint64_t word;
        memcpy(&word, c->fast + i, sizeof word);
        for (uint32_t k = i; word && k < i + 8; k++, word >>= 8)
            if (c->fast[k]) {
                uint32_t bits; /* a rank is >= 0, so its bits order as its value */
                memcpy(&bits, &c->rank[k], sizeof bits);
                c->order[n++] = (physics__ccd_order){(uint64_t)bits << 32 | b->entity[k].id, k};
            }
    }
    *fast = n;
    c->moving.n = 0;
    if (!n)
        return 0;
    ccd__sort_order(c->order, c->order + n, n);
    uint32_t movers = 0;
    for (uint32_t i = 0; i < b->n; i++)
        movers += !physics__fixed(b, i);
    for (uint32_t i = 0; i < b->n; i++)
        if (!physics__fixed(b, i))
            c->motion[i] = ccd__motion_of(s, i, dt);
    if (movers < 2)
        return 0;
    c->moving.a = s->a;
    if (physics__broadphase_resize(&c->moving, movers) ||
        physics__reserve(s->a, (void **)&c->moving_body, &c->cap_moving_body, movers,
                         sizeof *c->moving_body))
        return CT_ERR_NOMEM;
    uint32_t k = 0;
    for (uint32_t i = 0; i < b->n; i++) {
        if (physics__fixed(b, i))
            continue;
        ccd__path_box(&c->motion[i], b->position[i], &c->moving.lo[k], &c->moving.hi[k]);
        c->moving.moving[k] = 1;
        c->moving_body[k++] = i;
    }
    c->moving.n = k;
    c->moving.pool = s->pool;
    return 0;
}

/* Pairs (a, b) into `to` by a stably: counts in first[0..n], which ends zeroed. */
static void ccd__spread(const physics__pair *from, uint32_t m, bool by_b, uint32_t *first,
                        uint32_t n, physics__pair *to)
{
    for (uint32_t k = 0; k < m; k++)
        first[(by_b ? from[k].b : from[k].a) + 1]++;
    for (uint32_t i = 0; i < n; i++)
        first[i + 1] += first[i];
    for (uint32_t k = 0; k < m; k++)
        to[first[by_b ? from[k].b : from[k].a]++] = from[k];
    memset(first, 0, ((size_t)n + 1) * sizeof *first);
}

static void ccd__list_order(physics__scene *s, uint32_t ne, physics__pair *by_other);

/* The moving bodies each fast body is swept against, listed from the grid of paths' own pairs:
 * one walk over its cells in order finds every pair of paths that meet once, where a query per
 * fast body found each twice (once from each end) and probed cells scattered through memory
 * (bench jolt_high_speed: 4.2 cells and 19 items a query, for 0.4 bodies it was swept against).
 * Each list is ascending, as the sweeps take them. *listed is false when the pairs pass the
 * limit (bodies crowded into one spot): the sweeps then ask the grid one fast body at a time,
 * which needs no memory per pair. */
static int ccd__list(physics__scene *s, bool *listed)
{
    physics__ccd *c = &s->ccd;
    const physics__bodies *b = &s->bodies;
    physics__broadphase *m = &c->moving;
    *listed = false;
    const uint64_t limit =
        c->list_limit ? c->list_limit : (uint64_t)CCD_LIST_PAIRS_PER_BODY * m->n + 64u;
    m->max_pairs = limit < UINT32_MAX / 4 ? (uint32_t)limit : UINT32_MAX / 4;
    if (physics__broadphase_pairs(m))
        return CT_ERR_NOMEM;
    if (m->dropped)
        return 0;
    const uint32_t np = m->num_pairs;
    if (physics__reserve(s->a, (void **)&c->list_pairs, &c->cap_list_pairs, 2 * np + 2,
                         sizeof *c->list_pairs) ||
        physics__reserve(s->a, (void **)&c->listed, &c->cap_listed, np + 1, sizeof *c->listed) ||
        physics__reserve(s->a, (void **)&c->list_first, &c->cap_list_first, b->n + 1,
                         sizeof *c->list_first))
        return CT_ERR_NOMEM;
    physics__pair *swept = c->list_pairs;
    uint32_t ne = 0;
    for (uint32_t k = 0; k < np; k++) {
        const uint32_t i = c->moving_body[m->pairs[k].a], j = c->moving_body[m->pairs[k].b];
        if (ccd__sweeps(c, b, i, j))
            swept[ne++] = (physics__pair){i, j};
        else if (ccd__sweeps(c, b, j, i))
            swept[ne++] = (physics__pair){j, i};
    }
    ccd__list_order(s, ne, c->list_pairs + np);
    *listed = true;
    return 0;
}

/* The lists from the ne pairs (fast body, body it is swept against) at the front of list_pairs,
 * through by_other (room for ne more). */
static void ccd__list_order(physics__scene *s, uint32_t ne, physics__pair *by_other)
{
    physics__ccd *c = &s->ccd;
    const physics__bodies *b = &s->bodies;
    physics__pair *swept = c->list_pairs;
    /* By the body swept against, then (stably) by the fast body: each list ascending. */
    uint32_t *first = c->list_first;
    memset(first, 0, ((size_t)b->n + 1) * sizeof *first);
    ccd__spread(swept, ne, true, first, b->n, by_other);
    ccd__spread(by_other, ne, false, first, b->n, swept);
    for (uint32_t k = 0; k < ne; k++) {
        c->listed[k] = swept[k].b;
        first[swept[k].a + 1]++;
    }
    for (uint32_t i = 0; i < b->n; i++)
        first[i + 1] += first[i];
}

/* The lists taken from the step's own grid of moving bodies, whose boxes physics__scene_candidates
 * widened by each body's path as its velocity at the start of the step carries it (its reach about
 * both ends, CCD_SHARE_SLACK more): where the grid of paths made the same pairs again (bench
 * jolt_high_speed: two grids of 10,000 items and 1,000 pairs a step, 7% of its time for the
 * second). A body whose path, as the solver ended it, lies in its widened box ("settled") meets
 * every other such body it can in the grid's own pairs; the others ("strays": a collision turned
 * them, or they woke at the end of the step and have no box) look theirs up, in that grid and
 * among themselves. The same pairs of paths as the grid of paths gives, so the same lists, bit for
 * bit. *listed is false when they pass the limit (then the grid of paths decides, as before). */
typedef struct ccd__share_visit {
    physics__scene *s;
    uint32_t i, ne, np, limit;
} ccd__share_visit;

static inline bool ccd__paths_meet(const physics__broadphase *m, uint32_t x, uint32_t y)
{
    return (m->lo[x].x <= m->hi[y].x) & (m->lo[y].x <= m->hi[x].x) & (m->lo[x].y <= m->hi[y].y) &
           (m->lo[y].y <= m->hi[x].y) & (m->lo[x].z <= m->hi[y].z) & (m->lo[y].z <= m->hi[x].z);
}

/* Moving bodies i and j whose paths meet: a pair for the limit, and one of the lists' when one is
 * swept against the other. */
static int ccd__share_pair(ccd__share_visit *v, uint32_t i, uint32_t j)
{
    physics__ccd *c = &v->s->ccd;
    const physics__bodies *b = &v->s->bodies;
    v->np++;
    uint32_t x = i, y = j;
    if (!ccd__sweeps(c, b, i, j)) {
        if (!ccd__sweeps(c, b, j, i))
            return 0;
        x = j;
        y = i;
    }
    if (v->ne == c->cap_list_pairs &&
        physics__reserve_keep(v->s->a, (void **)&c->list_pairs, &c->cap_list_pairs, v->ne + 1,
                              sizeof *c->list_pairs))
        return CT_ERR_NOMEM;
    c->list_pairs[v->ne++] = (physics__pair){x, y};
    return 0;
}

/* A box of s->bp whose body a stray's path may meet. */
static int ccd__share_found(void *user, uint32_t box)
{
    ccd__share_visit *v = user;
    physics__ccd *c = &v->s->ccd;
    const physics__bodies *b = &v->s->bodies;
    const uint32_t j = v->s->grid_body[box];
    if (j == v->i || physics__fixed(b, j) || c->stray[j])
        return 0;
    const uint32_t *mover = c->grid_of + b->n;
    if (!ccd__paths_meet(&c->moving, mover[v->i], mover[j]))
        return 0;
    return ccd__share_pair(v, v->i, j);
}

static int ccd__list_shared(physics__scene *s, bool *listed)
{
    physics__ccd *c = &s->ccd;
    const physics__bodies *b = &s->bodies;
    const physics__broadphase *g = &s->bp, *m = &c->moving;
    *listed = false;
    const uint64_t limit =
        c->list_limit ? c->list_limit : (uint64_t)CCD_LIST_PAIRS_PER_BODY * m->n + 64u;
    ccd__share_visit v = {s, 0, 0, 0, limit < UINT32_MAX / 4 ? (uint32_t)limit : UINT32_MAX / 4};
    if (physics__reserve(s->a, (void **)&c->grid_of, &c->cap_grid_of, 2 * b->n,
                         sizeof *c->grid_of) ||
        physics__reserve(s->a, (void **)&c->stray, &c->cap_stray, b->n, sizeof *c->stray) ||
        physics__reserve(s->a, (void **)&c->stray_body, &c->cap_stray_body, m->n,
                         sizeof *c->stray_body))
        return CT_ERR_NOMEM;
    uint32_t *grid_of = c->grid_of, *mover = c->grid_of + b->n;
    memset(grid_of, 0xff, (size_t)b->n * sizeof *grid_of);
    for (uint32_t k = 0; k < g->n; k++)
        grid_of[s->grid_body[k]] = k;
    /* Settled or stray. */
    uint32_t strays = 0;
    for (uint32_t k = 0; k < m->n; k++) {
        const uint32_t i = c->moving_body[k], at = grid_of[i];
        mover[i] = k;
        const bool in = at != UINT32_MAX && g->lo[at].x <= m->lo[k].x &&
                        g->lo[at].y <= m->lo[k].y && g->lo[at].z <= m->lo[k].z &&
                        m->hi[k].x <= g->hi[at].x && m->hi[k].y <= g->hi[at].y &&
                        m->hi[k].z <= g->hi[at].z;
        c->stray[i] = !in;
        if (!in)
            c->stray_body[strays++] = i;
    }
    /* Settled with settled: the grid's pairs (which hold every pair of paths that meet). */
    for (uint32_t k = 0; k < g->num_pairs; k++) {
        const uint32_t i = s->grid_body[g->pairs[k].a], j = s->grid_body[g->pairs[k].b];
        if (physics__fixed(b, i) || physics__fixed(b, j) || c->stray[i] || c->stray[j] ||
            !ccd__paths_meet(m, mover[i], mover[j]))
            continue;
        if (ccd__share_pair(&v, i, j))
            return CT_ERR_NOMEM;
    }
    /* A stray with the settled: its path asked of the grid. */
    for (uint32_t k = 0; k < strays && v.np <= v.limit; k++) {
        v.i = c->stray_body[k];
        const uint32_t at = mover[v.i];
        if (physics__broadphase_visit(g, m->lo[at], m->hi[at], ccd__share_found, &v))
            return CT_ERR_NOMEM;
    }
    /* Strays with strays: a grid of their paths. */
    if (strays >= 2 && v.np <= v.limit) {
        physics__broadphase *t = &c->strays;
        t->a = s->a;
        if (physics__broadphase_resize(t, strays))
            return CT_ERR_NOMEM;
        for (uint32_t k = 0; k < strays; k++) {
            const uint32_t at = mover[c->stray_body[k]];
            t->lo[k] = m->lo[at];
            t->hi[k] = m->hi[at];
            t->moving[k] = 1;
        }
        t->n = strays;
        t->pool = s->pool;
        t->max_pairs = v.limit;
        if (physics__broadphase_build(t, 0.0f) || physics__broadphase_pairs(t))
            return CT_ERR_NOMEM;
        if (t->dropped)
            return 0;
        for (uint32_t k = 0; k < t->num_pairs; k++)
            if (ccd__share_pair(&v, c->stray_body[t->pairs[k].a], c->stray_body[t->pairs[k].b]))
                return CT_ERR_NOMEM;
    }
    if (v.np > v.limit)
        return 0;
    if (physics__reserve_keep(s->a, (void **)&c->list_pairs, &c->cap_list_pairs, 2 * v.ne + 2,
                              sizeof *c->list_pairs) ||
        physics__reserve(s->a, (void **)&c->listed, &c->cap_listed, v.ne + 1, sizeof *c->listed) ||
        physics__reserve(s->a, (void **)&c->list_first, &c->cap_list_first, b->n + 1,
                         sizeof *c->list_first))
        return CT_ERR_NOMEM;
    ccd__list_order(s, v.ne, c->list_pairs + v.ne);
    *listed = true;
    return 0;
}

/* Without the lists: the moving bodies whose paths meet fast body i's box [lo, hi], ascending as
 * the lists are (boxes are in body order), each swept against when ccd__sweeps holds. Of fewer
 * than CCD_WALK_FAST fast bodies, every path box is tested (the test the grid's visit makes of
 * the boxes it finds): the grid of paths may not be built. */
static int ccd__query_moving(ccd__sweep *w, physics__v3 lo, physics__v3 hi, uint32_t fast)
{
    physics__ccd *c = &w->s->ccd;
    const physics__bodies *b = &w->s->bodies;
    const uint32_t i = w->self.i;
    if (fast < CCD_WALK_FAST) {
        const physics__broadphase *m = &c->moving;
        for (uint32_t k = 0; k < m->n; k++) {
            /* (x alone first: it leaves out nearly every box, in two compares.) */
            if (!(lo.x <= m->hi[k].x && m->lo[k].x <= hi.x))
                continue;
            const uint32_t j = c->moving_body[k];
            if ((lo.y <= m->hi[k].y) & (m->lo[k].y <= hi.y) & (lo.z <= m->hi[k].z) &
                    (m->lo[k].z <= hi.z) &&
                j != i && ccd__sweeps(c, b, i, j))
                ccd__against_moving(w, j);
        }
        return 0;
    }
    if (physics__broadphase_overlap(&c->moving, lo, hi))
        return CT_ERR_NOMEM;
    if (c->moving.num_found > 1) /* qsort wants a valid pointer even for nothing */
        qsort(c->moving.found, c->moving.num_found, sizeof *c->moving.found, physics__cmp_u32);
    for (uint32_t f = 0; f < c->moving.num_found; f++) {
        const uint32_t j = c->moving_body[c->moving.found[f]];
        if (j != i && ccd__sweeps(c, b, i, j))
            ccd__against_moving(w, j);
    }
    return 0;
}

static int ccd__cmp_hit(const void *x, const void *y)
{
    const uint64_t a = ((const physics__ccd_hit *)x)->key, b = ((const physics__ccd_hit *)y)->key;
    return (a > b) - (a < b);
}

/* Whether the pair of `key` touches by the contacts this step remembered (the rigid step's cache,
 * or the translation-only one's: physics__scene_step's choice). */
static bool ccd__touching(const physics__scene *s, uint64_t key)
{
    const bool rigid = s->bodies.num_rotating || s->joints.n;
    const uint32_t n = rigid ? s->rigid.num_cache : s->num_cache;
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if ((rigid ? s->rigid.cache[mid].key : s->cache[mid].key) < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < n && (rigid ? s->rigid.cache[lo].key : s->cache[lo].key) == key; lo++)
        if (rigid ? s->rigid.cache[lo].touching : s->cache[lo].touching)
            return true;
    return false;
}

/* The events of sweep hits, as a contact's: a hit stops a body a little before what it hit, and
 * its closing speed is taken away then, so the next step's contact often has nothing to press
 * (a bullet stopped at a wall) and no contact ever reported it. A pair hit that no contact
 * touches gets a CT_PHYSICS_EVENT_COLLISION and counts as touching from then: while sweeps
 * keep hitting it nothing more is said; when a contact takes it over (touching, by the cache),
 * the collision event the contact wrote on beginning is dropped (the sweep told it) and the
 * contact's CT_PHYSICS_EVENT_CONTACT_ENDED will end it; when neither touches it, it ends here.
 * Written after the contacts' events, by pair key: the bodies decide the order, not the
 * threads. (A snapshot does not keep which pairs a sweep reported: a restore forgets them.) */
static int ccd__report(physics__scene *s)
{
    physics__ccd *c = &s->ccd;
    if (!c->num_reported && !c->num_hit_events)
        return 0;
    if (physics__reserve(s->a, (void **)&c->next_reported, &c->cap_next_reported,
                         c->num_reported + c->num_hit_events, sizeof *c->next_reported))
        return CT_ERR_NOMEM;
    qsort(c->hit_event, c->num_hit_events, sizeof *c->hit_event, ccd__cmp_hit);
    uint32_t n = 0, x = 0, y = 0;
    while (x < c->num_reported || y < c->num_hit_events) {
        const uint64_t rk = x < c->num_reported ? c->reported[x] : UINT64_MAX;
        const uint64_t hk = y < c->num_hit_events ? c->hit_event[y].key : UINT64_MAX;
        const uint64_t key = rk < hk ? rk : hk;
        const bool was = rk == key;
        const physics__ccd_hit *hit = hk == key ? &c->hit_event[y] : NULL;
        x += was;
        y += hit != NULL;
        if (ccd__touching(s, key)) {
            if (was)
                physics__events_drop(&s->events, CT_PHYSICS_EVENT_COLLISION,
                                     (uint32_t)(key >> 32), (uint32_t)key);
            continue;
        }
        int err = 0;
        if (hit) {
            if (!was)
                err = physics__events_write(&s->events, CT_PHYSICS_EVENT_COLLISION, &hit->ev,
                                            sizeof hit->ev);
            c->next_reported[n++] = key;
        } else {
            const ct_physics_contact_ended_event_t ev = {(uint32_t)(key >> 32), (uint32_t)key};
            err = physics__events_write(&s->events, CT_PHYSICS_EVENT_CONTACT_ENDED, &ev,
                                        sizeof ev);
        }
        if (err)
            return err;
    }
    uint64_t *t = c->reported;
    const uint32_t cap = c->cap_reported;
    c->reported = c->next_reported;
    c->cap_reported = c->cap_next_reported;
    c->next_reported = t;
    c->cap_next_reported = cap;
    c->num_reported = n;
    c->num_hit_events = 0;
    return 0;
}

int physics__ccd_end(physics__scene *s, float dt)
{
    physics__ccd *c = &s->ccd;
    physics__bodies *b = &s->bodies;
    c->num_hit_events = 0;
    /* (What the step's grid holds is read here or never: the next step's candidates ask again.) */
    const bool shared = c->shared;
    c->shared = c->share = false;
    if (c->off || b->n == 0)
        return 0;
    uint32_t fast = 0;
    if (ccd__find_fast(s, dt, &fast))
        return CT_ERR_NOMEM;
    if (!fast)
        return ccd__report(s);
    bool listed = false;
    /* (Lists pay for a walk over every path; a few fast bodies among many moving ones ask.) The
     * lists come from the step's own grid when its boxes were widened for them; else, or past
     * their limit there, from a grid of the paths. */
    const bool list = c->moving.n && (uint64_t)fast * CCD_LIST_SHARE >= c->moving.n;
    c->share = list;
    if (physics__scene_fill_fixed(s) ||
        physics__reserve(s->a, (void **)&c->hit_event, &c->cap_hit_event, fast,
                         sizeof *c->hit_event))
        return CT_ERR_NOMEM;
    if (list && shared) {
        if (ccd__list_shared(s, &listed))
            return CT_ERR_NOMEM;
        c->lists_shared += listed;
    }
    if (c->moving.n && !listed && (list || fast >= CCD_WALK_FAST) &&
        (physics__broadphase_build(&c->moving, 0.0f) || (list && ccd__list(s, &listed))))
        return CT_ERR_NOMEM;
    /* The slowest first: each is swept against the fixed bodies and against the moving ones of
     * lower rank, where their own sweeps left them. */
    for (uint32_t k = 0; k < fast; k++) {
        const uint32_t i = c->order[k].body;
        /* (The order is by rank, so the bodies come from all over the arrays: what a sweep reads
         * first is fetched a few bodies ahead.) */
        if (k + CCD_AHEAD < fast) {
            const uint32_t next = c->order[k + CCD_AHEAD].body;
            __builtin_prefetch(&c->motion[next]);
            __builtin_prefetch(&b->position[next]);
            __builtin_prefetch(&b->rotation[next]);
            __builtin_prefetch(&c->list_first[next]);
        }
        /* (w.other is set before anything reads it.) */
        ccd__sweep w;
        w.s = s;
        w.self = c->motion[i];
        w.other_moves = false;
        w.best = 1.0f;
        w.hit = w.moved = UINT32_MAX;
        const physics__v3 end = b->position[i];
        const physics__quat end_rotation = b->rotation[i];
        const physics__v3 end_extent = b->extent[i];
        /* The boxes the swept body covers: its box at both ends, and whatever lies between. */
        physics__v3 lo, hi;
        ccd__path_box(&w.self, end, &lo, &hi);
        physics__broadphase_visit(&s->fixed, lo, hi, ccd__visit_fixed, &w);
        if (listed) {
            for (uint32_t p = c->list_first[i]; p < c->list_first[i + 1]; p++)
                ccd__against_moving(&w, c->listed[p]);
        } else if (c->moving.n && ccd__query_moving(&w, lo, hi, fast)) {
            return CT_ERR_NOMEM;
        }
        /* (Its turn and arm, found for its own sweep, serve the sweeps against it after: with
         * the turn alone the arm stayed 0, and a faster body swept against it found it turning
         * at no speed, stepped into it and went on through.) */
        if (w.self.turned) {
            c->motion[i].turn = w.self.turn;
            c->motion[i].arm = w.self.arm;
            c->motion[i].turned = true;
        }
        if (!(w.best < 1.0f)) {
            b->position[i] = end;
            b->rotation[i] = end_rotation;
            b->extent[i] = end_extent;
            continue;
        }
        const physics__v3 spin = b->angular[i], speed = b->velocity[i];
        ccd__respond(&w);
        b->angular[i] = ccd__no_more_spin(b, i, c->start_angular[i], spin, b->angular[i]);
        physics__v3 p = v3_add(w.self.p0, v3_scale(w.self.move, w.best));
        ccd__no_more_energy(s, i, speed, spin, end, p);
        physics__quat q = ccd__turn_at(&w.self.turn, w.best);
        if (w.moved != UINT32_MAX) {
            /* As it was to the moving body it hit, carried with that body to where it is now (so
             * the next step's contact finds the two as they met, not the fast body inside a plank
             * that turned on since). */
            const uint32_t j = w.moved;
            const ccd__motion o = c->motion[j];
            const physics__v3 at = v3_add(o.p0, v3_scale(o.move, w.best));
            const physics__quat turn = ccd__turn_at(&o.turn, w.best);
            const physics__quat carry = quat_normalize(
                ccd__mul(b->rotation[j], (physics__quat){-turn.x, -turn.y, -turn.z, turn.w}));
            const physics__v3 carried = v3_add(b->position[j], quat_rotate(carry, v3_sub(p, at)));
            const physics__quat carried_q = quat_normalize(ccd__mul(carry, q));
            /* Unless that carries it into what does not move (the plank itself was stopped at a
             * wall): the carry is swept against the fixed bodies as any motion is. */
            ccd__sweep move = {.s = s,
                               .self = {.i = i,
                                        .p0 = p,
                                        .move = v3_sub(carried, p),
                                        .turn = ccd__turn_of(q, carried_q, v3(0, 0, 0)),
                                        .reach = w.self.reach,
                                        .turned = true},
                               .best = 1.0f,
                               .hit = UINT32_MAX,
                               .moved = UINT32_MAX};
            move.self.arm = ccd__arm(b, i, move.self.reach);
            ccd__path_box(&move.self, carried, &lo, &hi);
            physics__broadphase_visit(&s->fixed, lo, hi, ccd__visit_fixed, &move);
            if (!(move.best < 1.0f)) {
                p = carried;
                q = carried_q;
            }
        }
        b->position[i] = p;
        b->rotation[i] = q;
        /* Carried with a body the step stopped at the world's border, it may end past it. */
        physics__scene_keep_body_inside(s, i);
        physics__bodies_extent(b, i);
        /* (Its motion ends here now, for the bodies swept against it after it: the part of it up
         * to the hit, or, carried, the shorter turn to where it went.) */
        if (w.moved != UINT32_MAX) {
            c->motion[i] = ccd__motion_of(s, i, 0.0f);
        } else {
            c->motion[i].move = v3_scale(c->motion[i].move, w.best);
            c->motion[i].turn.angle *= w.best;
        }
        c->hits++;
        s->bp_stale = true;
        s->quiet = false;
    }
    return ccd__report(s);
}

void physics__ccd_free(physics__scene *s)
{
    physics__ccd *c = &s->ccd;
    if (c->start)
        ct_free(s->a, c->start, (size_t)c->cap_start * sizeof *c->start);
    if (c->start_rotation)
        ct_free(s->a, c->start_rotation, (size_t)c->cap_start_rotation * sizeof *c->start_rotation);
    if (c->start_angular)
        ct_free(s->a, c->start_angular, (size_t)c->cap_start_angular * sizeof *c->start_angular);
    if (c->fast)
        ct_free(s->a, c->fast, (size_t)c->cap_fast * sizeof *c->fast);
    if (c->rank)
        ct_free(s->a, c->rank, (size_t)c->cap_rank * sizeof *c->rank);
    if (c->order)
        ct_free(s->a, c->order, (size_t)c->cap_order * sizeof *c->order);
    if (c->motion)
        ct_free(s->a, c->motion, (size_t)c->cap_motion * sizeof *c->motion);
    if (c->moving_body)
        ct_free(s->a, c->moving_body, (size_t)c->cap_moving_body * sizeof *c->moving_body);
    if (c->list_first)
        ct_free(s->a, c->list_first, (size_t)c->cap_list_first * sizeof *c->list_first);
    if (c->listed)
        ct_free(s->a, c->listed, (size_t)c->cap_listed * sizeof *c->listed);
    if (c->list_pairs)
        ct_free(s->a, c->list_pairs, (size_t)c->cap_list_pairs * sizeof *c->list_pairs);
    if (c->hit_event)
        ct_free(s->a, c->hit_event, (size_t)c->cap_hit_event * sizeof *c->hit_event);
    if (c->reported)
        ct_free(s->a, c->reported, (size_t)c->cap_reported * sizeof *c->reported);
    if (c->next_reported)
        ct_free(s->a, c->next_reported, (size_t)c->cap_next_reported * sizeof *c->next_reported);
    if (c->moving.a)
        physics__broadphase_free(&c->moving);
    if (c->strays.a)
        physics__broadphase_free(&c->strays);
    if (c->share_lo)
        ct_free(s->a, c->share_lo, (size_t)c->cap_share_lo * sizeof *c->share_lo);
    if (c->share_hi)
        ct_free(s->a, c->share_hi, (size_t)c->cap_share_hi * sizeof *c->share_hi);
    if (c->grid_of)
        ct_free(s->a, c->grid_of, (size_t)c->cap_grid_of * sizeof *c->grid_of);
    if (c->stray)
        ct_free(s->a, c->stray, (size_t)c->cap_stray * sizeof *c->stray);
    if (c->stray_body)
        ct_free(s->a, c->stray_body, (size_t)c->cap_stray_body * sizeof *c->stray_body);
    memset(c, 0, sizeof *c);
}
