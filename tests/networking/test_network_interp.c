/* Where a replica is drawn between snapshots (modules/networking/network_interp.c): between two
 * it interpolates, before the first it holds, past the newest it goes on at most one interval
 * while within max_extrapolation and then settles on the newest; rotations take the short way. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "network_interp.h"

static void add(net_snapshots_t *r, double t, float x, float qz, float qw)
{
    const float pose[7] = {x, 0, 0, 0, 0, qz, qw};
    net_snapshots_add(r, t, pose);
}

static void between_before_and_past(void **state)
{
    (void)state;
    net_snapshots_t r = {0};
    float out[7];
    bool ex;
    assert_false(net_snapshots_sample(&r, 1.0, 0.1, out, &ex));
    add(&r, 1.0, 0, 0, 1);
    assert_true(net_snapshots_sample(&r, 2.0, 0.1, out, &ex));
    assert_true(out[0] == 0 && !ex); /* one snapshot: held */
    add(&r, 1.05, 1, 0, 1);
    add(&r, 1.10, 2, 0, 1);
    assert_true(net_snapshots_sample(&r, 0.5, 0.1, out, &ex));
    assert_true(out[0] == 0 && !ex);
    assert_true(net_snapshots_sample(&r, 1.025, 0.1, out, &ex));
    assert_float_equal(out[0], 0.5f, 1e-5);
    assert_true(net_snapshots_sample(&r, 1.09, 0.1, out, &ex));
    assert_float_equal(out[0], 1.8f, 1e-4);
    /* Past the newest: on with the last velocity (20 per second), at most one interval. */
    assert_true(net_snapshots_sample(&r, 1.12, 0.1, out, &ex));
    assert_float_equal(out[0], 2.4f, 1e-4);
    assert_true(ex);
    assert_true(net_snapshots_sample(&r, 1.19, 0.1, out, &ex));
    assert_float_equal(out[0], 3.0f, 1e-4); /* capped at one interval (0.05 s) */
    /* Past max_extrapolation: settled on the newest state. */
    assert_true(net_snapshots_sample(&r, 1.25, 0.1, out, &ex));
    assert_true(out[0] == 2 && !ex);
}

static void rotations_and_the_ring(void **state)
{
    (void)state;
    net_snapshots_t r = {0};
    float out[7];
    bool ex;
    /* 0 and 180 degrees about z written with opposite signs: the short way, normalised. */
    add(&r, 0, 0, 0, 1);
    add(&r, 1, 0, (float)sin(M_PI / 4), (float)cos(M_PI / 4));
    assert_true(net_snapshots_sample(&r, 0.5, 0.1, out, &ex));
    const double len = sqrt((double)out[5] * out[5] + (double)out[6] * out[6]);
    assert_float_equal(len, 1.0, 1e-6);
    assert_float_equal(out[5], sin(M_PI / 8), 1e-3);
    net_snapshots_t q = {0};
    add(&q, 0, 0, 0, 1);
    add(&q, 1, 0, 0, -1); /* the same rotation: no turn through the long way */
    assert_true(net_snapshots_sample(&q, 0.5, 0.1, out, &ex));
    assert_float_equal(fabs(out[6]), 1.0, 1e-6);
    /* The ring keeps the newest eight; a snapshot at an older or equal time replaces the newest. */
    net_snapshots_t w = {0};
    for (int i = 0; i < 20; i++)
        add(&w, i, (float)i, 0, 1);
    assert_int_equal(w.count, NET_SNAPSHOTS);
    assert_true(net_snapshots_sample(&w, 0, 0.1, out, &ex));
    assert_true(out[0] == 12);
    add(&w, 19, 100, 0, 1);
    assert_int_equal(w.count, NET_SNAPSHOTS);
    assert_true(net_snapshots_sample(&w, 19, 0.1, out, &ex));
    assert_true(out[0] == 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(between_before_and_past),
        cmocka_unit_test(rotations_and_the_ring),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
