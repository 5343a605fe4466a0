/* physics_narrowphase.c: exact shape tests of candidate pairs (sphere-sphere, sphere-box,
 * box-box, and the swept test that keeps fast bodies from tunnelling), and the test of each
 * sorted pair that decides whether it becomes a contact this step. */
#include "physics_internal.h"

/* Sphere (center c, radius r) against a box: normal from the box towards the sphere. */
static void narrow__sphere_box(physics__v3 c, float r, physics__v3 p, physics__v3 h, physics__v3 *n,
                               float *sep, physics__v3 *point)
{
    const physics__v3 local = v3_sub(c, p);
    const physics__v3 q = v3_max(v3_scale(h, -1.0f), v3_min(local, h));
    const physics__v3 diff = v3_sub(local, q);
    const float dist = v3_len(diff);
    if (dist > 1e-6f) {
        *n = v3_scale(diff, 1.0f / dist);
        *sep = dist - r;
        *point = v3_add(p, q);
        return;
    }
    /* The center is inside the box: leave through the nearest face. */
    int k = 0;
    float depth = h.x - fabsf(local.x);
    for (int j = 1; j < 3; j++)
        if (v3_get(h, j) - fabsf(v3_get(local, j)) < depth)
            k = j, depth = v3_get(h, j) - fabsf(v3_get(local, j));
    float e[3] = {0, 0, 0};
    e[k] = v3_get(local, k) < 0.0f ? -1.0f : 1.0f;
    *n = v3_load(e);
    *sep = -depth - r;
    *point = c;
}

/* Shape test of bodies a and b: normal from a to b, separation (negative: overlap), point. */
static void narrow__shapes(const physics__bodies *b, uint32_t i, uint32_t j, physics__v3 *n,
                           float *sep, physics__v3 *point)
{
    const physics__v3 pa = b->position[i], pb = b->position[j];
    const physics__v3 ha = b->half[i], hb = b->half[j];
    if (b->shape[i] == CT_BODY_SPHERE && b->shape[j] == CT_BODY_SPHERE) {
        const physics__v3 d = v3_sub(pb, pa);
        const float dist = v3_len(d);
        *n = dist > 1e-9f ? v3_scale(d, 1.0f / dist) : v3(0, 1, 0);
        *sep = dist - ha.x - hb.x;
        *point = v3_add(pa, v3_scale(*n, ha.x + 0.5f * *sep));
    } else if (b->shape[i] == CT_BODY_SPHERE) {
        narrow__sphere_box(pa, ha.x, pb, hb, n, sep, point);
        *n = v3_scale(*n, -1.0f);
    } else if (b->shape[j] == CT_BODY_SPHERE) {
        narrow__sphere_box(pb, hb.x, pa, ha, n, sep, point);
    } else {
        /* Two boxes: the axis of least overlap (or largest gap) separates them. */
        const physics__v3 d = v3_sub(pb, pa);
        int k = 0;
        float best = -INFINITY;
        for (int j2 = 0; j2 < 3; j2++) {
            const float gap = fabsf(v3_get(d, j2)) - (v3_get(ha, j2) + v3_get(hb, j2));
            if (gap > best)
                best = gap, k = j2;
        }
        float e[3] = {0, 0, 0};
        e[k] = v3_get(d, k) < 0.0f ? -1.0f : 1.0f;
        *n = v3_load(e);
        *sep = best;
        const physics__v3 lo = v3_max(v3_sub(pa, ha), v3_sub(pb, hb));
        const physics__v3 hi = v3_min(v3_add(pa, ha), v3_add(pb, hb));
        *point = v3_scale(v3_add(lo, hi), 0.5f);
    }
}

/* Whether b's motion relative to a over the step, d, brings the shapes together: b's centre
 * against a grown by b (a rounded sum for two spheres, a box otherwise, which for a sphere and a
 * box is a little generous at the corners). For two boxes *axis gets the axis through which the
 * path enters, the one that closes (-1 when it starts inside). */
