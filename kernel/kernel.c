#include "kernel.h"

#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "base/jobs.h"
#include "boot_script.h"
#include "base/log.h"
#include "base/memory.h"
#include "data/sjson.h"
#include "datamodel/datamodel.h"
#include "editor/editor.h"
#include "host.h"
#include "lua/lua_env.h"
#include "plugins/loader.h"
#include "plugins/registry.h"
#include "profiler/profiler.h"
#include "project.h"
#include "resources/resources.h"

/* Script errors of the last boot, added up at shutdown (booted is cleared then). */
static uint64_t script_errors;

/* What is booted, so shutdown undoes exactly that (and a failed boot can unwind). */
static struct {
    bool memory, jobs, registry, lua, resources, loader, script, loop_open, strict;
    uint64_t script_errors; /* errors raised by init(), update() and shutdown() */
    project_t project;
    uv_loop_t loop;
} booted;

void kernel__register_apis(void)
{
    registry__add_kernel_api(CT_LOG_API, 1, log__api_v1(), "ct.log");
    registry__add_kernel_api(CT_MEMORY_API, 1, memory__api_v1(), "ct.memory");
    registry__add_kernel_api(CT_MEMORY_API, 2, memory__api_v2(), "ct.memory");
    registry__add_kernel_api(CT_JOBS_API, 1, jobs__api_v1(), "ct.jobs");
    registry__add_kernel_api(CT_LUA_API, 0, lua_env__api_v0(), "ct.lua");
    registry__add_kernel_api(CT_LUA_API, 1, lua_env__api_v1(), "ct.lua");
    registry__add_kernel_api(CT_LUA_API, 2, lua_env__api_v2(), "ct.lua");
    registry__add_kernel_api(CT_REGISTRY_API, 1, registry__api_v1(), "ct.registry");
    registry__add_kernel_api(CT_REGISTRY_API, 2, registry__api_v2(), "ct.registry");
    registry__add_kernel_api(CT_REGISTRY_API, 3, registry__api_v3(), "ct.registry");
    registry__add_kernel_api(CT_DATA_API, 1, data__api_v1(), "ct.data");
    registry__add_kernel_api(CT_RESOURCE_API, 1, resources__api_v1(), "ct.resource");
    registry__add_kernel_api(CT_RESOURCE_API, 2, resources__api_v2(), "ct.resource");
    registry__add_kernel_api(CT_RESOURCE_API, 3, resources__api_v3(), "ct.resource");
    registry__add_kernel_api(CT_RESOURCE_API, 4, resources__api_v4(), "ct.resource");
    registry__add_kernel_api(CT_RESOURCE_API, 5, resources__api_v5(), "ct.resource");
    registry__add_kernel_api(CT_RESOURCE_API, 6, resources__api_v6(), "ct.resource");
    registry__add_kernel_api(CT_HOST_API, 1, host__api_v1(), "ct.host");
    registry__add_kernel_api(CT_HOST_API, 2, host__api_v2(), "ct.host");
    registry__add_kernel_api(CT_PROFILER_API, 1, profiler__api_v1(), "ct.profiler");
    registry__add_kernel_api(CT_DATAMODEL_API, 1, datamodel__api_v1(), "ct.datamodel");
}

static int boot_services(const kernel_desc_t *desc)
{
    const char *modes_text =
        desc->memory_debug ? desc->memory_debug : getenv("CUTTLE_MEMORY_DEBUG");
    char err[256];
    int modes = memory__parse_debug_modes(modes_text ? modes_text : "none", err, sizeof err);
    if (modes < 0) {
        log__error("memory debug modes: %s", err);
        return CT_ERR_INVALID;
    }
    int r = memory__init((uint32_t)modes);
    if (r)
        return r;
    booted.memory = true;
    profiler__kernel_api->set_thread_name("main"); /* before the workers take ids 2.. */
    if ((r = jobs__init(desc->jobs)))
        return r;
    booted.jobs = true;
    registry__init();
    booted.registry = true;
    if ((r = lua_env__init()))
        return r;
    booted.lua = true;
    if ((r = resources__init(desc->project_dir, desc->strict)))
        return r;
    booted.resources = true;
    kernel__register_apis();
    if ((r = resources__bind_lua()) || (r = memory__bind_lua()) || (r = profiler__bind_lua()) ||
        (r = datamodel__bind_lua()))
        return r;
    if (uv_loop_init(&booted.loop))
        return CT_ERR_IO;
    booted.loop_open = true;
    return 0;
}

static int load_plugins(const kernel_desc_t *desc)
{
    const project_t *p = &booted.project;
    /* Folders in order: --modules, the project's plugin_folders, then the installed modules. */
    const char *dirs[KERNEL_MAX_PATHS + PROJECT_MAX_ENTRIES];
    uint32_t num_dirs = 0;
    for (uint32_t i = 0; i < desc->num_module_dirs; i++)
        dirs[num_dirs++] = desc->module_dirs[i];
    for (uint32_t i = 0; i < p->num_plugin_dirs; i++)
        dirs[num_dirs++] = p->plugin_dirs[i];
    static char installed[4096];
    bool has_installed =
        desc->installed_modules && kernel__installed_module_dir(installed, sizeof installed);
    loader_desc_t ld = {
        .plugin_paths = desc->plugin_paths,
        .num_plugin_paths = desc->num_plugin_paths,
        .module_dirs = dirs,
        .num_module_dirs = num_dirs,
        .fallback_module_dir = has_installed ? installed : NULL,
        .wanted = p->modules,
        .num_wanted = p->num_modules,
        .pins = p->pins,
        .num_pins = p->num_pins,
        .providers = p->providers,
        .num_providers = p->num_providers,
        .strict = desc->strict,
        .watch = desc->watch,
        .loop = &booted.loop,
    };
    booted.loader = true;
    lua_env__set_phase("plugin init");
    int r = loader__load(&ld);
    lua_env__set_phase(NULL);
    return r;
}

