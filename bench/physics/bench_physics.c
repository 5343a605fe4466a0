/*
 * bench_physics: the physics module's costs. The core's figures are measured on its internal
 * functions; step_10k goes through the module's simulate() in a booted kernel (entities,
 * transforms, physics from --modules DIR), as a game calls it. The job pool has one thread per
 * core. Prints one JSON line per figure ({"name": ..., "value": ..., "unit": ...}, as every bench
 * in bench/ does), then a table of them; what it saw along the way goes to stderr. It never fails
 * on time. Times are of the wall clock unless a figure says CPU: on a shared machine, compare the
 * CPU figures.
 *
 *   physics.integrate_1m_ms     one simulate pass over 1,000,000 point masses (best of 15)
 *   physics.integrate_1m_gbps   the bytes that pass moves (read and write position, velocity,
 *                               acceleration: 72 bytes per point) divided by its time
 *   physics.broadphase_100k_ms  grid build + all pairs + 1,000 box queries, 100,000 boxes, on
 *                               the pool (best of 9)
 *   physics.broadphase_100k_serial_ms  the same without the pool
 *   physics.hash_vs_brute_ratio brute-force pairs time / spatial-hash time, 5,000 boxes (serial)
 *   physics.broadphase_mixed_ms a level's mix: the candidate pairs of one step of 20,000 falling
 *                               debris spheres among 300 static walls (10 x 3 m) and 4 floors
 *                               (100 x 100 m), on the pool (mean of 20)
 *   physics.step_mixed_ms       the whole step of that scene (mean of 20)
 *   physics.step_10k_falling_ms one core step of 10,000 bodies falling onto a pile, on the pool
 *                               (mean of 20 steps after 30)
 *   physics.step_10k_ms         simulate() of a world whose 10,000 bodies (boxes and spheres,
 *                               each with a transform) rest in a settled pile: transform reads
 *                               and writes, the step, event queueing; sleeping on, as by default
 *                               (mean of 20)
 *   physics.step_10k_one_awake_ms  the same sleeping pile with one ball bouncing 50 m away (the
 *                               world is not quiet, so the step walks every body), by CPU time
 *                               (mean of 200)
 *   physics.step_10k_awake_ms   the same with sleeping off: the whole resting pile is solved
 *   physics.step_10k_pool_ms    one core step of that resting pile, awake, on the pool
 *   physics.step_10k_serial_ms  the same on one thread
 *   physics.step_10k_threads_x  serial / pool: what the second thread gives
 *   physics.pyramid_20_ms       one step of a 20-level pyramid of 210 boxes, no sleeping (mean
 *                               of the first 100 steps, as Box2D's benchmark runs its pyramid)
 *   physics.pyramid_100_ms      the same for 100 levels, 5,050 boxes
 *   physics.pyramid_20_serial_ms, physics.pyramid_100_serial_ms   the same on one thread
 *
 *   physics.box3d_large_pyramid_ms   one step of Box3D's large_pyramid (erincatto/box3d v0.1.0,
 *                               shared/benchmarks.c: 90 rows, 4,095 cubes of half size 0.5 and
 *                               density 100 on a 400 x 400 m box, sleeping off, 60 Hz, 4 substeps),
 *                               rotating bodies, one thread, ms of this thread's CPU time: the mean
 *                               of steps 2..200 as Box3D's benchmark times them, median of 3 rounds
 *   physics.box3d_many_pyramids_ms   the same for many_pyramids (14 x 14 pyramids of 55 cubes,
 *                               10,780, steps 2..100)
 *   physics.box3d_peer_large_pyramid_ms, physics.box3d_peer_many_pyramids_ms   Box3D's own
 *                               benchmark program on the same scenes, one worker, run between our
 *                               rounds (interleaved) when CUTTLE_BOX3D_BENCH names it: the
 *                               `benchmark` program of erincatto/box3d at tag v0.1.0, built from its
 *                               public sources outside this repository (cmake -DCMAKE_BUILD_TYPE=
 *                               Release -DBOX3D_BENCHMARKS=ON -DBOX3D_SAMPLES=OFF
 *                               -DBOX3D_UNIT_TESTS=OFF -DBOX3D_VALIDATE=OFF; it is build/bin/
 *                               benchmark). It runs with -b=5 (large_pyramid) or -b=6
 *                               (many_pyramids) and -w=1 -t=1 -r=1, in /tmp (it writes a .csv
 *                               there); its figure is the CPU time its process used (user +
 *                               system) over its steps, ms a step, so its scene building and first
 *                               step count too (a little in our favour); its own clock's figure
 *                               goes to stderr
 *   physics.box3d_large_pyramid_threads_x  one thread (CPU time, the median above) / the pool
 *                               (wall time, one run) on large_pyramid
 *   physics.threads_x           large_pyramid on one thread / on the pool (two threads on two
 *                               cores), both by wall time: the median of 3 interleaved rounds'
 *                               ratios (the issue asks >= 1.7 on a quiet machine)
 *   physics.box3d_peer_threads_x  Box3D's own program on it, -w=1 / -w=2 by its own clock, in the
 *                               same rounds
 *   physics.threads_x_load_before, _after  the 1-minute load average around those rounds
 *   physics.threads_x_cpu0_ms, _cpu1_ms  large_pyramid on one thread pinned to CPU 0, then to CPU
 *                               1 (wall, ms a step): on a virtual machine the two vCPUs need not
 *                               be equally fast (seen: 13.3 against 9.8 ms), and threads_x's
 *                               one-thread run lands on either
 *   physics.threads_x_of_ideal  the two-thread step both CPUs' rates added would give (from the two
 *                               above) over the rounds' median two-thread step: 1 is a perfect pool
 *   physics.threads_x_serial_share  large_pyramid on one thread (CPU time, steps 2..100): the
 *                               share of the step outside any job of the pool, which a second
 *                               thread cannot take (group threads_serial; steady on a busy machine)
 *   physics.threads_x_amdahl    Amdahl's bound from it, 2 / (1 + share)
 *   physics.threads_x_bound     the same counting each parallel section's largest job too (two
 *                               threads finish a section no sooner than that): the best threads_x
 *                               the step allows without the pool's own cost
 *   physics.pyramid_100_serial_share, _amdahl   the same for the translation-only pyramid_100
 *   physics.joint_grid_serial_share, _amdahl, _bound   the same for Box3D's joint_grid
 *   physics.threads_x_many_pyramids, _joint_grid, _convex_vs_mesh, _jolt_high_speed  those
 *                               scenes (as their own groups build them) on one thread / on the
 *                               pool, by wall time, median of interleaved rounds' ratios (group
 *                               threads_scenes; under 1: the second thread slowed the step)
 *   physics.box3d_large_pyramid_top_moved_cm  how far its top cube moves from step 200 to step
 *                               1,000 (still standing: the issue asks < 1 cm)
 *   physics.jolt_high_speed_escapes   Jolt's HighSpeed scene (jrouwe/JoltPhysics,
 *                               PerformanceTest/HighSpeedScene.h: 5,000 bodies at 250 m/s in a
 *                               closed 100 m box of 0.4 m walls; balls, boxes and Jolt's compound
 *                               of a capsule and a box), 500 steps, one thread: bodies whose centre
 *                               ever left the box (target 0)
 *   physics.jolt_high_speed_steps_per_s   its steps per second of CPU time
 *   physics.jolt_high_speed_capsules_escapes, _steps_per_s   the same with a capsule (the
 *                               compound's capsule part) where Jolt has the compound, as the scene
 *                               was before we had compounds
 *   physics.jolt_peer_high_speed_escapes, physics.jolt_peer_high_speed_steps_per_s   Jolt's own,
 *                               when CUTTLE_JOLT_BENCH names a harness built outside this repository
 *                               that runs Jolt's scene (LinearCast, one thread) and prints
 *                               "jolt HighSpeed: N steps, X steps/s by CPU, Y steps/s by wall, E
 *                               escaped"
 *   physics.jolt_characters_steps_per_s (and its peer, climbed, on_top): see bench_characters.c
 *
 *   physics.snapshot_bytes_per_body  the rollback snapshot's size (physics_snapshot.c, format
 *                               6) over the bodies, on large_pyramid after 100 steps (every body
 *                               awake, each box resting on two: three contacts a body, whose
 *                               impulses and poses are most of it; format 5 took 131.2, format 4
 *                               140, format 2 462). The snapshot tests hold their tumbling crates
 *                               under 116, a 20-row pyramid under 110 and a wall under 78
 *   physics.snapshot_save_ms, physics.snapshot_restore_ms   on the same world: a save (sized
 *                               first) and a restore (which finds the recycled manifolds again),
 *                               ms of CPU, median of 5
 *
 *   physics.jolt_convex_vs_mesh_steps_per_s (and its peer): see bench_convex_mesh.c
 *   physics.hull_build_*_us (spheres, cylinders, clouds, boxes of points): see bench_hull.c
 *
 *   physics.box3d_joint_grid_ms      one step of Box3D's joint_grid (CreateJointGrid: 100 x 100
 *                               spheres of radius 0.4 and density 1000, 1 m apart, the top row
 *                               static, each held to the one above and the one to its left by a
 *                               ball joint, 19,800 joints; the spheres do not collide with each
 *                               other (category 2, mask ~2); sleeping off, 60 Hz, 4 substeps): the
 *                               mean of steps 2..100 in ms of CPU time, one thread, median of 3
 *                               rounds interleaved with Box3D's own program (-b=3, timed as for
 *                               the pyramids). Box3D makes the 99 joints
 *                               between two static bodies of the top row too (they do nothing);
 *                               ours refuses those, so it solves 19,701
 *   physics.box3d_peer_joint_grid_ms  Box3D's own benchmark on it (as for the pyramids)
 *   physics.box3d_joint_grid_gap_cm   the largest distance between a joint's two anchors after
 *                               the 100 steps (the issue asks < 1 cm)
 *
 * Options:
 *   --modules DIR  where entities/, transforms/ and physics/ are built (the build's own modules
 *                  by default)
 *   --only a,b     runs only the groups named, in their order below (a name that is no group is
 *                  refused, with the list): integrate, broadphase, hash_vs_brute, mixed,
 *                  step_10k_core, step_10k_module, pyramid_20, pyramid_100, box3d, standing,
 *                  snapshot, convex_vs_mesh, joint_grid, jolt_high_speed, jolt_characters,
 *                  hull_build, threads_x, threads_serial, threads_scenes (without --only, all
 *                  of them, as scripts/bench.sh runs it)
 *   --list         prints the groups' names, one a line, and runs nothing
 *   --rounds N     1 to 3 (default 3): the rounds of the figures that are a median of interleaved
 *                  rounds (box3d, joint_grid, threads_x, convex_vs_mesh, jolt_characters,
 *                  hull_build, threads_scenes); 1 for a quick look
 * Environment: CUTTLE_BENCH_STEPS sets the steps of convex_vs_mesh and jolt_characters (500, as
 * Jolt runs them; another number is no longer Jolt's figure), CUTTLE_BENCH_VERBOSE names each body
 * convex_vs_mesh finds below the mesh.
 *
 * Peers, each built from its public sources outside this repository (never by this repository's
 * scripts); a *_peer_* figure is printed only when its program is named:
 *   CUTTLE_BOX3D_BENCH  Box3D v0.1.0's `benchmark`: box3d_peer_large_pyramid_ms,
 *                       box3d_peer_many_pyramids_ms, box3d_peer_joint_grid_ms,
 *                       box3d_peer_threads_x
 *   CUTTLE_JOLT_BENCH   a harness running Jolt's HighSpeed and CharacterVirtual scenes:
 *                       jolt_peer_high_speed_escapes, jolt_peer_high_speed_steps_per_s,
 *                       jolt_peer_characters_steps_per_s
 *   CUTTLE_JOLT_PERF    Jolt's PerformanceTest: jolt_peer_convex_vs_mesh_steps_per_s,
 *                       jolt_peer_convex_vs_mesh_cpu_steps_per_s
 */