static bool narrow__sweep(const physics__bodies *b, uint32_t i, uint32_t j, physics__v3 d,
                          int *axis)
{
    const physics__v3 p = v3_sub(b->position[j], b->position[i]);
    *axis = -1;
    if (b->shape[i] == CT_BODY_SPHERE && b->shape[j] == CT_BODY_SPHERE) {
        const float r = b->half[i].x + b->half[j].x, dd = v3_dot(d, d);
        const float t = dd > 0.0f ? f_min(f_max(-v3_dot(p, d) / dd, 0.0f), 1.0f) : 0.0f;
        const physics__v3 q = v3_add(p, v3_scale(d, t));
        return v3_dot(q, q) <= r * r;
    }
    const physics__v3 h = v3_add(b->half[i], b->half[j]);
    float t0 = 0.0f, t1 = 1.0f;
    for (int k = 0; k < 3; k++) {
        const float pk = v3_get(p, k), dk = v3_get(d, k), hk = v3_get(h, k);
        if (dk == 0.0f) {
            if (pk < -hk || pk > hk)
                return false;
            continue;
        }
        float ta = (-hk - pk) / dk, tb = (hk - pk) / dk;
        if (ta > tb) {
            const float x = ta;
            ta = tb;
            tb = x;
        }
        if (ta > t0)
            t0 = ta, *axis = k;
        t1 = f_min(t1, tb);
        if (t0 > t1)
            return false;
    }
    return true;
}

/* Shape tests of the sorted pairs in slices [begin, end), into the narrow phase's entries; each
 * slice counts the contacts it keeps. A contact is kept when the shapes overlap, when they are
 * within the margin and not rushing together (a resting contact keeps its warm start), or when
 * this step's motion brings them together. The last is tested on the path, not on a gap: a box
 * falling past another's corner is near it on one axis and closing on another, yet never touches.
 * Two boxes then push along the axis that closes. A body that runs into a sleeping island wakes it
 * for the next step; in this one the island holds still (a kinematic body only wakes it), unless
 * the body hits it (NARROW_HIT: physics__contacts_collide then wakes it before the solve). */
void physics__narrow_range(void *user, uint32_t begin, uint32_t end)
{
    const physics__narrow_job *job = user;
    const physics__bodies *b = &job->s->bodies;
    physics__narrow *nw = &job->s->narrow;
    const float dt = job->dt;
    for (uint32_t slice = begin; slice < end; slice++) {
        const uint32_t first = slice * SOLVER_SLICE_PAIRS;
        const uint32_t last =
            first + SOLVER_SLICE_PAIRS < job->count ? first + SOLVER_SLICE_PAIRS : job->count;
        uint32_t kept = 0;
        for (uint32_t k = first; k < last; k++) {
            const uint32_t i = job->order[k].a, j = job->order[k].b;
            physics__v3 normal;
            float sep;
            narrow__shapes(b, i, j, &normal, &sep, &nw->point[k]);
            const physics__v3 rel = v3_sub(b->velocity[j], b->velocity[i]);
            const float vn = v3_dot(rel, normal);
            bool keep = sep <= 0.0f || (sep <= SOLVER_MARGIN && -vn * dt <= SOLVER_MARGIN);
            int axis;
            if (!keep && sep < SOLVER_MARGIN + v3_len(rel) * dt &&
                narrow__sweep(b, i, j, v3_scale(rel, dt), &axis)) {
                keep = true;
                if (axis >= 0 && b->shape[i] == CT_BODY_BOX && b->shape[j] == CT_BODY_BOX) {
                    const physics__v3 d = v3_sub(b->position[j], b->position[i]);
                    float e[3] = {0, 0, 0};
                    e[axis] = v3_get(d, axis) < 0.0f ? -1.0f : 1.0f;
                    normal = v3_load(e);
                    sep = fabsf(v3_get(d, axis)) - v3_get(v3_add(b->half[i], b->half[j]), axis);
                }
            }
            uint8_t flags = keep ? NARROW_KEEP : 0;
            if (keep && (b->asleep[i] | b->asleep[j])) {
                const uint32_t mover = b->asleep[i] ? j : i;
                if (b->rest[mover] == 0.0f || b->kind[mover] == CT_BODY_KINEMATIC)
                    flags |= NARROW_WAKE;
                /* (The sleeping body's velocity is zero: vn is the mover's.) */
                if (flags & NARROW_WAKE && -vn > NARROW_HIT_SPEED && sep + vn * dt < 0.0f)
                    flags |= NARROW_HIT;
                if (physics__inv_mass(b, mover) == 0.0f)
                    flags &= (uint8_t)~NARROW_KEEP;
            }
            nw->normal[k] = normal;
            nw->sep[k] = sep;
            nw->flags[k] = flags;
            kept += flags & NARROW_KEEP;
        }
        nw->kept[slice] = kept;
    }
}
