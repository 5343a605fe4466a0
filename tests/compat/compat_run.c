/*
 * compat_run: boots the current kernel with one set of engine modules (any mix of this build's
 * and an earlier release's) and the version-matrix probe, once per combination of the API
 * versions given, and prints each combination's result:
 *     compat: <combination> state <hash>
 *     compat: <combination> n/a (<api> v<n> is not served)
 * A combination asking for a version these modules do not serve is n/a, not a failure (the
 * script decides whether the release should have served it). Exits 1 when a module does not load,
 * a scenario fails its checks, or anything leaks.
 * usage: compat_run PROBE.so MODULE.so... -- API=V,V... (every API of matrix_probe.h)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ct_hash.h"
#include "ct_registry.h"
#include "kernel.h"
#include "plugins/registry.h"

#include "../matrix/matrix_probe.h"

static matrix_lists_t lists;

/* Whether every plugin booted loaded; prints the ones that did not. */
static bool all_loaded(const ct_registry_api_v1 *registry, const kernel_desc_t *desc)
{
    bool ok = true;
    uint32_t libraries = 0;
    for (uint32_t i = 0; i < registry->plugin_count(); i++) {
        ct_plugin_info_t info;
        if (!registry->plugin_info(i, &info) || !info.path[0])
            continue; /* the kernel itself */
        libraries++;
        if (info.state != CT_PLUGIN_LOADED) {
            printf("compat: plugin %s did not load (%s): %s\n", info.name, info.path, info.error);
            ok = false;
        }
    }
    if (libraries != desc->num_plugin_paths) {
        printf("compat: %u of %u plugins were found\n", libraries, desc->num_plugin_paths);
        ok = false;
    }
    return ok;
}

static int run_combination(const kernel_desc_t *desc, const matrix_versions_t *v)
{
    char name[256], missing[64];
    matrix_name(v, name, sizeof name);
    if (kernel__boot(desc)) {
        printf("compat: %s: the kernel did not boot\n", name);
        return 1;
    }
    const ct_registry_api_v1 *registry = registry__get_engine_api(CT_REGISTRY_API, 1);
    const matrix_probe_api_v2 *probe = registry__get_engine_api(ct_hash32("matrix.probe"), 2);
    int failed = !all_loaded(registry, desc) || !probe;
    matrix_result_t result;
    const int r = failed ? 0 : probe->run(v, &result, missing);
    if (failed) {
        /* reported above */
    } else if (r == CT_ERR_MISSING_API && missing[0]) {
        printf("compat: %s n/a (%s is not served)\n", name, missing);
    } else if (r != 0 || result.features != matrix_features_of(v) || !result.changed) {
        printf("compat: %s: the scenario failed (%d, features 0x%x of 0x%x)\n", name, r,
               result.features, matrix_features_of(v));
        failed = 1;
    } else {
        printf("compat: %s state %016llx\n", name, (unsigned long long)result.common_hash);
    }
    if (kernel__shutdown()) {
        printf("compat: %s: leaked\n", name);
        failed = 1;
    }
    return failed;
}

int main(int argc, char **argv)
{
    /* One write per line: the script reads these lines from a file the log (stderr) also goes
     * to, and a block-buffered stdout would let a log line split one. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    kernel_desc_t desc;
    memset(&desc, 0, sizeof desc);
    desc.jobs = 1;
    int i = 1;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (desc.num_plugin_paths == KERNEL_MAX_PATHS)
            return 2;
        desc.plugin_paths[desc.num_plugin_paths++] = argv[i];
    }
    for (i++; i < argc; i++) {
        if (!matrix_parse_versions(&lists, argv[i])) {
            fprintf(stderr, "compat_run: '%s' is not API=V,V... of matrix_probe.h\n", argv[i]);
            return 2;
        }
    }
    for (int a = 0; a < MATRIX_NUM_APIS; a++) {
        if (lists.count[a] == 0 || desc.num_plugin_paths < 2) {
            fprintf(stderr, "usage: compat_run PROBE.so MODULE.so... -- API=V,V... (every API)\n");
            return 2;
        }
    }
    uint32_t at[MATRIX_NUM_APIS] = {0};
    int failed = 0;
    do {
        const matrix_versions_t v = matrix_combination(&lists, at);
        failed |= run_combination(&desc, &v);
    } while (matrix_next_combination(&lists, at));
    return failed;
}
