/*
 * compat_run: boots the current kernel with one set of engine modules (any mix of this build's
 * and an earlier release's) and, one at a time, each version-matrix probe; runs the probe's
 * scenario and prints its world-state hash:
 *     compat: <probe> state <hash>        or      compat: <probe> n/a (<why>)
 * A probe that needs an API version these modules do not serve is n/a, not a failure. Exits 1
 * when a module does not load, a scenario fails, or anything leaks.
 * usage: compat_run ENTITIES.so TRANSFORMS.so PHYSICS.so ANIMATION.so RENDERING.so NETWORKING.so
 *                   PROBE.so...
 */
#include <stdio.h>
#include <string.h>

#include "ct_hash.h"
#include "ct_registry.h"
#include "kernel.h"
#include "plugins/registry.h"

typedef struct matrix_probe_api_v1 {
    int (*run)(uint64_t *state_hash);
} matrix_probe_api_v1;

static const char *const module_names[] = {"ct.entities",  "ct.transforms", "ct.physics",
                                           "ct.animation", "ct.rendering",  "ct.networking"};
#define NUM_MODULES 6

/* Whether plugin `name` loaded; prints why not. */
static bool loaded(const ct_registry_api_v1 *registry, const char *name, const char **why)
{
    ct_plugin_info_t info;
    uint32_t i = registry->find_plugin(name);
    if (i == UINT32_MAX || !registry->plugin_info(i, &info)) {
        *why = "not found";
        return false;
    }
    *why = info.error;
    return info.state == CT_PLUGIN_LOADED;
}

static int run_probe(char **modules, const char *probe)
{
    kernel_desc_t desc;
    memset(&desc, 0, sizeof desc);
    desc.jobs = 1;
    for (int i = 0; i < NUM_MODULES; i++)
        desc.plugin_paths[desc.num_plugin_paths++] = modules[i];
    desc.plugin_paths[desc.num_plugin_paths++] = probe;
    const char *name = strrchr(probe, '/') ? strrchr(probe, '/') + 1 : probe;
    if (kernel__boot(&desc)) {
        printf("compat: %s: the kernel did not boot\n", name);
        return 1;
    }
    const ct_registry_api_v1 *registry = registry__get_engine_api(CT_REGISTRY_API, 1);
    int failed = 0;
    const char *why;
    for (int i = 0; i < NUM_MODULES; i++) {
        if (!loaded(registry, module_names[i], &why)) {
            printf("compat: %s did not load (%s): %s\n", module_names[i], modules[i], why);
            failed = 1;
        }
    }
    const matrix_probe_api_v1 *api = registry__get_engine_api(ct_hash32("matrix.probe"), 1);
    uint64_t hash = 0;
    if (failed) {
        /* reported above */
    } else if (!api) {
        loaded(registry, "matrix.probe", &why);
        printf("compat: %s n/a (%s)\n", name, why);
    } else if (api->run(&hash) != 0) {
        printf("compat: %s: the scenario failed\n", name);
        failed = 1;
    } else {
        printf("compat: %s state %016llx\n", name, (unsigned long long)hash);
    }
    if (kernel__shutdown()) {
        printf("compat: %s: leaked\n", name);
        failed = 1;
    }
    return failed;
}

int main(int argc, char **argv)
{
    if (argc < NUM_MODULES + 2) {
        fprintf(stderr, "usage: compat_run ENTITIES.so TRANSFORMS.so PHYSICS.so ANIMATION.so "
                        "RENDERING.so NETWORKING.so PROBE.so...\n");
        return 2;
    }
    int failed = 0;
    for (int i = NUM_MODULES + 1; i < argc; i++)
        failed |= run_probe(argv + 1, argv[i]);
    return failed;
}
