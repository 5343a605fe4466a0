/*
 * bench_animation: the figures of issue 9, measured on this machine.
 *
 *   animation.<mode>_error_mm_<clip>, animation.<mode>_ratio_<clip>
 *       For the three BVH clips of Debian's assimp-testmodels (CMU 01_01 and 01_03 at 120 Hz,
 *       Boxing_Toes at 100 Hz) compressed in spec and precision mode with the compiler's defaults
 *       (targets 10 mm and 0.5 mm), through the same function the clip compiler calls: the ACL
 *       metric's largest error (virtual points 3 cm from every bone, every raw sample) and the
 *       ratio 40 B x bones x samples / compressed bytes.
 *   animation.precision_error_mm_gltf_<clip>
 *       The glTF clips the tests import, in precision mode at 30 Hz: assimp's simple_skin and the
 *       Blender-style walker's Walk and Idle (tests/animation/gltf/walker.gltf, its skeleton under
 *       a scaled Armature node).
 *   animation.precision_error_mm_max
 *       The largest precision error of all of them, BVH and glTF (target 0.5 mm).
 *   animation.decode_pose_31_warm_us
 *       ct_animation_api_v1.sample of the full 31-bone pose of 01_01 (spec mode, compiled as a
 *       "clip" resource) at consecutive 60 Hz times, one thread: median per pose of batches of
 *       1,000, in the thread's CPU time (the machine is shared; wall time adds others' slices).
 *   animation.decode_pose_31_cold_us
 *       The same at random times with the caches flushed (64 MB written) before every pose; only
 *       the sample call is timed, with the monotonic clock (a vDSO read: the thread CPU clock is
 *       a system call that, cold, costs about a microsecond itself). Median of 101 poses, so the
 *       odd time slice lost to another program does not count.
 *   animation.decode_pose_31_cold_clock_us
 *       What reading that clock costs after the same flush, with nothing between the two reads:
 *       it is part of the cold figure, shown beside it. Not subtracted.
 *   animation.crowd_1000_ms
 *       ct_animation_api_v1.evaluate of a world of 1,000 spawned characters, each a full CMU
 *       skeleton playing 01_01 at its own time and speed: clocks, 1,000 poses sampled on ct.jobs
 *       (2 threads), 31,000 bones written with one batched transform set (world matrices
 *       included). Median per frame, wall time (it spans threads); also reported as
 *       animation.crowd_1000_cpu_ms, the main thread's CPU time, for a loaded machine.
 *   animation.euler_roundtrip_max_rad
 *       api/ct_math.h: the largest rotation error of Euler -> quaternion -> Euler -> quaternion
 *       over 100,000 random triples and the gimbal edges, every order and both frames.
 *
 * Modules come from `--modules DIR`; the BVH files from /usr/share/assimp/models/BVH.
 */
#include "ct_heap.h"
#include "../common/bench.h"

#include "animation_source.h"
#include "ct_animation.h"
#include "ct_entity.h"
#include "ct_math.h"
#include "ct_resource.h"
#include "ct_transform.h"
#include "ct_world.h"
#include "kernel.h"
#include "plugins/registry.h"

#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#define MOCAP "/usr/share/assimp/models/BVH/"
#define CMU_UNITS 0.056444

/* The calling thread's CPU time: single-thread figures are taken with it, so the other programs
 * sharing this machine's cores do not add their time slices to ours. */
