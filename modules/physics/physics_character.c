/* physics_character.c: the character mover (ct_physics.h, Characters and Character settings).
 *
 * A character is an upright kinematic capsule body plus what the mover keeps (its settings, the
 * ground it stood on). move_character plans the next step's motion from where the body is now and
 * gives the body the velocity that takes it there, so the step moves it with the rest of the
 * world. Dynamic bodies stop it like the others and are pushed with a bounded force (step 7), not
 * by the kinematic body, which would push a truck as easily as a crate. Planning:
 *   1. riding: standing on a body that moves or turns, the spot under its feet is followed: its
 *      sideways motion is walked with the character's own, its rise or fall added at the end
 *      (step 5), so a lift neither leaves it behind nor lifts it off its feet;
 *   2. collide and slide: the motion is cut into moves of at most a quarter of the radius (so
 *      nothing thinner is passed through), and after each the capsule is pushed out of the bodies
 *      it overlaps (found by the shape tests of the contacts), the rest of the motion losing what
 *      goes into them. Walkable ground (a normal within max_slope of up) pushes straight up, so a
 *      character on a slope does not creep down it; anything steeper is a wall it slides along;
 *   3. stairs: when it stood on something and a wall kept it from its walk, the walk is tried
 *      again lifted by max_step and dropped back down; it is taken when something holds it
 *      higher and further along: walkable ground, or a stair's edge with walkable ground a radius
 *      further on into the riser that stopped it (walking on, the round bottom of the capsule
 *      rolls over the edge onto the stair; a steep slope has no such ground and is not climbed
 *      step by step). A riser more than 75 degrees off the walk is walked along, as Jolt's. A
 *      low dynamic body (a crate, a plank) is a stair like any other, and ground to stand on and
 *      ride; another character never is;
 *   4. what holds it: a drop straight down by a skin (or, when it stood on something and is not
 *      going up, by step_down, which keeps its feet on stairs and slopes going down) puts it on
 *      whatever is under it, walkable ground or an edge; only walkable ground is "grounded";
 *   5. up or down with what it rides (see 1);
 *   6. other characters: every test above meets them where they are this step (moved already:
 *      where their moves take them), and a move that still ends inside one is not made;
 *   7. pushing, as Jolt's CharacterVirtual does: each dynamic body the walk met gets an impulse at
 *      the contact, at most max_strength dt, and dynamic ground gets the character's weight.
 * Up is +y. Every move is bounded (at most 256 moves of 4 push-outs each). */
#include "physics_internal.h"

#include <string.h>

#define MOVER_SKIN 0.01f     /* m: how close to the ground still counts as standing on it */
#define MOVER_MAX_MOVES 256u /* a motion is cut into at most this many moves */
#define MOVER_PUSHES 4u      /* push-outs after each move */
#define MOVER_NEAR 64u       /* bodies a move keeps from one grid query */
#define MOVER_PUSHED 8u      /* dynamic bodies one move pushes */
/* Other characters one move collides with: the nearest in entity order up to this many (a ring of
 * capsules of one size around one holds fewer; more in reach are crowded past, not collided). */
#define MOVER_CROWD 16u
/* m: deeper than this into another character is in it (rounding leaves less). */
#define MOVER_CROWD_OVERLAP 1e-4f
/* Halvings that find where a drop first touched an edge (to a 256th of a quarter radius). */
#define MOVER_EDGE_HALVINGS 8u
/* cos 75 degrees: a stair's riser further than this from the way it walks is walked along, not up
 * (Jolt's mWalkStairsCosAngleForwardContact). */
#define MOVER_STAIR_COS 0.25881905f
/* Of the speed the character closes on a dynamic body with, the part a push takes away (Jolt's
 * CharacterVirtual: 0.9, so that a body pushed along does not bounce off ahead of it). */
#define MOVER_PUSH_DAMPING 0.9f
/* m: an overlap shallower than this is no overlap. A push-out leaves the capsule touching what it
 * met to within rounding, and a test that found those last micrometres would only push again
 * (a fifth of the tests in Jolt's character scene did). */
#define MOVER_TOLERANCE 1e-5f
/* m: how far the mover keeps the capsule from walls and ceilings (anything whose way out does not
 * point up by more than MOVER_WALL_UP), as Jolt's mCharacterPadding: a character walked into a
 * wall rests this far from it, so the next move starts clear of it instead of in contact (where
 * rounding may put it a hair inside and the push-out finds a way out to the wrong side). Ground
 * and stair edges hold it touching: its feet are where they stand. */
#define MOVER_PADDING 0.02f
#define MOVER_WALL_UP 0.1f

