/*
 * png_probe: prints pixels of a PNG (stb_image reads it), for tests with fixed pixel expectations.
 *   png_probe FILE.png X Y [X Y ...]
 * One line "R G B A" per point (X from the left, Y from the top); exits 2 when the file does not
 * read or a point is outside the image.
 */
#include <stdio.h>
#include <stdlib.h>

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
    if (argc < 4 || argc % 2) {
        fprintf(stderr, "usage: png_probe FILE.png X Y [X Y ...]\n");
        return 2;
    }
    int w, h, n;
    unsigned char *px = stbi_load(argv[1], &w, &h, &n, 4);
    if (!px) {
        fprintf(stderr, "png_probe: cannot read %s: %s\n", argv[1], stbi_failure_reason());
        return 2;
    }
    int status = 0;
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
