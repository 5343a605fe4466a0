/* physics_compound.c: compound bodies (v5): several boxes, spheres, capsules and hulls fixed in
 * one rigid body.
 *
 * The shape tests of single bodies read a body's shape from the bodies' arrays, so a compound's
 * child is tested by placing it in the world as a body of a two-entry "proxy" set of arrays (the
 * other entry is the other body, or its child) and calling the same tests. A contact has one
 * normal, so the child pairs' manifolds are merged: the deepest pair's normal, and the points of
 * the pairs whose normals push within COMPOUND_SAME_WAY of it, reduced to four. */
#include "physics_hull.h"

#include <stdio.h>
#include <string.h>

/* cos 25 degrees: child pairs pushing within this of the deepest pair's normal join its contact. */
#define COMPOUND_SAME_WAY 0.906f

/* ---- building ------------------------------------------------------------------------------ */

static float compound__volume(const physics__child *c)
{
    if (c->shape == CT_BODY_BOX)
        return 8.0f * c->half.x * c->half.y * c->half.z;
    if (c->shape == CT_BODY_HULL)
        return c->hull->volume;
    const float r = c->radius, hh = c->half.y - r;
    return 3.14159265f * r * r * (2.0f * hh + 4.0f / 3.0f * r);
}

void physics__compound_free(ct_allocator_t *a, physics__compound *c)
{
    if (!c)
        return;
    for (uint32_t k = 0; k < c->count; k++)
        if (c->child[k].hull)
            ct_free(a, c->child[k].hull, sizeof *c->child[k].hull);
    ct_free(a, c, c->bytes);
}

/* Child k's refusal `what`, with the value that came of the field it names. */
static const char *compound__fail(char *reason, size_t size, uint32_t k,
                                  const ct_compound_child_t *c, const char *what)
{
    const float *h = c->half_extents, *p = c->position, *q = c->rotation;
    const physics__given_field fields[] = {{"shape", 1, 'u', {c->shape}},
                                           {"half_extents", 3, 'g', {h[0], h[1], h[2]}},
                                           {"radius", 1, 'g', {c->radius}},
                                           {"half_height", 1, 'g', {c->half_height}},
                                           {"position", 3, 'g', {p[0], p[1], p[2]}},
                                           {"rotation", 4, 'g', {q[0], q[1], q[2], q[3]}}};
    char said[160];
    snprintf(reason, size, "children[%u].%s", k,
             physics__given(what, fields, sizeof fields / sizeof fields[0], said, sizeof said));
    return reason;
}

/* The checks of the children; their hulls' points too when `hulls` (building each hull once to
 * check it: physics__compound_build builds them anyway, and checks them then). */
static const char *compound__check(const ct_compound_child_t *children, uint32_t count, bool hulls,
                                   char *reason, size_t reason_size)
{
    if (!children)
        return "children (NULL)";
    if (count == 0 || count > CT_PHYSICS_MAX_COMPOUND_CHILDREN)
        return "children (a compound has 1 to 64)";
    for (uint32_t k = 0; k < count; k++) {
        const ct_compound_child_t *c = &children[k];
        if (c->shape == CT_BODY_BOX) {
            for (int x = 0; x < 3; x++)
                if (!f_within(c->half_extents[x], CT_PHYSICS_MIN_SIZE, CT_PHYSICS_MAX_SIZE))
                    return compound__fail(reason, reason_size, k, c,
                                          "half_extents (each must be within [1e-3, 1e4] m)");
        } else if (c->shape == CT_BODY_SPHERE || c->shape == CT_BODY_CAPSULE) {
            if (!f_within(c->radius, CT_PHYSICS_MIN_SIZE, CT_PHYSICS_MAX_SIZE))
                return compound__fail(reason, reason_size, k, c,
                                      "radius (must be within [1e-3, 1e4] m)");
            if (c->shape == CT_BODY_CAPSULE && !f_within(c->half_height, 0.0f, CT_PHYSICS_MAX_SIZE))
                return compound__fail(reason, reason_size, k, c,
                                      "half_height (must be within [0, 1e4] m)");
        } else if (c->shape == CT_BODY_HULL && hulls) {
            /* Built here only to be checked (a hull is a few kilobytes: on the stack). */
            physics__hull h;
            char why[128];
            const char *bad = physics__hull_build(&h, c->points, c->point_count, why, sizeof why);
            if (bad)
                return compound__fail(reason, reason_size, k, c, bad);
        } else if (c->shape != CT_BODY_HULL) {
            return compound__fail(reason, reason_size, k, c,
                                  "shape (box, sphere, capsule or hull)");
        }
        if (!v3_within(v3_load(c->position), CT_PHYSICS_MAX_SIZE))
            return compound__fail(reason, reason_size, k, c,
                                  "position (each coordinate within +-1e4 m)");
        const float *q = c->rotation;
        const float len = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        const bool zero = q[0] == 0.0f && q[1] == 0.0f && q[2] == 0.0f && q[3] == 0.0f;
        if (!zero && !(fabsf(len - 1.0f) <= 1e-3f))
            return compound__fail(reason, reason_size, k, c,
                                  "rotation (x y z w of length 1 within 1e-3, or all zero)");
    }
    return NULL;
}

