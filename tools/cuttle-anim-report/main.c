/*
 * cuttle-anim-report: compresses a clip the way the animation compiler does and prints its error
 * in the metric the animation-compression field uses (ACL's: virtual points 3 cm from every bone,
 * largest distance in object space over every bone and raw sample, plus the 99th percentile) and
 * its ratio (40 bytes x bones x samples / compressed size), for both modes.
 *
 *   cuttle-anim-report [--units M] [--spec-mm E] [--precision-mm E] [--rate HZ]
 *                      [--skin N] [--animation N] FILE.bvh|FILE.gltf|FILE.glb
 *
 * --units: metres per file unit (default 1; CMU BVH: 0.056444, centimetre files: 0.01).
 * One line of JSON per mode, e.g.
 *   {"clip":"01_01.bvh","mode":"spec","bones":31,"samples":2752,"max_mm":4.1,"p99_mm":1.2,
 *    "ratio":12.3,"bytes":276000}
 */
#include "ct_heap.h"
#include "animation_source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(void)
{
    fprintf(stderr, "usage: cuttle-anim-report [--units M] [--spec-mm E] [--precision-mm E] "
                    "[--rate HZ] [--skin N] [--animation N] FILE.bvh|FILE.gltf|FILE.glb\n");
    return 2;
}

/* A number argument, refused unless it is all digits of a finite positive value. */
static bool positive(const char *s, double *out)
{
    char *end;
    *out = strtod(s, &end);
    return *s && !*end && *out > 0 && *out < 1e9;
}

int main(int argc, char **argv)
{
    double units = 1, spec_mm = 10, precision_mm = 0.5, rate = 30, skin = 0, animation = 0;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        double *opt = !strcmp(argv[i], "--units")          ? &units
                      : !strcmp(argv[i], "--spec-mm")      ? &spec_mm
                      : !strcmp(argv[i], "--precision-mm") ? &precision_mm
                      : !strcmp(argv[i], "--rate")         ? &rate
                      : !strcmp(argv[i], "--skin")         ? &skin
                      : !strcmp(argv[i], "--animation")    ? &animation
                                                           : NULL;
        if (opt && i + 1 < argc && (positive(argv[i + 1], opt) ||
                                    ((opt == &skin || opt == &animation) && !strcmp(argv[i + 1], "0")))) {
            i++;
        } else if (!opt && argv[i][0] != '-' && !path) {
            path = argv[i];
        } else {
            fprintf(stderr, "cuttle-anim-report: bad argument \"%s\"\n", argv[i]);
            return usage();
        }
    }
    if (!path)
        return usage();
    ct_allocator_t *heap = ct_heap_allocator();
    char err[512];
    anim__raw_owned raw;
    const size_t len = strlen(path);
    int rc;
    if (len > 4 && !strcmp(path + len - 4, ".bvh")) {
        ct_bvh_t *bvh = ct_bvh_load_file(path, NULL, err, sizeof err);
        if (!bvh) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        if (bvh->warning)
            fprintf(stderr, "%s: warning: %s\n", path, bvh->warning);
        rc = anim__raw_from_bvh(bvh, units, heap, &raw);
        snprintf(err, sizeof err, "%s", "too many joints or frames");
        ct_bvh_free(bvh);
    } else {
        ct_gltf_t *doc = ct_gltf_load_file(path, NULL, err, sizeof err);
        if (!doc) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        rc = anim__raw_from_gltf(doc, (uint32_t)skin, (uint32_t)animation, (float)rate, units,
                                 heap, &raw, err, sizeof err);
        ct_gltf_free(doc);
    }
    if (rc) {
        fprintf(stderr, "%s: %s\n", path, err);
        return 1;
    }
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    for (int mode = 0; mode < 2; mode++) {
        const anim__settings s = {(anim__mode)mode, (mode ? precision_mm : spec_mm) / 1000.0};
        anim__bytes blob;
        anim__clip clip;
        anim__error_report r;
        double achieved;
        rc = anim__compress(&raw.raw, &s, NULL, 0, heap, &blob, &achieved);
        if (rc || anim__clip_open(blob.data, blob.size, &clip) ||
            anim__measure(&raw.raw, &clip, blob.size, heap, &r)) {
            fprintf(stderr, "%s: %s mode: compression failed (%d)\n", path, mode ? "precision" : "spec", rc);
            anim__raw_free(&raw);
            return 1;
        }
        printf("{\"clip\":\"%s\",\"mode\":\"%s\",\"bones\":%u,\"samples\":%u,\"target_mm\":%g,"
               "\"max_mm\":%.4f,\"p99_mm\":%.4f,\"ratio\":%.2f,\"bytes\":%zu,\"worst_bone\":%u}\n",
               base, mode ? "precision" : "spec", raw.raw.num_bones, raw.raw.num_samples,
               s.target_error_m * 1000, r.max_mm, r.p99_mm, r.ratio, blob.size, r.worst_bone);
        anim__bytes_free(&blob);
    }
    anim__raw_free(&raw);
    return 0;
}