#include "bench_physics.h"

#include "ct_heap.h"
#include "base/jobs.h"
#include "kernel.h"
#include "physics_bullets.h"
#include "physics_hull.h"
#include "physics_internal.h"
#include "plugins/registry.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void jobs_parallel_for(void *ctx, uint32_t count, uint32_t grain, ct_range_f fn, void *user)
{
    const ct_jobs_api_v1 *jobs = ctx;
    jobs->parallel_for(count, grain, fn, user);
}

/* The kernel's job pool, once main has started it. */
static physics__pool pool;

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static uint32_t rng = 2463534242u;
static float frand(float lo, float hi)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return lo + (hi - lo) * (float)(rng >> 8) / (float)(1u << 24);
}

typedef struct figure {
    const char *name, *unit;
    double value;
} figure;

/* The figures for the closing table. A whole run (every group, as scripts/bench.sh runs it)
 * reports 51 figures, 60 with every peer: the table once held 48, and the 49th was written over
 * the job pool that follows it in memory (with the peers, before threads_x steps on that pool).
 * Past the room, a figure still gets its JSON line but not a row of the table. */
enum { MAX_FIGURES = 96 };
static figure figures[MAX_FIGURES];
static int num_figures;

static void report(const char *name, double value, const char *unit)
{
    printf("{\"name\": \"%s\", \"value\": %.6f, \"unit\": \"%s\"}\n", name, value, unit);
    if (num_figures < MAX_FIGURES)
        figures[num_figures++] = (figure){name, unit, value};
    else
        fprintf(stderr, "bench_physics: no room in the table for %s (MAX_FIGURES %d)\n", name,
                MAX_FIGURES);
}

static void bench_integrate(void)
{
    enum { N = 1000000 };
    physics__points p = {.a = ct_heap_allocator(), .map.a = ct_heap_allocator()};
    for (uint32_t i = 0; i < N; i++) {
        const ct_point_mass_desc_t d = {
            .mass = 1.0f, .position = {frand(-1, 1), 0, 0}, .velocity = {0, 1, 0}};
        physics__points_add(&p, (ct_entity_t){i + 1}, &d);
    }
    double best = 1e30;
    for (int run = 0; run < 15; run++) {
        const double t0 = now_ms();
        physics__points_simulate(&p, 0, p.n, 1.0f / 60.0f);
        const double t = now_ms() - t0;
        best = t < best ? t : best;
    }
    report("physics.integrate_1m_ms", best, "ms");
    report("physics.integrate_1m_gbps", (double)N * 72.0 / (best * 1e-3) / 1e9, "GB/s");
    physics__points_free(&p);
}

/* Random boxes of side 0.2..1 m at a density of about one per 8 cubic metres. */
static void random_boxes(physics__broadphase *bp, uint32_t n)
{
    physics__broadphase_resize(bp, n);
    const float side = 2.0f * cbrtf((float)n);
    for (uint32_t i = 0; i < n; i++) {
        const physics__v3 c = v3(frand(0, side), frand(0, side), frand(0, side));
        const float h = frand(0.1f, 0.5f);
        bp->lo[i] = v3_sub(c, v3(h, h, h));
        bp->hi[i] = v3_add(c, v3(h, h, h));
        bp->moving[i] = 1;
    }
}

static void bench_broadphase(const char *name, physics__pool with)
{
    enum { N = 100000, QUERIES = 1000 };
    physics__broadphase bp = {.a = ct_heap_allocator(), .pool = with};
    rng = 2463534242u; /* the same boxes and queries for every pool */
    random_boxes(&bp, N);
    const float side = 2.0f * cbrtf((float)N);
    double best = 1e30;
    uint32_t pairs = 0, found = 0;
    for (int run = 0; run < 9; run++) {
        const double t0 = now_ms();
        physics__broadphase_build(&bp, 0.0f);
        physics__broadphase_pairs(&bp);
        found = 0;
        for (int q = 0; q < QUERIES; q++) {
            const physics__v3 c = v3(frand(0, side), frand(0, side), frand(0, side));
            physics__broadphase_overlap(&bp, v3_sub(c, v3(1, 1, 1)), v3_add(c, v3(1, 1, 1)));
            found += bp.num_found;
        }
        const double t = now_ms() - t0;
        best = t < best ? t : best;
        pairs = bp.num_pairs;
    }
    report(name, best, "ms");
    fprintf(stderr, "%s: %u pairs, %u query hits, cell %.3f m, %u items\n", name, pairs, found,
            (double)bp.cell, bp.num_items);
    physics__broadphase_free(&bp);
}

static void bench_hash_vs_brute(void)
{
    enum { N = 5000 };
    physics__broadphase bp = {.a = ct_heap_allocator()};
    random_boxes(&bp, N);
    double hash = 1e30, brute = 1e30;
    uint32_t brute_pairs = 0;
    for (int run = 0; run < 5; run++) {
        double t0 = now_ms();
        physics__broadphase_build(&bp, 0.0f);
        physics__broadphase_pairs(&bp);
        double t = now_ms() - t0;
        hash = t < hash ? t : hash;
        t0 = now_ms();
        brute_pairs = 0;
        for (uint32_t i = 0; i < N; i++)
            for (uint32_t j = i + 1; j < N; j++)
                brute_pairs += bp.lo[i].x <= bp.hi[j].x && bp.lo[j].x <= bp.hi[i].x &&
                               bp.lo[i].y <= bp.hi[j].y && bp.lo[j].y <= bp.hi[i].y &&
                               bp.lo[i].z <= bp.hi[j].z && bp.lo[j].z <= bp.hi[i].z;
        t = now_ms() - t0;
        brute = t < brute ? t : brute;
    }
    if (brute_pairs != bp.num_pairs)
        fprintf(stderr, "hash and brute force disagree: %u vs %u pairs\n", bp.num_pairs,
                brute_pairs);
    report("physics.hash_vs_brute_ratio", brute / hash, "x");
    physics__broadphase_free(&bp);
}

