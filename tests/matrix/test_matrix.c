/*
 * The module version matrix: for every combination of API versions the modules serve, boot the
 * kernel with the modules and the probe plugin, and run the probe's scenario with exactly that
 * combination's tables (see probe.c). Each run must pass its own fixed checks, report exactly the
 * features its versions add, change the world, and end the common scenario in the same state as
 * every other combination. The versions come from the one dict in tests/matrix/meson.build
 * ("api=1,2" arguments); the test is told how many combinations that makes and fails when fewer
 * ran (or none).
 * Booting eleven sanitized libraries per combination is slow, so meson runs the matrix as shards
 * ("--shard K/N": the combinations whose index is K modulo N) that run side by side and each stay
 * far inside their timeout. Every shard also runs the first combination, so all shards compare
 * against the same reference state.
 * usage: test_matrix --expect N --probe PROBE.so --shard K/N API=V,V... (one per API of
 *        matrix_probe.h)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ct_hash.h"
#include "matrix_probe.h"
#include "test_kernel.h"

static int expected_runs;
static int shard, shards;
static const char *probe_path;
static matrix_lists_t lists;

/* Boots the modules and the probe, runs the combination `v`, shuts down. */
static void run_combination(const matrix_versions_t *v, matrix_result_t *result)
{
    const char *paths[] = {
        CT_TEST_MODULE("entities", "ct_entities"),
        CT_TEST_MODULE("transforms", "ct_transforms"),
        CT_TEST_MODULE("physics", "ct_physics"),
        CT_TEST_MODULE("rendering", "ct_rendering"),
        CT_TEST_MODULE("animation", "ct_animation"),
        CT_TEST_MODULE("networking", "ct_networking"),
        CT_TEST_MODULE("expr", "ct_expr"),
        CT_TEST_MODULE("particles", "ct_particles"),
        CT_TEST_MODULE("input", "ct_input"),
        CT_TEST_MODULE("gameplay", "ct_gameplay"),
        probe_path,
    };
    char name[256], missing[64];
    matrix_name(v, name, sizeof name);
    assert_int_equal(test_kernel_boot(paths, sizeof paths / sizeof paths[0]), 0);
    const matrix_probe_api_v2 *probe = test_kernel_api(ct_hash32("matrix.probe"), 2);
    assert_non_null(probe);
    const int r = probe->run(v, result, missing);
    assert_int_equal(test_kernel_shutdown(), 0);
    if (r != 0 && missing[0])
        fail_msg("%s: %s is not served", name, missing);
    if (r != 0)
        fail_msg("%s: the scenario gave an unexpected result (%d)", name, r);
    if (!result->changed)
        fail_msg("%s: the scenario did not change the world", name);
    if (result->features != matrix_features_of(v))
        fail_msg("%s: ran features 0x%x, its versions add 0x%x", name, result->features,
                 matrix_features_of(v));
}

static void every_combination_of_the_shard_runs_its_versions_and_agrees(void **state)
{
    (void)state;
    uint32_t at[MATRIX_NUM_APIS] = {0};
    const matrix_versions_t first = matrix_combination(&lists, at);
    matrix_result_t reference;
    run_combination(&first, &reference);
    int combinations = 0, runs = 0, same = 0;
    uint32_t all_features = 0;
    do {
        const matrix_versions_t v = matrix_combination(&lists, at);
        all_features |= matrix_features_of(&v);
        if (combinations++ % shards != shard)
            continue;
        matrix_result_t result;
        run_combination(&v, &result);
        runs++;
        same += result.common_hash == reference.common_hash;
        char name[256];
        matrix_name(&v, name, sizeof name);
        printf("matrix: %-60s state %016llx features 0x%05x %s\n", name,
               (unsigned long long)result.common_hash, result.features,
               result.common_hash == reference.common_hash ? "same" : "DIFFERENT");
    } while (matrix_next_combination(&lists, at));
    printf("matrix: shard %d/%d ran %d of %d combinations, %d identical to the first\n", shard,
           shards, runs, combinations, same);
    assert_int_equal(combinations, expected_runs);
    /* Index K modulo N: the shards split the combinations exactly, none empty. */
    assert_true(runs > 0);
    assert_int_equal(runs, (combinations - shard + shards - 1) / shards);
    assert_int_equal(same, runs);
    /* The versions listed reach every feature of the table (each run checked its own). */
    uint32_t table = 0;
    for (size_t k = 0; k < sizeof matrix_features / sizeof matrix_features[0]; k++)
        table |= matrix_features[k].feature;
    assert_int_equal(all_features, table);
}

int main(int argc, char **argv)
{
    if (argc < 7 || strcmp(argv[1], "--expect") != 0 || strcmp(argv[3], "--probe") != 0 ||
        strcmp(argv[5], "--shard") != 0 || sscanf(argv[6], "%d/%d", &shard, &shards) != 2 ||
        shards < 1 || shard < 0 || shard >= shards) {
        fprintf(stderr, "usage: test_matrix --expect N --probe PROBE.so --shard K/N API=V,V...\n");
        return 1;
    }
    expected_runs = atoi(argv[2]);
    probe_path = argv[4];
    for (int i = 7; i < argc; i++) {
        if (!matrix_parse_versions(&lists, argv[i])) {
            fprintf(stderr,
                    "test_matrix: '%s' is not API=V,V... of matrix_probe.h, or given twice\n",
                    argv[i]);
            return 1;
        }
    }
    for (int a = 0; a < MATRIX_NUM_APIS; a++) {
        if (lists.count[a] == 0) {
            fprintf(stderr, "test_matrix: no versions given for '%s'\n", matrix_api_names[a]);
            return 1;
        }
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_combination_of_the_shard_runs_its_versions_and_agrees),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
