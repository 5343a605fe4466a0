/*
 * Fuzz target: the v5 shape builders (hull points, compound children, mesh vertices and indices,
 * height fields) and a few steps of what they accept. Structure-aware, so it needs no seed files:
 * the input's first byte picks the builder, the rest become numbers (from a table of awkward ones:
 * zero, tiny, huge, NaN, infinities, near-duplicates, or the raw float bits), counts and indices.
 * Each input is either refused with a reason or makes a body that simulates ten steps on a
 * ground box with finite positions, without a crash or a sanitizer report, and frees everything.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ct_heap.h"
#include "physics_hull.h"

#include "fuzz_stream.h"

/* Mostly ordinary numbers (on a 1/16 grid, so repeats and coplanar sets are common), now and then
 * an awkward one. */
static float next_float(fuzz_stream *r)
{
    static const float awkward[] = {0.0f, 1e-3f,  1e-4f,  2e-3f, 1e4f,     -1e4f,    2e4f,
                                    1e5f, 1e-38f, 1e-45f, NAN,   INFINITY, -INFINITY};
    const uint32_t b = fuzz_stream_next(r);
    if (b < 16 && fuzz_stream_next(r) % 8)
        return ((float)b - 8.0f) / 4.0f; /* seven in eight of these are ordinary after all */
    if (b < 13)
        return awkward[b];
    if (b < 16) {
        const uint32_t bits = fuzz_stream_u32(r);
        float f;
        memcpy(&f, &bits, sizeof f);
        return f;
    }
    return ((float)b - 136.0f) / 16.0f; /* -7.5 .. 7.4 */
}

/* Ten steps of the scene; every dynamic position finite. */
static uint32_t simulated;

static void simulate(physics__scene *s)
{
    simulated++;
    for (int k = 0; k < 10; k++)
        if (physics__scene_step(s, 1.0f / 60.0f))
            return;
    for (uint32_t i = 0; i < s->bodies.n; i++)
        if (!v3_finite(s->bodies.position[i]))
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_stream r = fuzz_stream_of(data, size);
    ct_allocator_t *a = ct_heap_allocator();
    physics__scene s;
    physics__scene_init(&s, a);
    const ct_rigid_body_desc_t ground = {.kind = CT_BODY_STATIC,
                                         .shape = CT_BODY_BOX,
                                         .half_extents = {50, 1, 50},
                                         .position = {0, -1, 0}};
    physics__bodies_add_rigid(&s.bodies, (ct_entity_t){1}, &ground);
    ct_rigid_body_desc_t d = {
        .kind = CT_BODY_DYNAMIC, .mass = 1, .friction = 0.5f, .position = {0, 3, 0}};
    char reason[160];
    const uint32_t mode = fuzz_stream_next(&r) % 4;
    if (mode == 0) {
        float p[3 * 70];
        const uint32_t n = fuzz_stream_next(&r) & 1 ? fuzz_stream_next(&r) % 70 : 4 + fuzz_stream_next(&r) % 12;
        for (uint32_t k = 0; k < 3 * n; k++)
            p[k] = next_float(&r);
        physics__hull *h = ct_alloc(a, sizeof *h);
        if (!physics__hull_build(h, p, n, reason, sizeof reason)) {
            d.shape = CT_BODY_HULL;
            if (physics__bodies_add_hull(&s.bodies, (ct_entity_t){2}, &d, h) == 0)
                simulate(&s);
        } else {
            ct_free(a, h, sizeof *h);
        }
    } else if (mode == 1) {
        ct_compound_child_t c[8];
        float p[8][3 * 8];
        const uint32_t n = fuzz_stream_next(&r) % 9;
        for (uint32_t k = 0; k < n; k++) {
            c[k] = (ct_compound_child_t){.shape = fuzz_stream_next(&r) % 5};
            for (int x = 0; x < 3; x++)
                c[k].half_extents[x] = next_float(&r), c[k].position[x] = next_float(&r);
            c[k].radius = next_float(&r), c[k].half_height = next_float(&r);
            if (fuzz_stream_next(&r) & 1)
                for (int x = 0; x < 4; x++)
                    c[k].rotation[x] = next_float(&r);
            c[k].point_count = fuzz_stream_next(&r) % 9;
            for (uint32_t x = 0; x < 3 * c[k].point_count; x++)
                p[k][x] = next_float(&r);
            c[k].points = fuzz_stream_next(&r) & 7 ? p[k] : NULL;
        }
        physics__compound *cp;
        if (!physics__compound_build(a, c, n, &cp, reason, sizeof reason)) {
            d.shape = CT_BODY_COMPOUND;
            if (physics__bodies_add_compound(&s.bodies, (ct_entity_t){2}, &d, cp) == 0)
                simulate(&s);
        }
    } else {
        float v[3 * 64];
        uint32_t ix[3 * 40];
        uint32_t nv, nt;
        float *hv = NULL;
        uint32_t *hi = NULL;
        const char *bad = NULL;
        size_t hv_size = 0, hi_size = 0;
        if (mode == 2) {
            nv = fuzz_stream_next(&r) % 64, nt = fuzz_stream_next(&r) % 40;
            for (uint32_t k = 0; k < 3 * nv; k++)
                v[k] = next_float(&r);
            for (uint32_t k = 0; k < 3 * nt; k++)
                ix[k] = fuzz_stream_next(&r) % (nv + (nv >> 3) + 1); /* one in nine past the end */
            hv = v, hi = ix;
        } else {
            const uint32_t cols = fuzz_stream_next(&r) % 8, rows = fuzz_stream_next(&r) % 8;
            float h[64];
            for (uint32_t k = 0; k < cols * rows; k++)
                h[k] = next_float(&r);
            bad = physics__height_field_mesh(a, h, cols, rows, next_float(&r), next_float(&r), &hv,
                                             &hi);
            nv = cols * rows, nt = bad ? 0 : 2 * (cols - 1) * (rows - 1);
            hv_size = (size_t)nv * 3 * sizeof *hv, hi_size = (size_t)nt * 3 * sizeof *hi;
        }
        physics__mesh *m = NULL;
        if (!bad && !physics__mesh_build(a, hv, nv, hi, nt, &m, reason, sizeof reason)) {
            const ct_rigid_body_desc_t st = {.kind = CT_BODY_STATIC, .shape = CT_BODY_MESH};
            if (physics__bodies_add_mesh(&s.bodies, (ct_entity_t){3}, &st, m) == 0) {
                d.shape = CT_BODY_BOX;
                d.half_extents[0] = d.half_extents[1] = d.half_extents[2] = 0.4f;
                physics__bodies_add_rigid(&s.bodies, (ct_entity_t){4}, &d);
                d.shape = CT_BODY_SPHERE, d.radius = 0.3f, d.position[0] = 1;
                physics__bodies_add_rigid(&s.bodies, (ct_entity_t){5}, &d);
                simulate(&s);
            }
        }
        if (mode == 3 && !bad) {
            ct_free(a, hv, hv_size);
            ct_free(a, hi, hi_size);
        }
    }
    physics__scene_free(&s);
    if (getenv("FUZZ_SHAPES_COUNT"))
        fprintf(stderr, "\r%u simulated", simulated);
    return 0;
}