static void add_box(physics__scene *s, uint32_t id, float x, float y, float z, float h,
                    ct_body_kind kind)
{
    const ct_body_desc_t d = {.kind = kind,
                              .shape = CT_BODY_BOX,
                              .half_extents = {h, h, h},
                              .mass = 1.0f,
                              .friction = 0.5f,
                              .position = {x, y, z}};
    physics__bodies_add(&s->bodies, (ct_entity_t){id}, &d);
}

static void add_ground(physics__scene *s, uint32_t id, float half)
{
    const ct_body_desc_t g = {.kind = CT_BODY_STATIC,
                              .shape = CT_BODY_BOX,
                              .half_extents = {half, 0.5f, half},
                              .friction = 0.5f,
                              .position = {0, -0.5f, 0}};
    physics__bodies_add(&s->bodies, (ct_entity_t){id}, &g);
}

/* 10,000 bodies (boxes and spheres) in a loose 25-wide lattice over a ground. */
static void pile_scene(physics__scene *s, physics__pool with)
{
    enum { N = 10000 };
    physics__scene_init(s, ct_heap_allocator());
    s->pool = with;
    add_ground(s, N + 1, 60.0f);
    rng = 2463534242u;
    uint32_t id = 1;
    for (int y = 0; id <= N; y++)
        for (int x = 0; x < 25 && id <= N; x++)
            for (int z = 0; z < 25 && id <= N; z++, id++) {
                const float px = (float)x * 1.1f - 13.0f + frand(-0.05f, 0.05f);
                const float pz = (float)z * 1.1f - 13.0f + frand(-0.05f, 0.05f);
                if (id % 2)
                    add_box(s, id, px, 0.5f + (float)y * 1.05f, pz, 0.5f, CT_BODY_DYNAMIC);
                else {
                    const ct_body_desc_t d = {.kind = CT_BODY_DYNAMIC,
                                              .shape = CT_BODY_SPHERE,
                                              .radius = 0.5f,
                                              .mass = 1.0f,
                                              .friction = 0.5f,
                                              .restitution = 0.2f,
                                              .position = {px, 0.5f + (float)y * 1.05f, pz}};
                    physics__bodies_add(&s->bodies, (ct_entity_t){id}, &d);
                }
            }
}

static double mean_steps(physics__scene *s, int steps)
{
    const double t0 = now_ms();
    for (int k = 0; k < steps; k++)
        physics__scene_step(s, 1.0f / 60.0f);
    return (now_ms() - t0) / steps;
}

static void bench_step_10k_core(void)
{
    physics__scene s;
    pile_scene(&s, pool);
    s.sleeping = false;
    mean_steps(&s, 30);
    report("physics.step_10k_falling_ms", mean_steps(&s, 20), "ms");
    /* Settled: the same pile after ten seconds, still awake. */
    mean_steps(&s, 570);
    const double on_pool = mean_steps(&s, 20);
    s.pool = (physics__pool){0};
    const double serial = mean_steps(&s, 20);
    report("physics.step_10k_pool_ms", on_pool, "ms");
    report("physics.step_10k_serial_ms", serial, "ms");
    report("physics.step_10k_threads_x", serial / on_pool, "x");
    fprintf(stderr,
            "step 10k resting: %u contacts in %u colours and %u blocks of four rows, "
            "%u candidate pairs, cell %.3f m\n",
            s.contacts.n, s.rows.num_colors, s.rows.num_blocks, s.num_pairs, (double)s.bp.cell);
    physics__scene_free(&s);
}

/* The resting pile through the module: entities with transforms and bodies in a world. */
static void bench_step_10k_module(void)
{
    enum { N = 10000 };
    const ct_entity_api_v2 *entity = registry__get_engine_api(CT_ENTITY_API, 2);
    const ct_world_api_v1 *worlds = registry__get_engine_api(CT_WORLD_API, 1);
    const ct_transform_api_v2 *tf = registry__get_engine_api(CT_TRANSFORM_API, 2);
    const ct_physics_api_v3 *phys = registry__get_engine_api(CT_PHYSICS_API, 3);
    ct_world_o *w =
        worlds && tf && phys ? worlds->create_world(&(ct_world_desc_t){.name = "bench"}) : NULL;
    ct_entity_t *e = malloc((N + 1) * sizeof *e);
    if (!w || !e || entity->create_batch(e, N + 1) != N + 1) {
        fprintf(stderr, "bench_physics: the module scene could not be made\n");
        return;
    }
    physics__scene layout; /* the same bodies as the core's pile, placed through the API */
    pile_scene(&layout, (physics__pool){0});
    for (uint32_t i = 0; i < layout.bodies.n; i++) {
        const physics__bodies *b = &layout.bodies;
        ct_body_desc_t d = {.kind = b->kind[i],
                            .shape = b->shape[i],
                            .half_extents = {b->half[i].x, b->half[i].y, b->half[i].z},
                            .radius = b->half[i].x,
                            .mass = 1.0f,
                            .restitution = b->restitution[i],
                            .friction = b->friction[i]};
        const ct_transform_pose_t pose = {
            {b->position[i].x, b->position[i].y, b->position[i].z}, {0, 0, 0, 1}, {1, 1, 1}};
        const ct_entity_t ent = e[b->entity[i].id - 1];
        tf->create(w, ent, &pose);
        phys->add_body(w, ent, &d);
    }
    physics__scene_free(&layout);
    for (int k = 0; k < 600; k++)
        phys->simulate(w, 1.0f / 60.0f);
    double t0 = now_ms();
    for (int k = 0; k < 20; k++)
        phys->simulate(w, 1.0f / 60.0f);
    report("physics.step_10k_ms", (now_ms() - t0) / 20.0, "ms");
    fprintf(stderr, "step 10k through simulate: %u of %u bodies awake\n", phys->awake_count(w),
            phys->body_count(w));
    /* The same sleeping pile with one ball bouncing far from it: the world is no longer quiet, so
     * every step walks all the bodies again (no awake set yet). */
    const ct_entity_t bouncer = entity->create();
    const ct_body_desc_t ball = {.kind = CT_BODY_DYNAMIC,
                                 .shape = CT_BODY_SPHERE,
                                 .radius = 0.5f,
                                 .mass = 1.0f,
                                 .restitution = 1.0f,
                                 .position = {50.0f, 3.0f, 50.0f}};
    const ct_transform_pose_t at = {{50.0f, 3.0f, 50.0f}, {0, 0, 0, 1}, {1, 1, 1}};
    tf->create(w, bouncer, &at);
    phys->add_body(w, bouncer, &ball);
    for (int k = 0; k < 10; k++)
        phys->simulate(w, 1.0f / 60.0f);
    /* By this thread's CPU time over 200 steps (one awake body gives the pool nothing to do): a
     * figure this small is lost in the wall-clock noise of a shared machine. */
    struct timespec c0, c1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
    for (int k = 0; k < 200; k++)
        phys->simulate(w, 1.0f / 60.0f);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
    report("physics.step_10k_one_awake_ms",
           ((double)(c1.tv_sec - c0.tv_sec) * 1e3 + (double)(c1.tv_nsec - c0.tv_nsec) * 1e-6) /
               200.0,
           "ms");
    fprintf(stderr, "step 10k with one ball bouncing apart: %u of %u bodies awake\n",
            phys->awake_count(w), phys->body_count(w));
    phys->remove_body(w, bouncer);
    entity->destroy(bouncer);
    phys->set_sleeping(w, false);
    for (int k = 0; k < 30; k++)
        phys->simulate(w, 1.0f / 60.0f);
    t0 = now_ms();
    for (int k = 0; k < 20; k++)
        phys->simulate(w, 1.0f / 60.0f);
    report("physics.step_10k_awake_ms", (now_ms() - t0) / 20.0, "ms");
    worlds->destroy_world(w);
    entity->destroy_batch(e, N + 1);
    free(e);
}

