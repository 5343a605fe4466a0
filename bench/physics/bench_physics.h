/* bench_physics.h: what bench_physics.c shares with the scenes kept in files of their own. */
#ifndef BENCH_PHYSICS_H
#define BENCH_PHYSICS_H

#include "ct_heap.h"
#include "physics_internal.h"

/* Wall clock, ms. */
double bench_now_ms(void);
/* Prints one figure's JSON line and keeps it for the closing table. */
void bench_report(const char *name, double value, const char *unit);
/* The median of three (sorts v). */
double bench_median3(double v[3]);
/* The rounds `--rounds` asked for (1 to 3; 3 by default). */
int bench_rounds(void);
/* This thread's CPU time, ms. */
double bench_cpu_ms(void);
/* Jolt's own scene `scene` ("HighSpeed", "CharacterVirtual") run for `steps` steps by the harness
 * CUTTLE_JOLT_BENCH names: its steps per second of CPU time (and *escaped, when not NULL), or a
 * negative number when there is no harness. */
double bench_jolt_peer(const char *scene, int steps, uint32_t *escaped);
/* A static mesh of n x n cells of `cell` m, two triangles a cell split as Jolt's PerformanceTest
 * splits them, heights max_height sin(freq x / n) cos(freq z / n) at vertex (x, z), from the
 * origin towards +x and +z; allocated from a (the body that takes it frees it). Exits when it
 * cannot be built. */
physics__mesh *bench_sine_mesh(ct_allocator_t *a, int n, float cell, float max_height, float freq);

/* Jolt's default damping (BodyCreationSettings' mLinearDamping and mAngularDamping, 0.05 and
 * 0.05 1/s) on every dynamic body of s: Jolt's scenes' replicas (ConvexVsMesh, HighSpeed,
 * CharacterVirtual) set it so they compare like for like. Box3D's (b3DefaultBodyDef) is 0. */
void bench_jolt_damping(physics__scene *s);

/* Jolt's ConvexVsMesh scene (bench_convex_mesh.c) built in s (threads_scenes runs it). */
void bench_convex_vs_mesh_scene(physics__scene *s);

/* The groups in files of their own. */
void bench_convex_vs_mesh(void); /* bench_convex_mesh.c */
void bench_jolt_characters(void); /* bench_characters.c */
void bench_hull_build(void); /* bench_hull.c */

#endif
