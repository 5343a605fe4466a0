/*
 * png_probe: prints pixels of a PNG (stb_image reads it), for tests with fixed pixel expectations.
 *   png_probe FILE.png X Y [X Y ...]
 *   png_probe FILE.png --count R G B TOLERANCE X0 Y0 X1 Y1
 * The first prints one line "R G B A" per point (X from the left, Y from the top); the second the
 * number of pixels in the rectangle [X0, X1] x [Y0, Y1] whose channels are each within TOLERANCE
 * of R G B. Exits 2 when the file does not read or a point is outside the image.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#include <stb/stb_image.h>
#pragma GCC diagnostic pop

int main(int argc, char **argv)
{
    if (argc < 4 || (argc % 2 && strcmp(argv[2], "--count"))) {
        fprintf(stderr,
                "usage: png_probe FILE.png X Y [X Y ...] | --count R G B TOLERANCE X0 Y0 X1 Y1\n");
        return 2;
    }
    int w, h, n;
    unsigned char *px = stbi_load(argv[1], &w, &h, &n, 4);
    if (!px) {
        fprintf(stderr, "png_probe: cannot read %s: %s\n", argv[1], stbi_failure_reason());
        return 2;
    }
    int status = 0;
    if (!strcmp(argv[2], "--count")) {
        long v[8];
        for (int k = 0; k < 8; k++)
            v[k] = 3 + k < argc ? strtol(argv[3 + k], NULL, 10) : -1;
        if (argc != 11 || v[4] < 0 || v[5] < 0 || v[6] >= w || v[7] >= h || v[4] > v[6] ||
            v[5] > v[7]) {
            fprintf(stderr, "png_probe: --count R G B TOLERANCE X0 Y0 X1 Y1 within %d x %d\n", w,
                    h);
            stbi_image_free(px);
            return 2;
        }
        long count = 0;
        for (long y = v[5]; y <= v[7]; y++)
            for (long x = v[4]; x <= v[6]; x++) {
                const unsigned char *p = &px[4 * ((size_t)y * w + x)];
                count += labs(p[0] - v[0]) <= v[3] && labs(p[1] - v[1]) <= v[3] &&
                         labs(p[2] - v[2]) <= v[3];
            }
        printf("%ld\n", count);
        stbi_image_free(px);
        return 0;
    }
    for (int a = 2; a + 1 < argc; a += 2) {
        const long x = strtol(argv[a], NULL, 10), y = strtol(argv[a + 1], NULL, 10);
        if (x < 0 || y < 0 || x >= w || y >= h) {
            fprintf(stderr, "png_probe: (%ld, %ld) is outside %s (%d x %d)\n", x, y, argv[1], w, h);
            status = 2;
            break;
        }
        const unsigned char *p = &px[4 * ((size_t)y * w + x)];
        printf("%u %u %u %u\n", p[0], p[1], p[2], p[3]);
    }
    stbi_image_free(px);
    return status;
}
