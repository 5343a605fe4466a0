/* Bodies against mesh triangles' edges and backs (physics_mesh.c). A capsule (a limb, a log) lying
 * across a ledge's edge, across a ridge or in a crease, tipping off a ledge: its manifold must
 * measure what the exact nearest points of segment and mesh give (found by brute force along the
 * segment), and it must not sink into an edge (mesh__round). A crate or log under a mesh shelf is
 * not pulled up through it; a board over a tiled floor keeps its deepest corner at the floor's
 * border. Without the kernel, serial and on two threads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "physics_fixture.h"
#include "physics_hull.h"

enum { MESH = 1, ROD = 2 };
#define DEG (3.14159265f / 180.0f)

/* A mesh and where along x a capsule's centre goes over it. */
typedef struct shape {
    const char *name;
    const float *v;
    uint32_t nv;
    const uint32_t *ix;
    uint32_t nt;
    float x0, x1;
} shape;

/* A ledge: a plate at y = 0 over x in [-2, 0], z in [-2, 2] (its edge along z at x = 0), and a
 * wall facing +x from that edge down to y = -2 (the first two triangles alone: an open edge). */
static const float ledge_v[] = {-2, 0, -2, 0, 0, -2, 0, 0, 2, -2, 0, 2, 0, -2, -2, 0, -2, 2};
static const uint32_t ledge_ix[] = {0, 3, 2, 0, 2, 1, 1, 2, 5, 1, 5, 4};
/* A roof: sides sloping 20 degrees up to a ridge along z at x = 0, 0.728 m high. */
static const float roof_v[] = {-2, 0, -2, -2, 0, 2, 0, 0.7279f, -2, 0, 0.7279f, 2, 2, 0, -2, 2, 0, 2};
static const uint32_t roof_ix[] = {0, 1, 3, 0, 3, 2, 2, 3, 5, 2, 5, 4};
/* A 90-degree V: a crease along z at the origin, each side rising at 45 degrees. */
static const float crease_v[12] = {0, 0, -2, 0, 0, 2, -2, 2, 0, 2, 2, 0};
static const uint32_t crease_ix[6] = {0, 2, 1, 0, 1, 3};

static const shape ledge = {"ledge", ledge_v, 6, ledge_ix, 4, -1.0f, 0.8f};
static const shape open_ledge = {"open ledge", ledge_v, 4, ledge_ix, 2, -1.0f, 0.8f};
static const shape roof = {"roof", roof_v, 6, roof_ix, 4, -0.8f, 0.8f};
static const shape crease = {"crease", crease_v, 4, crease_ix, 2, -0.5f, 0.5f};

/* A scene of the mesh (static, friction 0.6) as entity MESH and, as entity ROD, a capsule 2.4 m
 * long of radius 0.1 (4 kg, friction 0.6) lying along x at the origin. */
static void rod_scene(physics__scene *s, const shape *sh)
{
    scene_init(s);
    physics__mesh *m;
    char reason[160];
    assert_null(physics__mesh_build(&alloc.base, sh->v, sh->nv, sh->ix, sh->nt, &m, reason,
                                    sizeof reason));
    const ct_rigid_body_desc_t g = {
        .kind = CT_BODY_STATIC, .shape = CT_BODY_MESH, .friction = 0.6f};
    assert_int_equal(physics__bodies_add_mesh(&s->bodies, (ct_entity_t){MESH}, &g, m), 0);
    const float turn = -45.0f * DEG; /* its axis (y) along x */
    const ct_rigid_body_desc_t d = {.kind = CT_BODY_DYNAMIC,
                                    .shape = CT_BODY_CAPSULE,
                                    .mass = 4.0f,
                                    .friction = 0.6f,
                                    .radius = 0.1f,
                                    .half_height = 1.1f,
                                    .half_extents = {0.1f, 1.1f, 0.1f},
                                    .rotation = {0, 0, sinf(turn), cosf(turn)}};
    add(s, ROD, d);
}

/* The point of segment a b nearest to p. */
static physics__v3 nearest_on_edge(physics__v3 a, physics__v3 b, physics__v3 p)
{
    const physics__v3 d = v3_sub(b, a);
    const float t = f_min(f_max(v3_dot(v3_sub(p, a), d) / v3_dot(d, d), 0.0f), 1.0f);
    return v3_add(a, v3_scale(d, t));
}

