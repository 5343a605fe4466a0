/* Whole-file reads for blobs. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "resources_internal.h"

uint8_t *resources__read_file(const char *path, uint64_t *size)
{
    return resources__read_file_max(path, SIZE_MAX - 1, size);
}

uint8_t *resources__read_file_max(const char *path, uint64_t max, uint64_t *size)
{
    *size = 0;
    /* Non-blocking, so that a FIFO put where a file should be cannot hang the open; the type is
     * then checked on the open file, so it cannot change between the check and the read. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > max) {
        int kind = S_ISDIR(st.st_mode) ? EISDIR : S_ISREG(st.st_mode) ? EFBIG : ENODEV;
        close(fd);
        errno = kind;
        return NULL;
    }
    size_t n = (size_t)st.st_size;
    /* One spare byte so an empty file still gets a real allocation. */
    uint8_t *data = ct_alloc(resources__allocator(), n + 1);
    if (!data) {
        close(fd);
        errno = ENOMEM;
        return NULL;
    }
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, data + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    if (got != n) {
        ct_free(resources__allocator(), data, n + 1);
        errno = EIO;
        return NULL;
    }
    *size = n;
    return data;
}

const char *resources__read_error(int error)
{
    switch (error) {
    case EISDIR: return "it is a directory, not a file";
    case ENODEV: return "it is not a regular file (a FIFO, socket or device)";
    case EFBIG: return "it is larger than the limit for its kind";
    default: return strerror(error);
    }
}
