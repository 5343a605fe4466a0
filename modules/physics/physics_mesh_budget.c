/* physics_mesh_budget.c: the triangles a body keeps when it is over more of a mesh than a search
 * may meet (PHYSICS_MESH_BUDGET; physics_mesh.c's walk cuts there and asks this file for at most
 * PHYSICS_MESH_DEEPEST to test).
 *
 * The deepest in each part of the body's box: the tree is opened level by level under the box
 * until one more level would hold more than a leaf's worth of room each (max / PHYSICS_MESH_LEAF
 * nodes), which cuts what lies under the body into that many parts, side by side; then each part
 * is followed down, at each node into the child whose box reaches deeper into the body's, to one
 * leaf, whose triangles are kept. How deep a box reaches: how far it would have to move to leave
 * the body's box (grown by the margin) along the mesh's three axes and the body's own three, the
 * least of the six (the separating-axis depth of two boxes without their edge axes). Under a huge
 * box on a height field that is each part's highest leaf. Keeping the deepest `max` of all
 * instead (best first), a 60 m box sliding on a field of 1 mm noise kept only those under its
 * lowest corner, which a tilt of a ten-thousandth makes the deepest by far: held there alone, it
 * turned about that corner, the opposite one sank and was the lowest at the next step, and the box
 * rocked from corner to corner and sank at 0.4 m/s. */
#include "physics_hull.h"

#include <stdlib.h>

typedef struct budget__body {
    physics__v3 lo, hi;       /* the body's box in the mesh's frame, grown by the margin */
    physics__v3 mid, size;    /* its centre and half sizes */
    physics__v3 centre, half; /* the body's own box: centre and half sizes (grown by the margin) */
    physics__v3 axis[3];      /* its axes in the mesh's frame */
} budget__body;

static inline bool budget__meets(const budget__body *w, physics__v3 lo, physics__v3 hi)
{
    return !(lo.x > w->hi.x || hi.x < w->lo.x || lo.y > w->hi.y || hi.y < w->lo.y ||
             lo.z > w->hi.z || hi.z < w->lo.z);
}

/* How deep the box [lo, hi] reaches into the body's (above). */
static float budget__depth(const budget__body *w, physics__v3 lo, physics__v3 hi)
{
    const physics__v3 c = v3_scale(v3_add(lo, hi), 0.5f), e = v3_scale(v3_sub(hi, lo), 0.5f);
    const physics__v3 d = v3_sub(c, w->centre), dm = v3_sub(c, w->mid);
    float depth = f_min(f_min(w->size.x + e.x - fabsf(dm.x), w->size.y + e.y - fabsf(dm.y)),
                        w->size.z + e.z - fabsf(dm.z));
    for (int k = 0; k < 3; k++) {
        const physics__v3 u = w->axis[k];
        const float reach = fabsf(u.x) * e.x + fabsf(u.y) * e.y + fabsf(u.z) * e.z;
        depth = f_min(depth, v3_get(w->half, k) + reach - fabsf(v3_dot(d, u)));
    }
    return depth;
}

static int budget__cmp(const void *a, const void *b)
{
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

uint32_t physics__mesh_deepest(const physics__mesh *m, physics__v3 lo, physics__v3 hi,
                               physics__v3 centre, const physics__v3 axis[3], physics__v3 half,
                               uint32_t *out, uint32_t max)
{
    const budget__body w = {.lo = lo,
                            .hi = hi,
                            .mid = v3_scale(v3_add(lo, hi), 0.5f),
                            .size = v3_scale(v3_sub(hi, lo), 0.5f),
                            .centre = centre,
                            .half = half,
                            .axis = {axis[0], axis[1], axis[2]}};
    /* The parts: nodes under the body's box, level by level, at most max / PHYSICS_MESH_LEAF,
     * kept at the end of out (and the next level's before them). */
    const uint32_t parts_max = max / PHYSICS_MESH_LEAF;
    uint32_t *part = out + max - parts_max, *next = part - parts_max, parts = 0;
    if (!parts_max || !budget__meets(&w, m->node[0].lo, m->node[0].hi))
        return 0;
    part[parts++] = 0;
    for (bool opened = true; opened;) {
        uint32_t n = 0;
        opened = false;
        for (uint32_t k = 0; k < parts && n <= parts_max; k++) {
            const physics__mesh_node *node = &m->node[part[k]];
            if (node->count) {
                next[n++] = part[k];
                continue;
            }
            const uint32_t child[2] = {part[k] + 1u, node->first};
            for (int c = 0; c < 2; c++)
                if (budget__meets(&w, m->node[child[c]].lo, m->node[child[c]].hi) &&
                    n++ < parts_max)
                    next[n - 1] = child[c];
            opened = true;
        }
        if (n > parts_max)
            break; /* a level too many: the parts stay the last level's */
        for (uint32_t k = 0; k < n; k++)
            part[k] = next[k];
        parts = n;
    }
    /* Each part down to its deepest leaf, whose triangles are kept from the front of out: those
     * of part k end before out[4 (k + 1)], never past part k + 1's place. */
    uint32_t kept = 0;
    for (uint32_t k = 0; k < parts; k++) {
        uint32_t at = part[k];
        while (!m->node[at].count) {
            const uint32_t l = at + 1u, r = m->node[at].first;
            const bool lm = budget__meets(&w, m->node[l].lo, m->node[l].hi),
                       rm = budget__meets(&w, m->node[r].lo, m->node[r].hi);
            if (lm && rm)
                at = budget__depth(&w, m->node[r].lo, m->node[r].hi) >
                             budget__depth(&w, m->node[l].lo, m->node[l].hi)
                         ? r
                         : l;
            else
                at = lm ? l : r;
        }
        const physics__mesh_node *leaf = &m->node[at];
        for (uint32_t t = leaf->first; t < leaf->first + leaf->count; t++)
            if (budget__meets(&w, m->box[t][0], m->box[t][1]))
                out[kept++] = t;
    }
    /* In the order a walk of the tree gives them (the triangles' own), as the tests expect. */
    qsort(out, kept, sizeof *out, budget__cmp);
    return kept;
}