const char *physics__compound_children_error(const ct_compound_child_t *children, uint32_t count,
                                             char *reason, size_t reason_size)
{
    return compound__check(children, count, true, reason, reason_size);
}

const char *physics__compound_build(ct_allocator_t *a, const ct_compound_child_t *children,
                                    uint32_t count, physics__compound **out, char *reason,
                                    size_t reason_size)
{
    *out = NULL;
    /* Check everything but the hulls' points before allocating anything; the hulls are checked
     * as they are built. */
    const char *bad = compound__check(children, count, false, reason, reason_size);
    if (bad)
        return bad;
    const size_t bytes = sizeof(physics__compound) + (size_t)count * sizeof(physics__child);
    physics__compound *cp = ct_alloc(a, bytes);
    if (!cp)
        return "children (out of memory)";
    memset(cp, 0, bytes);
    cp->bytes = (uint32_t)bytes;
    for (uint32_t k = 0; k < count; k++) {
        const ct_compound_child_t *c = &children[k];
        physics__child *x = &cp->child[k];
        const float *q = c->rotation;
        x->shape = (uint8_t)c->shape;
        x->position = v3_load(c->position);
        x->rotation = q[0] == 0.0f && q[1] == 0.0f && q[2] == 0.0f && q[3] == 0.0f
                          ? quat_identity()
                          : quat_normalize((physics__quat){q[0], q[1], q[2], q[3]});
        x->radius = c->radius;
        if (c->shape == CT_BODY_HULL) {
            x->hull = ct_alloc(a, sizeof *x->hull);
            char why[128];
            const char *failed =
                x->hull ? physics__hull_build(x->hull, c->points, c->point_count, why, sizeof why)
                        : "points (out of memory)";
            if (failed) {
                compound__fail(reason, reason_size, k, c, failed);
                cp->count = k + 1;
                physics__compound_free(a, cp);
                return reason;
            }
            /* The hull's own centroid moves into the child's position. */
            x->position = v3_add(x->position, quat_rotate(x->rotation, x->hull->centroid));
            x->half = x->hull->half;
            x->radius = 0.0f;
        } else {
            x->half = c->shape == CT_BODY_BOX ? v3_load(c->half_extents)
                      : c->shape == CT_BODY_SPHERE
                          ? v3(c->radius, c->radius, c->radius)
                          : v3(c->radius, c->half_height + c->radius, c->radius);
        }
        x->bound = v3_len(x->half);
        cp->round += x->shape == CT_BODY_SPHERE || x->shape == CT_BODY_CAPSULE;
        cp->count = k + 1;
    }
    /* Centre of mass by volume, then each child's inertia about it (parallel axes). */
    double volume = 0.0;
    physics__v3 centre = v3(0, 0, 0);
    for (uint32_t k = 0; k < count; k++) {
        const float v = compound__volume(&cp->child[k]);
        volume += v;
        centre = v3_add(centre, v3_scale(cp->child[k].position, v));
    }
    centre = v3_scale(centre, (float)(1.0 / volume));
    cp->centroid = centre;
    double ix = 0.0, iy = 0.0, iz = 0.0;
    for (uint32_t k = 0; k < count; k++) {
        physics__child *x = &cp->child[k];
        x->position = v3_sub(x->position, centre);
        const float share = (float)(compound__volume(x) / volume);
        const physics__v3 own =
            x->shape == CT_BODY_HULL
                ? x->hull->inertia
                : physics__shape_inertia(x->shape, x->half, x->radius, x->half.y - x->radius, 1.0f);
        /* The child's principal moments turned into the body's axes: the diagonal of R I R^T. */
        const physics__v3 ax[3] = {quat_rotate(x->rotation, v3(1, 0, 0)),
                                   quat_rotate(x->rotation, v3(0, 1, 0)),
                                   quat_rotate(x->rotation, v3(0, 0, 1))};
        const float o[3] = {own.x, own.y, own.z};
        float diag[3] = {0, 0, 0};
        for (int r = 0; r < 3; r++)
            for (int m = 0; m < 3; m++)
                diag[r] += v3_get(ax[m], r) * v3_get(ax[m], r) * o[m];
        const physics__v3 p = x->position;
        ix += share * (diag[0] + p.y * p.y + p.z * p.z);
        iy += share * (diag[1] + p.x * p.x + p.z * p.z);
        iz += share * (diag[2] + p.x * p.x + p.y * p.y);
        cp->bound = f_max(cp->bound, v3_len(p) + x->bound);
    }
    cp->inertia = v3((float)ix, (float)iy, (float)iz);
    *out = cp;
    return NULL;
}

