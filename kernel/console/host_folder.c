/* The private folder a `--host` node copies its project's scripts into, and the ones left behind.
 *
 * A node removes its folder when it exits, but not when it is killed (SIGKILL, a crash). So the
 * folder's name says whose it is: <tmp>/cuttle-host-<pid>-<start>-XXXXXX, where <start> is the
 * owner's start time (field 22 of /proc/<pid>/stat), which tells a dead owner from a new process
 * that got its pid. Each node, before it makes its own, removes the folders of that form that are
 * its user's real folders (not links) and whose owner is gone. Anything else (another user's,
 * another name, an owner still running or one it cannot tell) is left alone. */
#include "console/console_internal.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>

#include "base/log.h"

#define HOST_FOLDER_PREFIX "cuttle-host-"
/* Bounds on a temporary folder someone else fills: entries looked at, folders removed. */
#define HOST_FOLDER_MAX_SCANNED 100000
#define HOST_FOLDER_MAX_REMOVED 64

/* The start time of process `pid` in clock ticks since boot; 0 when there is no such process;
 * UINT64_MAX when it cannot be told (no /proc). */
static uint64_t process_start(long pid)
{
    char path[64], text[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno != ENOENT)
            return UINT64_MAX;
        /* No /proc at all: ask the kernel whether the pid runs. */
        if (access("/proc/self/stat", R_OK) != 0)
            return kill((pid_t)pid, 0) == 0 || errno == EPERM ? UINT64_MAX : 0;
        return 0;
    }
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    /* "pid (name) state ppid ...": the name may hold spaces and ')', so count from the last
     * ')'; the start time is the 20th field after it. */
    char *p = strrchr(text, ')');
    for (int field = 0; p && field < 20; field++)
        p = strchr(p + 1, ' ');
    unsigned long long start;
    if (!p || sscanf(p + 1, "%llu", &start) != 1)
        return UINT64_MAX;
    return start;
}

/* Whether `name` is a folder of the form this file makes whose owner (*pid) is gone. */
static bool owner_gone(const char *name, long *pid_out)
{
    long pid;
    unsigned long long start;
    int used = 0;
    if (sscanf(name, HOST_FOLDER_PREFIX "%ld-%llu-%n", &pid, &start, &used) != 2 || !used ||
        strlen(name + used) != 6 || pid <= 0)
        return false;
    /* A start time of 0 was unknown to the maker: then only a missing process tells. */
    uint64_t now = process_start(pid);
    *pid_out = pid;
    return now == 0 || (now != UINT64_MAX && start != 0 && now != start);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

uint32_t host_folder__sweep(const char *tmp_dir)
{
    DIR *d = opendir(tmp_dir);
    if (!d)
        return 0;
    uint32_t removed = 0, scanned = 0;
    struct dirent *e;
    while ((e = readdir(d)) && scanned++ < HOST_FOLDER_MAX_SCANNED &&
           removed < HOST_FOLDER_MAX_REMOVED) {
        long pid;
        if (strncmp(e->d_name, HOST_FOLDER_PREFIX, strlen(HOST_FOLDER_PREFIX)) != 0 ||
            !owner_gone(e->d_name, &pid))
            continue;
        char path[1024];
        struct stat st;
        if (snprintf(path, sizeof path, "%s/%s", tmp_dir, e->d_name) >= (int)sizeof path ||
            lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
            continue;
        /* Depth first, never through a link or onto another file system. */
        if (nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) == 0) {
            log__info("--host: removed %s, left by a node that did not exit (its process %ld "
                      "is gone)",
                      path, pid);
            removed++;
        }
    }
    closedir(d);
    return removed;
}

int host_folder__make(char *dir, size_t size)
{
    char tmp[512];
    size_t tmp_size = sizeof tmp;
    if (uv_os_tmpdir(tmp, &tmp_size) != 0)
        snprintf(tmp, sizeof tmp, "/tmp");
    host_folder__sweep(tmp);
    uint64_t start = process_start((long)getpid());
    int n = snprintf(dir, size, "%s/" HOST_FOLDER_PREFIX "%ld-%" PRIu64 "-XXXXXX", tmp,
                     (long)getpid(), start == UINT64_MAX ? 0 : start);
    if (n < 0 || (size_t)n >= size || !mkdtemp(dir)) {
        log__error("--host: cannot make a private folder in %s: %s", tmp,
                   n < 0 || (size_t)n >= size ? "its path is too long" : strerror(errno));
        dir[0] = '\0';
        return CT_ERR_IO;
    }
    return 0;
}

void host_folder__remove(const char *dir)
{
    if (dir[0])
        nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}
