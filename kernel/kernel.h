/* The kernel's boot sequence and frame loop, shared by `cuttle`, `cuttle-compile`, tests and
 * benchmarks. */
#ifndef CT_KERNEL_KERNEL_H
#define CT_KERNEL_KERNEL_H

#include "ct_types.h"

#define KERNEL_MAX_PATHS 64
/* The stack `cuttle` runs the engine (and so Lua) on: LuaJIT stops runaway recursion by its Lua
 * stack size alone, and its deepest C re-entry per Lua slot (string.gsub) needs about 60 MB of C
 * stack before that limit trips (kernel/lua/lua_stack.c). Reserved, not committed. */
#define KERNEL_STACK_SIZE (256u << 20)

typedef struct kernel_desc_t {
    const char *project_dir; /* NULL: no project */
    const char *module_dirs[KERNEL_MAX_PATHS];
    uint32_t num_module_dirs;
    const char *plugin_paths[KERNEL_MAX_PATHS];
    uint32_t num_plugin_paths;
    const char *memory_debug; /* "fill,canary" or NULL */
    double script_timeout;    /* CPU seconds per call into Lua; 0: the
                                                    * project's, else the default; < 0: off */
    uint32_t jobs;            /* 0: one thread per core */
    bool strict;
    bool watch;             /* hot reload on file changes */
    bool run_boot_script;   /* false for cuttle-compile */
    bool installed_modules; /* also search the installed modules folder */
    bool print_load_order;  /* to stdout, before the boot script runs */
} kernel_desc_t;

/* The installed engine's modules folder (<libdir>/cuttle/modules, found from the program's own
 * path); false when this program is not installed there (e.g. it runs from the build tree). */
bool kernel__installed_module_dir(char *out, size_t size);

/* Makes every API the kernel serves itself (ct.log, ct.memory, ct.jobs, ct.lua, ...) answerable
 * through get_engine_api: the one list, which kernel__boot and the plugin tests' cut-down kernel
 * (tests/plugins/fixture.c) both register. The services behind them must be initialised. */
void kernel__register_apis(void);

/* Boots services, reads the project, loads plugins and (if asked) runs the boot script's init().
 * Returns 0 or a negative ct_error; on failure everything booted so far is shut down. A boot
 * script that cannot be loaded fails the boot; an error in its init() does so only when strict. */
int kernel__boot(const kernel_desc_t *desc);
/* One frame: plugin frame_begin hooks, the boot script's update(dt), frame_end hooks, then the
 * safe point (file events, hot reloads). Returns 0 or CT_ERR_LUA if update raised. */
int kernel__frame(double dt);
/* The boot script's shutdown(), plugins in reverse order, then the services. Returns the number
 * of leaked memory blocks plus damaged blocks found during the run or by the final verification
 * of every live block (0 when clean). */
uint64_t kernel__shutdown(void);
/* Errors raised by the boot script's init(), update() and shutdown() since the last boot,
 * shutdown() included once kernel__shutdown has run. */
uint64_t kernel__script_errors(void);
/* Frames the project asks for by default (project.sjson `frames`), 0 if it does not say. */
uint32_t kernel__project_frames(void);
/* The kernel's libuv loop (console, file watchers); NULL when not booted. */
struct uv_loop_s *kernel__loop(void);

#endif