/* ---- proxies ------------------------------------------------------------------------------- */

/* Two bodies' worth of the arrays the shape tests read (and a mesh's search tells about: its
 * entities, whether the owner logged the body's cut, the world's tally and allocator). */
typedef struct compound__proxy {
    physics__bodies b;
    ct_entity_t entity[2];
    uint8_t mesh_told[2];
    uint8_t shape[2];
    physics__v3 position[2], half[2];
    physics__quat rotation[2];
    float radius[2];
    physics__hull *hull[2];
    physics__compound *compound[2];
    physics__mesh *mesh[2];
    physics__v3 extent[2];
} compound__proxy;

static void compound__proxy_init(compound__proxy *p, const physics__bodies *b)
{
    memset(&p->b, 0, sizeof p->b);
    p->b.a = b->a;
    p->b.n = 2;
    p->b.mesh_tally = b->mesh_tally;
    p->b.entity = p->entity;
    p->b.mesh_told = p->mesh_told;
    p->b.shape = p->shape;
    p->b.position = p->position;
    p->b.half = p->half;
    p->b.rotation = p->rotation;
    p->b.radius = p->radius;
    p->b.hull = p->hull;
    p->b.compound = p->compound;
    p->b.mesh = p->mesh;
    p->b.extent = p->extent;
    p->compound[0] = p->compound[1] = NULL;
    p->mesh[0] = p->mesh[1] = NULL;
}

/* Puts child k of body i (k UINT32_MAX: body i itself) in slot s. */
static void compound__place(compound__proxy *p, uint32_t s, const physics__bodies *b, uint32_t i,
                            uint32_t k)
{
    /* (A cast shape posed past the last body is no body to log.) */
    const bool body = i < b->n;
    p->entity[s] = body ? b->entity[i] : (ct_entity_t){0};
    p->mesh_told[s] = body ? b->mesh_told[i] : 1u;
    if (k == UINT32_MAX) {
        p->shape[s] = b->shape[i];
        p->position[s] = b->position[i];
        p->rotation[s] = b->rotation[i];
        p->half[s] = b->half[i];
        p->radius[s] = b->radius[i];
        p->hull[s] = b->hull[i];
        p->mesh[s] = b->mesh[i];
        p->extent[s] = b->extent[i];
        return;
    }
    const physics__child *c = &b->compound[i]->child[k];
    p->shape[s] = c->shape;
    p->position[s] = v3_add(b->position[i], quat_rotate(b->rotation[i], c->position));
    p->rotation[s] = quat_mul(b->rotation[i], c->rotation);
    p->half[s] = c->half;
    p->radius[s] = c->radius;
    p->hull[s] = c->hull;
    p->mesh[s] = NULL;
    const float r = c->bound;
    p->extent[s] = v3(r, r, r); /* what a mesh's tree is walked with */
}

/* ---- manifolds ------------------------------------------------------------------------------ */

