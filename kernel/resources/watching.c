/* Sources followed for hot reload (ct_resource_api_v5.watch_source): the one way a module has
 * its resources compiled again when their source files change while the engine runs. At each
 * frame's safe point the kernel compares every followed source's modification time, size and
 * inode with what it saw last and reloads the resource from source on any difference. A change
 * is acted on once: a broken edit is reported and the loaded version stays until the next edit. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "base/log.h"
#include "resources_internal.h"

#define MAX_WATCHES 256

typedef struct watch_t {
    char type[RESOURCES_MAX_TYPE + 1];
    char name[RESOURCES_MAX_NAME + 1];
    bool seen; /* the source existed last time */
    int64_t mtime_ns;
    uint64_t size, inode;
} watch_t;

static watch_t watches[MAX_WATCHES];
static uint32_t num_watches;

static watch_t *find_watch(const char *type, const char *name)
{
    for (uint32_t i = 0; i < num_watches; i++)
        if (!strcmp(watches[i].type, type) && !strcmp(watches[i].name, name))
            return &watches[i];
    return NULL;
}

/* What the source looks like now; false when there is none (or no project). */
static bool stamp(const watch_t *w, int64_t *mtime_ns, uint64_t *size, uint64_t *inode)
{
    const char *project = resources__project_dir();
    char path[RESOURCES_PATH_SIZE];
    struct stat st;
    if (!project ||
        (size_t)snprintf(path, sizeof path, "%s/%s.%s", project, w->name, w->type) >= sizeof path ||
        stat(path, &st) != 0)
        return false;
    *mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    *size = (uint64_t)st.st_size;
    *inode = (uint64_t)st.st_ino;
    return true;
}

int resources__watch_source(const char *type, const char *name)
{
    if (!type || !name || !resources__get(type, name)) {
        log__error("resources: cannot follow the source of %s '%s': it is not loaded",
                   type ? type : "(null)", name ? name : "(null)");
        return CT_ERR_NOT_FOUND;
    }
    if (find_watch(type, name))
        return 0;
    if (num_watches == MAX_WATCHES || strlen(type) > RESOURCES_MAX_TYPE ||
        strlen(name) > RESOURCES_MAX_NAME) {
        log__error("resources: cannot follow the source of %s '%s': %s", type, name,
                   num_watches == MAX_WATCHES ? "256 sources are followed already"
                                              : "the name is too long");
        return CT_ERR_FULL;
    }
    watch_t *w = &watches[num_watches++];
    memset(w, 0, sizeof *w);
    memcpy(w->type, type, strlen(type));
    memcpy(w->name, name, strlen(name));
    w->seen = stamp(w, &w->mtime_ns, &w->size, &w->inode);
    return 0;
}

void resources__unwatch_source(const char *type, const char *name)
{
    watch_t *w = type && name ? find_watch(type, name) : NULL;
    if (w)
        *w = watches[--num_watches];
}

void resources__poll_watched(void)
{
    for (uint32_t i = 0; i < num_watches;) {
        watch_t *w = &watches[i];
        if (!resources__get(w->type, w->name)) { /* unloaded: nothing left to follow */
            *w = watches[--num_watches];
            continue;
        }
        int64_t mtime_ns = 0;
        uint64_t size = 0, inode = 0;
        const bool seen = stamp(w, &mtime_ns, &size, &inode);
        const bool changed =
            seen && (!w->seen || mtime_ns != w->mtime_ns || size != w->size || inode != w->inode);
        w->seen = seen, w->mtime_ns = mtime_ns, w->size = size, w->inode = inode;
        if (changed) {
            char type[sizeof w->type], name[sizeof w->name];
            memcpy(type, w->type, sizeof type);
            memcpy(name, w->name, sizeof name);
            /* The reload may unload resources and so change this table: work on copies. */
            resources__reload_source(type, name);
        }
        i++;
    }
}

void resources__forget_watches(void) { num_watches = 0; }