/* Debris among walls and floors: sizes from 0.2 m to 100 m in one scene. */
static void bench_mixed(void)
{
    enum { DEBRIS = 20000, WALLS = 300 };
    physics__scene s;
    physics__scene_init(&s, ct_heap_allocator());
    s.pool = pool;
    s.sleeping = false;
    rng = 99u;
    uint32_t id = 1;
    for (int f = 0; f < 4; f++) {
        const ct_body_desc_t floor = {
            .kind = CT_BODY_STATIC,
            .shape = CT_BODY_BOX,
            .half_extents = {50, 0.5f, 50},
            .friction = 0.5f,
            .position = {(f % 2) * 100.0f - 50.0f, -0.5f, (f / 2) * 100.0f - 50.0f}};
        physics__bodies_add(&s.bodies, (ct_entity_t){id++}, &floor);
    }
    for (int k = 0; k < WALLS; k++) {
        const bool along_x = k % 2;
        const ct_body_desc_t wall = {
            .kind = CT_BODY_STATIC,
            .shape = CT_BODY_BOX,
            .half_extents = {along_x ? 5.0f : 0.15f, 1.5f, along_x ? 0.15f : 5.0f},
            .friction = 0.5f,
            .position = {frand(-95, 95), 1.5f, frand(-95, 95)}};
        physics__bodies_add(&s.bodies, (ct_entity_t){id++}, &wall);
    }
    for (int k = 0; k < DEBRIS; k++) {
        const float r = frand(0.1f, 0.3f);
        const ct_body_desc_t d = {.kind = CT_BODY_DYNAMIC,
                                  .shape = CT_BODY_SPHERE,
                                  .radius = r,
                                  .mass = 1.0f,
                                  .friction = 0.5f,
                                  .position = {frand(-95, 95), frand(0.5f, 6.0f), frand(-95, 95)}};
        physics__bodies_add(&s.bodies, (ct_entity_t){id++}, &d);
    }
    physics__scene_step(&s, 1.0f / 60.0f);
    double t0 = now_ms();
    for (int k = 0; k < 20; k++)
        physics__scene_candidates(&s, 1.0f / 60.0f);
    report("physics.broadphase_mixed_ms", (now_ms() - t0) / 20.0, "ms");
    report("physics.step_mixed_ms", mean_steps(&s, 20), "ms");
    fprintf(stderr,
            "mixed: %u candidate pairs, %u contacts, moving cell %.3f m, fixed cell %.3f m, %u "
            "fixed large\n",
            s.num_pairs, s.contacts.n, (double)s.bp.cell, (double)s.fixed.cell, s.fixed.num_large);
    physics__scene_free(&s);
}

/* A translation-only pyramid of `levels` rows of boxes on a ground, sleeping off; the top box's
 * id (they are 1 up). */
static uint32_t pyramid_scene(physics__scene *s, int levels)
{
    s->sleeping = false;
    add_ground(s, 100000, 100.0f);
    uint32_t id = 1;
    for (int row = 0; row < levels; row++)
        for (int k = 0; k < levels - row; k++)
            add_box(s, id++, (float)k - 0.5f * (float)(levels - row - 1), 0.5f + (float)row, 0,
                    0.5f, CT_BODY_DYNAMIC);
    return id - 1;
}

static void bench_pyramid(const char *name, int levels, physics__pool with)
{
    physics__scene s;
    physics__scene_init(&s, ct_heap_allocator());
    s.pool = with;
    const uint32_t id = pyramid_scene(&s, levels) + 1;
    report(name, mean_steps(&s, 100), "ms");
    const uint32_t top = physics__bodies_find(&s.bodies, (ct_entity_t){id - 1});
    fprintf(stderr,
            "%s: %u boxes, %u contacts in %u colours and %u blocks of four rows, "
            "top box moved %.4f m in 100 steps\n",
            name, id - 1, s.contacts.n, s.rows.num_colors, s.rows.num_blocks,
            (double)fabsf(s.bodies.position[top].y - (0.5f + (float)levels - 1)));
    physics__scene_free(&s);
}

static void bench_broadphase_both(void)
{
    bench_broadphase("physics.broadphase_100k_ms", pool);
    bench_broadphase("physics.broadphase_100k_serial_ms", (physics__pool){0});
}

/* ---- Box3D's scenes, replicated (erincatto/box3d v0.1.0, shared/benchmarks.c) ---------------- */

/* Box3D's defaults: friction 0.6, restitution 0; the scenes give cubes density 100. */
static void box3d_ground(physics__scene *s, uint32_t id, float extent)
{
    const ct_rigid_body_desc_t d = {.kind = CT_BODY_STATIC,
                                    .shape = CT_BODY_BOX,
                                    .half_extents = {extent, 1.0f, extent},
                                    .friction = 0.6f,
                                    .position = {0.0f, -1.0f, 0.0f}};
    physics__bodies_add_rigid(&s->bodies, (ct_entity_t){id}, &d);
}

static void box3d_cube(physics__scene *s, uint32_t id, float x, float y, float z, float h)
{
    const float side = 2.0f * h;
    const ct_rigid_body_desc_t d = {.kind = CT_BODY_DYNAMIC,
                                    .shape = CT_BODY_BOX,
                                    .half_extents = {h, h, h},
                                    .mass = 100.0f * side * side * side,
                                    .friction = 0.6f,
                                    .position = {x, y, z}};
    physics__bodies_add_rigid(&s->bodies, (ct_entity_t){id}, &d);
}

/* CreateLargePyramid: returns the id of the top cube. */
static uint32_t box3d_large_pyramid(physics__scene *s)
{
    const int base = 90;
    const float h = 0.5f, shift = h;
    box3d_ground(s, 1, 400.0f);
    uint32_t id = 2;
    for (int i = 0; i < base; i++) {
        const float y = (2.0f * (float)i + 1.0f) * shift;
        for (int j = i; j < base; j++)
            box3d_cube(s, id++,
                       ((float)i + 1.0f) * shift + 2.0f * (float)(j - i) * shift - h * (float)base,
                       y, 0.0f, h);
    }
    return id - 1;
}

/* CreateManyPyramids with CreateSmallPyramid. */
static uint32_t box3d_many_pyramids(physics__scene *s)
{
    const int base = 10, rows = 14, columns = 14;
    const float extent = 0.5f, ground = extent * (float)columns * ((float)base + 1.0f);
    box3d_ground(s, 1, ground);
    const float width = 2.0f * extent * (float)base,
                dz = 2.0f * (ground - 2.0f * extent) / ((float)rows - 1.0f);
    float z = -ground + 2.0f * extent;
    uint32_t id = 2;
    for (int r = 0; r < rows; r++, z += dz)
        for (int c = 0; c < columns; c++) {
            const float cx = -ground + (float)c * (width + 2.0f * extent) + 2.0f * extent;
            for (int i = 0; i < base; i++)
                for (int j = i; j < base; j++)
                    box3d_cube(s, id++,
                               ((float)i + 1.0f) * extent + 2.0f * (float)(j - i) * extent + cx -
                                   0.5f,
                               (2.0f * (float)i + 1.0f) * extent, z, extent);
        }
    return id - 1;
}

/* CPU time of this thread (ms). The machine these figures come from is shared by many builds
 * (load averages of 15 on 2 cores were seen): wall time there measures the neighbours, so both
 * engines are timed by the CPU time they used (Box3D's by its process's rusage). */
static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* CPU time of every thread of the process (the pool's workers too). */
static double process_cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* One run as Box3D's benchmark times it: a first step, then the mean of the rest (ms of CPU; of
 * wall time on the pool, or when box3d_by_wall is set). */
static bool box3d_by_wall;
static double box3d_run(uint32_t (*make)(physics__scene *), int steps, physics__pool with,
                        float *top_moved)
{
    physics__scene s;
    physics__scene_init(&s, ct_heap_allocator());
    s.pool = with;
    s.sleeping = false;
    s.gravity = v3(0.0f, -10.0f, 0.0f); /* b3DefaultWorldDef's */
    const uint32_t top = make(&s);
    const physics__v3 start =
        s.bodies.position[physics__bodies_find(&s.bodies, (ct_entity_t){top})];
    physics__scene_step(&s, 1.0f / 60.0f);
    const bool pooled = with.parallel_for != NULL || box3d_by_wall;
    const double t0 = pooled ? now_ms() : cpu_ms(), process0 = process_cpu_ms();
    for (int k = 1; k < steps; k++)
        physics__scene_step(&s, 1.0f / 60.0f);
    const double ms = ((pooled ? now_ms() : cpu_ms()) - t0) / (double)(steps - 1);
    const double process_ms = (process_cpu_ms() - process0) / (double)(steps - 1);
    if (top_moved)
        *top_moved = v3_len(
            v3_sub(s.bodies.position[physics__bodies_find(&s.bodies, (ct_entity_t){top})], start));
    fprintf(stderr,
            "  cuttle: %u bodies, %u contacts, %.3f ms/step (all threads' CPU: %.3f; waits at a "
            "stage's end that slept: %u)\n",
            s.bodies.n, s.rigid.num_contacts, ms, process_ms, s.rigid.stages.naps);
    physics__scene_free(&s);
    return ms;
}

/* Box3D's own benchmark program (CUTTLE_BOX3D_BENCH), benchmark `index`, one worker, one run:
 * the CPU time its process used (user + system) over its steps (ms per step: its scene building
 * and first step are in it too, which favours us by a little), or a negative number when it is
 * not there. Its own wall-clock figure goes to stderr beside ours. */
static double box3d_peer_workers(int index, int steps, int workers, double *wall_ms);
static double box3d_peer(int index, int steps) { return box3d_peer_workers(index, steps, 1, NULL); }

