/* Crash-safe writes for blobs and the manifest. */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "compiler.h"

static int make_parents(const char *path)
{
    char dir[RESOURCES_PATH_SIZE];
    int n = snprintf(dir, sizeof dir, "%s", path);
    if (n < 0 || (size_t)n >= sizeof dir)
        return CT_ERR_INVALID;
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(dir, 0777) != 0 && errno != EEXIST)
            return CT_ERR_IO;
        *p = '/';
    }
    return 0;
}

int compiler__write_file(const char *path, const void *data, size_t size)
{
    char tmp[RESOURCES_PATH_SIZE];
    int n = snprintf(tmp, sizeof tmp, "%s.tmp", path);
    if (n < 0 || (size_t)n >= sizeof tmp)
        return CT_ERR_INVALID;
    int rc = make_parents(path);
    if (rc)
        return rc;
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return CT_ERR_IO;
    bool ok = fwrite(data, 1, size, f) == size;
    ok = (fclose(f) == 0) && ok;
    /* The rename makes the new file appear whole or not at all, so a crash mid-write never
     * leaves a truncated blob that looks current. */
    if (!ok || rename(tmp, path) != 0) {
        remove(tmp);
        return CT_ERR_IO;
    }
    return 0;
}
