/*
 * render_texture.c: a material's textures, made at compile time (decoding and mip chains are in
 * render_texture_decode.c, kernel-free for its fuzz target): failures reported naming the file.
 *
 * Also the module's one reader of files a source names (meshes' OBJ, textures): opened without
 * blocking and refused unless regular, so a FIFO or a device cannot hang or flood a compile.
 */
#include "render_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void *render__read_project_file(ct_compile_ctx_o *ctx, const char *field, const char *rel,
                                uint64_t max, size_t *size)
{
    char path[RENDER_PATH_SIZE * 2];
    if (!render__m.resource->source_file(ctx, field, rel, path, sizeof path))
        return NULL;
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    const char *why = fd < 0                       ? strerror(errno)
                      : fstat(fd, &st) != 0        ? strerror(errno)
                      : !S_ISREG(st.st_mode)       ? "not a regular file"
                      : (uint64_t)st.st_size > max ? "too large"
                                                   : NULL;
    uint8_t *data = why ? NULL : ct_alloc(render__m.allocator, (size_t)st.st_size + 1);
    if (!why && !data)
        why = "out of memory";
    size_t got = 0;
    while (data && got < (size_t)st.st_size) {
        const ssize_t r = read(fd, data + got, (size_t)st.st_size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    if (data && got != (size_t)st.st_size) {
        ct_free(render__m.allocator, data, (size_t)st.st_size + 1);
        data = NULL;
        why = "read failed";
    }
    if (fd >= 0)
        close(fd);
    if (why) {
        render__m.resource->compile_error(
            ctx, "%s: '%s': %s%s", field, rel, why,
            !strcmp(why, "too large") ? " (the limit for this kind of file)" : "");
        return NULL;
    }
    data[got] = 0;
    *size = got;
    return data;
}

uint8_t *render__decode_texture(ct_compile_ctx_o *ctx, const char *what, const uint8_t *bytes,
                                size_t size, uint32_t flags, render__texture_info *out)
{
    char err[256];
    uint8_t *chain = render__texture_decode(bytes, size, flags, RENDER_MAX_TEXTURE_SIZE,
                                            render__m.allocator, out, err, sizeof err);
    if (!chain)
        render__m.resource->compile_error(ctx, "%s: %s", what, err);
    return chain;
}
