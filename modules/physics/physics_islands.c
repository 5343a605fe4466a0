/* physics_islands.c: sleeping. Dynamic bodies linked by contacts form islands; an island whose
 * bodies have all been at rest (islands__resting) for SLEEP_TIME goes to sleep: its bodies leave
 * the moving grid for the fixed one, are not integrated and their contacts are not solved, so a
 * settled pile costs next to nothing. The island wakes, whole, when a moving body runs into it,
 * when a game moves, pushes or removes one of its bodies (or what it rests on), or when gravity
 * changes. A sleeping island is labelled by the entity id of one of its bodies. */
#include "physics_internal.h"

#include <stdlib.h>

#define SLEEP_SPEED 0.05f        /* m/s */
#define SLEEP_TIME 0.5f          /* s */
#define SLEEP_PENETRATION 0.001f /* m, translation-only step */
#define SLEEP_SPIN 0.05f         /* rad/s (bodies that never rotate spin at 0) */

static int islands__cmp_u32(const void *x, const void *y) { return physics__cmp_u32(x, y); }

/* Wakes the sleeping bodies whose island is among the n sorted labels (all of them for n ==
 * UINT32_MAX). */
static void islands__wake_labels(physics__scene *s, const uint32_t *labels, uint32_t n)
{
    physics__bodies *b = &s->bodies;
    uint32_t woken = 0;
    for (uint32_t i = 0; i < b->n; i++) {
        if (!b->asleep[i])
            continue;
        if (n != UINT32_MAX && !bsearch(&b->island[i], labels, n, sizeof *labels, islands__cmp_u32))
            continue;
        b->asleep[i] = 0;
        b->rest[i] = 0.0f;
        woken++;
    }
    if (woken) {
        s->fixed_stale = s->bp_stale = true;
        s->woke = true;
    }
}

void physics__scene_wake(physics__scene *s, uint32_t i)
{
    physics__bodies *b = &s->bodies;
    s->quiet = false;
    b->rest[i] = 0.0f;
    if (b->asleep[i])
        islands__wake_labels(s, &b->island[i], 1);
}

void physics__scene_wake_all(physics__scene *s)
{
    s->quiet = false;
    islands__wake_labels(s, NULL, UINT32_MAX);
    for (uint32_t i = 0; i < s->bodies.n; i++)
        s->bodies.rest[i] = 0.0f;
}

void physics__islands_wake_listed(physics__scene *s)
{
    if (s->num_wake == UINT32_MAX) {
        physics__scene_wake_all(s);
    } else if (s->num_wake) {
        qsort(s->islands, s->num_wake, sizeof *s->islands, islands__cmp_u32);
        islands__wake_labels(s, s->islands, s->num_wake);
    }
    s->num_wake = 0;
}

/* Removing a body wakes its island and the islands of everything it touched (a box under a
 * sleeping stack), found among the remembered contacts. */
bool physics__scene_remove(physics__scene *s, ct_entity_t e)
{
    physics__bodies *b = &s->bodies;
    const uint32_t i = physics__bodies_find(b, e);
    if (i == UINT32_MAX)
        return false;
    physics__scene_wake(s, i);
    physics__joints_drop_entity(s, e.id);
    physics__characters_drop(s, e.id);
    physics__sensors_drop(s, e.id);
    const uint32_t remembered = s->num_cache + s->rigid.num_cache;
    for (uint32_t k = 0; k < remembered; k++) {
        const uint64_t key =
            k < s->num_cache ? s->cache[k].key : s->rigid.cache[k - s->num_cache].key;
        const uint32_t a = (uint32_t)(key >> 32), c = (uint32_t)key;
        if (a != e.id && c != e.id)
            continue;
        const uint32_t other = physics__bodies_find(b, (ct_entity_t){a == e.id ? c : a});
        if (other != UINT32_MAX)
            physics__scene_wake(s, other);
    }
    physics__bodies_remove(b, e);
    s->bp_stale = s->fixed_stale = s->woke = true;
    s->quiet = false;
    return true;
}

static uint32_t islands__root(uint32_t *parent, uint32_t i)
{
    while (parent[i] != i)
        i = parent[i] = parent[parent[i]];
    return i;
}

/* Bodies i and j touch or are joined: two awake dynamic bodies join one island (the smaller root
 * index becomes the root, so the islands do not depend on the order of contacts and joints); a
 * moving kinematic body keeps the other awake. */
