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

/* Calls the global Lua function `name` with `world` (a light userdata) and the ids of the `n`
 * `entities`, failing the test if it raises an error. */
void test_lua_call(const char *name, ct_world_o *world, const ct_entity_t *entities, uint32_t n);

/* ---- Compiled blobs edited behind the compiler's back ------------------------------------- */

/* A resource compiled in the booted kernel, and its payload (the bytes after the header). */
typedef struct test_blob_t {
    const struct ct_resource_type_t *type;
    uint8_t *blob;
    uint64_t size;
    uint8_t *payload;
    uint64_t payload_size;
} test_blob_t;

/* Compiles `source` as a resource of `type` (failing the test if it does not compile) and checks
 * the payload loads as it is. */
test_blob_t test_blob_compile(const char *type, const char *source);
/* The offset in the payload of the last 4-byte-aligned copy of `bytes`; fails the test if none. */
size_t test_blob_find(const test_blob_t *b, const void *bytes, size_t size);
/* Loads a copy of the payload with the float `value` written at `at`: the load must be refused
 * with a message that names every word of `words` (NULL-terminated). */
void test_blob_refused(const test_blob_t *b, size_t at, float value, const char *const *words);
void test_blob_free(test_blob_t *b);

/* ---- Project folders ---------------------------------------------------------------------- */

/* Makes a fresh, empty folder /tmp/<name>_XXXXXX and writes its path to `dir` (failing the test
 * if it cannot). */
void test_project_make(char *dir, size_t size, const char *name);
/* Writes `text` to the file `rel` of the folder `dir` (its folders must exist). */
void test_project_write(const char *dir, const char *rel, const char *text);
/* Removes the folder `dir` and everything in it (0, or the failing command's status). */
int test_project_remove(const char *dir);

#endif
