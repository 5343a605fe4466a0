/* Whole-file reads for blobs. */
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
