/* Whole-file reads and crash-safe writes for blobs and the manifest. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "resources_internal.h"

uint8_t *resources__read_file(const char *path, uint64_t *size)
{
    *size = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > SIZE_MAX) {
        fclose(f);
        errno = EINVAL;
        return NULL;
    }
    size_t n = (size_t)st.st_size;
    /* One spare byte so an empty file still gets a real allocation. */
    uint8_t *data = ct_alloc(resources__allocator(), n + 1);
    if (!data) {
        fclose(f);
        errno = ENOMEM;
        return NULL;
    }
    size_t got = fread(data, 1, n, f);
    fclose(f);
    if (got != n) {
        ct_free(resources__allocator(), data, n + 1);
        errno = EIO;
        return NULL;
    }
    *size = n;
    return data;
}

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

int resources__write_file(const char *path, const void *data, size_t size)
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