int physics__characters_add(physics__scene *s, uint32_t entity, float max_step, float max_slope)
{
    physics__characters *cs = &s->characters;
    if (physics__reserve_keep(s->a, (void **)&cs->c, &cs->cap, cs->n + 1, sizeof *cs->c) ||
        physics__reserve_keep(s->a, (void **)&cs->contacts, &cs->contacts_cap, cs->n + 1,
                              sizeof *cs->contacts))
        return CT_ERR_NOMEM;
    uint32_t at = cs->n;
    while (at > 0 && cs->c[at - 1].entity > entity)
        at--;
    memmove(&cs->c[at + 1], &cs->c[at], (size_t)(cs->n - at) * sizeof *cs->c);
    memmove(&cs->contacts[at + 1], &cs->contacts[at], (size_t)(cs->n - at) * sizeof *cs->contacts);
    cs->c[at] = (physics__character){.entity = entity, .normal = v3(0, 1, 0), .body = UINT32_MAX};
    cs->contacts[at].entity = entity;
    cs->contacts[at].fn = NULL, cs->contacts[at].user_data = NULL, cs->contacts[at].world = NULL;
    cs->contacts[at].n = 0;
    /* What v4 did: it keeps its feet as far down as it steps up, and pushes without limit. */
    physics__character_set(&cs->c[at],
                           &(ct_character_settings_t){.max_step = max_step,
                                                      .max_slope = max_slope,
                                                      .step_down = max_step,
                                                      .max_strength = CT_PHYSICS_MAX_FORCE});
    cs->n++;
    return 0;
}

ct_character_settings_t physics__character_settings(const physics__character *c)
{
    return (ct_character_settings_t){.max_step = c->max_step,
                                     .max_slope = c->max_slope,
                                     .step_down = c->step_down,
                                     .mass = c->mass,
                                     .max_strength = c->max_strength};
}

const char *physics__character_settings_error(const ct_character_settings_t *d)
{
    return !d                                                   ? "settings (NULL)"
           : !f_within(d->max_step, 0.0f, CT_PHYSICS_MAX_SIZE)  ? "max_step (within [0, 1e4] m)"
           : !f_within(d->max_slope, 0.0f, 1.5f)                ? "max_slope (within [0, 1.5] rad)"
           : !f_within(d->step_down, 0.0f, CT_PHYSICS_MAX_SIZE) ? "step_down (within [0, 1e4] m)"
           : !f_within(d->mass, 0.0f, CT_PHYSICS_MAX_MASS)      ? "mass (within [0, 1e9] kg)"
           : !f_within(d->max_strength, 0.0f, CT_PHYSICS_MAX_FORCE)
               ? "max_strength (within [0, 1e12] N)"
               : NULL;
}

const char *physics__character_restored_error(const physics__character *c)
{
    const ct_character_settings_t settings = physics__character_settings(c);
    const char *bad = physics__character_settings_error(&settings);
    if (bad)
        return bad;
    const float n = v3_dot(c->normal, c->normal);
    if (!f_within(c->cos_slope, -1.0f, 1.0f) || !(isfinite(n) && n <= 1.001f) ||
        c->grounded > 1u || c->held > 1u)
        return "state of its last move (slope, ground normal, flags)";
    return NULL;
}

void physics__character_set(physics__character *c, const ct_character_settings_t *settings)
{
    c->max_step = settings->max_step;
    c->max_slope = settings->max_slope;
    c->cos_slope = cosf(settings->max_slope);
    c->step_down = settings->step_down;
    c->mass = settings->mass;
    c->max_strength = settings->max_strength;
}

physics__character_contacts *physics__character_contacts_of(physics__scene *s,
                                                            const physics__character *c)
{
    physics__character_contacts *cc = &s->characters.contacts[c - s->characters.c];
    if (cc->entity != c->entity)
        *cc = (physics__character_contacts){.entity = c->entity};
    return cc;
}

physics__character *physics__characters_find(physics__scene *s, uint32_t entity)
{
    physics__characters *cs = &s->characters;
    uint32_t lo = 0, hi = cs->n;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (cs->c[mid].entity < entity)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < cs->n && cs->c[lo].entity == entity ? &cs->c[lo] : NULL;
}

void physics__characters_drop(physics__scene *s, uint32_t entity)
{
    physics__characters *cs = &s->characters;
    physics__character *c = physics__characters_find(s, entity);
    if (!c)
        return;
    const uint32_t k = (uint32_t)(c - cs->c);
    memmove(&cs->c[k], &cs->c[k + 1], (size_t)(cs->n - k - 1) * sizeof *cs->c);
    memmove(&cs->contacts[k], &cs->contacts[k + 1], (size_t)(cs->n - k - 1) * sizeof *cs->contacts);
    cs->n--;
}

void physics__characters_free(physics__scene *s)
{
    physics__characters *cs = &s->characters;
    if (cs->c)
        ct_free(s->a, cs->c, (size_t)cs->cap * sizeof *cs->c);
    if (cs->contacts)
        ct_free(s->a, cs->contacts, (size_t)cs->contacts_cap * sizeof *cs->contacts);
    cs->c = NULL;
    cs->contacts = NULL;
    cs->n = cs->cap = cs->contacts_cap = 0;
}

