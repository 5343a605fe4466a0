/*
 * png_probe: the golden test's one PNG reader (stb_image reads the files), for fixed pixel
 * expectations and for comparing two images.
 *   png_probe FILE.png X Y [X Y ...]
 *   png_probe FILE.png --count R G B TOLERANCE X0 Y0 X1 Y1
 *   png_probe --compare A.png B.png [TOLERANCE [MAX_DIFFERING]]
 * The first prints one line "R G B A" per point (X from the left, Y from the top); the second the
 * number of pixels in the rectangle [X0, X1] x [Y0, Y1] whose channels are each within TOLERANCE
 * of R G B. Both exit 2 when the file does not read or a point is outside the image.
 * --compare: a pixel differs when any channel differs by more than TOLERANCE (default 0). Prints
 * how many pixels differ and the largest channel difference; exits 0 when at most MAX_DIFFERING
 * pixels (default 0) differ, 1 otherwise, 2 when a file does not read or the sizes differ.
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

/* The RGBA pixels of `path`, or NULL (said on stderr). */
static unsigned char *load(const char *path, int *w, int *h)
{
    int n;
    unsigned char *px = stbi_load(path, w, h, &n, 4);
    if (!px)
        fprintf(stderr, "png_probe: cannot read %s: %s\n", path, stbi_failure_reason());
    return px;
}

static int compare(int argc, char **argv)
{
    if (argc < 4 || argc > 6) {
        fprintf(stderr, "usage: png_probe --compare A.png B.png [TOLERANCE [MAX_DIFFERING]]\n");
        return 2;
    }
    const int tolerance = argc > 4 ? atoi(argv[4]) : 0;
    const long max_differing = argc > 5 ? atol(argv[5]) : 0;
    int w[2], h[2];
    unsigned char *px[2] = {NULL, NULL};
    int status = 2;
    for (int k = 0; k < 2; k++)
        if (!(px[k] = load(argv[2 + k], &w[k], &h[k])))
            goto done;
    if (w[0] != w[1] || h[0] != h[1]) {
        fprintf(stderr, "png_probe: %s is %dx%d, %s is %dx%d\n", argv[2], w[0], h[0], argv[3],
                w[1], h[1]);
        goto done;
    }
    long differing = 0;
    int largest = 0;
    for (long i = 0; i < (long)w[0] * h[0]; i++) {
        int worst = 0;
        for (int c = 0; c < 4; c++) {
            const int d = abs(px[0][4 * i + c] - px[1][4 * i + c]);
            worst = d > worst ? d : worst;
        }
        differing += worst > tolerance;
        largest = worst > largest ? worst : largest;
    }
    printf("png_probe: %ld of %d pixels differ by more than %d (largest channel difference %d; "
           "%ld allowed)\n",
           differing, w[0] * h[0], tolerance, largest, max_differing);
    status = differing > max_differing ? 1 : 0;
done:
    stbi_image_free(px[0]);
    stbi_image_free(px[1]);
    return status;
}

static int count(int argc, char **argv, const unsigned char *px, int w, int h)
{
    long v[8];
    for (int k = 0; k < 8; k++)
        v[k] = 3 + k < argc ? strtol(argv[3 + k], NULL, 10) : -1;
    if (argc != 11 || v[4] < 0 || v[5] < 0 || v[6] >= w || v[7] >= h || v[4] > v[6] ||
        v[5] > v[7]) {
        fprintf(stderr, "png_probe: --count R G B TOLERANCE X0 Y0 X1 Y1 within %d x %d\n", w, h);
        return 2;
    }
    long found = 0;
    for (long y = v[5]; y <= v[7]; y++)
        for (long x = v[4]; x <= v[6]; x++) {
            const unsigned char *p = &px[4 * ((size_t)y * w + x)];
            found += labs(p[0] - v[0]) <= v[3] && labs(p[1] - v[1]) <= v[3] &&
                     labs(p[2] - v[2]) <= v[3];
        }
    printf("%ld\n", found);
    return 0;
}

static int points(int argc, char **argv, const unsigned char *px, int w, int h)
{
    for (int a = 2; a + 1 < argc; a += 2) {
        const long x = strtol(argv[a], NULL, 10), y = strtol(argv[a + 1], NULL, 10);
        if (x < 0 || y < 0 || x >= w || y >= h) {
            fprintf(stderr, "png_probe: (%ld, %ld) is outside %s (%d x %d)\n", x, y, argv[1], w, h);
            return 2;
        }
        const unsigned char *p = &px[4 * ((size_t)y * w + x)];
        printf("%u %u %u %u\n", p[0], p[1], p[2], p[3]);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--compare"))
        return compare(argc, argv);
    if (argc < 4 || (argc % 2 && strcmp(argv[2], "--count"))) {
        fprintf(stderr, "usage: png_probe FILE.png X Y [X Y ...] | FILE.png --count R G B "
                        "TOLERANCE X0 Y0 X1 Y1 | --compare A.png B.png [TOLERANCE [MAX_DIFFERING]]\n");
        return 2;
    }
    int w, h;
    unsigned char *px = load(argv[1], &w, &h);
    if (!px)
        return 2;
    const int status =
        !strcmp(argv[2], "--count") ? count(argc, argv, px, w, h) : points(argc, argv, px, w, h);
    stbi_image_free(px);
    return status;
}
