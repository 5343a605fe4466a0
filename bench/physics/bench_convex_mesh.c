/*
 * bench_convex_mesh.c: Jolt's ConvexVsMesh scene (jrouwe/JoltPhysics, PerformanceTest/
 * ConvexVsMeshScene.h) in bench_physics.
 *
 *   physics.jolt_convex_vs_mesh_steps_per_s  steps per second of thread CPU time (readable on a
 *       busy machine), one thread, of 1,764 bodies (21 x 21
 *       of each of a box 0.5 x 0.75 x 1.0 half extents, a ball of radius 0.5, a capsule of
 *       radius 0.5 and half height 0.75, and a hull of 5 points: a square pyramid of half
 *       diagonal 1 and height 1), density 1000, friction 0.5, restitution 0.6, dropped from
 *       15 + 2 k m at 7.5 m spacing onto a static mesh of 20,000 triangles (100 x 100 cells of
 *       3 m, heights 5 sin(50 x / 100) cos(50 z / 100), placed at (-150, 5, -150)); 500 steps of
 *       1/60 s, as Jolt's PerformanceTest runs it. Sleeping on (as Jolt's bodies sleep), and
 *       Jolt's default damping, 0.05 linear and angular (bench_jolt_damping).
 *   physics.jolt_convex_vs_mesh_wall_steps_per_s  the same by the wall clock
 *   physics.jolt_convex_vs_mesh_below    bodies that end below the mesh surface under them (the
 *       issue asks 0)
 *   physics.jolt_peer_convex_vs_mesh_steps_per_s  Jolt's own PerformanceTest on the scene, one
 *       thread, discrete, when CUTTLE_JOLT_PERF names the program (built from Jolt's public
 *       sources outside this repository: cmake Build -DCMAKE_BUILD_TYPE=Distribution
 *       -DTARGET_PERFORMANCE_TEST=ON, the others off); run between our rounds. Its figure is
 *       by its own wall clock; physics.jolt_peer_convex_vs_mesh_cpu_steps_per_s is 500 steps over
 *       the CPU time its process used (scene building included, so a little low).
 * Median of three interleaved rounds (`--rounds 1` for one).
 */
#include "bench_physics.h"

#include "physics_hull.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

enum { MESH_N = 100 };

/* The scene into s (a fresh scene); returns the mesh body's instance. */
static uint32_t convex_vs_mesh(physics__scene *s)
{
    const float cell = 3.0f, max_height = 5.0f, centre = MESH_N * cell / 2.0f;
    /* Jolt's heights: 5 sin(50 x / 100) cos(50 z / 100) at vertex (x, z). */
    physics__mesh *mesh = bench_sine_mesh(s->a, MESH_N, cell, max_height, 50.0f);
    const ct_rigid_body_desc_t ground = {.kind = CT_BODY_STATIC,
                                         .shape = CT_BODY_MESH,
                                         .friction = 0.5f,
                                         .restitution = 0.6f,
                                         .position = {-centre, max_height, -centre}};
    physics__bodies_add_mesh(&s->bodies, (ct_entity_t){1}, &ground, mesh);
    /* One pyramid that every pyramid body uses, as Jolt's share one ConvexHullShape. */
    const float points[15] = {0, 1, 0, 1, 0, 0, -1, 0, 0, 0, 0, 1, 0, 0, -1};
    physics__hull built;
    char reason[160];
    physics__hull_build(&built, points, 5, reason, sizeof reason);
    physics__hull *pyramid = physics__bodies_hull(&s->bodies, &built);
    uint32_t id = 2;
    for (int x = -10; x <= 10; x++)
        for (int y = 0; y < 4; y++)
            for (int z = -10; z <= 10; z++) {
                ct_rigid_body_desc_t d = {
                    .kind = CT_BODY_DYNAMIC,
                    .friction = 0.5f,
                    .restitution = 0.6f,
                    .position = {7.5f * (float)x, 15.0f + 2.0f * (float)y, 7.5f * (float)z}};
                const ct_entity_t e = {id++};
                if (y == 0) {
                    d.shape = CT_BODY_BOX;
                    d.half_extents[0] = 0.5f, d.half_extents[1] = 0.75f, d.half_extents[2] = 1.0f;
                    d.mass = 1000.0f * 3.0f;
                } else if (y == 1) {
                    d.shape = CT_BODY_SPHERE;
                    d.radius = 0.5f;
                    d.mass = 1000.0f * 4.0f / 3.0f * 3.14159265f * 0.125f;
                } else if (y == 2) {
                    d.shape = CT_BODY_CAPSULE;
                    d.radius = 0.5f, d.half_height = 0.75f;
                    d.mass = 1000.0f * 3.14159265f * 0.25f * (1.5f + 4.0f / 3.0f * 0.5f);
                } else {
                    d.shape = CT_BODY_HULL;
                    d.mass = 1000.0f * pyramid->volume;
                    /* Jolt places a hull by its points' frame; ours by its centre of mass. */
                    d.position[1] += pyramid->centroid.y;
                    physics__bodies_add_hull(&s->bodies, e, &d, pyramid);
                    continue;
                }
                physics__bodies_add_rigid(&s->bodies, e, &d);
            }
    bench_jolt_damping(s);
    return physics__bodies_find(&s->bodies, (ct_entity_t){1});
}