static void islands__link(physics__bodies *b, uint32_t *parent, uint32_t i, uint32_t j)
{
    const bool di = b->kind[i] == CT_BODY_DYNAMIC && !b->asleep[i];
    const bool dj = b->kind[j] == CT_BODY_DYNAMIC && !b->asleep[j];
    if (di && dj) {
        const uint32_t ri = islands__root(parent, i), rj = islands__root(parent, j);
        if (ri != rj)
            parent[ri > rj ? ri : rj] = ri < rj ? ri : rj;
    } else if (b->kind[i] == CT_BODY_KINEMATIC || b->kind[j] == CT_BODY_KINEMATIC) {
        const uint32_t kin = b->kind[i] == CT_BODY_KINEMATIC ? i : j, dyn = kin == i ? j : i;
        if (v3_dot(b->velocity[kin], b->velocity[kin]) > 0.0f && !b->asleep[dyn])
            b->rest[dyn] = 0.0f;
    }
}

/* Whether awake dynamic body i was at rest in this step: slower than SLEEP_SPEED and turning
 * slower than SLEEP_SPIN. In the rigid step (moved) the velocities at its end are not enough: the
 * relaxing pass takes back the speed that pushed overlapping bodies apart (physics_rigid.c), so a
 * body pushed out at 3 m/s ends the step still. As Box3D does, what the body moved and turned in
 * the step counts as a speed too: a body being pushed out, sinking or jittering moves; one resting
 * on soft contacts does not, however deep they hold it (a box under three others on the sine mesh
 * of bench_convex_mesh.c rests 1 to 3 mm deep, still, and kept whole piles awake when a contact
 * deeper than 1 mm counted as being pushed out). The translation-only step moves positions apart
 * without a velocity: its contacts' depths are checked in physics__islands_sleep. */
static bool islands__resting(const physics__bodies *b, uint32_t i, const physics__rigid_body *moved,
                             float dt)
{
    const float slow = SLEEP_SPEED * SLEEP_SPEED, spin = SLEEP_SPIN * SLEEP_SPIN;
    if (v3_dot(b->velocity[i], b->velocity[i]) >= slow ||
        v3_dot(b->angular[i], b->angular[i]) >= spin)
        return false;
    if (!moved)
        return true;
    const physics__v3 dp = moved[i].dp, dq = moved[i].dq;
    return v3_dot(dp, dp) < slow * dt * dt && v3_dot(dq, dq) < spin * dt * dt;
}

/* Counts rest times and puts islands that rested long enough to sleep. Needs the step's contacts
 * (before remember) and room for b->n in the scratch arrays. */
void physics__islands_sleep(physics__scene *s, float dt, const physics__rigid_body *moved)
{
    physics__bodies *b = &s->bodies;
    if (!s->sleeping)
        return;
    uint32_t *parent = s->islands;
    float *rest = s->island_rest;
    for (uint32_t i = 0; i < b->n; i++) {
        parent[i] = i;
        if (b->kind[i] == CT_BODY_DYNAMIC && !b->asleep[i])
            b->rest[i] = islands__resting(b, i, moved, dt) ? b->rest[i] + dt : 0.0f;
    }
    const physics__contacts *c = &s->contacts;
    for (uint32_t k = 0; k < c->n; k++) {
        const uint32_t i = c->a[k], j = c->b[k];
        /* Translation-only bodies still being pushed out of each other are not at rest, however
         * slow (that solver moves positions apart without a velocity). */
        if (!moved) {
            const float sep =
                c->sep_base[k] + v3_dot(c->normal[k], v3_sub(b->position[j], b->position[i]));
            if (sep < -SLEEP_PENETRATION)
                b->rest[i] = b->rest[j] = 0.0f;
        }
        islands__link(b, parent, i, j);
    }
    /* Joined bodies are one island (their instances were found at the step's start). */
    for (uint32_t k = 0; k < s->joints.n; k++) {
        const physics__joint *jt = &s->joints.j[k];
        if (jt->a != UINT32_MAX && jt->b != UINT32_MAX)
            islands__link(b, parent, jt->a, jt->b);
    }
    for (uint32_t i = 0; i < b->n; i++)
        rest[i] = INFINITY;
    for (uint32_t i = 0; i < b->n; i++)
        if (b->kind[i] == CT_BODY_DYNAMIC && !b->asleep[i]) {
            const uint32_t r = islands__root(parent, i);
            rest[r] = f_min(rest[r], b->rest[i]);
        }
    uint32_t slept = 0;
    for (uint32_t i = 0; i < b->n; i++) {
        if (b->kind[i] != CT_BODY_DYNAMIC || b->asleep[i])
            continue;
        const uint32_t r = islands__root(parent, i);
        if (rest[r] < SLEEP_TIME)
            continue;
        b->asleep[i] = 1;
        b->island[i] = b->entity[r].id;
        b->velocity[i] = b->angular[i] = v3(0, 0, 0);
        slept++;
    }
    if (slept)
        s->fixed_stale = s->bp_stale = true;
}
