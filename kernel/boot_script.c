/*
 * Reloading the boot script. The new file is compiled first, so a syntax error changes nothing.
 * Then it runs in the same Lua state: its functions replace the old ones and every global keeps
 * its value unless the file's top level assigns it. Last, its reload() runs if it defines one
 * (init() never runs twice): that is where a script moves or rebuilds the state it keeps.
 * Without reload(), the kernel says that only the functions were replaced.
 */
#include "boot_script.h"

#include <lua.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "lua/lua_env.h"

/* Editors write in bursts (truncate, write, rename); wait for the file to settle. */
#define QUIET_NS (250ull * 1000 * 1000)

static struct {
    uv_fs_event_t handle;
    bool watching;
    char path[1024];
    const char *file;    /* the name within its folder, inside path */
    uint64_t changed_at; /* 0: no change pending */
} W;

static void on_change(uv_fs_event_t *handle, const char *filename, int events, int status)
{
    (void)handle;
    (void)events;
    if (status == 0 && (!filename || strcmp(filename, W.file) == 0))
        W.changed_at = uv_hrtime();
}

int boot_script__watch(uv_loop_t *loop, const char *path)
{
    char dir[sizeof W.path];
    if (snprintf(W.path, sizeof W.path, "%s", path) >= (int)sizeof W.path)
        return CT_ERR_INVALID;
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    W.file = strrchr(W.path, '/') ? strrchr(W.path, '/') + 1 : W.path;
    if (slash)
        *slash = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    /* The folder, not the file: an editor that saves by renaming a new file over the old one
     * would leave a watch on the file itself pointing at the deleted inode. */
    int rc = uv_fs_event_init(loop, &W.handle);
    if (rc == 0)
        rc = uv_fs_event_start(&W.handle, on_change, dir, 0);
    if (rc != 0) {
        log__error("%s: cannot watch the boot script for --watch: %s", path, uv_strerror(rc));
        return CT_ERR_IO;
    }
    W.watching = true;
    return 0;
}

bool boot_script__apply_reload(void)
{
    if (!W.watching || !W.changed_at || uv_hrtime() - W.changed_at < QUIET_NS)
        return false;
    W.changed_at = 0;
    /* reload() belongs to the file that defines it: the old one's must not run for a new file
     * that has none, so it is set aside, and put back only if the new file does not run. */
    lua_State *L = lua_env__state();
    lua_getglobal(L, "reload");
    lua_pushnil(L);
    lua_setglobal(L, "reload");
    int failed = lua_env__run_file(W.path);
    if (failed)
        lua_setglobal(L, "reload");
    else
        lua_pop(L, 1);
    if (failed) {
        log__error("%s: reload failed (see above); a syntax error keeps the old script whole, an "
                   "error while running keeps what ran before it",
                   W.path);
        return false;
    }
    int rc = lua_env__call_global("reload", 0);
    if (rc == CT_ERR_NOT_FOUND)
        log__warning("%s: reloaded: its functions are replaced and globals keep their values; "
                     "init() does not run again (define reload() to carry or rebuild state)",
                     W.path);
    else if (rc == 0)
        log__info("%s: reloaded; reload() ran", W.path);
    return rc == 0 || rc == CT_ERR_NOT_FOUND;
}

void boot_script__unwatch(void)
{
    if (W.watching)
        uv_close((uv_handle_t *)&W.handle, NULL);
    W.watching = false;
    W.changed_at = 0;
}