void physics__characters_place(physics__scene *s, float dt)
{
    physics__bodies *b = &s->bodies;
    for (uint32_t k = 0; k < s->characters.n; k++) {
        const uint32_t i = physics__bodies_find(b, (ct_entity_t){s->characters.c[k].entity});
        if (i == UINT32_MAX)
            continue;
        const physics__v3 v = b->velocity[i];
        if (v.x == 0.0f && v.y == 0.0f && v.z == 0.0f)
            continue;
        if (b->asleep[i])
            physics__scene_wake(s, i);
        b->position[i] = v3_add(b->position[i], v3_scale(v, dt));
        b->velocity[i] = v3(0.0f, 0.0f, 0.0f);
    }
}

/* ---- moving ------------------------------------------------------------------------------------ */

typedef struct mover {
    physics__scene *s;
    uint32_t self;
    /* The character's callback and the list of what this move met (see ct_character_contact_t):
     * each body's verdict is asked once a move and kept there. */
    physics__character_contacts *met;
    float cos_slope;
    float step; /* the most one move goes */
    /* The walkable ground the last pushes met. */
    bool grounded;
    uint32_t ground;
    physics__v3 normal;
    bool walled; /* a wall took some of the motion */
    /* The way into the wall that stood most across the walk (within MOVER_STAIR_ANGLE of it,
     * else the walk's own way), horizontal and unit, and its cosine with the walk's way. */
    physics__v3 forward, riser;
    float riser_cos;
    physics__v3 ground_point; /* where it touches that ground */
    /* The dynamic bodies the walk met (each once, the first contact's normal and point), to be
     * pushed when the move is planned; recording is off while a stair is only tried. */
    bool record;
    uint32_t num_pushed;
    struct {
        uint32_t body;
        physics__v3 normal, point;
    } pushed[MOVER_PUSHED];
    /* The bodies whose boxes meet [near_lo, near_hi] (indices, in entity order), from one grid
     * query around the whole motion: each overlap test of the move picks its own from them
     * instead of asking the grids again (what they would answer, as the box test is the same).
     * num_near UINT32_MAX: none gathered yet, or too many to keep. */
    physics__v3 near_lo, near_hi;
    float pad; /* how far around a test's box the query reaches */
    uint32_t num_near;
    uint32_t near[MOVER_NEAR];
    /* The other characters near the whole motion (body indices, in entity order) and where each
     * is this step: moved already, where its move takes it; else where it stands. The grids hold
     * where they stood, so these are tested here and left out of the near bodies. */
    uint32_t num_crowd;
    uint32_t crowd[MOVER_CROWD];
    physics__v3 crowd_at[MOVER_CROWD];
    /* The world's watch (move_character's, NULL for none): true once the character's contact
     * callback destroyed the world, which freed the scene. `stopped` is set on the first call
     * that returned so: from there each function of the move returns at once, touching nothing
     * of the scene (not even to put back a position), and the move ends with CT_ERR_STALE. */
    const bool *world_gone;
    bool stopped;
} mover;

/* Whether body j is a character's (its capsule is tested where its move takes it, not where the
 * grids have it). */
static bool mover__is_character(physics__scene *s, uint32_t j)
{
    const physics__bodies *b = &s->bodies;
    return b->kind[j] == CT_BODY_KINEMATIC && b->shape[j] == CT_BODY_CAPSULE &&
           physics__characters_find(s, b->entity[j].id) != NULL;
}

/* The static and kinematic bodies whose boxes meet [lo, hi] that the capsule's filter sees, by
 * entity id, into out (at most MOVER_NEAR; returns how many, or UINT32_MAX when there are more:
 * then the caller asks the grids itself). */
static uint32_t mover__near(mover *m, physics__v3 lo, physics__v3 hi, uint32_t *out)
{
    physics__bodies *b = &m->s->bodies;
    const bool inside = m->num_near != UINT32_MAX && lo.x >= m->near_lo.x && lo.y >= m->near_lo.y &&
                        lo.z >= m->near_lo.z && hi.x <= m->near_hi.x && hi.y <= m->near_hi.y &&
                        hi.z <= m->near_hi.z;
    if (!inside) {
        const physics__v3 pad = v3(m->pad, m->pad, m->pad);
        uint32_t n;
        const uint32_t *found = physics__scene_overlap_box(m->s, v3_sub(lo, pad), v3_add(hi, pad),
                                                           b->mask[m->self], &n);
        if (n > MOVER_NEAR)
            return UINT32_MAX;
        m->near_lo = v3_sub(lo, pad), m->near_hi = v3_add(hi, pad);
        m->num_near = 0;
        for (uint32_t k = 0; k < n; k++) {
            const uint32_t j = physics__bodies_find(b, (ct_entity_t){found[k]});
            if (j != UINT32_MAX && j != m->self && !mover__is_character(m->s, j))
                m->near[m->num_near++] = j;
        }
    }
    uint32_t n = 0;
    for (uint32_t k = 0; k < m->num_near; k++) {
        const uint32_t j = m->near[k];
        const physics__v3 jlo = v3_sub(b->position[j], b->extent[j]),
                          jhi = v3_add(b->position[j], b->extent[j]);
        if (jlo.x <= hi.x && jlo.y <= hi.y && jlo.z <= hi.z && jhi.x >= lo.x && jhi.y >= lo.y &&
            jhi.z >= lo.z)
            out[n++] = j;
    }
    return n;
}

