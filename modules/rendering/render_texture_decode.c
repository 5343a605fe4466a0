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

/* stb_image checks its own consistency with assert(), which a corrupt JPEG can fail (found by
 * fuzz_texture: a Huffman code that does not match its table, stb_image 2.27): a failed check is
 * noted instead of aborting the process, and the image is refused. */
static _Thread_local bool stb_check_failed;
#define STBI_ASSERT(x) ((x) ? (void)0 : (void)(stb_check_failed = true))

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
static void downsample(const uint8_t *src, uint32_t sw, uint32_t sh, uint8_t *dst, uint32_t dw,
                       uint32_t dh, bool srgb)
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

/*
 * stb_image 2.27 (Debian's libstb-dev) builds a JPEG Huffman table (a DHT segment) without
 * checking that its 16 code counts sum to at most 256, and writes past the table when they do
 * (found by tests/rendering/fuzz_texture under UBSan; later stb_image refuses such tables). So
 * JPEG bytes are walked first the way stb_image walks them: marker by marker (bytes that are not
 * a marker skipped one at a time, segments by their length, entropy-coded data up to the next
 * marker), reading each DHT's tables as it does, reading zeros past the end; a table of more
 * than 256 codes refuses the file before stb_image sees it.
 */
static uint32_t byte_at(const uint8_t *b, size_t n, size_t i) { return i < n ? b[i] : 0u; }

static bool jpeg_huffman_tables_fit(const uint8_t *b, size_t n)
{
    if (n < 2 || b[0] != 0xFF || b[1] != 0xD8)
        return true; /* not a JPEG: stb_image's other readers decide */
    size_t i = 2;
    while (i < n) {
        if (b[i] != 0xFF) {
            i++;
            continue;
        }
        while (i < n && b[i] == 0xFF) /* fill bytes */
            i++;
        const uint32_t m = byte_at(b, n, i++);
        if (m == 0x00 || m == 0x01 || m == 0xD8 || (m >= 0xD0 && m <= 0xD7))
            continue; /* a stuffed 0xFF in entropy-coded data, TEM, SOI, a restart: no length */
        if (m == 0xD9)
            return true; /* EOI */
        const size_t length = byte_at(b, n, i) << 8 | byte_at(b, n, i + 1);
        if (length < 2)
            return true; /* stb_image stops here (an error, or a skip to the end) */
        if (m == 0xC4) {
            size_t p = i + 2;
            long left = (long)length - 2;
            while (left > 0) {
                uint32_t codes = 0;
                for (int k = 0; k < 16; k++)
                    codes += byte_at(b, n, p + 1 + (size_t)k);
                if (codes > 256)
                    return false;
                p += 17 + codes;
                left -= 17 + (long)codes;
            }
        }
        i += length; /* the segment; after SOS the scan's data follows, walked byte by byte */
    }
    return true;
}

/* stb_image 2.27 copies a first IDAT chunk of length 0 from a buffer it has not made yet
 * (memcpy from NULL: undefined, found by fuzz_texture under UBSan). PNG chunks are walked as it
 * walks them (length, type, data, CRC) and such a file refused first; empty IDAT chunks after
 * image data are harmless. */
static bool png_first_idat_has_data(const uint8_t *b, size_t n)
{
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (n < 8 || memcmp(b, signature, 8))
        return true; /* not a PNG */
    for (size_t i = 8; i + 8 <= n;) {
        const uint64_t length =
            (uint64_t)b[i] << 24 | (uint64_t)b[i + 1] << 16 | (uint64_t)b[i + 2] << 8 | b[i + 3];
        const uint8_t *type = &b[i + 4];
        if (!memcmp(type, "IDAT", 4))
            return length > 0; /* the first one decides */
        if (!memcmp(type, "IEND", 4))
            return true;
        if (length > n - i)
            return true; /* stb_image runs out of data first */
        i += 12 + (size_t)length;
    }
    return true;
}

/* stb_image's reason for the last failure, or `fallback` when it gives none. */
static const char *reason(const char *fallback)
{
    const char *r = stbi_failure_reason();
    return r && r[0] ? r : fallback;
}

uint8_t *render__texture_decode(const uint8_t *bytes, size_t size, uint32_t flags,
                                uint32_t max_size, ct_allocator_t *a, render__texture_info *out,
                                char *err, size_t err_size)
{
    int w = 0, h = 0, channels = 0;
    if (!jpeg_huffman_tables_fit(bytes, size)) {
        snprintf(err, err_size,
                 "the image is corrupt (a JPEG Huffman table of more than 256 codes)");
        return NULL;
    }
    if (!png_first_idat_has_data(bytes, size)) {
        snprintf(err, err_size, "the image is corrupt (its first PNG IDAT chunk is empty)");
        return NULL;
    }
    stb_check_failed = false;
    if (size > INT32_MAX || !stbi_info_from_memory(bytes, (int)size, &w, &h, &channels) ||
        stb_check_failed) {
        if (stb_check_failed)
            snprintf(err, err_size, "the image is corrupt (stb_image found it inconsistent)");
        else
            snprintf(err, err_size,
                     "cannot be decoded as PNG or JPEG (corrupt, or another format: %s)",
                     reason("unknown format"));
        return NULL;
    }
    if (w < 1 || h < 1 || w > (int)max_size || h > (int)max_size) {
        snprintf(err, err_size, "%d x %d pixels is too large (at most %u x %u)", w, h, max_size,
                 max_size);
        return NULL;
    }
    int lw0 = 0, lh0 = 0;
    uint8_t *pixels = stbi_load_from_memory(bytes, (int)size, &lw0, &lh0, &channels, 4);
    if (!pixels) {
        snprintf(err, err_size, "the image is corrupt (%s)",
                 reason("its data ends early or is damaged"));
        return NULL;
    }
    if (lw0 != w || lh0 != h || stb_check_failed) { /* the header read first and the decode agree */
        stbi_image_free(pixels);
        snprintf(err, err_size, "the image is corrupt (%s)",
                 stb_check_failed ? "stb_image found it inconsistent"
                                  : "its size changed while decoding");
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
    *out = (render__texture_info){
        .width = (uint32_t)w, .height = (uint32_t)h, .levels = levels, .flags = flags};
    return chain;
}