static double cpu_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Precision-mode errors of the glTF clips the tests import; returns the largest. */
static double gltf_figures(void)
{
    static const struct {
        const char *file, *animation, *name;
    } clips[] = {{ASSIMP_GLTF2 "/simple_skin/simple_skin.gltf", "0", "simple_skin"},
                 {GLTF_TEST_DIR "/walker.gltf", "Walk", "walker_walk"},
                 {GLTF_TEST_DIR "/walker.gltf", "Idle", "walker_idle"}};
    double worst = 0;
    for (int c = 0; c < 3; c++) {
        char err[512];
        ct_gltf_t *doc = ct_gltf_load_file(clips[c].file, NULL, err, sizeof err);
        const int32_t a =
            doc ? anim__gltf_animation(doc, clips[c].animation, NULL, err, sizeof err) : -1;
        anim__raw_owned raw;
        if (a < 0 || anim__raw_from_gltf(doc, 0, (uint32_t)a, 30.0f, 1.0, ct_heap_allocator(), &raw,
                                         err, sizeof err)) {
            fprintf(stderr, "bench_animation: %s: %s\n", clips[c].file, err);
            exit(1);
        }
        ct_gltf_free(doc);
        const anim__settings s = {ANIM_PRECISION, 0.0005};
        anim__bytes blob;
        anim__clip clip;
        anim__error_report r;
        double achieved;
        if (anim__compress(&raw.raw, &s, NULL, 0, ct_heap_allocator(), &blob, &achieved) ||
            anim__clip_open(blob.data, blob.size, &clip) ||
            anim__measure(&raw.raw, &clip, blob.size, ct_heap_allocator(), &r)) {
            fprintf(stderr, "bench_animation: compressing %s failed\n", clips[c].name);
            exit(1);
        }
        static char names[3][64];
        snprintf(names[c], 64, "animation.precision_error_mm_gltf_%s", clips[c].name);
        bench_report(names[c], r.max_mm, "mm", "ACL metric, glTF clip at 30 Hz, precision mode");
        worst = fmax(worst, r.max_mm);
        anim__bytes_free(&blob);
        anim__raw_free(&raw);
    }
    return worst;
}

static void compression_figures(void)
{
    static const struct {
        const char *file, *name;
        double units;
    } clips[] = {{"01_01.bvh", "01_01", CMU_UNITS},
                 {"01_03.bvh", "01_03", CMU_UNITS},
                 {"Boxing_Toes.bvh", "boxing_toes", 0.01}};
    double precision_max = 0;
    for (int c = 0; c < 3; c++) {
        char err[256];
        char path[256];
        snprintf(path, sizeof path, "%s%s", MOCAP, clips[c].file);
        ct_bvh_t *bvh = ct_bvh_load_file(path, NULL, err, sizeof err);
        anim__raw_owned raw;
        if (!bvh || anim__raw_from_bvh(bvh, clips[c].units, ct_heap_allocator(), &raw)) {
            fprintf(stderr, "bench_animation: %s\n", bvh ? "too big" : err);
            exit(1);
        }
        ct_bvh_free(bvh);
        for (int mode = 0; mode < 2; mode++) {
            const anim__settings s = {(anim__mode)mode, mode ? 0.0005 : 0.010};
            anim__bytes blob;
            anim__clip clip;
            anim__error_report r;
            double achieved;
            if (anim__compress(&raw.raw, &s, NULL, 0, ct_heap_allocator(), &blob, &achieved) ||
                anim__clip_open(blob.data, blob.size, &clip) ||
                anim__measure(&raw.raw, &clip, blob.size, ct_heap_allocator(), &r)) {
                fprintf(stderr, "bench_animation: compressing %s failed\n", clips[c].file);
                exit(1);
            }
            static char names[12][64];
            char *ename = names[c * 4 + mode * 2], *rname = names[c * 4 + mode * 2 + 1];
            snprintf(ename, 64, "animation.%s_error_mm_%s", mode ? "precision" : "spec",
                     clips[c].name);
            snprintf(rname, 64, "animation.%s_ratio_%s", mode ? "precision" : "spec",
                     clips[c].name);
            bench_report(ename, r.max_mm, "mm", "ACL metric, max over bones and raw samples");
            bench_report(rname, r.ratio, "x", "40 B x bones x samples / compressed bytes");
            if (mode)
                precision_max = r.max_mm > precision_max ? r.max_mm : precision_max;
            anim__bytes_free(&blob);
        }
        anim__raw_free(&raw);
    }
    precision_max = fmax(precision_max, gltf_figures());
    bench_report("animation.precision_error_mm_max", precision_max, "mm",
                 "largest precision-mode error of every clip above, BVH and glTF (target 0.5)");
}

