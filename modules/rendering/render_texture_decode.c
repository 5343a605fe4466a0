/*
 * render_texture_decode.c: PNG and JPEG bytes into a texture: decoded with stb_image (Debian's
 * libstb-dev; its implementation is compiled here, once, limited to those two formats, with its
 * own warnings silenced), converted to RGBA8 and given their mip chain. Colour (sRGB) is averaged
 * in linear light; a normal map's texels are averaged as vectors and made unit length again, so
 * distant bumps flatten instead of shortening the normal. Kernel-free: the compiler and the fuzz
 * target (tests/rendering/fuzz_texture.c) call it alike.
 */
#include "render_gpu.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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

static uint8_t to_byte(float v)
{
    const float b = roundf(v * 255.0f);
    return (uint8_t)(b < 0 ? 0 : b > 255 ? 255 : b);
}

uint32_t render__texture_levels(uint32_t w, uint32_t h)
{
    uint32_t levels = 1;
    while (w > 1 || h > 1)
        w = w > 1 ? w / 2 : 1, h = h > 1 ? h / 2 : 1, levels++;
    return levels;
}

/* One level from the one above it: each texel the average of up to 2x2 texels; colour in linear
 * light (sRGB) or as unit vectors (normal maps), alpha as it is. */
static void downsample(const uint8_t *src, uint32_t sw, uint32_t sh, uint8_t *dst, uint32_t dw, uint32_t dh,
                       bool srgb)
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
                        sum[k] += srgb ? to_linear(p[k]) : p[k] / 127.5f - 1.0f;
                    sum[3] += p[3];
                    n++;
                }
            uint8_t *o = &dst[4 * ((size_t)y * dw + x)];
            if (srgb) {
                for (int k = 0; k < 3; k++)
                    o[k] = to_srgb(sum[k] / (float)n);
            } else {
                const float len = sqrtf(sum[0] * sum[0] + sum[1] * sum[1] + sum[2] * sum[2]);
                for (int k = 0; k < 3; k++)
                    o[k] = to_byte(len > 1e-6f ? 0.5f * sum[k] / len + 0.5f : k == 2 ? 1.0f : 0.5f);
            }
            o[3] = (uint8_t)roundf(sum[3] / (float)n);
        }
}

/* stb_image's reason for the last failure, or `fallback` when it gives none. */
static const char *reason(const char *fallback)
{
    const char *r = stbi_failure_reason();
    return r && r[0] ? r : fallback;
}

uint8_t *render__texture_decode(const uint8_t *bytes, size_t size, uint32_t flags, uint32_t max_size,
                                ct_allocator_t *a, render__texture_info *out, char *err, size_t err_size)
{
    int w = 0, h = 0, channels = 0;
    if (size > INT32_MAX || !stbi_info_from_memory(bytes, (int)size, &w, &h, &channels)) {
        snprintf(err, err_size, "cannot be decoded as PNG or JPEG (corrupt, or another format: %s)",
                 reason("unknown format"));
        return NULL;
    }
    if (w < 1 || h < 1 || w > (int)max_size || h > (int)max_size) {
        snprintf(err, err_size, "%d x %d pixels is too large (at most %u x %u)", w, h, max_size, max_size);
        return NULL;
    }
    int lw0 = 0, lh0 = 0;
    uint8_t *pixels = stbi_load_from_memory(bytes, (int)size, &lw0, &lh0, &channels, 4);
    if (!pixels) {
        snprintf(err, err_size, "the image is corrupt (%s)", reason("its data ends early or is damaged"));
        return NULL;
    }
    if (lw0 != w || lh0 != h) { /* the header read first and the decode must agree */
        stbi_image_free(pixels);
        snprintf(err, err_size, "the image is corrupt (its size changed while decoding)");
        return NULL;
    }
    const uint32_t levels = render__texture_levels((uint32_t)w, (uint32_t)h);
    const size_t total = render__texture_bytes((uint32_t)w, (uint32_t)h, levels);
    uint8_t *chain = ct_alloc(a, total);
    if (!chain) {
        stbi_image_free(pixels);
        snprintf(err, err_size, "out of memory for its mip levels");
        return NULL;
    }
    memcpy(chain, pixels, (size_t)w * h * 4);
    stbi_image_free(pixels);
    uint8_t *level = chain;
    uint32_t lw = (uint32_t)w, lh = (uint32_t)h;
    for (uint32_t l = 1; l < levels; l++) {
        const uint32_t nw = lw > 1 ? lw / 2 : 1, nh = lh > 1 ? lh / 2 : 1;
        uint8_t *next = level + (size_t)lw * lh * 4;
        downsample(level, lw, lh, next, nw, nh, (flags & RENDER_TEXTURE_SRGB) != 0);
        level = next, lw = nw, lh = nh;
    }
    *out = (render__texture_info){.width = (uint32_t)w, .height = (uint32_t)h, .levels = levels, .flags = flags};
    return chain;
}
