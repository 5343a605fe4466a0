/* api/ct_math.h against golden vectors from an independent Python implementation
 * (golden_euler.py, a different formulation): every order, intrinsic and extrinsic, random
 * and gimbal-edge inputs; round trips within 1e-5 rad (they hold to 1e-9 in fact); and the Euler
 * filter on curves that wrap past 180 degrees and pass through gimbal lock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "ct_math.h"

#include <stdio.h>

typedef struct golden_euler_t {
    int order, frame;
    double angles[3];
    double quat[4];
    int locked;
} golden_euler_t;

#include "golden_euler.inc"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The angle of the rotation taking q to p, in radians (sign of the quaternions ignored). From the
 * chord |p - q| = 2 sin(angle / 4), which keeps its precision for tiny angles (acos of a dot
 * product would bottom out near 1e-8). */
static double rotation_distance(const double p[4], const double q[4])
{
    double minus = 0, plus = 0;
    for (int i = 0; i < 4; i++) {
        minus += (p[i] - q[i]) * (p[i] - q[i]);
        plus += (p[i] + q[i]) * (p[i] + q[i]);
    }
    return 4 * asin(fmin(1.0, 0.5 * sqrt(fmin(minus, plus))));
}

static double wrap(double a) { return ct_angle_near(a, 0); }

static void from_euler_matches_golden(void **state)
{
    (void)state;
    assert_int_equal(COUNT(golden_from_euler), 12 * 2 * 32);
    for (size_t n = 0; n < COUNT(golden_from_euler); n++) {
        const golden_euler_t *g = &golden_from_euler[n];
        double q[4];
        ct_quat_from_euler(g->angles, (ct_euler_order)g->order, (ct_euler_frame)g->frame, q);
        if (rotation_distance(q, g->quat) > 1e-9)
            fail_msg("row %zu order %d frame %d: quaternion off by %g rad", n, g->order, g->frame,
                     rotation_distance(q, g->quat));
        double m[3][3], back[4];
        ct_mat3_from_euler(g->angles, (ct_euler_order)g->order, (ct_euler_frame)g->frame, m);
        ct_quat_from_mat3(m, back);
        assert_true(back[3] >= 0 && rotation_distance(back, g->quat) < 1e-9);
    }
}

static void round_trips(void **state)
{
    (void)state;
    double worst = 0;
    uint32_t compared_angles = 0, locked = 0;
    for (size_t n = 0; n < COUNT(golden_from_euler); n++) {
        const golden_euler_t *g = &golden_from_euler[n];
        const ct_euler_order order = (ct_euler_order)g->order;
        const ct_euler_frame frame = (ct_euler_frame)g->frame;
        double e[3], q[4];
        ct_euler_from_quat(g->quat, order, frame, e);
        ct_quat_from_euler(e, order, frame, q);
        const double d = rotation_distance(q, g->quat);
        worst = d > worst ? d : worst;
        locked += (uint32_t)g->locked;
        /* Away from the singularity the angles themselves come back. */
        const double mid = g->angles[1];
        const bool proper = g->order >= CT_EULER_XYX;
        const double edge_distance =
            proper ? fmin(fabs(mid), fabs(mid - M_PI)) : fabs(fabs(mid) - M_PI / 2);
        if (edge_distance > 1e-3 && (!proper || (mid > 0 && mid < M_PI))) {
            compared_angles++;
            for (int i = 0; i < 3; i++)
                if (fabs(wrap(e[i] - g->angles[i])) > 1e-9)
                    fail_msg("row %zu order %d frame %d: angle %d is %.12f, want %.12f", n,
                             g->order, g->frame, i, e[i], g->angles[i]);
        }
    }
    print_message("euler round trip: worst %.3g rad over %zu rows (%u compared angle by angle, "
                  "%u locked)\n",
                  worst, COUNT(golden_from_euler), compared_angles, locked);
    assert_true(worst < 1e-5);
    assert_true(compared_angles >= 12 * 2 * 24);
    assert_true(locked >= 12 * 2 * 2); /* the exact edges are locked in every order */
}

static void to_euler_matches_golden(void **state)
{
    (void)state;
    for (size_t n = 0; n < COUNT(golden_to_euler); n++) {
        const golden_euler_t *g = &golden_to_euler[n];
        double e[3];
        ct_euler_from_quat(g->quat, (ct_euler_order)g->order, (ct_euler_frame)g->frame, e);
        assert_false(g->locked); /* random rotations are never exactly locked */
        for (int i = 0; i < 3; i++)
            if (fabs(wrap(e[i] - g->angles[i])) > 1e-9)
                fail_msg("row %zu order %d frame %d: angle %d is %.12f, golden %.12f", n, g->order,
                         g->frame, i, e[i], g->angles[i]);
    }
}

