/*
 * png_compare: compares two PNGs pixel by pixel (stb_image reads them).
 *   png_compare A.png B.png [TOLERANCE [MAX_DIFFERING]]
 * A pixel differs when any channel differs by more than TOLERANCE (default 0). Prints how many
 * pixels differ and the largest channel difference; exits 0 when at most MAX_DIFFERING pixels
 * (default 0) differ, 1 otherwise, 2 when a file does not read or the sizes differ.
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
    if (argc < 3 || argc > 5) {
        fprintf(stderr, "usage: png_compare A.png B.png [TOLERANCE [MAX_DIFFERING]]\n");
        return 2;
    }
    const int tolerance = argc > 3 ? atoi(argv[3]) : 0;
    const long max_differing = argc > 4 ? atol(argv[4]) : 0;
    int w[2], h[2], n;
    unsigned char *px[2];
    for (int k = 0; k < 2; k++) {
        px[k] = stbi_load(argv[1 + k], &w[k], &h[k], &n, 4);
        if (!px[k]) {
            fprintf(stderr, "png_compare: cannot read %s: %s\n", argv[1 + k],
                    stbi_failure_reason());
            return 2;
        }
    }
    if (w[0] != w[1] || h[0] != h[1]) {
        fprintf(stderr, "png_compare: %s is %dx%d, %s is %dx%d\n", argv[1], w[0], h[0], argv[2],
                w[1], h[1]);
        return 2;
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
    printf("png_compare: %ld of %d pixels differ by more than %d (largest channel difference %d; "
           "%ld allowed)\n",
           differing, w[0] * h[0], tolerance, largest, max_differing);
    stbi_image_free(px[0]);
    stbi_image_free(px[1]);
    return differing > max_differing ? 1 : 0;
}