/* Calls one of the boot script's functions under the rule the README states: loading the script
 * is part of the boot, but an error in init(), update() or shutdown() is counted and the engine
 * carries on, unless --strict, where it is fatal. Returns 0 or CT_ERR_LUA (only when strict). */
static int call_script(const char *name, int nargs)
{
    int r = lua_env__call_global(name, nargs);
    if (r == CT_ERR_NOT_FOUND || r == 0)
        return 0;
    booted.script_errors++;
    if (booted.strict)
        log__error("the boot script's %s() failed and --strict is on: stopping", name);
    return booted.strict ? r : 0;
}

static int run_boot_script(void)
{
    const char *script = booted.project.boot_script;
    if (!script[0])
        return 0;
    int r = lua_env__run_file(script);
    if (r)
        return r;
    booted.script = true;
    return call_script("init", 0);
}

int kernel__boot(const kernel_desc_t *desc)
{
    memset(&booted, 0, sizeof booted);
    booted.strict = desc->strict;
    script_errors = 0;
    host__set_project_dir(desc->project_dir);
    int r = boot_services(desc);
    if (!r && desc->project_dir)
        r = project__load(desc->project_dir, desc->strict, &booted.project);
    if (!r)
        lua_env__set_script_timeout(desc->script_timeout < 0   ? 0
                                    : desc->script_timeout > 0 ? desc->script_timeout
                                    : booted.project.has_script_timeout
                                        ? booted.project.script_timeout
                                        : LUA_SCRIPT_TIMEOUT_DEFAULT);
    if (!r && booted.project.sandbox)
        r = lua_env__sandbox();
    if (!r)
        r = load_plugins(desc);
    if (!r && desc->print_load_order)
        loader__print_load_order(stdout);
    if (!r && desc->run_boot_script)
        r = run_boot_script();
    if (!r && desc->watch && booted.script)
        r = boot_script__watch(&booted.loop, booted.project.boot_script);
    if (r) {
        log__error("boot failed: %s", log__error_message(r));
        kernel__shutdown();
    }
    return r;
}

int kernel__frame(double dt)
{
    uint32_t frame_scope = profiler__kernel_api->begin("frame");
    lua_env__set_phase("a frame_begin hook");
    loader__frame_begin(dt);
    lua_env__set_phase(NULL);
    int r = 0;
    if (booted.script) {
        CT_PROFILE_SCOPE("update (Lua)");
        lua_State *L = lua_env__state();
        lua_env__api_v1()->push_number(L, dt);
        uint64_t before = booted.script_errors;
        call_script("update", 1);
        r = booted.script_errors != before ? CT_ERR_LUA : 0;
    }
    lua_env__set_phase("a frame_end hook");
    loader__frame_end(dt);
    lua_env__set_phase(NULL);
    editor__frame(dt);
    profiler__kernel_api->end(frame_scope);
    /* Scopes are gathered before any reload can unmap the code their names live in. */
    profiler__gather();
    /* The safe point: file events are gathered, then reloads swap code while nothing runs. */
    lua_env__set_phase("a hot reload");
    uv_run(&booted.loop, UV_RUN_NOWAIT);
    loader__apply_reloads();
    resources__poll_watched();
    boot_script__apply_reload();
    lua_env__set_phase(NULL);
    return r;
}

uint32_t kernel__project_frames(void) { return booted.project.frames; }

uint64_t kernel__script_errors(void) { return script_errors + booted.script_errors; }

uv_loop_t *kernel__loop(void) { return booted.loop_open ? &booted.loop : NULL; }

uint64_t kernel__shutdown(void)
{
    if (booted.script)
        call_script("shutdown", 0);
    /* Kept past the reset below, for the caller's exit code. */
    script_errors += booted.script_errors;
    /* Resources first: their unload callbacks live in plugin code that is still mapped. */
    if (booted.resources)
        resources__shutdown();
    if (booted.loader) {
        lua_env__set_phase("plugin shutdown");
        loader__shutdown();
        lua_env__set_phase(NULL);
    }
    if (booted.lua)
        lua_env__shutdown();
    if (booted.loader)
        loader__unmap(); /* after Lua: it may hold pointers into plugin code until closed */
    if (booted.registry)
        registry__shutdown();
    if (booted.jobs)
        jobs__shutdown();
    profiler__shutdown();
    boot_script__unwatch();
    if (booted.loop_open) {
        /* Close whatever handles are left (watchers) and let their close callbacks run. */
        uv_run(&booted.loop, UV_RUN_NOWAIT);
        uv_loop_close(&booted.loop);
    }
    project__free(&booted.project);
    /* Every leak reported since boot counts, also those of allocators destroyed before the root
     * (each plugin's, when the loader shuts it down), and every damaged block found. */
    uint64_t leaks = 0;
    if (booted.memory) {
        memory__shutdown();
        leaks = memory__leaks_reported() + memory__corruption_count();
    }
    memset(&booted, 0, sizeof booted);
    return leaks;
}