/* The point of triangle v[0..2] nearest to p, worked out apart from the module's (Voronoi
 * regions there): p's foot on the plane when it lies inside all three edges, else the nearest of
 * the three edges' nearest points. */
static physics__v3 nearest_on_triangle(const physics__v3 *v, physics__v3 p)
{
    const physics__v3 n = v3_cross(v3_sub(v[1], v[0]), v3_sub(v[2], v[0]));
    const physics__v3 foot = v3_sub(p, v3_scale(n, v3_dot(v3_sub(p, v[0]), n) / v3_dot(n, n)));
    bool inside = true;
    for (int k = 0; k < 3; k++)
        inside &= v3_dot(v3_cross(v3_sub(v[(k + 1) % 3], v[k]), v3_sub(foot, v[k])), n) >= 0.0f;
    if (inside)
        return foot;
    physics__v3 best = nearest_on_edge(v[0], v[1], p);
    for (int k = 1; k < 3; k++) {
        const physics__v3 q = nearest_on_edge(v[k], v[(k + 1) % 3], p);
        if (v3_dot(v3_sub(q, p), v3_sub(q, p)) < v3_dot(v3_sub(best, p), v3_sub(best, p)))
            best = q;
    }
    return best;
}

/* How far the capsule is from the mesh (negative: how deep in), exactly to a tenth of a mm: its
 * segment's 2,001 points' least distance from any triangle, less the radius. Right while the
 * segment itself stays clear of the surface (the capsule less than its radius in). */
static float exact_sep(const physics__scene *s, const shape *sh)
{
    const uint32_t i = at(s, ROD);
    physics__v3 p0, p1;
    physics__round_segment(&s->bodies, i, &p0, &p1);
    float best = INFINITY;
    for (int k = 0; k <= 2000; k++) {
        const physics__v3 x = v3_add(p0, v3_scale(v3_sub(p1, p0), (float)k / 2000.0f));
        for (uint32_t t = 0; t < sh->nt; t++) {
            physics__v3 v[3];
            for (int c = 0; c < 3; c++)
                v[c] = v3_load(sh->v + 3 * sh->ix[3 * t + c]);
            best = f_min(best, v3_len(v3_sub(x, nearest_on_triangle(v, x))));
        }
    }
    return best - s->bodies.radius[i];
}

/* The least separation of the capsule's manifolds with the mesh (margin 2 cm; INFINITY: none). */
static float manifold_sep(const physics__scene *s)
{
    physics__manifold_out out[PHYSICS_MESH_MANIFOLDS];
    const uint32_t made = physics__manifolds(&s->bodies, at(s, ROD), at(s, MESH), 0.02f, false,
                                             out, PHYSICS_MESH_MANIFOLDS);
    float least = INFINITY;
    for (uint32_t g = 0; g < made; g++)
        for (uint32_t q = 0; q < out[g].count; q++)
            least = f_min(least, out[g].p[q].sep);
    return least;
}

/* n seeded poses of the capsule over the mesh: turned any way round, tilted up to 40 degrees,
 * its centre over [x0, x1], let down until it is 0.6 to 5 cm into the mesh (exact_sep; under
 * MESH_SEAM_DEPTH a capsule level at a plate's open edge meets its face alone, by design). How
 * many manifolds measure it more than 2 mm off (none found counts). */
