/* exploration harness (temporary) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "physics_fixture.h"
#include "physics_hull.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MESH = 1, ROD = 2 };
#define DEG (3.14159265f / 180.0f)

typedef struct shape {
    const char *name;
    const float *v;
    uint32_t nv;
    const uint32_t *ix;
    uint32_t nt;
    float x0, x1; /* where to put the capsule centre in x */
} shape;

static const float ledge_v[] = {-2, 0, -2, 0, 0, -2, 0, 0, 2, -2, 0, 2, 0, -2, -2, 0, -2, 2};
static const uint32_t ledge_ix[] = {0, 3, 2, 0, 2, 1, 1, 2, 5, 1, 5, 4};
/* roof: slopes of 20 deg up to a ridge at x = 0 */
#define RH 0.7279f
static const float roof_v[] = {-2, 0, -2, -2, 0, 2, 0, RH, -2, 0, RH, 2, 2, 0, -2, 2, 0, 2};
static const uint32_t roof_ix[] = {0, 1, 3, 0, 3, 2, 2, 3, 5, 2, 5, 4};
/* valley: 150 degrees */
#define VH 0.5359f
static const float valley_v[] = {-2, VH, -2, -2, VH, 2, 0, 0, -2, 0, 0, 2, 2, VH, -2, 2, VH, 2};
static const uint32_t valley_ix[] = {0, 1, 3, 0, 3, 2, 2, 3, 5, 2, 5, 4};
static const float v_crease[12] = {0, 0, -2, 0, 0, 2, -2, 2, 0, 2, 2, 0};
static const uint32_t v_crease_ix[6] = {0, 2, 1, 0, 1, 3};

static void add_mesh(physics__scene *s, const shape *sh)
{
    physics__mesh *m;
    char reason[160];
    assert_null(physics__mesh_build(&alloc.base, sh->v, sh->nv, sh->ix, sh->nt, &m, reason,
                                    sizeof reason));
    const ct_rigid_body_desc_t d = {.kind = CT_BODY_STATIC, .shape = CT_BODY_MESH, .friction = 0.6f};
    assert_int_equal(physics__bodies_add_mesh(&s->bodies, (ct_entity_t){MESH}, &d, m), 0);
}

static physics__v3 closest(const physics__v3 *v, physics__v3 p)
{
    const physics__v3 a = v[0], b = v[1], cc = v[2];
    const physics__v3 ab = v3_sub(b, a), ac = v3_sub(cc, a), ap = v3_sub(p, a);
    const float d1 = v3_dot(ab, ap), d2 = v3_dot(ac, ap);
    if (d1 <= 0.0f && d2 <= 0.0f)
        return a;
    const physics__v3 bp = v3_sub(p, b);
    const float d3 = v3_dot(ab, bp), d4 = v3_dot(ac, bp);
    if (d3 >= 0.0f && d4 <= d3)
        return b;
    const float vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0f && d1 >= 0.0f && d3 <= 0.0f)
        return v3_add(a, v3_scale(ab, d1 / (d1 - d3)));
    const physics__v3 cp = v3_sub(p, cc);
    const float d5 = v3_dot(ab, cp), d6 = v3_dot(ac, cp);
    if (d6 >= 0.0f && d5 <= d6)
        return cc;
    const float vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0f && d2 >= 0.0f && d6 <= 0.0f)
        return v3_add(a, v3_scale(ac, d2 / (d2 - d6)));
    const float va = d3 * d6 - d5 * d4;
    if (va <= 0.0f && (d4 - d3) >= 0.0f && (d5 - d6) >= 0.0f)
        return v3_add(b, v3_scale(v3_sub(cc, b), (d4 - d3) / ((d4 - d3) + (d5 - d6))));
    const float den = 1.0f / (va + vb + vc);
    return v3_add(a, v3_add(v3_scale(ab, vb * den), v3_scale(ac, vc * den)));
}

/* exact: min over samples of distance to the mesh, minus r */
static float exact_sep(const physics__scene *s, uint32_t rod, const shape *sh, int *tri_out)
{
    physics__v3 p0, p1;
    physics__round_segment(&s->bodies, rod, &p0, &p1);
    float best = INFINITY;
    for (int k = 0; k <= 2000; k++) {
        const physics__v3 x = v3_add(p0, v3_scale(v3_sub(p1, p0), (float)k / 2000.0f));
        for (uint32_t t = 0; t < sh->nt; t++) {
            physics__v3 v[3];
            for (int c = 0; c < 3; c++)
                v[c] = v3_load(sh->v + 3 * sh->ix[3 * t + c]);
            const float d = v3_len(v3_sub(x, closest(v, x)));
            if (d < best)
                best = d, *tri_out = (int)t;
        }
    }
    return best - s->bodies.radius[rod];
}

