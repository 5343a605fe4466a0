/* animation_measure.c: the error report in the metric the animation-compression field uses
 * (ACL's): virtual points 3 cm along each bone's local axes, carried to object space by the raw
 * and by the decoded clip, compared at every raw sample. */
#include "animation_core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void rotate(const double q[4], const double v[3], double out[3])
{
    /* v + 2 w (u x v) + 2 u x (u x v), u = q.xyz */
    const double c1[3] = {q[1] * v[2] - q[2] * v[1], q[2] * v[0] - q[0] * v[2],
                          q[0] * v[1] - q[1] * v[0]};
    const double c2[3] = {q[1] * c1[2] - q[2] * c1[1], q[2] * c1[0] - q[0] * c1[2],
                          q[0] * c1[1] - q[1] * c1[0]};
    for (int k = 0; k < 3; k++)
        out[k] = v[k] + 2 * (q[3] * c1[k] + c2[k]);
}

static void quat_mul(const double a[4], const double b[4], double out[4])
{
    out[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    out[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    out[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    out[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
}

/* Object-space virtual points (3 per bone) of a local pose. */
static void virtual_points(const int32_t *parent, uint32_t n, const float (*rot)[4],
                           const float (*pos)[3], double (*q)[4], double (*p)[3], double (*pts)[3])
{
    for (uint32_t b = 0; b < n; b++) {
        const double lq[4] = {rot[b][0], rot[b][1], rot[b][2], rot[b][3]};
        const double lp[3] = {pos[b][0], pos[b][1], pos[b][2]};
        if (parent[b] < 0) {
            memcpy(q[b], lq, sizeof lq);
            memcpy(p[b], lp, sizeof lp);
        } else {
            double t[3];
            quat_mul(q[parent[b]], lq, q[b]);
            rotate(q[parent[b]], lp, t);
            for (int k = 0; k < 3; k++)
                p[b][k] = p[parent[b]][k] + t[k];
        }
        for (int axis = 0; axis < 3; axis++) {
            double v[3] = {0, 0, 0}, w[3];
            v[axis] = ANIM_VIRTUAL_POINT_M;
            rotate(q[b], v, w);
            for (int k = 0; k < 3; k++)
                pts[3 * b + axis][k] = p[b][k] + w[k];
        }
    }
}

static int by_value(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

int anim__measure(const anim__raw *raw, const anim__clip *clip, size_t compressed_size,
                  ct_allocator_t *a, anim__error_report *out)
{
    const uint32_t n = raw->num_bones, ns = raw->num_samples;
    if (clip->header->num_bones != n)
        return CT_ERR_INVALID;
    const size_t per_pose = (n * (sizeof(float[4]) + sizeof(float[3])) + 7) & ~(size_t)7;
    const size_t fk = 2 * n * (sizeof(double[4]) + sizeof(double[3]) + 3 * sizeof(double[3]));
    const size_t errors = (size_t)n * ns * sizeof(float);
    const size_t total = per_pose + fk + errors;
    uint8_t *mem = ct_alloc(a, total);
    if (!mem)
        return CT_ERR_NOMEM;
    float(*rot)[4] = (float(*)[4])mem;
    float(*pos)[3] = (float(*)[3])(rot + n);
    double(*q[2])[4], (*p[2])[3], (*pts[2])[3];
    double *d = (double *)(mem + per_pose);
    for (int s = 0; s < 2; s++) {
        q[s] = (double(*)[4])d, d += 4 * n;
        p[s] = (double(*)[3])d, d += 3 * n;
        pts[s] = (double(*)[3])d, d += 9 * n;
    }
    float *err = (float *)d;
    *out = (anim__error_report){0};
    for (uint32_t f = 0; f < ns; f++) {
        anim__sample(clip, (float)f / raw->sample_rate, rot[0], 4, pos[0], 3);
        virtual_points(raw->parent, n, (const float(*)[4])raw->rotation + (size_t)f * n,
                       (const float(*)[3])raw->translation + (size_t)f * n, q[0], p[0], pts[0]);
        virtual_points(raw->parent, n, (const float(*)[4])rot, (const float(*)[3])pos, q[1], p[1],
                       pts[1]);
        for (uint32_t b = 0; b < n; b++) {
            double worst = 0;
            for (uint32_t v = 3 * b; v < 3 * b + 3; v++) {
                const double dx = pts[0][v][0] - pts[1][v][0], dy = pts[0][v][1] - pts[1][v][1],
                             dz = pts[0][v][2] - pts[1][v][2];
                const double e = sqrt(dx * dx + dy * dy + dz * dz);
                worst = e > worst ? e : worst;
            }
            err[(size_t)f * n + b] = (float)(worst * 1000.0);
            if (worst * 1000.0 > out->max_mm)
                out->max_mm = worst * 1000.0, out->worst_bone = b, out->worst_sample = f;
        }
    }
    qsort(err, (size_t)n * ns, sizeof *err, by_value);
    out->p99_mm = err[(size_t)((double)n * ns * 0.99)];
    out->ratio = 40.0 * n * ns / (double)compressed_size;
    ct_free(a, mem, total);
    return 0;
}

/* Per bone at sample 0: its depth (1 for a root), its distance from its root along the chain, and
 * the longest chain of offsets below it. */
static void chain_sizes(const anim__raw *raw, uint32_t *depth, double *from_root, double *reach)
{
    const uint32_t n = raw->num_bones;
    for (uint32_t b = 0; b < n; b++) {
        const float *t = raw->translation[b];
        const double len = sqrt((double)t[0] * t[0] + (double)t[1] * t[1] + (double)t[2] * t[2]);
        const int32_t p = raw->parent[b];
        depth[b] = p >= 0 ? depth[p] + 1 : 1;
        from_root[b] = p >= 0 ? from_root[p] + len : 0;
        reach[b] = 0;
    }
    for (uint32_t b = n; b--;) {
        const int32_t p = raw->parent[b];
        if (p >= 0 && from_root[b] - from_root[p] + reach[b] > reach[p])
            reach[p] = from_root[b] - from_root[p] + reach[b];
    }
}

void anim__explain_miss(const anim__raw *raw, const anim__error_report *r, double target_mm,
                        const char *mode, const char *worst_name, char *out, size_t size)
{
    static uint32_t depth[ANIM_MAX_BONES];
    static double from_root[ANIM_MAX_BONES], reach[ANIM_MAX_BONES];
    const uint32_t n = raw->num_bones < ANIM_MAX_BONES ? raw->num_bones : ANIM_MAX_BONES;
    const anim__raw clipped = {.num_bones = n,
                               .num_samples = raw->num_samples,
                               .sample_rate = raw->sample_rate,
                               .parent = raw->parent,
                               .rotation = raw->rotation,
                               .translation = raw->translation};
    chain_sizes(&clipped, depth, from_root, reach);
    double span = 0;
    for (uint32_t b = 0; b < n; b++)
        span = fmax(span, from_root[b] + reach[b]);
    const uint32_t w = r->worst_bone < n ? r->worst_bone : 0;
    char bone[64];
    if (worst_name && worst_name[0])
        snprintf(bone, sizeof bone, "'%s'", worst_name);
    else
        snprintf(bone, sizeof bone, "%u", w);
    /* A person is 1-2 m: a skeleton tens of metres long was most likely made in centimetres and
     * read as metres, one of a few millimetres the other way round. */
    char units[200] = "the skeleton's size looks right";
    if (span > 20 && span / 100 < 20)
        snprintf(units, sizeof units,
                 "the skeleton is %.1f m long, which looks like centimetres read as metres "
                 "(units = 0.01 would make it %.2f m)",
                 span, span / 100);
    else if (span > 20)
        snprintf(units, sizeof units,
                 "the skeleton is %.1f m long: check units (metres per file unit)", span);
    else if (span > 0 && span < 0.05)
        snprintf(units, sizeof units,
                 "the skeleton is only %.1f mm long: check units (metres per file unit; "
                 "a file in metres read as millimetres wants units = 1)",
                 span * 1000);
    snprintf(out, size,
             "%s mode misses its %g mm target: %.3f mm at bone %s (%u bones deep, %s %.3f m%s) at "
             "%.2f s; %s. "
             "Try: error_mm = %.2g (what this format reaches here)%s, a higher rate if the motion "
             "is fast, "
             "or check the source's units",
             mode, target_mm, r->max_mm, bone, depth[w],
             reach[w] > 0 ? "its chain reaching" : "a leaf", reach[w] > 0 ? reach[w] : from_root[w],
             reach[w] > 0 ? " below it" : " from its root",
             (double)r->worst_sample / raw->sample_rate, units, r->max_mm * 1.05,
             strcmp(mode, "precision") ? ", mode = \"precision\"" : "");
}