static uint32_t poses_off(const shape *sh, uint32_t n)
{
    physics__scene s;
    rod_scene(&s, sh);
    const uint32_t i = at(&s, ROD);
    uint32_t seed = 7u, off = 0, posed = 0;
    float worst = 0.0f;
    for (uint32_t k = 0; k < n; k++) {
        float r[6];
        for (int q = 0; q < 6; q++) {
            seed = seed * 1664525u + 1013904223u;
            r[q] = (float)(seed >> 8) / 16777216.0f;
        }
        const float yaw = 360.0f * DEG * r[0], tilt = (r[1] - 0.5f) * 80.0f * DEG;
        const physics__v3 axis = v3(cosf(tilt) * cosf(yaw), sinf(tilt), cosf(tilt) * sinf(yaw));
        /* (the shortest turn taking the capsule's y onto the axis) */
        const physics__v3 c = v3_cross(v3(0, 1, 0), axis);
        s.bodies.rotation[i] = quat_normalize((physics__quat){c.x, c.y, c.z, 1.0f + axis.y});
        s.bodies.position[i] = v3(sh->x0 + (sh->x1 - sh->x0) * r[2], 1.5f, 0.6f * (r[3] - 0.5f));
        const float depth = 0.006f + 0.044f * r[4];
        for (int it = 0; it < 8; it++)
            s.bodies.position[i].y -= depth + exact_sep(&s, sh);
        physics__bodies_extent(&s.bodies, i);
        const float exact = exact_sep(&s, sh);
        if (!(fabsf(exact + depth) < 1e-4f))
            continue; /* (not settled at that depth: a pose the segment crosses the surface in) */
        posed++;
        const float err = manifold_sep(&s) - exact;
        if (!(fabsf(err) <= 0.002f)) {
            off++;
            if (isfinite(err) && fabsf(err) > fabsf(worst))
                worst = err;
        }
    }
    physics__scene_free(&s);
    print_message("%s: %u of %u manifolds more than 2 mm off the exact separation (the worst "
                  "found: %.4f m off; none found counts)\n",
                  sh->name, off, posed, (double)worst);
    assert_true(posed > n * 3 / 4);
    return off;
}

/* The capsule over a ledge, a ridge and in a crease at 400 poses each, 0.6 to 5 cm in: every
 * manifold measures the exact separation to 2 mm. Its segment's point nearest a triangle was
 * found projecting back and forth between segment and triangle (4 times), which crawls where the
 * segment lies nearly along the face: stopped short of a ledge's edge, the capsule was found clear
 * of a plate it lay 5 cm into (68 of 400 on the open ledge). And a ball past a triangle's edge,
 * behind its plane, was taken for one behind the face and pushed out through it, as deep as its
 * distance and radius: a capsule lying across the ledge, its segment over the wall's top edge, was
 * found 20 cm into the wall (45 of 400). */
static void test_capsule_manifold_measures_the_nearest_points(void **state)
{
    (void)state;
    uint32_t off = poses_off(&open_ledge, 400);
    off += poses_off(&ledge, 400);
    off += poses_off(&roof, 400);
    off += poses_off(&crease, 400);
    assert_int_equal(off, 0);
}

/* How deep the capsule lies in the ledge's solid (x < 0 and y < 0): its segment's points' depth
 * less the radius, the deepest (negative: how far clear). */
static float ledge_depth(const physics__scene *s)
{
    const uint32_t i = at(s, ROD);
    physics__v3 p0, p1;
    physics__round_segment(&s->bodies, i, &p0, &p1);
    float deepest = -INFINITY;
    for (int k = 0; k <= 64; k++) {
        const physics__v3 x = v3_add(p0, v3_scale(v3_sub(p1, p0), (float)k / 64.0f));
        const float out = x.x < 0.0f && x.y < 0.0f
                              ? -f_min(-x.x, -x.y)
                              : sqrtf(f_max(x.x, 0.0f) * f_max(x.x, 0.0f) +
                                      f_max(x.y, 0.0f) * f_max(x.y, 0.0f));
        deepest = f_max(deepest, s->bodies.radius[i] - out);
    }
    return deepest;
}

/* The capsule lying on the ledge's plate turned 60 degrees about y, its centre 30 cm short of the
 * edge, pushed at 1.5 m/s: it slides over the edge and tips down past it, never 5 mm into the
 * edge. 0.75 s, until it has tipped 20 cm under the top. */
static void test_capsule_tips_off_a_mesh_ledge(void **state)
{
    (void)state;
    physics__scene s;
    rod_scene(&s, &ledge);
    const uint32_t i = at(&s, ROD);
    const float turn = 30.0f * DEG;
    s.bodies.rotation[i] = quat_mul((physics__quat){0, sinf(turn), 0, cosf(turn)},
                                    s.bodies.rotation[i]);
    s.bodies.position[i] = v3(-0.3f, 0.1f, 0.0f);
    s.bodies.velocity[i] = v3(1.5f, 0, 0);
    float deepest = -INFINITY;
    for (int k = 0; k < 45; k++) {
        assert_int_equal(physics__scene_step(&s, 1.0f / 60.0f), 0);
        deepest = f_max(deepest, ledge_depth(&s));
    }
    physics__v3 p0, p1;
    physics__round_segment(&s.bodies, i, &p0, &p1);
    physics__scene_free(&s);
    print_message("capsule off a mesh ledge: %.4f m deep at most, its lower end at %.3f m\n",
                  (double)deepest, (double)f_min(p0.y, p1.y));
    assert_true(f_min(p0.y, p1.y) < -0.2f);
    assert_true(deepest < 0.005f);
}

