/*
 * The module version matrix: for every combination of API versions the modules serve, boot the
 * kernel with the modules and a probe plugin built for exactly that combination, run the probe's
 * scenario, and check every combination ends in the same world state. Prints one line per
 * combination and a summary. The combinations come from tests/matrix/meson.build (one list).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "ct_hash.h"
#include "test_kernel.h"

typedef struct matrix_probe_api_v1 {
    int (*run)(uint64_t *state_hash);
} matrix_probe_api_v1;

static int num_probes;
static char **probes;

static void every_combination_gives_the_same_world(void **state)
{
    (void)state;
    uint64_t first = 0;
    int same = 0;
    for (int i = 0; i < num_probes; i++) {
        const char *paths[] = {
            CT_TEST_MODULE("entities", "ct_entities"),
            CT_TEST_MODULE("transforms", "ct_transforms"),
            CT_TEST_MODULE("physics", "ct_physics"),
            CT_TEST_MODULE("rendering", "ct_rendering"),
            probes[i],
        };
        assert_int_equal(test_kernel_boot(paths, 5), 0);
        const matrix_probe_api_v1 *probe = test_kernel_api(ct_hash32("matrix.probe"), 1);
        assert_non_null(probe);
        uint64_t hash = 0;
        assert_int_equal(probe->run(&hash), 0);
        assert_int_equal(test_kernel_shutdown(), 0);
        if (i == 0)
            first = hash;
        same += hash == first;
        const char *name = strrchr(probes[i], '/');
        printf("matrix: %-32s state %016llx %s\n", name ? name + 1 : probes[i],
               (unsigned long long)hash, hash == first ? "same" : "DIFFERENT");
    }
    printf("matrix: %d combinations, %d identical to the first\n", num_probes, same);
    assert_int_equal(same, num_probes);
}

int main(int argc, char **argv)
{
    num_probes = argc - 1;
    probes = argv + 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_combination_gives_the_same_world),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