/* Whether the shape in a slot lies inside the box of its half sizes about its position (boxes,
 * balls, capsules and hulls, whose vertices are about their centroid; not a mesh). */
static bool compound__boxed(uint8_t shape)
{
    return shape == CT_BODY_BOX || shape == CT_BODY_SPHERE || shape == CT_BODY_CAPSULE ||
           shape == CT_BODY_HULL;
}

/* How far the ball (c, r) is at least from the box that holds the shape in slot s. */
static float compound__ball_box_gap(const compound__proxy *p, uint32_t s, physics__v3 c, float r)
{
    const physics__v3 l = quat_unrotate(p->rotation[s], v3_sub(c, p->position[s]));
    const physics__v3 h = p->half[s];
    const physics__v3 out = v3(f_max(fabsf(l.x) - h.x, 0.0f), f_max(fabsf(l.y) - h.y, 0.0f),
                               f_max(fabsf(l.z) - h.z, 0.0f));
    return v3_len(out) - r;
}

/* A lower bound of the distance between the shapes in slots 0 and 1 (balls ra, rc about their
 * positions hold them): the larger of their balls' gap and each ball's gap to the other's box. A
 * wall's ball holds the whole room and never culls; its box does. */
static float compound__gap(const compound__proxy *p, float ra, float rc)
{
    float gap = v3_len(v3_sub(p->position[1], p->position[0])) - ra - rc;
    if (compound__boxed(p->shape[1]))
        gap = f_max(gap, compound__ball_box_gap(p, 1, p->position[0], ra));
    if (compound__boxed(p->shape[0]))
        gap = f_max(gap, compound__ball_box_gap(p, 0, p->position[1], rc));
    return gap;
}

/* Bodies i and j (either a compound) as child pairs: the proxy their children are posed in. */
typedef struct compound__pairs {
    const physics__bodies *b;
    uint32_t i, j;
    const physics__compound *ci, *cj;
    uint32_t ni, nj;
    compound__proxy p;
} compound__pairs;

static void compound__pairs_init(compound__pairs *w, const physics__bodies *b, uint32_t i,
                                 uint32_t j)
{
    w->b = b, w->i = i, w->j = j;
    w->ci = b->compound[i], w->cj = b->compound[j];
    w->ni = w->ci ? w->ci->count : 1, w->nj = w->cj ? w->cj->count : 1;
    compound__proxy_init(&w->p, b);
}

static float compound__radius(const physics__bodies *b, const physics__compound *c, uint32_t i,
                              uint32_t k)
{
    return c ? c->child[k].bound : v3_len(b->half[i]);
}

void physics__compound_manifold(const physics__bodies *b, uint32_t i, uint32_t j, float margin,
                                bool prefer_b, physics__manifold_out *m)
{
    m->count = 0;
    m->normal = v3(0, 1, 0);
    compound__pairs w;
    compound__pairs_init(&w, b, i, j);
    compound__proxy *p = &w.p;
    /* The pairs' manifolds, kept until the deepest is known. */
    enum { MAX_PAIRS = 16 };
    physics__manifold_out found[MAX_PAIRS];
    uint32_t pair_id[MAX_PAIRS], num = 0, deepest = 0;
    float depth = INFINITY;
    for (uint32_t a = 0; a < w.ni; a++) {
        compound__place(p, 0, b, i, w.ci ? a : UINT32_MAX);
        const float ra = compound__radius(b, w.ci, i, a);
        for (uint32_t c = 0; c < w.nj; c++) {
            compound__place(p, 1, b, j, w.cj ? c : UINT32_MAX);
            /* Bounds first: most child pairs are far apart. */
            if (compound__gap(p, ra, compound__radius(b, w.cj, j, c)) > margin)
                continue;
            physics__manifold_out *o = &found[num < MAX_PAIRS ? num : MAX_PAIRS - 1];
            physics__manifold(&p->b, 0, 1, margin, prefer_b, o);
            if (!o->count)
                continue;
            const float least = physics__manifold_least(o);
            const uint32_t at = num < MAX_PAIRS ? num++ : MAX_PAIRS - 1;
            pair_id[at] = (a * 64u + c + 1u) << 20;
            if (least < depth)
                depth = least, deepest = at;
        }
    }
    if (!num)
        return;
    m->normal = found[deepest].normal;
    for (uint32_t q = 0; q < num; q++) {
        if (q != deepest && v3_dot(found[q].normal, m->normal) < COMPOUND_SAME_WAY)
            continue;
        /* Keep the reference bit where the single tests put it; the pair goes above. */
        for (uint32_t k = 0; k < found[q].count; k++)
            found[q].p[k].id ^= pair_id[q];
        physics__manifold_merge(m, &found[q]);
    }
    physics__manifold_reduce(m);
}

