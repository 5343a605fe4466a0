/*
 * ct_file.h: reading a whole file into memory (an SDK helper, no API id: inline functions only),
 * for tools, format readers and tests. A plugin reads its project's files through ct.resource
 * (ct_resource.h), which keeps them inside the project folder; this helper opens any path it is
 * given.
 *
 *     size_t size;
 *     char err[256];
 *     uint8_t *bytes = ct_file_read("scene.gltf", a, 1u << 30, &size, err, sizeof err);
 *     if (!bytes) { fprintf(stderr, "%s\n", err); return 1; }
 *     ...                                      // bytes[size] is a NUL, for text
 *     ct_free(a, bytes, size + 1);
 *
 * Only regular files are read: the file is opened without blocking and checked before anything
 * is read, so a FIFO (which would hold an ordinary open until a writer came), a socket or a
 * device is refused at once. Threads: any; nothing is shared. POSIX.
 */
#ifndef CT_FILE_H
#define CT_FILE_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ct_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The file at `path`, whole, in one block of `a` of *size + 1 bytes (the last one a NUL): the
 * caller frees it with ct_free(a, bytes, *size + 1). NULL when the file cannot be opened, its size
 * cannot be asked, it is larger than `max_size` bytes, reading fails or `a` has no memory; `err`
 * (err_size bytes, may be 0) then says which, starting with the path. *size is 0 on failure.
 */
static inline uint8_t *ct_file_read(const char *path, ct_allocator_t *a, size_t max_size,
                                    size_t *size, char *err, size_t err_size)
{
    *size = 0;
#ifdef O_CLOEXEC
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
#else
    const int fd = open(path, O_RDONLY | O_NONBLOCK);
#endif
    struct stat st;
    const int stat_ok = fd >= 0 && fstat(fd, &st) == 0;
    if (!stat_ok || !S_ISREG(st.st_mode) || st.st_size < 0 ||
        (unsigned long long)st.st_size > max_size) {
        const int why = fd < 0 ? errno : stat_ok && S_ISDIR(st.st_mode) ? EISDIR : 0;
        const int regular = stat_ok && S_ISREG(st.st_mode);
        if (fd >= 0)
            close(fd);
        /* The reason may be cut to err_size; an encoding error leaves it empty. */
        int said = 0;
        if (err_size && regular)
            said = snprintf(err, err_size, "%s: not a readable file of at most %zu bytes", path,
                            max_size);
        else if (err_size)
            said = snprintf(err, err_size, "%s: cannot open: %s", path,
                            why ? strerror(why) : "not a regular file (a FIFO, socket or device)");
        if (said < 0)
            err[0] = 0;
        return NULL;
    }
    const size_t n = (size_t)st.st_size;
    uint8_t *bytes = (uint8_t *)ct_alloc(a, n + 1);
    size_t got = 0;
    while (bytes && got < n) {
        const ssize_t r = read(fd, bytes + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    if (!bytes || got != n) {
        if (bytes)
            ct_free(a, bytes, n + 1);
        if (err_size && snprintf(err, err_size, "%s: %s", path,
                                 bytes ? "reading failed" : "out of memory") < 0)
            err[0] = 0;
        return NULL;
    }
    bytes[n] = 0;
    *size = n;
    return bytes;
}

#ifdef __cplusplus
}
#endif
#endif