/* The same with `workers` workers; *wall_ms gets its own clock's figure (ms per step). */
static double box3d_peer_workers(int index, int steps, int workers, double *wall_ms)
{
    const char *exe = getenv("CUTTLE_BOX3D_BENCH");
    if (!exe || !*exe)
        return -1.0;
    char b[16], w[16];
    snprintf(b, sizeof b, "-b=%d", index);
    snprintf(w, sizeof w, "-w=%d", workers);
    int out[2];
    if (pipe(out))
        return -1.0;
    const pid_t pid = fork();
    if (pid < 0)
        return -1.0;
    if (pid == 0) {
        dup2(out[1], 1);
        close(out[0]);
        /* It writes a .csv of its steps into its working directory: not into ours. */
        if (chdir("/tmp"))
            _exit(126);
        execl(exe, exe, b, w, "-t=1", "-r=1", (char *)NULL);
        _exit(127);
    }
    close(out[1]);
    FILE *f = fdopen(out[0], "r");
    char line[256];
    double wall = -1.0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "run 0 : %lf", &wall) == 1)
            wall /= (double)(steps - 1);
    if (f)
        fclose(f);
    int status = 0;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
        wall < 0.0)
        return -1.0;
    const double cpu = (double)ru.ru_utime.tv_sec * 1e3 + (double)ru.ru_utime.tv_usec * 1e-3 +
                       (double)ru.ru_stime.tv_sec * 1e3 + (double)ru.ru_stime.tv_usec * 1e-3;
    const double ms = cpu / (double)steps;
    fprintf(stderr, "  box3d:  %.3f ms/step of CPU (%.3f ms/step by its own clock), %d worker(s)\n",
            ms, wall, workers);
    if (wall_ms)
        *wall_ms = wall;
    return ms;
}

static int cmp_double(const void *x, const void *y)
{
    const double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median3(double v[3])
{
    qsort(v, 3, sizeof *v, cmp_double);
    return v[1];
}

/* Three interleaved rounds (`--rounds 1` for a quick look): ours, then Box3D's, scene by scene;
 * the medians. */
static int box3d_rounds = 3;
static void bench_box3d(void)
{
    static const struct {
        const char *ours, *peer;
        uint32_t (*make)(physics__scene *);
        int index, steps;
    } scenes[] = {
        {"physics.box3d_large_pyramid_ms", "physics.box3d_peer_large_pyramid_ms",
         box3d_large_pyramid, 5, 200},
        {"physics.box3d_many_pyramids_ms", "physics.box3d_peer_many_pyramids_ms",
         box3d_many_pyramids, 6, 100},
    };
    double ours[2][3], peer[2][3];
    float moved = 0.0f;
    for (int round = 0; round < 3; round++)
        for (int k = 0; k < 2; k++) {
            if (round >= box3d_rounds) {
                ours[k][round] = ours[k][0];
                peer[k][round] = peer[k][0];
                continue;
            }
            fprintf(stderr, "%s, round %d\n", scenes[k].ours, round + 1);
            ours[k][round] = box3d_run(scenes[k].make, scenes[k].steps, (physics__pool){0},
                                       k == 0 ? &moved : NULL);
            peer[k][round] = box3d_peer(scenes[k].index, scenes[k].steps);
        }
    for (int k = 0; k < 2; k++) {
        report(scenes[k].ours, median3(ours[k]), "ms");
        if (peer[k][0] >= 0.0)
            report(scenes[k].peer, median3(peer[k]), "ms");
    }
    fprintf(stderr, "large_pyramid: the top cube moved %.4f m in 200 steps\n", (double)moved);

    /* The pool's figure is wall time: on a busy machine it says little. */
    const double pooled = box3d_run(box3d_large_pyramid, 200, pool, NULL);
    report("physics.box3d_large_pyramid_threads_x", median3(ours[0]) / pooled, "x");
}

/* The load average over the last minute (what else the machine was doing). */
static double load_1min(void)
{
    double l[1] = {-1.0};
    return getloadavg(l, 1) == 1 ? l[0] : -1.0;
}

/* large_pyramid on one thread pinned to CPU 0, then CPU 1 (ms a step, as box3d_run times it; -1
 * where the process may not run there or pinning is refused); the thread's CPUs put back after. */
static void threads_x_per_cpu(double ms[2])
{
    cpu_set_t was;
    const bool known = sched_getaffinity(0, sizeof was, &was) == 0;
    for (int cpu = 0; cpu < 2; cpu++) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        ms[cpu] = -1.0;
        if (known && CPU_ISSET(cpu, &was) && sched_setaffinity(0, sizeof one, &one) == 0) {
            fprintf(stderr, "physics.threads_x, one thread on CPU %d\n", cpu);
            ms[cpu] = box3d_run(box3d_large_pyramid, 200, (physics__pool){0}, NULL);
        }
    }
    if (known)
        sched_setaffinity(0, sizeof was, &was);
}

/* physics.threads_x: large_pyramid one thread against the pool (two threads on two cores), both
 * by wall time (what a game waits for), in three interleaved rounds, each round's ratio, their
 * median; Box3D's own program with one and two workers in the same rounds (by its own clock:
 * physics.box3d_peer_threads_x). The load average before and after says how quiet the machine
 * was (a figure from a busy machine says little). */
static void bench_threads_x(void)
{
    double ours[3] = {0}, peer[3] = {0}, pooled[3] = {0};
    const double load_before = load_1min();
    box3d_by_wall = true;
    for (int round = 0; round < 3; round++) {
        if (round >= box3d_rounds) {
            ours[round] = ours[0];
            peer[round] = peer[0];
            pooled[round] = pooled[0];
            continue;
        }
        fprintf(stderr, "physics.threads_x, round %d (load %.2f)\n", round + 1, load_1min());
        const double one = box3d_run(box3d_large_pyramid, 200, (physics__pool){0}, NULL);
        const double two = box3d_run(box3d_large_pyramid, 200, pool, NULL);
        ours[round] = one / two;
        pooled[round] = two;
        double wall1 = -1.0, wall2 = -1.0;
        box3d_peer_workers(5, 200, 1, &wall1);
        box3d_peer_workers(5, 200, 2, &wall2);
        peer[round] = wall1 > 0.0 && wall2 > 0.0 ? wall1 / wall2 : -1.0;
        fprintf(stderr, "  round %d: ours %.3f x, box3d %.3f x\n", round + 1, ours[round],
                peer[round]);
    }
    double cpu_ms[2];
    threads_x_per_cpu(cpu_ms);
    box3d_by_wall = false;
    report("physics.threads_x", median3(ours), "x");
    if (peer[0] >= 0.0)
        report("physics.box3d_peer_threads_x", median3(peer), "x");
    report("physics.threads_x_load_before", load_before, "load");
    report("physics.threads_x_load_after", load_1min(), "load");
    if (cpu_ms[0] > 0.0 && cpu_ms[1] > 0.0) {
        report("physics.threads_x_cpu0_ms", cpu_ms[0], "ms");
        report("physics.threads_x_cpu1_ms", cpu_ms[1], "ms");
        const double ideal = 1.0 / (1.0 / cpu_ms[0] + 1.0 / cpu_ms[1]);
        report("physics.threads_x_of_ideal", ideal / median3(pooled), "ratio");
    }
}

/* The serial share of large_pyramid's step, measured on one thread so the neighbours on a busy
 * machine hardly matter: a "pool" that runs every job inline, one item at a time, and times it
 * (CPU time of this thread). Time outside any job is serial: no second thread can take it.
 * Inside a parallel section two threads finish no sooner than half its items' time, nor before
 * its largest item: the sum of those bounds plus the serial time is the best two threads could
 * do (without the pool's own cost), whose ratio to the whole is the Amdahl bound of threads_x. */
typedef struct measure_pool {
    double serial, pooled, ideal2, mark;
    uint64_t calls;
} measure_pool;

static void measure_parallel_for(void *ctx, uint32_t count, uint32_t grain, ct_range_f fn,
                                 void *user)
{
    (void)grain;
    measure_pool *m = ctx;
    double t = cpu_ms(), sum = 0.0, largest = 0.0;
    m->serial += t - m->mark;
    for (uint32_t k = 0; k < count; k++) {
        fn(user, k, k + 1);
        const double after = cpu_ms(), item = after - t;
        sum += item;
        largest = item > largest ? item : largest;
        t = after;
    }
    m->pooled += sum;
    m->ideal2 += sum / 2.0 > largest ? sum / 2.0 : largest;
    m->calls++;
    m->mark = cpu_ms();
}

/* One scene's step on the measuring pool (steps 2..100): its serial share, and the two bounds. */
static void threads_serial(const char *scene, const char *share_name, const char *amdahl_name,
                           const char *bound_name, void (*make)(physics__scene *))
{
    physics__scene s;
    physics__scene_init(&s, ct_heap_allocator());
    measure_pool m = {0};
    s.pool = (physics__pool){.parallel_for = measure_parallel_for, .ctx = &m};
    s.pool_timed = true;
    make(&s);
    physics__scene_step(&s, 1.0f / 60.0f);
    enum { STEPS = 99 };
    m = (measure_pool){.mark = cpu_ms()};
    for (int k = 0; k < STEPS; k++)
        physics__scene_step(&s, 1.0f / 60.0f);
    m.serial += cpu_ms() - m.mark;
    const double total = m.serial + m.pooled, share = m.serial / total;
    fprintf(stderr,
            "%s on one thread: %.3f ms/step, %.3f of it serial, %.3f in %.1f parallel sections a "
            "step\n",
            scene, total / STEPS, m.serial / STEPS, m.pooled / STEPS, (double)m.calls / STEPS);
    report(share_name, share, "ratio");
    report(amdahl_name, 2.0 / (1.0 + share), "x");
    if (bound_name)
        report(bound_name, total / (m.serial + m.ideal2), "x");
    physics__scene_free(&s);
}

