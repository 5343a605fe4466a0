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

/* The groups in files of their own. */
void bench_convex_vs_mesh(void); /* bench_convex_mesh.c */

#endif