static void explore(const shape *sh, uint32_t n, float lo, float hi)
{
    physics__scene s;
    scene_init(&s);
    add_mesh(&s, sh);
    ct_rigid_body_desc_t d = {.kind = CT_BODY_DYNAMIC, .shape = CT_BODY_CAPSULE, .mass = 4.0f,
                              .radius = 0.1f, .half_height = 1.1f, .rotation = {0, 0, 0, 1}};
    d.half_extents[1] = 1.1f;
    add(&s, ROD, d);
    const uint32_t i = at(&s, ROD), j = at(&s, MESH);
    uint32_t seed = 7u, wrong = 0, missed = 0, deeper = 0;
    float worst = 0;
    for (uint32_t k = 0; k < n; k++) {
        float r[6];
        for (int q = 0; q < 6; q++) {
            seed = seed * 1664525u + 1013904223u;
            r[q] = (float)(seed >> 8) / 16777216.0f;
        }
        /* a random axis: mostly level, up to 40 degrees tilt */
        const float yaw = 360.0f * DEG * r[0], tilt = (r[1] - 0.5f) * 80.0f * DEG;
        const physics__v3 axis = v3(cosf(tilt) * cosf(yaw), sinf(tilt), cosf(tilt) * sinf(yaw));
        /* quat taking y to axis */
        const physics__v3 y = v3(0, 1, 0), c = v3_cross(y, axis);
        const float w = 1.0f + v3_dot(y, axis);
        s.bodies.rotation[i] = quat_normalize((physics__quat){c.x, c.y, c.z, w});
        s.bodies.position[i] = v3(sh->x0 + (sh->x1 - sh->x0) * r[2], 1.5f, 0.6f * (r[3] - 0.5f));
        const float target = lo + (hi - lo) * r[4];
        int tri = -1;
        for (int it = 0; it < 8; it++) {
            const float e = exact_sep(&s, i, sh, &tri);
            s.bodies.position[i].y += target - e;
        }
        physics__bodies_extent(&s.bodies, i);
        const float e = exact_sep(&s, i, sh, &tri);
        if (fabsf(e - target) > 1e-4f)
            continue;
        physics__manifold_out out[PHYSICS_MESH_MANIFOLDS];
        const uint32_t made = physics__manifolds(&s.bodies, i, j, 0.02f, false, out,
                                                 PHYSICS_MESH_MANIFOLDS);
        float least = INFINITY;
        for (uint32_t g = 0; g < made; g++)
            for (uint32_t q = 0; q < out[g].count; q++)
                least = f_min(least, out[g].p[q].sep);
        const float err = least - e;
        if (!(fabsf(err) <= 0.002f)) {
            wrong++;
            if (isinf(least))
                missed++;
            else if (err < 0)
                deeper++;
            if (!isinf(err) && fabsf(err) > fabsf(worst))
                worst = err;
            if (getenv("SHOW") && fabsf(err) > 0.005f)
                printf("  %s pose %u: exact %.4f got %.4f (tri %d) yaw %.1f tilt %.1f at %.3f %.3f %.3f\n",
                       sh->name, k, (double)e, (double)least, tri, (double)(yaw / DEG),
                       (double)(tilt / DEG), (double)s.bodies.position[i].x,
                       (double)s.bodies.position[i].y, (double)s.bodies.position[i].z);
        }
    }
    printf("%s [%.3f, %.3f]: %u of %u off by > 2 mm (missed %u, deeper %u), worst %.4f\n", sh->name,
           (double)lo, (double)hi, wrong, n, missed, deeper, (double)worst);
    physics__scene_free(&s);
}

static void test_explore(void **state)
{
    (void)state;
    const shape shapes[] = {
        {"ledge open", ledge_v, 4, ledge_ix, 2, -1.0f, 0.8f},
        {"ledge wall", ledge_v, 6, ledge_ix, 4, -1.0f, 0.8f},
        {"roof", roof_v, 6, roof_ix, 4, -0.8f, 0.8f},
        {"valley 150", valley_v, 6, valley_ix, 4, -0.8f, 0.8f},
        {"crease 90", v_crease, 4, v_crease_ix, 2, -0.5f, 0.5f},
    };
    for (uint32_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        explore(&shapes[k], 500, -0.05f, 0.0f);
        explore(&shapes[k], 500, 0.0f, 0.02f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_explore, setup, teardown),
    };
    if (physics_fixture_start())
        return 1;
    const char *const serial_only[] = {"test_explore", NULL};
    const int failed = physics_fixture_run_groups(tests, sizeof tests / sizeof tests[0], serial_only);
    physics_fixture_stop();
    return failed;
}