static void threads_large_pyramid(physics__scene *s)
{
    s->sleeping = false;
    s->gravity = v3(0.0f, -10.0f, 0.0f);
    box3d_large_pyramid(s);
}

static void threads_pyramid_100(physics__scene *s) { pyramid_scene(s, 100); }

static void box3d_joint_grid_scene(physics__scene *s);

static void bench_threads_serial(void)
{
    threads_serial("large_pyramid", "physics.threads_x_serial_share", "physics.threads_x_amdahl",
                   "physics.threads_x_bound", threads_large_pyramid);
    threads_serial("pyramid_100 (translation only)", "physics.pyramid_100_serial_share",
                   "physics.pyramid_100_amdahl", NULL, threads_pyramid_100);
    threads_serial("joint_grid", "physics.joint_grid_serial_share", "physics.joint_grid_amdahl",
                   "physics.joint_grid_bound", box3d_joint_grid_scene);
}

/* Still standing: how far large_pyramid's top cube moves from step 200 (the soft contacts have
 * settled the pile by then: each holds its boxes a little into the one below, as Box3D's do) to
 * step 1,000. */
static void bench_box3d_standing(void)
{
    physics__scene s;
    physics__scene_init(&s, ct_heap_allocator());
    s.sleeping = false;
    s.gravity = v3(0.0f, -10.0f, 0.0f);
    const uint32_t top = physics__bodies_find(&s.bodies, (ct_entity_t){box3d_large_pyramid(&s)});
    physics__v3 at200 = v3(0, 0, 0);
    for (int k = 0; k < 1000; k++) {
        physics__scene_step(&s, 1.0f / 60.0f);
        if (k == 199)
            at200 = s.bodies.position[top];
    }
    const physics__v3 at1000 = s.bodies.position[top];
    fprintf(stderr,
            "large_pyramid: top cube at y %.4f after 200 steps, %.4f after 1,000 (from 89.5)\n",
            (double)at200.y, (double)at1000.y);
    report("physics.box3d_large_pyramid_top_moved_cm", 100.0 * v3_len(v3_sub(at1000, at200)), "cm");
    physics__scene_free(&s);
}

static double median5(double v[5])
{
    for (int a = 1; a < 5; a++)
        for (int b = a; b > 0 && v[b] < v[b - 1]; b--) {
            const double t = v[b];
            v[b] = v[b - 1];
            v[b - 1] = t;
        }
    return v[2];
}

static void bench_snapshot(void)
{
    physics__scene s;
    physics__scene_init(&s, ct_heap_allocator());
    s.sleeping = false;
    s.gravity = v3(0.0f, -10.0f, 0.0f);
    box3d_large_pyramid(&s);
    for (int k = 0; k < 100; k++)
        physics__scene_step(&s, 1.0f / 60.0f);
    const uint32_t bytes = physics__snapshot_size(&s, NULL);
    fprintf(stderr, "snapshot: %u bytes, %u bodies, %u rigid contacts\n", bytes, s.bodies.n,
            s.rigid.num_cache);
    report("physics.snapshot_bytes_per_body", (double)bytes / (double)s.bodies.n, "bytes");
    /* What rollback pays a frame: a save (which sizes it first), and a restore (which finds the
     * recycled manifolds again), CPU time, median of 5. */
    uint8_t *buffer = malloc(bytes);
    double save[5], restore[5];
    for (int k = 0; buffer && k < 5; k++) {
        double t0 = cpu_ms();
        const uint32_t need = physics__snapshot_size(&s, NULL);
        const bool saved = physics__snapshot_save(&s, NULL, buffer, need) == bytes;
        save[k] = cpu_ms() - t0;
        t0 = cpu_ms();
        const bool restored = saved && physics__snapshot_restore(&s, NULL, buffer, bytes) == 0;
        restore[k] = cpu_ms() - t0;
        if (!restored)
            fprintf(stderr, "snapshot: the save or the restore failed\n");
    }
    if (buffer) {
        report("physics.snapshot_save_ms", median5(save), "ms");
        report("physics.snapshot_restore_ms", median5(restore), "ms");
    }
    free(buffer);
    physics__scene_free(&s);
}

/* ---- Jolt's scenes, replicated (jrouwe/JoltPhysics, PerformanceTest/) ------------------------- */

/* A random unit quaternion (Shoemake's), and a random direction. */
static physics__quat random_rotation(void)
{
    const float u1 = frand(0, 1), u2 = frand(0, 6.2831853f), u3 = frand(0, 6.2831853f);
    const float a = sqrtf(1.0f - u1), c = sqrtf(u1);
    return quat_normalize((physics__quat){a * sinf(u2), a * cosf(u2), c * sinf(u3), c * cosf(u3)});
}

static physics__v3 random_direction(void)
{
    for (;;) {
        const physics__v3 v = v3(frand(-1, 1), frand(-1, 1), frand(-1, 1));
        const float l = v3_len(v);
        if (l > 0.01f && l <= 1.0f)
            return v3_scale(v, 1.0f / l);
    }
}

/* HighSpeedScene: a closed box of six static walls (each 100 x 100 m and 0.4 m thick, their
 * middles at +-50 m, restitution 1, friction 1) holding 5,000 bodies placed at random within
 * +-45 m, turned at random, each flying at 250 m/s in a random direction (friction 0.5..1,
 * restitution 0.9..1, density 1,000 as Jolt's default): in turn a ball of radius 0.5, a box of
 * half extents 0.25 x 0.5 x 0.5, and Jolt's compound (jolt_compound_parts; with `compound`
 * false, its capsule alone, which the scene had before we had compounds). A compound's position is its centre of mass (Jolt places the compound's origin,
 * 0.35 m from it: at random as well). Gravity on, sleeping on, 60 Hz; Jolt's default damping
 * (0.05 linear and angular, bench_jolt_damping). */
static void jolt_high_speed_scene(physics__scene *s, bool compound)
{
    const float half = 50.0f, wall = 0.2f, range = 0.9f * half;
    const struct {
        float h[3], p[3];
    } walls[6] = {
        {{half, wall, half}, {0, -half, 0}}, {{half, wall, half}, {0, half, 0}},
        {{half, half, wall}, {0, 0, -half}}, {{half, half, wall}, {0, 0, half}},
        {{wall, half, half}, {-half, 0, 0}}, {{wall, half, half}, {half, 0, 0}},
    };
    for (uint32_t k = 0; k < 6; k++) {
        const ct_rigid_body_desc_t d = {
            .kind = CT_BODY_STATIC,
            .shape = CT_BODY_BOX,
            .half_extents = {walls[k].h[0], walls[k].h[1], walls[k].h[2]},
            .restitution = 1.0f,
            .friction = 1.0f,
            .position = {walls[k].p[0], walls[k].p[1], walls[k].p[2]}};
        physics__bodies_add_rigid(&s->bodies, (ct_entity_t){10000 + k}, &d);
    }
    rng = 5489u;
    for (uint32_t k = 0; k < 5000; k++) {
        ct_rigid_body_desc_t d = {.kind = CT_BODY_DYNAMIC};
        const float pi = 3.14159265f;
        if (k % 3 == 0) {
            d.shape = CT_BODY_SPHERE;
            d.radius = 0.5f;
            d.mass = 1000.0f * 4.0f / 3.0f * pi * 0.125f;
        } else if (k % 3 == 1) {
            d.shape = CT_BODY_BOX;
            d.half_extents[0] = 0.25f;
            d.half_extents[1] = d.half_extents[2] = 0.5f;
            d.mass = 1000.0f * 0.5f;
        } else {
            d.shape = CT_BODY_CAPSULE;
            d.radius = 0.125f;
            d.half_height = 0.5f;
            d.mass = 1000.0f *
                     (pi * 0.125f * 0.125f * 1.0f + 4.0f / 3.0f * pi * 0.125f * 0.125f * 0.125f);
            if (compound)
                d.mass += 1000.0f * 1.0f * 0.25f * 0.25f;
        }
        for (int c = 0; c < 3; c++)
            d.position[c] = frand(-range, range);
        const physics__quat q = random_rotation();
        d.rotation[0] = q.x;
        d.rotation[1] = q.y;
        d.rotation[2] = q.z;
        d.rotation[3] = q.w;
        d.friction = frand(0.5f, 1.0f);
        d.restitution = frand(0.9f, 1.0f);
        v3_store(v3_scale(random_direction(), 250.0f), d.velocity);
        if (k % 3 == 2 && compound) {
            ct_compound_child_t parts[2];
            jolt_compound_parts(parts);
            physics__compound *c = NULL;
            char why[128];
            if (physics__compound_build(s->a, parts, 2, &c, why, sizeof why)) {
                fprintf(stderr, "high speed: the compound was refused: %s\n", why);
                exit(1);
            }
            d.shape = CT_BODY_COMPOUND;
            physics__bodies_add_compound(&s->bodies, (ct_entity_t){k + 1}, &d, c);
        } else {
            physics__bodies_add_rigid(&s->bodies, (ct_entity_t){k + 1}, &d);
        }
    }
    bench_jolt_damping(s);
}

