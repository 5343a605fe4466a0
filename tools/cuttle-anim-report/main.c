/*
 * cuttle-anim-report: compresses a clip the way the animation compiler does and prints its error
 * in the metric the animation-compression field uses (ACL's: virtual points 3 cm from every bone,
 * largest distance in object space over every bone and raw sample, plus the 99th percentile) and
 * its ratio (40 bytes x bones x samples / compressed size), for both modes.
 *
 * See HELP below for the options. One line of JSON per mode, e.g.
 *   {"clip":"01_01.bvh","mode":"spec","bones":31,"samples":2752,"max_mm":4.1,"p99_mm":1.2,
 *    "ratio":12.3,"bytes":276000}
 * A mode over its target also gets, on stderr, why (anim__explain_miss) and the exit status 3.
 */
#include "ct_heap.h"
#include "animation_source.h"
#include "data/nearest.h" /* the kernel's nearest-name search, compiled in (no kernel state) */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char HELP[] =
    "usage: cuttle-anim-report [options] FILE.bvh|FILE.gltf|FILE.glb\n"
    "Compresses a clip as the animation compiler does, in both modes, and prints one JSON line "
    "per\n"
    "mode: its error in ACL's metric (max and 99th percentile, mm), ratio and bytes.\n"
    "  --units M          metres per file unit (default 1; CMU BVH 0.056444, centimetres 0.01)\n"
    "  --spec-mm E        the spec mode's target (default 10)\n"
    "  --precision-mm E   the precision mode's target (default 0.5)\n"
    "  --rate HZ          glTF sample rate (default 30)\n"
    "  --skin N           glTF skin (default 0)\n"
    "  --animation NAME   glTF animation by name (\"Walk\") or index (default 0)\n"
    "  --list             list the file's animations (name, duration, channels) and exit\n"
    "  --help             this text\n"
    "Exit status: 0 both modes within target; 3 a mode over its target (stderr says why and what\n"
    "to try); 1 the file cannot be read or compressed; 2 a usage error.\n";

static int usage(void)
{
    fputs(HELP, stderr);
    return 2;
}

/* --list: one JSON line per glTF animation. */
static int list_animations(const char *path)
{
    char err[512], label[96];
    ct_gltf_t *doc = ct_gltf_load_file(path, NULL, err, sizeof err);
    if (!doc) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    for (uint32_t a = 0; a < doc->num_animations; a++) {
        anim__gltf_animation_label(doc, a, label, sizeof label);
        printf("{\"animation\":%u,\"name\":\"", a);
        for (const char *c = label; *c; c++)
            printf((unsigned char)*c < 0x20 || *c == '"' || *c == '\\' ? "\\u%04x" : "%c",
                   (unsigned char)*c);
        printf("\",\"duration_s\":%.4f,\"channels\":%u}\n", doc->animations[a].duration,
               doc->animations[a].num_channels);
    }
    ct_gltf_free(doc);
    return 0;
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
    double units = 1, spec_mm = 10, precision_mm = 0.5, rate = 30, skin = 0;
    const char *path = NULL, *animation = "0";
    bool list = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help")) {
            fputs(HELP, stdout);
            return 0;
        }
        if (!strcmp(argv[i], "--list")) {
            list = true;
            continue;
        }
        if (!strcmp(argv[i], "--animation") && i + 1 < argc && argv[i + 1][0]) {
            animation = argv[++i];
            continue;
        }
        double *opt = !strcmp(argv[i], "--units")          ? &units
                      : !strcmp(argv[i], "--spec-mm")      ? &spec_mm
                      : !strcmp(argv[i], "--precision-mm") ? &precision_mm
                      : !strcmp(argv[i], "--rate")         ? &rate
                      : !strcmp(argv[i], "--skin")         ? &skin
                                                           : NULL;
        if (opt && i + 1 < argc &&
            (positive(argv[i + 1], opt) || (opt == &skin && !strcmp(argv[i + 1], "0")))) {
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
    if (list)
        return list_animations(path);
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
        const int32_t index =
            anim__gltf_animation(doc, animation, data__nearest_name, err, sizeof err);
        rc = index < 0 ? CT_ERR_NOT_FOUND
                       : anim__raw_from_gltf(doc, (uint32_t)skin, (uint32_t)index, (float)rate,
                                             units, heap, &raw, err, sizeof err);
        ct_gltf_free(doc);
    }
    if (rc) {
        fprintf(stderr, "%s: %s\n", path, err);
        return 1;
    }
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    int status = 0;
    for (int mode = 0; mode < 2; mode++) {
        const anim__settings s = {(anim__mode)mode, (mode ? precision_mm : spec_mm) / 1000.0};
        anim__bytes blob;
        anim__clip clip;
        anim__error_report r;
        double achieved;
        rc = anim__compress(&raw.raw, &s, NULL, 0, heap, &blob, &achieved);
        if (rc || anim__clip_open(blob.data, blob.size, &clip) ||
            anim__measure(&raw.raw, &clip, blob.size, heap, &r)) {
            fprintf(stderr, "%s: %s mode: compression failed (%d)\n", path,
                    mode ? "precision" : "spec", rc);
            anim__raw_free(&raw);
            return 1;
        }
        printf("{\"clip\":\"%s\",\"mode\":\"%s\",\"bones\":%u,\"samples\":%u,\"target_mm\":%g,"
               "\"max_mm\":%.4f,\"p99_mm\":%.4f,\"ratio\":%.2f,\"bytes\":%zu,\"worst_bone\":%u}\n",
               base, mode ? "precision" : "spec", raw.raw.num_bones, raw.raw.num_samples,
               s.target_error_m * 1000, r.max_mm, r.p99_mm, r.ratio, blob.size, r.worst_bone);
        if (r.max_mm > s.target_error_m * 1000) {
            char why[768];
            anim__explain_miss(&raw.raw, &r, s.target_error_m * 1000, mode ? "precision" : "spec",
                               r.worst_bone < raw.raw.num_bones ? raw.name[r.worst_bone] : NULL,
                               why, sizeof why);
            fprintf(stderr, "%s: %s\n", path, why);
            status = 3;
        }
        anim__bytes_free(&blob);
    }
    anim__raw_free(&raw);
    return status;
}
