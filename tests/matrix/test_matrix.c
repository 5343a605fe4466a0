/*
 * The module version matrix: for every combination of API versions the modules serve, boot the
 * kernel with the modules and a probe plugin built for exactly that combination and run the
 * probe's scenario (see probe.c). Each probe must pass its own fixed checks, report exactly the
 * features its versions add (read from its file name, e.g. probe_entity2_world1_...), change the
 * world, and end the common scenario in the same state as every other combination. The
 * combinations come from the one dict in tests/matrix/meson.build; the test is told how many
 * there are and fails when fewer probes (or none) were built.
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

static int expected_probes;
static int num_probes;
static char **probes;

/* The version of `api` in a probe's file name ("..._transform3_..."), or 0. */
static uint32_t version_in_name(const char *name, const char *api)
{
    char key[32];
    snprintf(key, sizeof key, "_%s", api);
    for (const char *at = strstr(name, key); at; at = strstr(at + 1, key)) {
        const char *v = at + strlen(key);
        if (*v >= '0' && *v <= '9')
            return (uint32_t)strtoul(v, NULL, 10);
    }
    return 0;
}

static uint32_t features_of(const char *name)
{
    uint32_t features = 0;
    for (size_t k = 0; k < sizeof matrix_features / sizeof matrix_features[0]; k++)
        if (version_in_name(name, matrix_features[k].api) >= matrix_features[k].since)
            features |= matrix_features[k].feature;
    return features;
}

static void every_combination_runs_its_versions_and_agrees(void **state)
{
    (void)state;
    assert_true(num_probes > 0);
    assert_int_equal(num_probes, expected_probes);
    uint64_t first = 0;
    int same = 0;
    uint32_t all_features = 0;
    for (int i = 0; i < num_probes; i++) {
        const char *paths[] = {
            CT_TEST_MODULE("entities", "ct_entities"),
            CT_TEST_MODULE("transforms", "ct_transforms"),
            CT_TEST_MODULE("physics", "ct_physics"),
            CT_TEST_MODULE("rendering", "ct_rendering"),
            CT_TEST_MODULE("animation", "ct_animation"),
            CT_TEST_MODULE("networking", "ct_networking"),
            CT_TEST_MODULE("expr", "ct_expr"),
            CT_TEST_MODULE("particles", "ct_particles"),
            probes[i],
        };
        const char *slash = strrchr(probes[i], '/');
        const char *name = slash ? slash + 1 : probes[i];
        assert_int_equal(test_kernel_boot(paths, sizeof paths / sizeof paths[0]), 0);
        const matrix_probe_api_v1 *probe = test_kernel_api(ct_hash32("matrix.probe"), 1);
        assert_non_null(probe);
        matrix_result_t result;
        const int r = probe->run(&result);
        assert_int_equal(test_kernel_shutdown(), 0);
        if (r != 0)
            fail_msg("%s: the scenario gave an unexpected result (%d)", name, r);
        if (!result.changed)
            fail_msg("%s: the scenario did not change the world", name);
        if (result.features != features_of(name))
            fail_msg("%s: ran features 0x%x, its versions add 0x%x", name, result.features,
                     features_of(name));
        all_features |= result.features;
        if (i == 0)
            first = result.common_hash;
        same += result.common_hash == first;
        printf("matrix: %-44s state %016llx features 0x%02x %s\n", name,
               (unsigned long long)result.common_hash, result.features,
               result.common_hash == first ? "same" : "DIFFERENT");
    }
    printf("matrix: %d combinations, %d identical to the first\n", num_probes, same);
    assert_int_equal(same, num_probes);
    /* Every feature of the table ran in some combination. */
    uint32_t table = 0;
    for (size_t k = 0; k < sizeof matrix_features / sizeof matrix_features[0]; k++)
        table |= matrix_features[k].feature;
    assert_int_equal(all_features, table);
}

int main(int argc, char **argv)
{
    if (argc < 3 || strcmp(argv[1], "--expect") != 0) {
        fprintf(stderr, "usage: test_matrix --expect N probe.so...\n");
        return 1;
    }
    expected_probes = atoi(argv[2]);
    num_probes = argc - 3;
    probes = argv + 3;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_combination_runs_its_versions_and_agrees),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