/* Known values no generator is needed for: 90 degrees about z, as XYZ intrinsic (0 0 90) and as
 * extrinsic ZYX (0 0 90) which is intrinsic XYZ reversed. */
static void fixed_values(void **state)
{
    (void)state;
    double q[4];
    ct_quat_from_euler((const double[3]){0, 0, M_PI / 2}, CT_EULER_XYZ, CT_EULER_INTRINSIC, q);
    assert_float_equal(q[2], sqrt(0.5), 1e-15);
    assert_float_equal(q[3], sqrt(0.5), 1e-15);
    /* Intrinsic XYZ (a, b, c) == extrinsic ZYX (c, b, a). */
    double p[4];
    const double e[3] = {0.3, -0.7, 1.9}, r[3] = {1.9, -0.7, 0.3};
    ct_quat_from_euler(e, CT_EULER_XYZ, CT_EULER_INTRINSIC, q);
    ct_quat_from_euler(r, CT_EULER_ZYX, CT_EULER_EXTRINSIC, p);
    assert_true(rotation_distance(p, q) < 1e-15);
    /* The order matters: the same angles in YXZ are another rotation. */
    ct_quat_from_euler(e, CT_EULER_YXZ, CT_EULER_INTRINSIC, p);
    assert_true(rotation_distance(p, q) > 0.1);
}

/* A curve that spins past 180 degrees and one that pitches through gimbal lock: raw
 * conversion jumps, filtered conversion is continuous and still the same rotation. */
static void euler_filter(void **state)
{
    (void)state;
    for (int order = 0; order < CT_EULER_ORDER_COUNT; order++)
        for (int frame = 0; frame < 2; frame++) {
            double prev[3] = {0, 0, 0};
            bool first = true;
            uint32_t raw_jumps = 0;
            for (int k = 0; k < 200; k++) {
                /* About the first axis: 0 .. 4 pi; a wobble and a sweep of the middle angle. */
                const double t = k * 0.0631;
                double truth[3] = {t, 0.4 * sin(t) + (order >= CT_EULER_XYX ? 0.9 : 0.0), 0.3 * t};
                double q[4], e[3], back[4];
                ct_quat_from_euler(truth, (ct_euler_order)order, (ct_euler_frame)frame, q);
                ct_euler_from_quat(q, (ct_euler_order)order, (ct_euler_frame)frame, e);
                if (!first && (fabs(e[0] - prev[0]) > 1 || fabs(e[2] - prev[2]) > 1))
                    raw_jumps++;
                if (!first)
                    ct_euler_filter(prev, (ct_euler_order)order, (ct_euler_frame)frame, e);
                ct_quat_from_euler(e, (ct_euler_order)order, (ct_euler_frame)frame, back);
                assert_true(rotation_distance(back, q) < 1e-9);
                for (int i = 0; i < 3 && !first; i++)
                    if (fabs(e[i] - prev[i]) > 0.2)
                        fail_msg("order %d frame %d step %d: angle %d jumps %g -> %g", order, frame,
                                 k, i, prev[i], e[i]);
                for (int i = 0; i < 3; i++)
                    prev[i] = e[i];
                first = false;
            }
            assert_true(raw_jumps > 0); /* the scenario did cross the wrap */
        }
    /* Pitch through 90 degrees on XYZ: the raw middle angle turns back at pi/2 while the outer
     * ones flip by pi; filtered, the middle angle keeps going. */
    double prev[3] = {0.2, 0, 0.1};
    for (int k = 1; k < 40; k++) {
        const double truth[3] = {0.2, k * 0.05, 0.1};
        double q[4], e[3];
        ct_quat_from_euler(truth, CT_EULER_XYZ, CT_EULER_INTRINSIC, q);
        ct_euler_from_quat(q, CT_EULER_XYZ, CT_EULER_INTRINSIC, e);
        ct_euler_filter(prev, CT_EULER_XYZ, CT_EULER_INTRINSIC, e);
        for (int i = 0; i < 3; i++) {
            assert_true(fabs(e[i] - truth[i]) < 1e-9);
            prev[i] = e[i];
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(from_euler_matches_golden),
        cmocka_unit_test(round_trips),
        cmocka_unit_test(to_euler_matches_golden),
        cmocka_unit_test(fixed_values),
        cmocka_unit_test(euler_filter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