/* A compound and a mesh: each child's own manifolds against the mesh (physics__mesh_manifolds,
 * one for each way the triangles under it face), so the four legs of a table each rest on their
 * own contact, warm started by their own points. Merged into one, as compound_manifold does, a
 * table's sixteen leg corners were reduced to four, and the rigid step gave a compound and a mesh
 * one contact where a body and a mesh have up to PHYSICS_MESH_MANIFOLDS. Past `max`, the deepest
 * `max` are kept and each other one's points join the kept one whose normal is nearest, when it
 * pushes within COMPOUND_SAME_WAY of it (else they are dropped, as a mesh's further ways are).
 * Deepest first (ties: the lower child). Asked for one, it is compound_manifold's. */
uint32_t physics__compound_mesh_manifolds(const physics__bodies *b, uint32_t i, uint32_t j,
                                          float margin, bool prefer_b, physics__manifold_out *out,
                                          uint32_t max)
{
    if (!max)
        return 0;
    if (max == 1u) {
        physics__compound_manifold(b, i, j, margin, prefer_b, out);
        return out->count ? 1u : 0u;
    }
    out[0].count = 0;
    out[0].normal = v3(0, 1, 0);
    compound__pairs w;
    compound__pairs_init(&w, b, i, j);
    compound__proxy *p = &w.p;
    const bool compound_is_a = w.ci != NULL;
    const uint32_t children = compound_is_a ? w.ni : w.nj;
    enum { MAX_FOUND = 16 };
    physics__manifold_out found[MAX_FOUND];
    float least[MAX_FOUND];
    uint32_t num = 0;
    const uint32_t each = max < PHYSICS_MESH_MANIFOLDS ? max : PHYSICS_MESH_MANIFOLDS;
    for (uint32_t k = 0; k < children; k++) {
        compound__place(p, 0, b, i, compound_is_a ? k : UINT32_MAX);
        compound__place(p, 1, b, j, compound_is_a ? UINT32_MAX : k);
        if (compound__gap(p, compound__radius(b, w.ci, i, k), compound__radius(b, w.cj, j, k)) >
            margin)
            continue;
        physics__manifold_out mine[PHYSICS_MESH_MANIFOLDS];
        const uint32_t made = physics__mesh_manifolds(&p->b, 0, 1, margin, prefer_b, mine, each);
        /* (The pair's bits as compound_manifold sets them, over the triangle's.) */
        const uint32_t pair_id = ((compound_is_a ? k * 64u : k) + 1u) << 20;
        for (uint32_t g = 0; g < made; g++) {
            float l = INFINITY;
            for (uint32_t q = 0; q < mine[g].count; q++) {
                l = f_min(l, mine[g].p[q].sep);
                mine[g].p[q].id ^= pair_id;
            }
            if (!mine[g].count)
                continue;
            uint32_t at = num;
            if (num == MAX_FOUND) {
                /* Full (many children on the mesh): in place of the shallowest, if deeper. */
                at = 0;
                for (uint32_t q = 1; q < MAX_FOUND; q++)
                    if (least[q] > least[at])
                        at = q;
                if (!(l < least[at]))
                    continue;
            } else {
                num++;
            }
            found[at] = mine[g];
            least[at] = l;
        }
    }
    /* Deepest first: a stable insertion sort of the few found. */
    uint8_t order[MAX_FOUND];
    for (uint32_t k = 0; k < num; k++) {
        uint32_t q = k;
        for (; q > 0 && least[order[q - 1]] > least[k]; q--)
            order[q] = order[q - 1];
        order[q] = (uint8_t)k;
    }
    const uint32_t kept = num < max ? num : max;
    for (uint32_t k = 0; k < kept; k++)
        out[k] = found[order[k]];
    for (uint32_t k = kept; k < num; k++) {
        const physics__manifold_out *o = &found[order[k]];
        uint32_t nearest = 0;
        float most = -INFINITY;
        for (uint32_t q = 0; q < kept; q++) {
            const float d = v3_dot(out[q].normal, o->normal);
            if (d > most)
                most = d, nearest = q;
        }
        if (most >= COMPOUND_SAME_WAY)
            physics__manifold_merge(&out[nearest], o);
    }
    for (uint32_t k = 0; k < kept; k++)
        physics__manifold_reduce(&out[k]);
    return kept;
}