void bench_convex_vs_mesh_scene(physics__scene *s) { convex_vs_mesh(s); }

static double thread_cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* One run: 500 steps; the seconds of thread CPU they took (*wall: of the wall clock) and the
 * bodies left under the mesh. */
static double convex_vs_mesh_run(uint32_t *below, double *wall)
{
    physics__scene s;
    physics__scene_init(&s, ct_heap_allocator());
    const uint32_t mesh = convex_vs_mesh(&s);
    const int steps = getenv("CUTTLE_BENCH_STEPS") ? atoi(getenv("CUTTLE_BENCH_STEPS")) : 500;
    const double start = bench_now_ms(), cpu_start = thread_cpu_ms();
    for (int k = 0; k < steps; k++)
        physics__scene_step(&s, 1.0f / 60.0f);
    const double ms = thread_cpu_ms() - cpu_start;
    *wall = (bench_now_ms() - start) / 1000.0;
    *below = 0;
    uint32_t off = 0;
    for (uint32_t i = 0; i < s.bodies.n; i++) {
        if (s.bodies.kind[i] != CT_BODY_DYNAMIC)
            continue;
        const physics__v3 p = s.bodies.position[i];
        physics__v3 n;
        const float t = physics__ray_body(&s.bodies, mesh, v3(p.x, 100.0f, p.z), v3(0, -1, 0), &n);
        if (t == INFINITY)
            off++; /* rolled off the terrain's edge */
        else if (p.y < 100.0f - t - 0.01f) {
            if (getenv("CUTTLE_BENCH_VERBOSE"))
                fprintf(stderr, "    below: entity %u shape %u at %.2f %.2f %.2f, surface %.2f\n",
                        s.bodies.entity[i].id, s.bodies.shape[i], (double)p.x, (double)p.y,
                        (double)p.z, (double)(100.0f - t));
            (*below)++;
        }
    }
    fprintf(stderr,
            "  convex_vs_mesh: %.1f ms of CPU (%.1f wall) for %d steps, %u awake at the end, %u "
            "off the edge, state hash %016llx\n",
            ms, *wall * 1000.0, steps, s.report.awake, off,
            (unsigned long long)physics__state_hash(&s, NULL, NULL));
    physics__scene_free(&s);
    return ms / 1000.0;
}

static double children_cpu_s(void)
{
    struct rusage u;
    getrusage(RUSAGE_CHILDREN, &u);
    return (double)u.ru_utime.tv_sec + (double)u.ru_stime.tv_sec +
           1e-6 * (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

/* Jolt's PerformanceTest on the scene, one thread: steps per second by its clock (*cpu: by its
 * CPU time), or -1. */
static double convex_vs_mesh_peer(double *cpu)
{
    *cpu = -1.0;
    const char *exe = getenv("CUTTLE_JOLT_PERF");
    if (!exe)
        return -1.0;
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "'%s' -s=ConvexVsMesh -q=Discrete -t=1 2>&1", exe);
    const double before = children_cpu_s();
    FILE *f = popen(cmd, "r");
    if (!f)
        return -1.0;
    char line[512];
    double best = -1.0;
    while (fgets(line, sizeof line, f)) {
        /* Its result line: "Discrete, 1, <steps per second>, <hash>". */
        double v;
        if (strncmp(line, "Discrete, 1, ", 13) == 0 && sscanf(line + 13, "%lf", &v) == 1)
            best = v;
    }
    pclose(f);
    *cpu = 500.0 / (children_cpu_s() - before);
    fprintf(stderr, "  jolt: %.1f steps/s by its clock, %.1f by its CPU time\n", best, *cpu);
    return best;
}

void bench_convex_vs_mesh(void)
{
    double ours[3], wall[3], peer[3], peer_cpu[3];
    uint32_t below = 0;
    for (int round = 0; round < 3; round++) {
        if (round >= bench_rounds()) {
            ours[round] = ours[0], wall[round] = wall[0];
            peer[round] = peer[0], peer_cpu[round] = peer_cpu[0];
            continue;
        }
        uint32_t b;
        ours[round] = 500.0 / convex_vs_mesh_run(&b, &wall[round]);
        wall[round] = 500.0 / wall[round];
        below = b > below ? b : below;
        peer[round] = convex_vs_mesh_peer(&peer_cpu[round]);
    }
    bench_report("physics.jolt_convex_vs_mesh_steps_per_s", bench_median3(ours), "steps/s");
    bench_report("physics.jolt_convex_vs_mesh_wall_steps_per_s", bench_median3(wall), "steps/s");
    bench_report("physics.jolt_convex_vs_mesh_below", (double)below, "bodies");
    if (peer[0] >= 0.0) {
        bench_report("physics.jolt_peer_convex_vs_mesh_steps_per_s", bench_median3(peer),
                     "steps/s");
        bench_report("physics.jolt_peer_convex_vs_mesh_cpu_steps_per_s", bench_median3(peer_cpu),
                     "steps/s");
    }
}