static void euler_figure(void)
{
    uint64_t rng = 0x243f6a8885a308d3ull;
    double worst = 0;
    for (int i = 0; i < 100000; i++) {
        double e[3];
        for (int k = 0; k < 3; k++) {
            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
            e[k] = ((double)(rng >> 11) / 9007199254740992.0 * 2 - 1) * M_PI;
        }
        if (i % 10 == 0) /* gimbal edges: the middle angle at the singularity */
            e[1] = (i / 10) % 2 ? M_PI / 2 : 0;
        for (int order = 0; order < CT_EULER_ORDER_COUNT; order++)
            for (int frame = 0; frame < 2; frame++) {
                double q[4], back[4], a[3];
                ct_quat_from_euler(e, (ct_euler_order)order, (ct_euler_frame)frame, q);
                ct_euler_from_quat(q, (ct_euler_order)order, (ct_euler_frame)frame, a);
                ct_quat_from_euler(a, (ct_euler_order)order, (ct_euler_frame)frame, back);
                double minus = 0, plus = 0;
                for (int k = 0; k < 4; k++)
                    minus += (q[k] - back[k]) * (q[k] - back[k]),
                        plus += (q[k] + back[k]) * (q[k] + back[k]);
                const double angle = 4 * asin(fmin(1.0, 0.5 * sqrt(fmin(minus, plus))));
                worst = angle > worst ? angle : worst;
            }
    }
    bench_report("animation.euler_roundtrip_max_rad", worst, "rad",
                 "Euler -> quaternion -> Euler -> quaternion, 12 orders x 2 frames");
}

static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    char buf[65536];
    size_t n;
    while (in && out && (n = fread(buf, 1, sizeof buf, in)) > 0)
        fwrite(buf, 1, n, out);
    if (in)
        fclose(in);
    if (out)
        fclose(out);
}

