/*
 * ct_test_kernel.h: a real kernel inside a plugin's own unit tests (an SDK library, no API id).
 *
 * The engine's tests boot the kernel in their own process and call the APIs its plugins serve;
 * this is the same for a plugin author with only the installed SDK. Link the test with
 * `pkg-config --cflags --libs cuttle-test` (libcuttle_test_kernel and cmocka) and write cmocka
 * tests that boot a kernel with the plugin under test beside the engine's modules:
 *
 *     static int boot(void **state)
 *     {
 *         const char *plugins[] = {"plugins/acme_health.so"};
 *         return ct_test_kernel_boot(&(ct_test_kernel_desc_t){
 *             .plugins = plugins, .num_plugins = 1, .strict = true});
 *     }
 *     static int shut(void **state) { return ct_test_kernel_shutdown() == 0 ? 0 : -1; }
 *
 *     static void damage_is_clamped(void **state)
 *     {
 *         const acme_health_api_v1 *health = ct_test_kernel_api(ACME_HEALTH_API, 1);
 *         assert_non_null(health);
 *         assert_int_equal(ct_test_kernel_lua("w = World.create()"), 0);
 *         ...
 *     }
 *     ... cmocka_run_group_tests(tests, boot, shut);
 *
 * The kernel is the one `cuttle` runs (the same library code, the installed modules), booted with
 * 2 job threads and the script timeout off (a debugger may stop a test). What a plugin's init
 * logs goes to stderr as under `cuttle`; a boot that fails returns the error the loader gave and
 * leaves nothing booted. Main thread only; one kernel per process at a time (boot again after
 * shutdown for a fresh one). The functions below are the library's only exported symbols.
 */
#ifndef CT_TEST_KERNEL_H
#define CT_TEST_KERNEL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What to boot. Zero means default for every member. */
typedef struct ct_test_kernel_desc_t {
    /* Plugin files (.so paths) to load beside the engine's modules, as `cuttle --plugin`. */
    const char *const *plugins;
    uint32_t num_plugins;
    /* A project folder (its module list, plugin folders and boot script count, as
     * `cuttle --project`), or NULL for none: then every module found is loaded and no boot
     * script runs. */
    const char *project_dir;
    /* The folder of the engine's modules; NULL: the installed SDK's (found from where this
     * library is, so a moved or --destdir SDK works). */
    const char *modules_dir;
    /* Nonzero: as `cuttle --strict` (a plugin that fails to load, an unlisted provider choice
     * or a warning at load fails the boot). A number, not a bool: published structs hold no
     * bool (its size is the compiler's). */
    uint32_t strict;
} ct_test_kernel_desc_t;

/* Boots a kernel. 0, or the negative ct_error of the step that failed (logged): CT_ERR_INVALID
 * when a kernel is already booted, more than 64 plugins are given or the modules folder is not
 * found. */
int ct_test_kernel_boot(const ct_test_kernel_desc_t *desc);
/* get_engine_api of the booted kernel: a kernel API ("ct.lua" ...) or one a loaded plugin
 * provides (your own, by its id and major version). NULL when none serves it or nothing is
 * booted. */
const void *ct_test_kernel_api(uint32_t api, uint32_t version);
/* Runs a Lua chunk in the kernel's Lua state (where plugins register their modules). 0, or
 * CT_ERR_LUA with the error and its traceback logged; CT_ERR_INVALID when nothing is booted. */
int ct_test_kernel_lua(const char *code);
/* One frame, as `cuttle` runs it (plugins' frame hooks, the boot script's update(dt), hot
 * reloads). 0, or CT_ERR_LUA when update raised. */
int ct_test_kernel_frame(double dt);
/* Hot-reloads the loaded plugin `name` ("acme.health") from its file now, as `cuttle --watch`
 * does when the file changes (the new code adopts the state block and runs its rebind). 0, or
 * the negative ct_error the reload gave (logged; the old code keeps running); CT_ERR_INVALID
 * when nothing is booted. */
int ct_test_kernel_reload(const char *name);
/* Shuts the kernel down (the boot script's shutdown(), plugins in reverse order, services).
 * Returns the leaked plus damaged memory blocks (0 when every plugin gave back what it took), or
 * 0 when nothing was booted. */
uint64_t ct_test_kernel_shutdown(void);

#ifdef __cplusplus
}
#endif
#endif