/* A shelf: a flat mesh of 4 x 4 cells of 1 m (32 triangles; the 8 of the middle four cells have
 * every edge shared and flat) at y = `height` over x, z in [-2, 2], as entity MESH, over a static
 * ground box (top at y = 0) as entity GROUND, and under the shelf's middle, resting on the ground,
 * either a crate (a cube of 1 m, 4 kg) or the capsule lying along x, as entity ROD. One second:
 * how far it moved. */
enum { GROUND = 3 };
static float under_a_shelf(bool crate, float height)
{
    physics__scene s;
    scene_init(&s);
    const float flat[25] = {0};
    physics__mesh *m = height_field(flat, 5, 5, 1.0f, 1.0f);
    const ct_rigid_body_desc_t g = {.kind = CT_BODY_STATIC,
                                    .shape = CT_BODY_MESH,
                                    .friction = 0.6f,
                                    .position = {-2.0f, height, -2.0f}};
    assert_int_equal(physics__bodies_add_mesh(&s.bodies, (ct_entity_t){MESH}, &g, m), 0);
    const ct_rigid_body_desc_t ground = {.kind = CT_BODY_STATIC,
                                         .shape = CT_BODY_BOX,
                                         .half_extents = {5.0f, 1.0f, 5.0f},
                                         .friction = 0.6f,
                                         .position = {0, -1, 0}};
    add(&s, GROUND, ground);
    const float turn = -45.0f * DEG;
    const ct_rigid_body_desc_t body =
        crate ? (ct_rigid_body_desc_t){.kind = CT_BODY_DYNAMIC,
                                       .shape = CT_BODY_BOX,
                                       .mass = 4.0f,
                                       .friction = 0.6f,
                                       .half_extents = {0.5f, 0.5f, 0.5f},
                                       .position = {0.1f, 0.5f, 0.2f},
                                       .rotation = {0, 0, 0, 1}}
              : (ct_rigid_body_desc_t){.kind = CT_BODY_DYNAMIC,
                                       .shape = CT_BODY_CAPSULE,
                                       .mass = 4.0f,
                                       .friction = 0.6f,
                                       .radius = 0.1f,
                                       .half_height = 1.1f,
                                       .half_extents = {0.1f, 1.1f, 0.1f},
                                       .position = {0.1f, 0.1f, 0.2f},
                                       .rotation = {0, 0, sinf(turn), cosf(turn)}};
    add(&s, ROD, body);
    const uint32_t i = at(&s, ROD);
    const physics__v3 from = s.bodies.position[i];
    run(&s, 60);
    const float moved = v3_len(v3_sub(s.bodies.position[i], from));
    print_message("%s under a shelf %.2f m high: moved %.4f m, to y = %.4f\n",
                  crate ? "crate" : "capsule", (double)height, (double)moved,
                  (double)s.bodies.position[i].y);
    physics__scene_free(&s);
    return moved;
}

/* A crate or a log lying on the ground under a mesh shelf, 1 cm clear of its underside, stays
 * where it lies (under 1 mm in 1 s). A triangle whose edges are all shared and flat meets a body
 * along its face alone, and took one wholly behind it for one sunk into it: the crate's bottom
 * face, 1.01 m behind the shelf, was pushed out through the shelf's top. */
static void test_bodies_under_a_mesh_shelf_stay(void **state)
{
    (void)state;
    assert_true(under_a_shelf(true, 1.01f) < 0.001f);
    assert_true(under_a_shelf(false, 0.21f) < 0.001f);
}