int main(int argc, char **argv)
{
    compression_figures();
    euler_figure();

    /* A project folder with the mocap, so the clip compiles through the resource system. */
    static char project[] = "/tmp/ct_bench_animation_XXXXXX";
    char path[256];
    if (!mkdtemp(project))
        return 1;
    snprintf(path, sizeof path, "%s/mocap", project);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/mocap/01_01.bvh", project);
    copy_file(MOCAP "01_01.bvh", path);
    snprintf(path, sizeof path, "%s/project.sjson", project);
    FILE *f = fopen(path, "wb");
    if (f)
        fclose(f);

    const char *dir = bench_arg(argc, argv, "--modules");
    static char paths[3][1024];
    const char *names[3] = {"entities/ct_entities.so", "transforms/ct_transforms.so",
                            "animation/ct_animation.so"};
    kernel_desc_t desc = {.project_dir = project, .strict = true, .jobs = 2, .num_plugin_paths = 3};
    for (int i = 0; i < 3; i++) {
        snprintf(paths[i], sizeof paths[i], "%s/%s", dir ? dir : BENCH_MODULE_DIR, names[i]);
        desc.plugin_paths[i] = paths[i];
    }
    if (kernel__boot(&desc)) {
        fprintf(stderr, "bench_animation: boot failed (modules from %s)\n", paths[0]);
        return 1;
    }
    const ct_resource_api_v1 *resource = registry__get_engine_api(CT_RESOURCE_API, 1);
    const ct_animation_api_v1 *anim = registry__get_engine_api(CT_ANIMATION_API, 1);
    const ct_world_api_v1 *worlds = registry__get_engine_api(CT_WORLD_API, 1);
    static const char skeleton[] = "source = \"mocap/01_01.bvh\" units = 0.056444";
    static const char clip_src[] = "source = \"mocap/01_01.bvh\" units = 0.056444";
    static const char unit[] = "entities = [ { components = { transform = {} animation = { "
                               "skeleton = \"cmu\" clip = \"walk\" loop = true } } } ]";
    if (!resource || !anim || !worlds ||
        resource->load_source("skeleton", "cmu", skeleton, sizeof skeleton - 1) ||
        resource->load_source("clip", "walk", clip_src, sizeof clip_src - 1) ||
        resource->load_source("unit", "dude", unit, sizeof unit - 1)) {
        fprintf(stderr, "bench_animation: setup failed\n");
        return 1;
    }
    const ct_animation_clip_o *clip = anim->clip("walk");
    const float duration = anim->clip_duration(clip);
    ct_transform_pose_t pose[31];

    /* Warm: consecutive 60 Hz times, batches of 1,000 poses, median of the batches. */
    double samples[101];
    float t = 0;
    for (int rep = 0; rep < 101; rep++) {
        const double start = cpu_now_ns();
        for (int k = 0; k < 1000; k++) {
            anim->sample(clip, t, pose, 31);
            t = t + 1.0f / 60 < duration ? t + 1.0f / 60 : 0;
        }
        samples[rep] = (cpu_now_ns() - start) / 1000 / 1000;
    }
    bench_report("animation.decode_pose_31_warm_us", bench_median(samples, 101), "us",
                 "full 31-bone pose, consecutive times, one thread");

    /* Cold: random times, 64 MB written between poses so the clip is out of every cache. */
    const size_t flush_size = (size_t)64 << 20;
    volatile uint8_t *flush = malloc(flush_size);
    uint64_t rng = 12345;
    for (int rep = 0; rep < 101; rep++) {
        for (size_t i = 0; i < flush_size; i += 64)
            flush[i] = (uint8_t)i;
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        const float at = (float)((double)(rng >> 11) / 9007199254740992.0) * duration;
        const double start = bench_now_ns();
        anim->sample(clip, at, pose, 31);
        samples[rep] = (bench_now_ns() - start) / 1000;
    }
    bench_report("animation.decode_pose_31_cold_us", bench_median(samples, 101), "us",
                 "full 31-bone pose, random time, caches flushed before each");
    for (int rep = 0; rep < 101; rep++) {
        for (size_t i = 0; i < flush_size; i += 64)
            flush[i] = (uint8_t)i;
        const double start = bench_now_ns();
        samples[rep] = (bench_now_ns() - start) / 1000;
    }
    bench_report("animation.decode_pose_31_cold_clock_us", bench_median(samples, 101), "us",
                 "the cold figure's clock reads alone, after the same flush (included in it)");
    free((void *)flush);

    /* The crowd: 1,000 characters at their own times and speeds. */
    ct_world_o *w = worlds->create_world(&(ct_world_desc_t){.name = "crowd"});
    for (int i = 0; i < 1000; i++) {
        const float at[3] = {(float)(i % 40) * 2.0f, 0, (float)(i / 40) * 2.0f};
        const ct_entity_t e = worlds->spawn_unit(w, "dude", at, NULL);
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        anim->play(w, e, "walk", &(ct_animation_play_t){0.8f + (float)(rng % 40) / 100, true});
        anim->set_time(w, e, (float)(rng % 1000) / 1000 * duration);
    }
    anim->evaluate(w, 1.0f / 60);
    double cpu[61];
    for (int rep = 0; rep < 61; rep++) {
        const double start = bench_now_ns(), cpu_start = cpu_now_ns();
        anim->evaluate(w, 1.0f / 60);
        samples[rep] = (bench_now_ns() - start) / 1e6;
        cpu[rep] = (cpu_now_ns() - cpu_start) / 1e6;
    }
    bench_report("animation.crowd_1000_ms", bench_median(samples, 61), "ms",
                 "1,000 x 31 bones: sample on ct.jobs (2 threads) + one batched transform set");
    bench_report("animation.crowd_1000_cpu_ms", bench_median(cpu, 61), "ms",
                 "the same, CPU time of the calling thread only");
    worlds->destroy_world(w);
    kernel__shutdown();
    snprintf(path, sizeof path, "rm -rf %s", project);
    if (system(path) != 0)
        fprintf(stderr, "bench_animation: could not remove %s\n", project);
    bench_print_table();
    return 0;
}