/* Whether the move collides with body j, which it touches at manifold point q of mo: the verdict
 * it was given the first time this move met j, else (listing the contact) the callback's, or yes
 * without one. Past the list's room, yes unasked. */
static bool mover__accepts(mover *m, uint32_t j, bool character, const physics__manifold_out *mo,
                           uint32_t q)
{
    physics__character_contacts *met = m->met;
    const physics__bodies *b = &m->s->bodies;
    const uint32_t e = b->entity[j].id;
    for (uint32_t k = 0; k < met->n; k++)
        if (met->c[k].body == e)
            return met->c[k].accepted != 0;
    if (met->n == CT_CHARACTER_MAX_CONTACTS)
        return true;
    ct_character_contact_t *c = &met->c[met->n++];
    *c = (ct_character_contact_t){.character = b->entity[m->self].id,
                                  .body = e,
                                  .body_kind = b->kind[j],
                                  .is_character = character,
                                  .accepted = 1};
    v3_store(mo->p[q].point, c->point);
    v3_store(v3_scale(mo->normal, -1.0f), c->normal);
    if (!met->fn)
        return true;
    const bool accepted = met->fn(met->user_data, met->world, c);
    if (m->world_gone && *m->world_gone) {
        m->stopped = true; /* met, c and the bodies went with the world */
        return false;
    }
    if (!accepted)
        c->accepted = 0;
    return accepted;
}

/* The deepest overlap a push has found so far (see mover__deepest). */
typedef struct mover__hit {
    float deepest;     /* negative */
    physics__v3 out;   /* the way out of it, unit */
    physics__v3 point; /* where they touch */
    uint32_t body;     /* UINT32_MAX: none yet */
} mover__hit;

/* Tests the capsule (placed) against body j: when an overlap is deeper than h's, it and the way
 * out, the point and j become h's. */
static void mover__test(mover *m, uint32_t j, bool character, mover__hit *h)
{
    const physics__bodies *b = &m->s->bodies;
    physics__manifold_out mo;
    physics__manifold(b, m->self, j, MOVER_PADDING, false, &mo);
    /* The normal points from the capsule; a wall's overlap counts from the padding. */
    const float padding = -mo.normal.y <= MOVER_WALL_UP ? MOVER_PADDING : 0.0f;
    uint32_t first = UINT32_MAX;
    for (uint32_t q = 0; q < mo.count; q++)
        if (mo.p[q].sep - padding < -MOVER_TOLERANCE &&
            (first == UINT32_MAX || mo.p[q].sep < mo.p[first].sep))
            first = q;
    if (first == UINT32_MAX || !mover__accepts(m, j, character, &mo, first) || m->stopped)
        return;
    for (uint32_t q = 0; q < mo.count; q++)
        if (mo.p[q].sep - padding < h->deepest) {
            h->deepest = mo.p[q].sep - padding;
            h->out = v3_scale(mo.normal, -1.0f);
            h->point = mo.p[q].point;
            h->body = j;
        }
}

/* Whether the box of half size e about `at` misses the box [lo, hi]. */
static inline bool mover__box_apart(physics__v3 at, physics__v3 e, physics__v3 lo, physics__v3 hi)
{
    return at.x - e.x > hi.x || at.y - e.y > hi.y || at.z - e.z > hi.z || at.x + e.x < lo.x ||
           at.y + e.y < lo.y || at.z + e.z < lo.z;
}

/* What a walk over the crowd does with character j, which stands where it is this step for the
 * call only; true ends the walk. */
typedef bool (*mover__crowd_visit)(mover *m, uint32_t j, void *ctx);

/* Visits the other characters whose boxes, where they are this step, meet [lo, hi] (in the
 * crowd's order), each put there for its visit only: the grids keep where they stood. Whether a
 * visit ended the walk. */
static bool mover__walk_crowd(mover *m, physics__v3 lo, physics__v3 hi, mover__crowd_visit visit,
                              void *ctx)
{
    physics__bodies *b = &m->s->bodies;
    for (uint32_t k = 0; k < m->num_crowd; k++) {
        const uint32_t j = m->crowd[k];
        if (mover__box_apart(m->crowd_at[k], b->extent[j], lo, hi))
            continue;
        const physics__v3 was = b->position[j];
        b->position[j] = m->crowd_at[k];
        const bool stop = visit(m, j, ctx);
        if (m->stopped)
            return true; /* the world is gone: nothing to put back */
        b->position[j] = was;
        if (stop)
            return true;
    }
    return false;
}