/* Runs the high-speed scene for `steps` steps: the bodies whose centre ever left the box (a
 * coordinate past +-50 m), and the CPU time per step (ms). */
static uint32_t jolt_high_speed_run(bool sweeps, bool compound, int steps, double *ms,
                                    uint32_t *hits)
{
    physics__scene s;
    physics__scene_init(&s, ct_heap_allocator());
    s.ccd.off = !sweeps;
    jolt_high_speed_scene(&s, compound);
    uint8_t *out = calloc(s.bodies.n, 1);
    uint32_t escaped = 0;
    *hits = 0;
    double cpu = 0.0;
    for (int k = 0; k < steps; k++) {
        const double t0 = cpu_ms();
        physics__scene_step(&s, 1.0f / 60.0f);
        cpu += cpu_ms() - t0;
        *hits += s.ccd.hits;
        for (uint32_t i = 0; i < s.bodies.n; i++) {
            const uint32_t id = s.bodies.entity[i].id;
            if (id <= 5000 && !out[id - 1] && !v3_within(s.bodies.position[i], 50.0f)) {
                out[id - 1] = 1;
                escaped++;
            }
        }
    }
    *ms = cpu / steps;
    free(out);
    physics__scene_free(&s);
    return escaped;
}

/* Jolt's own HighSpeed scene by the harness CUTTLE_JOLT_BENCH names (built outside this
 * repository from jrouwe/JoltPhysics' public sources: PerformanceTest's scene, one thread,
 * EMotionQuality::LinearCast): it prints "jolt HighSpeed: N steps, X steps/s by CPU, ...,
 * E escaped". Returns X (and *escaped), or a negative number when it is not there. */
static double jolt_peer(const char *scene, int steps, uint32_t *escaped)
{
    const char *exe = getenv("CUTTLE_JOLT_BENCH");
    if (!exe || !*exe)
        return -1.0;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' %s %d 2>/dev/null", exe, scene, steps);
    FILE *f = popen(cmd, "r");
    char line[512];
    double per_s = -1.0;
    unsigned e = 0;
    while (f && fgets(line, sizeof line, f)) {
        const char *at = strstr(line, "steps, ");
        if (at && sscanf(at, "steps, %lf steps/s by CPU", &per_s) == 1) {
            const char *esc = strstr(line, "by wall, ");
            if (esc)
                sscanf(esc, "by wall, %u escaped", &e);
            fprintf(stderr, "  %s", line);
        }
    }
    if (f)
        pclose(f);
    if (escaped)
        *escaped = e;
    return per_s;
}

/* physics.jolt_high_speed_escapes and _steps_per_s: 500 steps, by CPU time, beside Jolt's; the
 * scene with capsules where Jolt has compounds as physics.jolt_high_speed_capsules_*. */
static void bench_jolt_high_speed(void)
{
    double ms = 0.0;
    uint32_t hits = 0;
    const uint32_t escaped = jolt_high_speed_run(true, true, 500, &ms, &hits);
    report("physics.jolt_high_speed_escapes", escaped, "bodies");
    report("physics.jolt_high_speed_steps_per_s", 1000.0 / ms, "steps/s");
    fprintf(stderr, "high speed: %u sweeps hit in 500 steps, %.3f ms/step of CPU\n", hits, ms);
    const uint32_t capsules = jolt_high_speed_run(true, false, 500, &ms, &hits);
    report("physics.jolt_high_speed_capsules_escapes", capsules, "bodies");
    report("physics.jolt_high_speed_capsules_steps_per_s", 1000.0 / ms, "steps/s");
    fprintf(stderr, "high speed, capsules: %u sweeps hit in 500 steps, %.3f ms/step of CPU\n", hits,
            ms);
    uint32_t peer_escaped = 0;
    const double peer = jolt_peer("HighSpeed", 500, &peer_escaped);
    if (peer >= 0.0) {
        report("physics.jolt_peer_high_speed_escapes", peer_escaped, "bodies");
        report("physics.jolt_peer_high_speed_steps_per_s", peer, "steps/s");
    }
    /* What the sweeps are for: the scene with capsules without them (100 steps; with compounds
     * none escapes in 100 steps even without sweeps). */
    const uint32_t without = jolt_high_speed_run(false, false, 100, &ms, &hits);
    fprintf(stderr, "high speed (capsules) without sweeps: %u bodies escaped in 100 steps\n",
            without);
}

/* ---- Box3D's joint_grid ------------------------------------------------------------------ */

/* CreateJointGrid, row i of column k at (k, -i, 0). Returns the largest anchor gap (m) after
 * `steps` steps and the mean CPU time (ms) of steps 2.. in *ms. */
static void box3d_joint_grid_scene(physics__scene *s)
{
    enum { N = 100 };
    s->sleeping = false;
    s->gravity = v3(0.0f, -10.0f, 0.0f); /* b3DefaultWorldDef's */
    const float r = 0.4f, mass = 1000.0f * 4.0f / 3.0f * 3.14159265f * r * r * r;
    physics__bodies *b = &s->bodies;
    for (int k = 0; k < N; k++)
        for (int i = 0; i < N; i++) {
            const ct_rigid_body_desc_t d = {.kind = i == 0 ? CT_BODY_STATIC : CT_BODY_DYNAMIC,
                                            .shape = CT_BODY_SPHERE,
                                            .radius = r,
                                            .mass = mass,
                                            .friction = 0.6f,
                                            .position = {(float)k, -(float)i, 0.0f}};
            const uint32_t id = 1u + (uint32_t)(k * N + i);
            physics__bodies_add_rigid(b, (ct_entity_t){id}, &d);
            const uint32_t at = physics__bodies_find(b, (ct_entity_t){id});
            b->layer[at] = 2u, b->mask[at] = ~2u; /* the spheres never meet each other */
        }
    /* In Box3D's order: each body's joint to the one above, then to the one on its left; the
     * anchor is the midpoint, where both bodies' local anchors (+-0.5) meet. */
    for (int k = 0; k < N; k++)
        for (int i = 0; i < N; i++) {
            const uint32_t me = physics__bodies_find(b, (ct_entity_t){1u + (uint32_t)(k * N + i)});
            uint32_t id;
            if (i > 0) {
                const ct_joint_desc_t d = {.type = CT_JOINT_BALL,
                                           .anchor = {(float)k, 0.5f - (float)i, 0.0f},
                                           .axis = {0, 1, 0}};
                physics__joints_add(
                    s, physics__bodies_find(b, (ct_entity_t){1u + (uint32_t)(k * N + i - 1)}), me,
                    &d, &id);
            }
            if (k > 0 && i > 0) {
                const ct_joint_desc_t d = {.type = CT_JOINT_BALL,
                                           .anchor = {(float)k - 0.5f, -(float)i, 0.0f},
                                           .axis = {0, 1, 0}};
                physics__joints_add(
                    s, physics__bodies_find(b, (ct_entity_t){1u + (uint32_t)((k - 1) * N + i)}), me,
                    &d, &id);
            }
        }
}

static float box3d_joint_grid(int steps, double *ms)
{
    physics__scene s;
    physics__scene_init(&s, ct_heap_allocator());
    box3d_joint_grid_scene(&s);
    const physics__bodies *b = &s.bodies;
    physics__scene_step(&s, 1.0f / 60.0f);
    const double t0 = cpu_ms();
    for (int k = 1; k < steps; k++)
        physics__scene_step(&s, 1.0f / 60.0f);
    *ms = (cpu_ms() - t0) / (double)(steps - 1);
    float worst = 0.0f;
    for (uint32_t k = 0; k < s.joints.n; k++) {
        const physics__joint *j = &s.joints.j[k];
        const uint32_t ia = physics__bodies_find(b, (ct_entity_t){j->ea});
        const uint32_t ib = physics__bodies_find(b, (ct_entity_t){j->eb});
        const physics__v3 pa = v3_add(b->position[ia], quat_rotate(b->rotation[ia], j->la));
        const physics__v3 pb = v3_add(b->position[ib], quat_rotate(b->rotation[ib], j->lb));
        const float gap = v3_len(v3_sub(pa, pb));
        worst = gap > worst ? gap : worst;
    }
    fprintf(stderr, "  cuttle: %u bodies, %u joints, %.3f ms/step, largest gap %.4f cm\n", b->n,
            s.joints.n, *ms, 100.0 * (double)worst);
    physics__scene_free(&s);
    return worst;
}