/* A board (2 x 0.1 x 0.4 m) over a tiled floor (8 x 8 cells of 0.5 m, a flat height field over
 * x, z in [-2, 2]) at 2,000 seeded poses, half of them turned any way, half nearly level, its
 * centre over [-0.75, 0.75], let down until its lowest corner is 0 to 5 cm under the floor: its
 * manifolds' deepest point is that corner's depth, to 2 mm. The floor's border triangles (an open
 * edge: any normal allowed) took the normal of an inner seam a deep corner was nearer to than
 * to the face, sideways, and no cluster of the floor's way took that manifold in: 3 boards lost
 * their deepest corner (one 3.9 cm in was found 3.7 cm in, by the next corner). */
static void test_board_over_a_tiled_floor_keeps_its_deepest_corner(void **state)
{
    (void)state;
    physics__scene s;
    scene_init(&s);
    const float flat[81] = {0};
    physics__mesh *m = height_field(flat, 9, 9, 0.5f, 0.5f);
    const ct_rigid_body_desc_t g = {.kind = CT_BODY_STATIC,
                                    .shape = CT_BODY_MESH,
                                    .friction = 0.6f,
                                    .position = {-2.0f, 0, -2.0f}};
    assert_int_equal(physics__bodies_add_mesh(&s.bodies, (ct_entity_t){MESH}, &g, m), 0);
    const ct_rigid_body_desc_t d = {.kind = CT_BODY_DYNAMIC,
                                    .shape = CT_BODY_BOX,
                                    .mass = 4,
                                    .half_extents = {1.0f, 0.05f, 0.2f},
                                    .rotation = {0, 0, 0, 1}};
    add(&s, ROD, d);
    const uint32_t i = at(&s, ROD), j = at(&s, MESH);
    uint32_t seed = 3u, off = 0;
    for (int k = 0; k < 2000; k++) {
        float r[7];
        for (int q = 0; q < 7; q++) {
            seed = seed * 1664525u + 1013904223u;
            r[q] = (float)(seed >> 8) / 16777216.0f;
        }
        s.bodies.rotation[i] =
            k % 2 ? quat_normalize((physics__quat){0.1f * (r[0] - 0.5f), r[1] - 0.5f,
                                                   0.1f * (r[2] - 0.5f), 1.0f})
                  : quat_normalize(
                        (physics__quat){r[0] - 0.5f, r[1] - 0.5f, r[2] - 0.5f, r[3] - 0.5f});
        s.bodies.position[i] = v3(1.5f * (r[4] - 0.5f), 2.0f, 1.5f * (r[5] - 0.5f));
        physics__poly body;
        physics__poly_of(&s.bodies, i, &body);
        float low = INFINITY;
        for (uint32_t v = 0; v < body.nv; v++)
            low = f_min(low, body.v[v].y);
        const float depth = 0.05f * r[6];
        s.bodies.position[i].y -= depth + low;
        physics__bodies_extent(&s.bodies, i);
        physics__manifold_out out[PHYSICS_MESH_MANIFOLDS];
        const uint32_t made =
            physics__manifolds(&s.bodies, i, j, 0.02f, false, out, PHYSICS_MESH_MANIFOLDS);
        float least = INFINITY;
        for (uint32_t w = 0; w < made; w++)
            for (uint32_t q = 0; q < out[w].count; q++)
                least = f_min(least, out[w].p[q].sep);
        off += !(fabsf(least + depth) <= 0.002f);
    }
    physics__scene_free(&s);
    print_message("board over a tiled floor: %u of 2000 manifolds miss its deepest corner by more "
                  "than 2 mm\n", off);
    assert_int_equal(off, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_capsule_manifold_measures_the_nearest_points, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_capsule_tips_off_a_mesh_ledge, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bodies_under_a_mesh_shelf_stay, setup, teardown),
        cmocka_unit_test_setup_teardown(test_board_over_a_tiled_floor_keeps_its_deepest_corner,
                                        setup, teardown),
    };
    if (physics_fixture_start())
        return 1;
    /* (the poses build no step: the pool is not used) */
    const char *const serial_only[] = {"test_capsule_manifold_measures_the_nearest_points",
                                       "test_board_over_a_tiled_floor_keeps_its_deepest_corner",
                                       NULL};
    const int failed = physics_fixture_run_groups(tests, sizeof tests / sizeof tests[0], serial_only);
    physics_fixture_stop();
    return failed;
}