/* mover__deepest's visit of another character: the capsule tested against it (ctx: the hit). */
static bool mover__test_character(mover *m, uint32_t j, void *ctx)
{
    mover__test(m, j, true, ctx);
    return m->stopped;
}

/* The deepest overlap of the capsule at p with another body: that body (or UINT32_MAX), the way
 * out of it (unit), the overlap (negative) and a point where they touch. UINT32_MAX too when the
 * move stopped (m->stopped). */
static uint32_t mover__deepest(mover *m, physics__v3 p, physics__v3 *out, float *deepest,
                               physics__v3 *point)
{
    physics__bodies *b = &m->s->bodies;
    b->position[m->self] = p;
    const float around = MOVER_SKIN + MOVER_PADDING;
    const physics__v3 reach = v3_add(b->extent[m->self], v3(around, around, around));
    const physics__v3 lo = v3_sub(p, reach), hi = v3_add(p, reach);
    uint32_t mine[MOVER_NEAR], n = mover__near(m, lo, hi, mine);
    const uint32_t *near = mine;
    bool ids = false;
    if (n == UINT32_MAX) {
        near = physics__scene_overlap_box(m->s, lo, hi, b->mask[m->self], &n);
        ids = true;
    }
    mover__hit h = {.deepest = -MOVER_TOLERANCE, .body = UINT32_MAX};
    for (uint32_t k = 0; k < n; k++) {
        const uint32_t j = ids ? physics__bodies_find(b, (ct_entity_t){near[k]}) : near[k];
        if (j == m->self || !(b->layer[m->self] & b->mask[j]) ||
            (ids && mover__is_character(m->s, j)))
            continue;
        mover__test(m, j, false, &h);
        if (m->stopped)
            return UINT32_MAX;
    }
    mover__walk_crowd(m, lo, hi, mover__test_character, &h);
    if (m->stopped)
        return UINT32_MAX;
    *out = h.out, *deepest = h.deepest, *point = h.point;
    return h.body;
}

/* mover__in_crowd's visit: whether the capsule is more than MOVER_CROWD_OVERLAP into character j
 * and this move's callback did not veto j. */
static bool mover__into_character(mover *m, uint32_t j, void *ctx)
{
    (void)ctx;
    const physics__bodies *b = &m->s->bodies;
    physics__manifold_out mo;
    physics__manifold(b, m->self, j, 0.0f, false, &mo);
    bool in = false;
    for (uint32_t q = 0; q < mo.count; q++)
        in = in || mo.p[q].sep < -MOVER_CROWD_OVERLAP;
    if (!in)
        return false;
    bool vetoed = false;
    for (uint32_t c = 0; c < m->met->n; c++)
        if (m->met->c[c].body == b->entity[j].id)
            vetoed = !m->met->c[c].accepted;
    return !vetoed;
}

/* Whether the capsule at p is more than MOVER_CROWD_OVERLAP into another character (one this
 * move's callback did not veto). */
static bool mover__in_crowd(mover *m, physics__v3 p)
{
    physics__bodies *b = &m->s->bodies;
    b->position[m->self] = p;
    const physics__v3 lo = v3_sub(p, b->extent[m->self]), hi = v3_add(p, b->extent[m->self]);
    return mover__walk_crowd(m, lo, hi, mover__into_character, NULL);
}

/* Gathers the other characters whose boxes, where they are this step, come within pad of the box
 * about `start` (see mover.crowd). A character moved already this step goes with its body's
 * velocity for dt; one not moved yet stands still. */
static void mover__gather_crowd(mover *m, physics__v3 start, float dt)
{
    physics__scene *s = m->s;
    physics__bodies *b = &s->bodies;
    const physics__v3 reach = v3_add(b->extent[m->self], v3(m->pad, m->pad, m->pad));
    const physics__v3 lo = v3_sub(start, reach), hi = v3_add(start, reach);
    m->num_crowd = 0;
    for (uint32_t k = 0; k < s->characters.n && m->num_crowd < MOVER_CROWD; k++) {
        physics__character *c = &s->characters.c[k];
        uint32_t j = c->body;
        if (j >= b->n || b->entity[j].id != c->entity)
            j = c->body = physics__bodies_find(b, (ct_entity_t){c->entity});
        if (j == UINT32_MAX || j == m->self || !(b->layer[m->self] & b->mask[j]) ||
            !(b->mask[m->self] & b->layer[j]))
            continue;
        const physics__v3 at = v3_add(b->position[j], v3_scale(b->velocity[j], dt));
        if (mover__box_apart(at, b->extent[j], lo, hi))
            continue;
        m->crowd[m->num_crowd] = j;
        m->crowd_at[m->num_crowd++] = at;
    }
}

/* Pushes the capsule at *p out of what it overlaps; *rest, the motion still to go, loses what goes
 * into what it met. */