/* What physics__compound_manifold's manifold gives a sweep (ccd__separation): its least
 * separation, which is the deepest child pair's, and that pair's normal, without the other pairs'
 * points. The pairs go nearest bound first, and a pair whose bound is past the deepest so far
 * is never measured (a wall's other child, mostly); ties go to the lower pair, as there. */
float physics__compound_separation(const physics__bodies *b, uint32_t i, uint32_t j, float margin,
                                   physics__v3 *normal)
{
    *normal = v3(0, 1, 0);
    compound__pairs w;
    compound__pairs_init(&w, b, i, j);
    compound__proxy *p = &w.p;
    enum { MAX_NEAR = 16 };
    uint32_t pair[MAX_NEAR], num = 0;
    float gap[MAX_NEAR];
    for (uint32_t a = 0; a < w.ni; a++) {
        compound__place(p, 0, b, i, w.ci ? a : UINT32_MAX);
        const float ra = compound__radius(b, w.ci, i, a);
        for (uint32_t c = 0; c < w.nj; c++) {
            compound__place(p, 1, b, j, w.cj ? c : UINT32_MAX);
            const float g = compound__gap(p, ra, compound__radius(b, w.cj, j, c));
            if (g > margin)
                continue;
            if (num == MAX_NEAR) {
                /* Many children near: the whole manifold. */
                physics__manifold_out m;
                physics__compound_manifold(b, i, j, margin, false, &m);
                *normal = m.normal;
                return physics__manifold_least(&m);
            }
            pair[num] = a * 64u + c, gap[num++] = g;
        }
    }
    float depth = INFINITY;
    uint32_t deepest = UINT32_MAX;
    for (uint32_t n = 0; n < num; n++) {
        uint32_t near = n; /* the nearest bound left goes next */
        for (uint32_t q = n + 1; q < num; q++)
            if (gap[q] < gap[near])
                near = q;
        const float g = gap[near];
        const uint32_t id = pair[near];
        gap[near] = gap[n], pair[near] = pair[n];
        if (g > depth)
            break;
        compound__place(p, 0, b, i, w.ci ? id / 64u : UINT32_MAX);
        compound__place(p, 1, b, j, w.cj ? id % 64u : UINT32_MAX);
        physics__manifold_out o;
        physics__manifold(&p->b, 0, 1, margin, false, &o);
        const float least = physics__manifold_least(&o);
        if (o.count && (least < depth || (least == depth && id < deepest)))
            depth = least, deepest = id, *normal = o.normal;
    }
    return depth;
}

/* ---- contact anchors ------------------------------------------------------------------------ */

/* A contact's anchors on a capsule child turn as a lone capsule's do (physics_rigid.c,
 * rigid__turn_anchor): what the capsule carries along is the point of its axis nearest the
 * contact, and the contact stays where it is from that point (rolling, the surface at the point
 * moves on); a ball child carries its centre so; a box's or hull's point turns with the body. A
 * rod of one capsule child, rolling at 2 m/s on a floor and yawing at 5 rad/s, sank 5.2 mm into
 * it with its anchors fixed where they were found, at 3 m/s and 10 rad/s 13.3 mm (the lone
 * capsule, turned: 1.4 and 2.9 mm; see the compound in
 * test_capsule_rolling_and_yawing_stays_on_the_floor). A ball child off its body's centre turns
 * them too: a lone ball's anchors stay right however it turns (its contact point is its centre
 * less its radius along the normal), but a ball child's centre goes round the body's, and a
 * dumbbell of two balls rolling and yawing as that rod sank as far with them fixed (the same
 * test). A ball child at the centre is a lone ball. */
