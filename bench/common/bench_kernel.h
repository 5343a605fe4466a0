/*
 * For benchmarks that boot the kernel with some modules and call the engine's public APIs: the
 * boot (modules from `--modules DIR`, default the build's own, so one program measures another
 * build's modules) and a fixed shuffle of entities (so lookups do not walk memory in order).
 * Include after bench.h; the program defines BENCH_MODULE_DIR (see bench/animation/meson.build).
 */
#ifndef CT_BENCH_KERNEL_H
#define CT_BENCH_KERNEL_H

#include "ct_entity.h"
#include "kernel.h"

/* Boots the kernel with the `n` modules named relative to the modules folder
 * ("entities/ct_entities.so", ...); on failure prints why, naming `program`, and exits 1. */
static inline void bench_boot_modules(int argc, char **argv, const char *program,
                                      const char *const *names, int n)
{
    const char *dir = bench_arg(argc, argv, "--modules");
    static char paths[KERNEL_MAX_PATHS][1024];
    kernel_desc_t desc = {.strict = true, .jobs = 2, .num_plugin_paths = (uint32_t)n};
    for (int i = 0; i < n; i++) {
        snprintf(paths[i], sizeof paths[i], "%s/%s", dir ? dir : BENCH_MODULE_DIR, names[i]);
        desc.plugin_paths[i] = paths[i];
    }
    if (kernel__boot(&desc)) {
        fprintf(stderr, "%s: boot failed (modules from %s)\n", program, paths[0]);
        exit(1);
    }
}

/* to = from in a fixed shuffled order (xorshift from a constant seed). */
static inline void bench_shuffle_entities(const ct_entity_t *from, ct_entity_t *to, uint32_t n)
{
    uint64_t rng = 12345;
    memcpy(to, from, n * sizeof *from);
    for (uint32_t i = n ? n - 1 : 0; i > 0; i--) {
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        const uint32_t k = (uint32_t)(rng % (i + 1));
        const ct_entity_t swap = to[i];
        to[i] = to[k], to[k] = swap;
    }
}

#endif