static void mover__push_out(mover *m, physics__v3 *p, physics__v3 *rest)
{
    physics__bodies *b = &m->s->bodies;
    for (uint32_t push = 0; push < MOVER_PUSHES; push++) {
        physics__v3 out, point;
        float deepest;
        const uint32_t hit = mover__deepest(m, *p, &out, &deepest, &point);
        if (hit == UINT32_MAX) /* nothing in the way, or the move stopped */
            return;
        const bool dynamic = b->kind[hit] == CT_BODY_DYNAMIC;
        bool character = false;
        for (uint32_t k = 0; k < m->num_crowd && !character; k++)
            character = m->crowd[k] == hit;
        if (dynamic && m->record) {
            uint32_t k = 0;
            while (k < m->num_pushed && m->pushed[k].body != hit)
                k++;
            if (k == m->num_pushed && k < MOVER_PUSHED) {
                m->pushed[k].body = hit, m->pushed[k].normal = out, m->pushed[k].point = point;
                m->num_pushed++;
            }
        }
        if (out.y >= m->cos_slope) {
            /* Walkable: straight up, and the motion loses its way down. */
            p->y -= deepest / out.y;
            if (rest->y < 0.0f)
                rest->y = 0.0f;
            m->grounded = true;
            m->ground = b->entity[hit].id;
            m->normal = out;
            m->ground_point = point;
        } else {
            *p = v3_add(*p, v3_scale(out, -deepest));
            const float into = v3_dot(*rest, out);
            if (into < 0.0f)
                *rest = v3_sub(*rest, v3_scale(out, into));
            /* Another character is walked around, never climbed. A dynamic body in the way is
             * pushed, and tried as a stair too, as Jolt does: a crate the push cannot move is
             * climbed when low enough, one that gives way is walked after. */
            if (out.y > -0.1f && !character) {
                m->walled = true;
                const float flat = sqrtf(out.x * out.x + out.z * out.z);
                const physics__v3 in =
                    flat > 1e-6f ? v3(-out.x / flat, 0, -out.z / flat) : m->forward;
                const float cos_in = v3_dot(in, m->forward);
                if (m->record && cos_in > m->riser_cos)
                    m->riser = in, m->riser_cos = cos_in;
            }
        }
    }
}

/* Moves the capsule from p by motion, sliding; returns where it ends. */
static physics__v3 mover__slide(mover *m, physics__v3 p, physics__v3 motion)
{
    physics__v3 rest = motion;
    for (uint32_t k = 0; k < MOVER_MAX_MOVES && !m->stopped; k++) {
        const float len = v3_len(rest);
        if (!(len > 1e-6f))
            break;
        const float part = f_min(1.0f, m->step / len);
        const physics__v3 move = v3_scale(rest, part);
        p = v3_add(p, move);
        rest = v3_sub(rest, move);
        mover__push_out(m, &p, &rest);
    }
    return p;
}

/* Drops the capsule straight down from p by at most depth until something under it holds it
 * (walkable ground, or the edge of a stair: anything whose way out points up). Returns where it
 * stops, p itself when nothing held it; *held says whether something did, m->grounded whether that
 * was walkable ground. Walls beside it push it aside on the way. */
static physics__v3 mover__drop(mover *m, physics__v3 p, float depth, bool *held)
{
    physics__bodies *b = &m->s->bodies;
    m->grounded = false;
    m->ground = 0;
    m->normal = v3(0, 1, 0);
    *held = false;
    const physics__v3 from = p;
    for (float gone = 0.0f; gone < depth;) {
        const float d = f_min(m->step, depth - gone);
        physics__v3 q = v3(p.x, p.y - d, p.z), out, point;
        float deepest;
        uint32_t hit = mover__deepest(m, q, &out, &deepest, &point);
        if (m->stopped)
            return from;
        gone += d;
        /* An edge or a steep face: the step may have gone past the height where it first
         * touched, and the way out there (which says whether it holds the capsule) is not the way
         * out a step deeper (more sideways). Halve back to that height. */
        if (hit != UINT32_MAX && out.y < m->cos_slope) {
            float free = p.y, in = q.y;
            for (uint32_t k = 0; k < MOVER_EDGE_HALVINGS; k++) {
                physics__v3 o, at;
                float depth_at;
                const float mid = 0.5f * (free + in);
                const uint32_t h = mover__deepest(m, v3(q.x, mid, q.z), &o, &depth_at, &at);
                if (m->stopped)
                    return from;
                if (h == UINT32_MAX) {
                    free = mid;
                } else {
                    in = mid;
                    hit = h, out = o, deepest = depth_at, point = at;
                }
            }
            q.y = in;
        }
        if (hit == UINT32_MAX) {
            p = q;
        } else if (out.y > 0.1f) {
            q.y = f_min(q.y - deepest / out.y, p.y);
            *held = true;
            m->grounded = out.y >= m->cos_slope;
            m->ground = b->entity[hit].id;
            m->normal = out;
            m->ground_point = point;
            return q;
        } else {
            p = v3_add(q, v3_scale(out, -deepest));
        }
    }
    return from;
}

