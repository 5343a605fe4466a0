/*
 * The installed test harness (api/ct_test_kernel.h): the kernel library behind `cuttle`, booted
 * in a plugin author's cmocka test. A thin layer over kernel__boot, as tests/support does for
 * the engine's own tests; the library exports only these functions (ct_test_kernel.map).
 */
/* dladdr needs _GNU_SOURCE, which the build defines. */
#include "ct_test_kernel.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "ct_lua.h"
#include "kernel.h"
#include "plugins/loader.h"
#include "plugins/registry.h"

#define EXPORT __attribute__((visibility("default")))

static bool booted;

static bool is_folder(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The installed modules folder: CT_TEST_MODULES_FROM_LIBDIR relative to this library's folder
 * (absolute when the SDK was configured with an absolute libdir outside the prefix). */
static bool installed_modules(char *out, size_t size)
{
    const char *rel = CT_TEST_MODULES_FROM_LIBDIR;
    if (rel[0] == '/') {
        snprintf(out, size, "%s", rel);
    } else {
        Dl_info info;
        if (!dladdr((void *)installed_modules, &info) || !info.dli_fname)
            return false;
        const char *slash = strrchr(info.dli_fname, '/');
        const int dir_len = slash ? (int)(slash - info.dli_fname) : 1;
        const int n = snprintf(out, size, "%.*s/%s", dir_len, slash ? info.dli_fname : ".", rel);
        if (n < 0 || (size_t)n >= size)
            return false;
    }
    return is_folder(out);
}

EXPORT int ct_test_kernel_boot(const ct_test_kernel_desc_t *desc)
{
    static char modules[4096];
    if (booted || !desc || desc->num_plugins > KERNEL_MAX_PATHS ||
        (desc->num_plugins && !desc->plugins)) {
        fprintf(stderr, "ct_test_kernel_boot: %s\n",
                booted ? "a kernel is booted already (shut it down first)"
                       : "no description, or more than 64 plugins");
        return CT_ERR_INVALID;
    }
    kernel_desc_t k;
    memset(&k, 0, sizeof k);
    if (desc->modules_dir) {
        snprintf(modules, sizeof modules, "%s", desc->modules_dir);
        if (!is_folder(modules)) {
            fprintf(stderr, "ct_test_kernel_boot: modules_dir '%s' is not a folder\n", modules);
            return CT_ERR_INVALID;
        }
    } else if (!installed_modules(modules, sizeof modules)) {
        fprintf(stderr,
                "ct_test_kernel_boot: the installed modules folder (%s beside "
                "libcuttle_test_kernel) is not there; set modules_dir\n",
                CT_TEST_MODULES_FROM_LIBDIR);
        return CT_ERR_INVALID;
    }
    k.module_dirs[k.num_module_dirs++] = modules;
    for (uint32_t i = 0; i < desc->num_plugins; i++)
        k.plugin_paths[k.num_plugin_paths++] = desc->plugins[i];
    k.project_dir = desc->project_dir;
    k.run_boot_script = desc->project_dir != NULL;
    k.strict = desc->strict != 0;
    k.jobs = 2;
    k.script_timeout = -1.0;
    const int err = kernel__boot(&k);
    booted = err == 0;
    return err;
}

EXPORT const void *ct_test_kernel_api(uint32_t api, uint32_t version)
{
    return booted ? registry__get_engine_api(api, version) : NULL;
}

EXPORT int ct_test_kernel_lua(const char *code)
{
    const ct_lua_api_v1 *lua = booted ? registry__get_engine_api(CT_LUA_API, 1) : NULL;
    return lua && code ? lua->run_string(code, "=ct_test_kernel_lua") : CT_ERR_INVALID;
}

EXPORT int ct_test_kernel_frame(double dt) { return booted ? kernel__frame(dt) : CT_ERR_INVALID; }

EXPORT int ct_test_kernel_reload(const char *name)
{
    return booted && name ? loader__reload(name) : CT_ERR_INVALID;
}

EXPORT uint64_t ct_test_kernel_shutdown(void)
{
    if (!booted)
        return 0;
    booted = false;
    return kernel__shutdown();
}
