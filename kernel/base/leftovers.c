/* Names that say their maker, and the sweep of the ones whose maker is gone (see leftovers.h). */
#include "base/leftovers.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>

#include "base/log.h"

/* Bounds on a temporary folder someone else fills: entries looked at, entries removed. */
#define LEFTOVERS_MAX_SCANNED 100000
#define LEFTOVERS_MAX_REMOVED 64

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

/* Whether `name` is of kind `k` and its maker (*pid_out) is gone. */
static bool maker_gone(const leftovers_kind_t *k, const char *name, long *pid_out)
{
    const size_t prefix_len = strlen(k->prefix);
    long pid;
    unsigned long long start;
    int used = 0;
    if (strncmp(name, k->prefix, prefix_len) != 0 ||
        sscanf(name + prefix_len, "%ld-%llu-%n", &pid, &start, &used) != 2 || !used || pid <= 0 ||
        !k->suffix_ok(name + prefix_len + used))
        return false;
    /* A start time of 0 was unknown to the maker: then only a missing process tells. */
    uint64_t now = process_start(pid);
    *pid_out = pid;
    return now == 0 || (now != UINT64_MAX && start != 0 && now != start);
}

void leftovers__tmp_dir(char *out, size_t size)
{
    size_t len = size;
    if (uv_os_tmpdir(out, &len) != 0)
        snprintf(out, size, "/tmp");
}

bool leftovers__name(const leftovers_kind_t *k, const char *tmp_dir, char *out, size_t size)
{
    uint64_t start = process_start((long)getpid());
    int n = snprintf(out, size, "%s/%s%ld-%" PRIu64 "-", tmp_dir, k->prefix, (long)getpid(),
                     start == UINT64_MAX ? 0 : start);
    return n >= 0 && (size_t)n < size;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

bool leftovers__remove_folder(const char *path)
{
    return nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) == 0;
}

uint32_t leftovers__sweep(const leftovers_kind_t *k, const char *tmp_dir)
{
    DIR *d = opendir(tmp_dir);
    if (!d)
        return 0;
    uint32_t removed = 0, scanned = 0;
    struct dirent *e;
    while ((e = readdir(d)) && scanned++ < LEFTOVERS_MAX_SCANNED &&
           removed < LEFTOVERS_MAX_REMOVED) {
        long pid;
        if (!maker_gone(k, e->d_name, &pid))
            continue;
        char path[1024];
        struct stat st;
        if (snprintf(path, sizeof path, "%s/%s", tmp_dir, e->d_name) >= (int)sizeof path ||
            lstat(path, &st) != 0 || !(k->folder ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode)) ||
            st.st_uid != geteuid())
            continue;
        if (k->folder ? leftovers__remove_folder(path) : unlink(path) == 0) {
            log__info("removed %s, %s left by process %ld, which is gone", path, k->what, pid);
            removed++;
        }
    }
    closedir(d);
    return removed;
}
