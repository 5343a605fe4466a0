/* Test support: boot a real kernel inside a test process, with the plugins a test names; the
 * fixture module tests share (the kernel, the APIs they all use, one world); project folders. */
#ifndef CT_TEST_KERNEL_H
#define CT_TEST_KERNEL_H

#include <stddef.h>

#include "ct_entity.h"
#include "ct_lua.h"
#include "ct_resource.h"
#include "ct_world.h"
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

/* What test_kernel_boot boots: `paths`, strict, two job threads. Change fields before booting. */
kernel_desc_t test_kernel_desc(const char *const *paths, uint32_t num_paths);

/* ---- The module tests' fixture ------------------------------------------------------------ */

/* The APIs every module test uses, and the world it works in. */
typedef struct test_world_t {
    const ct_entity_api_v2 *entity;
    const ct_world_api_v1 *worlds;
    const ct_resource_api_v1 *resource;
    const ct_lua_api_v1 *lua;
    ct_world_o *world;
} test_world_t;

/* Boots the kernel from `desc`, fetches the APIs above (failing the test if one is missing) and
 * creates a world named `world_name`. The answer stays valid until test_world_shutdown. */
const test_world_t *test_world_boot(const kernel_desc_t *desc, const char *world_name);
/* A cmocka teardown: destroys the world of test_world_boot and shuts the kernel down, failing
 * the test if anything leaked. */
int test_world_shutdown(void **state);

/* ---- Project folders ---------------------------------------------------------------------- */

/* Makes a fresh, empty folder /tmp/<name>_XXXXXX and writes its path to `dir` (failing the test
 * if it cannot). */
void test_project_make(char *dir, size_t size, const char *name);
/* Writes `text` to the file `rel` of the folder `dir` (its folders must exist). */
void test_project_write(const char *dir, const char *rel, const char *text);
/* Removes the folder `dir` and everything in it (0, or the failing command's status). */
int test_project_remove(const char *dir);

#endif