bool physics__compound_turns(const physics__compound *c, physics__quat q, physics__v3 w,
                             float *fastest)
{
    *fastest = 0.0f;
    bool turns = false;
    for (uint32_t k = 0; c->round && k < c->count; k++) {
        const physics__child *x = &c->child[k];
        const float off = v3_len(x->position);
        /* What turns: a capsule's axis, a ball's centre about the body's (not one at it). */
        const physics__v3 turning = x->shape == CT_BODY_CAPSULE
                                        ? quat_rotate(quat_mul(q, x->rotation), v3(0, 1, 0))
                                    : x->shape == CT_BODY_SPHERE && off > 0.0f
                                        ? quat_rotate(q, v3_scale(x->position, 1.0f / off))
                                        : v3(0, 0, 0);
        if (turning.x != 0.0f || turning.y != 0.0f || turning.z != 0.0f) {
            *fastest = f_max(*fastest, v3_len(v3_cross(w, turning)));
            turns = true;
        }
    }
    return turns;
}

/* The signed distance from point x (in the body's frame) to child k's surface (negative inside:
 * a box's or hull's depth under its nearest face), and *carried, what of the child carries a
 * contact there (compound_turn_anchor): a capsule's axis point nearest x, a ball's centre, or x. */
static float compound__surface(const physics__child *k, physics__v3 x, physics__v3 *carried)
{
    const physics__v3 l = quat_unrotate(k->rotation, v3_sub(x, k->position));
    *carried = x;
    if (k->shape == CT_BODY_SPHERE || k->shape == CT_BODY_CAPSULE) {
        const float half = k->half.y - k->radius, t = f_max(-half, f_min(l.y, half));
        *carried = v3_add(k->position, quat_rotate(k->rotation, v3(0, t, 0)));
        return v3_len(v3_sub(x, *carried)) - k->radius;
    }
    if (k->shape == CT_BODY_HULL) {
        float most = -INFINITY;
        for (uint32_t f = 0; f < k->hull->num_faces; f++)
            most = f_max(most, v3_dot(k->hull->normal[f], l) - k->hull->offset[f]);
        return most;
    }
    const physics__v3 out =
        v3(fabsf(l.x) - k->half.x, fabsf(l.y) - k->half.y, fabsf(l.z) - k->half.z);
    const physics__v3 past = v3(f_max(out.x, 0.0f), f_max(out.y, 0.0f), f_max(out.z, 0.0f));
    const float least = f_max(f_max(out.x, out.y), out.z);
    return least > 0.0f ? v3_len(past) : least;
}

physics__v3 physics__compound_turn_anchor(const physics__compound *c, physics__quat was,
                                          physics__quat now, physics__v3 r)
{
    if (!c->round)
        return quat_rotate(quat_mul(now, quat_conj(was)), r);
    /* The child whose surface is nearest the point (a contact's point lies midway between the
     * two bodies' surfaces; ties: the lower child). */
    const physics__v3 x = quat_unrotate(was, r);
    physics__v3 carried = x;
    float nearest = INFINITY;
    for (uint32_t k = 0; k < c->count; k++) {
        physics__v3 at;
        const float d = fabsf(compound__surface(&c->child[k], x, &at));
        if (d < nearest)
            nearest = d, carried = at;
    }
    return v3_add(r, v3_sub(quat_rotate(now, carried), quat_rotate(was, carried)));
}

/* ---- queries -------------------------------------------------------------------------------- */

bool physics__sphere_overlaps_compound(const physics__bodies *b, uint32_t i, physics__v3 c, float r)
{
    compound__proxy p;
    compound__proxy_init(&p, b);
    for (uint32_t k = 0; k < b->compound[i]->count; k++) {
        compound__place(&p, 0, b, i, k);
        if (physics__sphere_overlaps_body(&p.b, 0, c, r))
            return true;
    }
    return false;
}

float physics__ray_compound(const physics__bodies *b, uint32_t i, physics__v3 o, physics__v3 d,
                            physics__v3 *normal)
{
    compound__proxy p;
    compound__proxy_init(&p, b);
    float best = INFINITY;
    for (uint32_t k = 0; k < b->compound[i]->count; k++) {
        compound__place(&p, 0, b, i, k);
        physics__v3 n;
        const float t = physics__ray_body(&p.b, 0, o, d, &n);
        if (t < best)
            best = t, *normal = n;
    }
    return best;
}
