/* Test support: boot a real kernel inside a test process, with the plugins a test names. */
#ifndef CT_TEST_KERNEL_H
#define CT_TEST_KERNEL_H

#include "kernel.h"

/* Paths from the build, so tests find built modules and source data wherever the build is. */
#ifndef CT_TEST_BUILD_ROOT
#error "tests/support/meson.build defines CT_TEST_BUILD_ROOT"
#endif
#define CT_TEST_MODULE(part, name) CT_TEST_BUILD_ROOT "/modules/" part "/" name ".so"

/* Boots the kernel without a project or boot script, loading exactly `paths` (strict mode: any
 * load problem fails the boot). Returns kernel__boot's result. */
int test_kernel_boot(const char *const *paths, uint32_t num_paths);
/* get_engine_api, for the test itself. */
void *test_kernel_api(uint32_t api, uint32_t version);
/* Shuts down; returns the number of leaked blocks (tests assert 0). */
uint64_t test_kernel_shutdown(void);

#endif