/* physics.threads_x_<scene>: other scenes on one thread against the pool (two threads on two
 * cores), by wall time, the median of interleaved rounds' ratios as for physics.threads_x (below
 * 1: the second thread made the step slower). Each round builds the scene anew, steps it once,
 * then times `steps` more; stderr has each run's ms a step and all threads' CPU. */
static void threads_many_pyramids(physics__scene *s)
{
    s->sleeping = false;
    s->gravity = v3(0.0f, -10.0f, 0.0f);
    box3d_many_pyramids(s);
}

static void threads_high_speed(physics__scene *s) { jolt_high_speed_scene(s, true); }

static double threads_scene_run(void (*make)(physics__scene *), int steps, physics__pool with)
{
    physics__scene s;
    physics__scene_init(&s, ct_heap_allocator());
    s.pool = with;
    make(&s);
    physics__scene_step(&s, 1.0f / 60.0f);
    const double t0 = now_ms(), cpu0 = process_cpu_ms();
    for (int k = 0; k < steps; k++)
        physics__scene_step(&s, 1.0f / 60.0f);
    const double ms = (now_ms() - t0) / steps, cpu = (process_cpu_ms() - cpu0) / steps;
    fprintf(stderr, "  %s: %.3f ms/step (all threads' CPU %.3f)\n",
            with.parallel_for ? "pool" : "one thread", ms, cpu);
    physics__scene_free(&s);
    return ms;
}

static void bench_threads_scenes(void)
{
    static const struct {
        const char *figure;
        void (*make)(physics__scene *);
        int steps;
    } scenes[] = {
        {"physics.threads_x_many_pyramids", threads_many_pyramids, 100},
        {"physics.threads_x_joint_grid", box3d_joint_grid_scene, 100},
        {"physics.threads_x_convex_vs_mesh", bench_convex_vs_mesh_scene, 200},
        {"physics.threads_x_jolt_high_speed", threads_high_speed, 200},
    };
    for (size_t k = 0; k < sizeof scenes / sizeof scenes[0]; k++) {
        double ratio[3] = {0};
        for (int round = 0; round < 3; round++) {
            if (round >= box3d_rounds) {
                ratio[round] = ratio[0];
                continue;
            }
            fprintf(stderr, "%s, round %d (load %.2f)\n", scenes[k].figure, round + 1, load_1min());
            const double one =
                threads_scene_run(scenes[k].make, scenes[k].steps, (physics__pool){0});
            ratio[round] = one / threads_scene_run(scenes[k].make, scenes[k].steps, pool);
        }
        report(scenes[k].figure, median3(ratio), "x");
    }
}

static void bench_joint_grid(void)
{
    /* Round 0 always runs (box3d_rounds is 1 to 3); zeroed so -O3 need not prove it. */
    double ours[3] = {0}, peer[3] = {0};
    float gap = 0.0f;
    for (int round = 0; round < 3; round++) {
        if (round >= box3d_rounds) {
            ours[round] = ours[0], peer[round] = peer[0];
            continue;
        }
        fprintf(stderr, "physics.box3d_joint_grid_ms, round %d\n", round + 1);
        gap = box3d_joint_grid(100, &ours[round]);
        peer[round] = box3d_peer(3, 100);
    }
    report("physics.box3d_joint_grid_ms", median3(ours), "ms");
    if (peer[0] >= 0.0)
        report("physics.box3d_peer_joint_grid_ms", median3(peer), "ms");
    report("physics.box3d_joint_grid_gap_cm", 100.0 * (double)gap, "cm");
}

static void bench_pyramid_20(void)
{
    bench_pyramid("physics.pyramid_20_ms", 20, pool);
    bench_pyramid("physics.pyramid_20_serial_ms", 20, (physics__pool){0});
}

static void bench_pyramid_100(void)
{
    bench_pyramid("physics.pyramid_100_ms", 100, pool);
    bench_pyramid("physics.pyramid_100_serial_ms", 100, (physics__pool){0});
}

/* What the scenes in files of their own share (bench_physics.h). */
double bench_now_ms(void) { return now_ms(); }
void bench_report(const char *name, double value, const char *unit) { report(name, value, unit); }
double bench_median3(double v[3]) { return median3(v); }
int bench_rounds(void) { return box3d_rounds; }
double bench_cpu_ms(void) { return cpu_ms(); }
void bench_jolt_damping(physics__scene *s)
{
    for (uint32_t i = 0; i < s->bodies.n; i++)
        if (s->bodies.kind[i] == CT_BODY_DYNAMIC)
            s->bodies.damping[i] = (physics__damping){0.05f, 0.05f};
}
double bench_jolt_peer(const char *scene, int steps, uint32_t *escaped)
{
    return jolt_peer(scene, steps, escaped);
}

/* The groups of figures, by the names --only picks them with. */
static const struct {
    const char *name;
    void (*run)(void);
} groups[] = {
    {"integrate", bench_integrate},
    {"broadphase", bench_broadphase_both},
    {"hash_vs_brute", bench_hash_vs_brute},
    {"mixed", bench_mixed},
    {"step_10k_core", bench_step_10k_core},
    {"step_10k_module", bench_step_10k_module},
    {"pyramid_20", bench_pyramid_20},
    {"pyramid_100", bench_pyramid_100},
    {"box3d", bench_box3d},
    {"standing", bench_box3d_standing},
    {"snapshot", bench_snapshot},
    {"convex_vs_mesh", bench_convex_vs_mesh},
    {"joint_grid", bench_joint_grid},
    {"jolt_high_speed", bench_jolt_high_speed},
    {"jolt_characters", bench_jolt_characters},
    {"hull_build", bench_hull_build},
    {"threads_x", bench_threads_x},
    {"threads_serial", bench_threads_serial},
    {"threads_scenes", bench_threads_scenes},
};

enum { NUM_GROUPS = sizeof groups / sizeof groups[0] };

/* Whether every comma-separated name in `only` is a group's (says which is not, and the groups,
 * when one is not: a misspelt name once ran nothing and said nothing). */
static bool only_names_groups(const char *only)
{
    for (const char *at = only; *at;) {
        const size_t len = strcspn(at, ",");
        bool known = len == 0;
        for (size_t k = 0; k < NUM_GROUPS && !known; k++)
            known = strlen(groups[k].name) == len && strncmp(groups[k].name, at, len) == 0;
        if (!known) {
            fprintf(stderr, "bench_physics: --only names no group \"%.*s\"; the groups:", (int)len,
                    at);
            for (size_t k = 0; k < NUM_GROUPS; k++)
                fprintf(stderr, " %s", groups[k].name);
            fprintf(stderr, "\n");
            return false;
        }
        at += len + (at[len] == ',');
    }
    return true;
}

/* Whether group `name` is one of the comma-separated names in `only` (all when there is none). */
static bool group_wanted(const char *only, const char *name)
{
    if (!only)
        return true;
    const size_t len = strlen(name);
    for (const char *at = only; *at;) {
        const size_t n = strcspn(at, ",");
        if (n == len && strncmp(at, name, n) == 0)
            return true;
        at += n + (at[n] == ',');
    }
    return false;
}

int main(int argc, char **argv)
{
    const char *dir = NULL, *only = NULL;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--list") == 0) {
            for (size_t k = 0; k < NUM_GROUPS; k++)
                printf("%s\n", groups[k].name);
            return 0;
        }
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--modules") == 0)
            dir = argv[i + 1];
        if (strcmp(argv[i], "--only") == 0)
            only = argv[i + 1];
        if (strcmp(argv[i], "--rounds") == 0)
            box3d_rounds = atoi(argv[i + 1]) >= 1 && atoi(argv[i + 1]) <= 3 ? atoi(argv[i + 1]) : 3;
    }
    if (only && !only_names_groups(only))
        return 2;
    static char paths[3][1024];
    const char *const names[3] = {"entities/ct_entities.so", "transforms/ct_transforms.so",
                                  "physics/ct_physics.so"};
    kernel_desc_t desc = {.num_plugin_paths = 3};
    for (int k = 0; k < 3; k++) {
        snprintf(paths[k], sizeof paths[k], "%s/%s", dir ? dir : BENCH_MODULE_DIR, names[k]);
        desc.plugin_paths[k] = paths[k];
    }
    if (kernel__boot(&desc)) {
        fprintf(stderr, "bench_physics: the kernel did not boot (modules from %s)\n", paths[0]);
        return 1;
    }
    pool = (physics__pool){jobs_parallel_for, (void *)jobs__api_v1(),
                           jobs__api_v1()->thread_count()};
    fprintf(stderr, "job pool: %u threads\n", jobs__api_v1()->thread_count());
    for (size_t k = 0; k < NUM_GROUPS; k++)
        if (group_wanted(only, groups[k].name))
            groups[k].run();
    printf("\n%-34s %12s  %s\n", "figure", "value", "unit");
    for (int k = 0; k < num_figures; k++)
        printf("%-34s %12.3f  %s\n", figures[k].name, figures[k].value, figures[k].unit);
    kernel__shutdown();
    return 0;
}
