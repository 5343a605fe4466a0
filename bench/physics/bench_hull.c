/*
 * bench_hull.c: building convex hulls from points (physics__hull_build), the cost a game pays
 * once a hull body or compound child is made (and a level of many rocks pays at load).
 *
 *   physics.hull_build_sphere_64_us    64 points spread evenly over a sphere of radius 1 (every
 *       point a corner, 124 triangles: the largest hull there is)
 *   physics.hull_build_cylinder_64_us  two rings of 32 points (a cylinder of radius 1, height 2:
 *       two faces of 32 corners and 32 side faces of 4, each plane through many points)
 *   physics.hull_build_cloud_64_us     64 points spread through a cube of 2 m (most inside)
 *   physics.hull_build_box_8_us        a box's 8 corners
 * Each the median of three rounds of CPU time over a batch of builds, per build.
 */
#include "bench_physics.h"

#include "physics_hull.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* The point sets, each of `count` points. */
static uint32_t hull_points(int which, float *xyz)
{
    if (which == 0) {
        /* A Fibonacci sphere: even spacing, no four points on one plane. */
        for (int k = 0; k < 64; k++) {
            const float y = 1.0f - 2.0f * ((float)k + 0.5f) / 64.0f, r = sqrtf(1.0f - y * y);
            const float a = 2.39996323f * (float)k;
            xyz[3 * k] = r * cosf(a), xyz[3 * k + 1] = y, xyz[3 * k + 2] = r * sinf(a);
        }
        return 64;
    }
    if (which == 1) {
        for (int k = 0; k < 64; k++) {
            const float a = 6.28318531f * (float)(k % 32) / 32.0f;
            xyz[3 * k] = cosf(a), xyz[3 * k + 1] = k < 32 ? -1.0f : 1.0f, xyz[3 * k + 2] = sinf(a);
        }
        return 64;
    }
    if (which == 2) {
        uint32_t s = 12345u;
        for (int k = 0; k < 3 * 64; k++) {
            s ^= s << 13, s ^= s >> 17, s ^= s << 5;
            xyz[k] = -1.0f + 2.0f * (float)(s >> 8) / (float)(1u << 24);
        }
        return 64;
    }
    for (int k = 0; k < 8; k++) {
        xyz[3 * k] = k & 1 ? 0.5f : -0.5f;
        xyz[3 * k + 1] = k & 2 ? 0.75f : -0.75f;
        xyz[3 * k + 2] = k & 4 ? 1.0f : -1.0f;
    }
    return 8;
}

void bench_hull_build(void)
{
    static const char *const names[4] = {
        "physics.hull_build_sphere_64_us", "physics.hull_build_cylinder_64_us",
        "physics.hull_build_cloud_64_us", "physics.hull_build_box_8_us"};
    for (int which = 0; which < 4; which++) {
        float xyz[3 * 64];
        const uint32_t count = hull_points(which, xyz);
        physics__hull h;
        char reason[160];
        if (physics__hull_build(&h, xyz, count, reason, sizeof reason)) {
            fprintf(stderr, "bench_hull: %s refused\n", names[which]);
            exit(1);
        }
        /* A batch of about 20 ms of builds at the old brute force's speed. */
        const int batch = count > 8 ? 20 : 2000;
        double us[3] = {0, 0, 0};
        for (int round = 0; round < bench_rounds(); round++) {
            const double t0 = bench_cpu_ms();
            for (int k = 0; k < batch; k++)
                physics__hull_build(&h, xyz, count, reason, sizeof reason);
            us[round] = 1000.0 * (bench_cpu_ms() - t0) / batch;
        }
        for (int round = bench_rounds(); round < 3; round++)
            us[round] = us[0];
        bench_report(names[which], bench_median3(us), "us");
    }
}
