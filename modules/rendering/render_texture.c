/*
 * render_texture.c: a material's base colour texture, made at compile time. PNG and JPEG are
 * decoded with stb_image (Debian's libstb-dev; its implementation is compiled here, once, limited
 * to those two formats, with its own warnings silenced), converted to RGBA8 and given their mip
 * chain, averaged in linear light since the data is sRGB colour. The compiled material carries
 * the levels one after the other; the gl backend uploads them as an sRGB texture.
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

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#define STBI_NO_STDIO
#include <stb/stb_image.h>
#pragma GCC diagnostic pop

void *render__read_project_file(ct_compile_ctx_o *ctx, const char *field, const char *rel, uint64_t max,
                                size_t *size)
{
    char path[RENDER_PATH_SIZE * 2];
    if (!render__m.resource->source_file(ctx, field, rel, path, sizeof path))
        return NULL;
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    const char *why = fd < 0 ? strerror(errno)
                      : fstat(fd, &st) != 0 ? strerror(errno)
                      : !S_ISREG(st.st_mode) ? "not a regular file"
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
        render__m.resource->compile_error(ctx, "%s: '%s': %s%s", field, rel, why,
                                          !strcmp(why, "too large") ? " (the limit for this kind of file)" : "");
        return NULL;
    }
    data[got] = 0;
    *size = got;
    return data;
}

static float to_linear(uint8_t c)
{
    const float v = c / 255.0f;
    return v <= 0.04045f ? v / 12.92f : powf((v + 0.055f) / 1.055f, 2.4f);
}

static uint8_t to_srgb(float v)
{
    const float s = v <= 0.0031308f ? v * 12.92f : 1.055f * powf(v, 1.0f / 2.4f) - 0.055f;
    const float b = roundf(s * 255.0f);
    return (uint8_t)(b < 0 ? 0 : b > 255 ? 255 : b);
}

uint32_t render__texture_levels(uint32_t w, uint32_t h)
{
    uint32_t levels = 1;
    while (w > 1 || h > 1)
        w = w > 1 ? w / 2 : 1, h = h > 1 ? h / 2 : 1, levels++;
    return levels;
}

/* One level from the one above it: each texel the average of up to 2x2 texels, colour in linear
 * light, alpha as it is. */
static void downsample(const uint8_t *src, uint32_t sw, uint32_t sh, uint8_t *dst, uint32_t dw, uint32_t dh)
{
    for (uint32_t y = 0; y < dh; y++)
        for (uint32_t x = 0; x < dw; x++) {
            float sum[4] = {0, 0, 0, 0};
            uint32_t n = 0;
            for (uint32_t dy = 0; dy < 2; dy++)
                for (uint32_t dx = 0; dx < 2; dx++) {
                    const uint32_t sx = 2 * x + dx, sy = 2 * y + dy;
                    if (sx >= sw || sy >= sh)
                        continue;
                    const uint8_t *p = &src[4 * ((size_t)sy * sw + sx)];
                    for (int k = 0; k < 3; k++)
                        sum[k] += to_linear(p[k]);
                    sum[3] += p[3];
                    n++;
                }
            uint8_t *o = &dst[4 * ((size_t)y * dw + x)];
            for (int k = 0; k < 3; k++)
                o[k] = to_srgb(sum[k] / (float)n);
            o[3] = (uint8_t)roundf(sum[3] / (float)n);
        }
}

uint8_t *render__decode_texture(ct_compile_ctx_o *ctx, const char *what, const uint8_t *bytes, size_t size,
                                render__texture_info *out)
{
    int w = 0, h = 0, channels = 0;
    if (size > INT32_MAX || !stbi_info_from_memory(bytes, (int)size, &w, &h, &channels)) {
        render__m.resource->compile_error(ctx, "%s: cannot be decoded as PNG or JPEG (corrupt, or another format: %s)", what,
                                          stbi_failure_reason() ? stbi_failure_reason() : "unknown format");
        return NULL;
    }
    if (w < 1 || h < 1 || w > RENDER_MAX_TEXTURE_SIZE || h > RENDER_MAX_TEXTURE_SIZE) {
        render__m.resource->compile_error(ctx, "%s: %d x %d pixels is too large (at most %d x %d)", what, w, h,
                                          RENDER_MAX_TEXTURE_SIZE, RENDER_MAX_TEXTURE_SIZE);
        return NULL;
    }
    uint8_t *pixels = stbi_load_from_memory(bytes, (int)size, &w, &h, &channels, 4);
    if (!pixels) {
        render__m.resource->compile_error(ctx, "%s: the image is corrupt (%s)", what,
                                          stbi_failure_reason() ? stbi_failure_reason() : "decode failed");
        return NULL;
    }
    const uint32_t levels = render__texture_levels((uint32_t)w, (uint32_t)h);
    const size_t total = render__texture_bytes((uint32_t)w, (uint32_t)h, levels);
    uint8_t *chain = ct_alloc(render__m.allocator, total);
    if (!chain) {
        stbi_image_free(pixels);
        render__m.resource->compile_error(ctx, "%s: out of memory for its mip levels", what);
        return NULL;
    }
    memcpy(chain, pixels, (size_t)w * h * 4);
    stbi_image_free(pixels);
    uint8_t *level = chain;
    uint32_t lw = (uint32_t)w, lh = (uint32_t)h;
    for (uint32_t l = 1; l < levels; l++) {
        const uint32_t nw = lw > 1 ? lw / 2 : 1, nh = lh > 1 ? lh / 2 : 1;
        uint8_t *next = level + (size_t)lw * lh * 4;
        downsample(level, lw, lh, next, nw, nh);
        level = next, lw = nw, lh = nh;
    }
    *out = (render__texture_info){.width = (uint32_t)w, .height = (uint32_t)h, .levels = levels,
                                  .flags = RENDER_TEXTURE_SRGB};
    return chain;
}