/* Pushes the dynamic bodies the walk met (Jolt's CharacterVirtual::HandleContact): each gets,
 * along the contact's normal, 0.9 of the impulse that would bring its speed at the contact to the
 * character's, at most max_strength dt and never downwards; then the ground, when it is dynamic,
 * gets the character's weight for dt. */
static void mover__push_bodies(const mover *m, const physics__character *c, physics__v3 velocity,
                               float dt)
{
    physics__bodies *b = &m->s->bodies;
    const float most = c->max_strength * dt;
    for (uint32_t k = 0; k < m->num_pushed && most > 0.0f; k++) {
        const uint32_t j = m->pushed[k].body;
        const physics__v3 n = m->pushed[k].normal, at = m->pushed[k].point;
        const physics__v3 arm = v3_sub(at, b->position[j]);
        const physics__v3 there = v3_add(b->velocity[j], v3_cross(b->angular[j], arm));
        /* n points from the body to the character: closing is negative along it. */
        const float closing = v3_dot(v3_sub(velocity, there), n);
        if (!(closing < 0.0f))
            continue;
        const physics__v3 jac = v3_cross(arm, n);
        const float inv_mass =
            b->inv_mass[j] + v3_dot(jac, physics__world_inv_inertia_times(b, j, jac));
        if (!(inv_mass > 0.0f))
            continue;
        const float impulse = f_min(-MOVER_PUSH_DAMPING * closing / inv_mass, most);
        physics__v3 J = v3_scale(n, -impulse);
        if (J.y < 0.0f)
            J.y = 0.0f;
        physics__scene_wake(m->s, j);
        physics__bodies_impulse_at(b, j, J, at);
    }
    if (!m->grounded || !(c->mass > 0.0f))
        return;
    const uint32_t g = physics__bodies_find(b, (ct_entity_t){m->ground});
    const physics__v3 gravity = m->s->gravity;
    const float pull = v3_dot(m->normal, gravity), strength = v3_len(gravity);
    if (g == UINT32_MAX || b->kind[g] != CT_BODY_DYNAMIC || !(pull < 0.0f) || !(strength > 0.0f))
        return;
    physics__scene_wake(m->s, g);
    physics__bodies_impulse_at(b, g, v3_scale(gravity, -c->mass * pull / strength * dt),
                               m->ground_point);
}

int physics__character_move(physics__scene *s, uint32_t i, physics__character *c,
                            physics__v3 velocity, float dt, ct_character_state_t *out)
{
    return physics__character_move_watched(s, i, c, velocity, dt, NULL, out);
}

/* Each step of the plan below that may call the contact callback is followed by STOPPED: when
 * the callback destroyed the world, the move returns there, reading nothing more of it. */
#define STOPPED()                                                                                  \
    do {                                                                                           \
        if (m.stopped)                                                                             \
            return CT_ERR_STALE;                                                                   \
    } while (0)

int physics__character_move_watched(physics__scene *s, uint32_t i, physics__character *c,
                                    physics__v3 velocity, float dt, const bool *world_gone,
                                    ct_character_state_t *out)
{
    physics__bodies *b = &s->bodies;
    const physics__v3 start = b->position[i];
    physics__character_contacts *met = physics__character_contacts_of(s, c);
    met->n = 0;
    mover m = {.s = s,
               .self = i,
               .met = met,
               .cos_slope = c->cos_slope,
               .step = 0.25f * b->radius[i],
               .num_near = UINT32_MAX,
               .record = true,
               .world_gone = world_gone};
    const physics__v3 motion = v3_scale(velocity, dt);
    /* 1. Riding what it stands on: where this step takes the spot under its feet, turned by the
     * step's rotation (not along the spot's velocity, which would drift it outwards on a turning
     * platform). What carries it sideways is walked with its own motion; what carries it up or
     * down is added after it found its footing on the ground where the ground is now. */
    const uint32_t g =
        c->held && c->ground ? physics__bodies_find(b, (ct_entity_t){c->ground}) : UINT32_MAX;
    physics__v3 ride = v3(0.0f, 0.0f, 0.0f);
    if (g != UINT32_MAX && b->kind[g] != CT_BODY_STATIC) {
        const physics__v3 arm = v3_sub(v3_sub(start, v3(0, b->half[i].y, 0)), b->position[g]);
        const physics__v3 turned =
            quat_rotate(quat_integrate(quat_identity(), b->angular[g], dt), arm);
        ride = v3_add(v3_scale(b->velocity[g], dt), v3_sub(turned, arm));
    }
    /* Every test of this move is near its whole motion: a stair's lift and the radius further
     * on, and the drop back down. */
    m.pad = v3_len(motion) + v3_len(ride) + f_max(c->max_step, c->step_down) + b->radius[i] +
            2.0f * (MOVER_SKIN + MOVER_PADDING);
    mover__gather_crowd(&m, start, dt);
    /* 2. The walk, then the rise or fall. */
    const physics__v3 walk = v3(motion.x + ride.x, 0.0f, motion.z + ride.z);
    const float wanted = v3_len(walk);
    m.forward = m.riser = wanted > 1e-6f ? v3_scale(walk, 1.0f / wanted) : v3(0, 0, 0);
    m.riser_cos = MOVER_STAIR_COS;
    physics__v3 p = mover__slide(&m, start, walk);
    STOPPED();
    /* 3. Stairs: blocked while it stood on something, try the walk lifted by the step and put
     * down again; taken when that ends higher and further along. */
    bool held = false;
    if (c->held && m.walled && c->max_step > 0.0f && wanted > 1e-6f) {
        m.record = false;
        const physics__v3 lifted = mover__slide(&m, start, v3(0, c->max_step, 0));
        STOPPED();
        /* Lifted, it walks on and goes the padding further into the riser: the walk stopped it
         * that far short of it (Jolt steps forward at least mWalkStairsMinStepForward, 2 cm). */
        const physics__v3 over =
            mover__slide(&m, lifted, v3_add(walk, v3_scale(m.riser, MOVER_PADDING)));
        const float depth = lifted.y - start.y + MOVER_SKIN;
        STOPPED();
        const physics__v3 down = mover__drop(&m, over, depth, &held);
        STOPPED();
        /* Held by an edge rather than ground: a stair has walkable ground a little further on,
         * a steep slope has not (and is not climbed step by step). Further on is a radius into
         * the riser that stopped it, as Jolt's step forward test: walking up stairs at a slant
         * (up to 75 degrees off) moves little towards them in a step, and a radius along the walk
         * would still find the edge. */
        bool ahead = m.grounded;
        if (held && !ahead) {
            bool ahead_held;
            const physics__v3 further = v3_add(over, v3_scale(m.riser, b->radius[i]));
            const physics__v3 there_walked = mover__slide(&m, over, v3_sub(further, over));
            STOPPED();
            const physics__v3 there = mover__drop(&m, there_walked, depth, &ahead_held);
            STOPPED();
            /* That ground within the step too: an edge higher up (a box taller than the step)
             * holds the capsule's round side a little way up it, and the walk further on is
             * pushed up its slant, which would climb it a little each move. */
            ahead = ahead_held && m.grounded && there.y <= start.y + c->max_step + MOVER_SKIN;
        }
        const float went = v3_dot(v3_sub(down, start), walk) / wanted,
                    plain = v3_dot(v3_sub(p, start), walk) / wanted;
        /* And no higher than the step: pushed out of an edge it meets on the lifted walk, the
         * capsule rises along the edge's slant and could end on a top well above max_step. */
        if (held && ahead && went > plain + 1e-4f && down.y > start.y + 1e-4f &&
            down.y <= start.y + c->max_step + MOVER_SKIN)
            p = down;
        else
            held = false;
        m.record = true;
    }
    p = mover__slide(&m, p, v3(0, motion.y, 0));
    STOPPED();
    m.record = false;
    /* 4. What holds it: put on it when within the skin, or within the step when it stood on
     * something and is not going up (down stairs and slopes it keeps its feet). */
    if (motion.y > 1e-6f) {
        m.grounded = false;
        held = false;
    } else {
        const physics__v3 q =
            mover__drop(&m, p, (c->held ? c->step_down : 0.0f) + MOVER_SKIN, &held);
        STOPPED();
        if (held)
            p = q;
    }
    /* 5. Up or down with what it rides: a lift going up lifts it (under a ceiling it stops); going
     * down it is put where the ground will be, not dropped onto where it was. */
    if (ride.y > 0.0f)
        p = mover__slide(&m, p, v3(0.0f, ride.y, 0.0f));
    else
        p.y += ride.y;
    STOPPED();
    /* 6. Never into another character: where the pushes of a crowded move (each move ends after
     * a few) or a ride left it in one, it stays where it stood, which no other character's move
     * of this step went into (each saw it there). */
    if (mover__in_crowd(&m, p) && !mover__in_crowd(&m, start))
        p = start;
    b->position[i] = start;
    const physics__v3 v = v3_scale(v3_sub(p, start), 1.0f / dt);
    if (!v3_speed_ok(v))
        return CT_ERR_INVALID;
    b->velocity[i] = v;
    mover__push_bodies(&m, c, velocity, dt);
    c->grounded = m.grounded;
    c->held = held;
    c->ground = m.grounded ? m.ground : 0u;
    c->normal = m.grounded ? m.normal : v3(0, 1, 0);
    s->quiet = false;
    if (out) {
        *out = (ct_character_state_t){.grounded = c->grounded, .ground = c->ground};
        v3_store(c->normal, out->ground_normal);
        v3_store(p, out->position);
        v3_store(v, out->velocity);
    }
    return 0;
}
#undef STOPPED
