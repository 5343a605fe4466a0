/*
 * bench_rendering: the renderer's core on its internal functions (the module's frame is these
 * steps in this order), and the gl backend on llvmpipe. Figures:
 *   render.sort_100k_ms            merge 4 RenderContexts of 25,000 packets and stable-radix-sort
 *                                  the 100,000 (median of 31)
 *   render.sort_100k_qsort_ms      the same merge with qsort instead, for comparison
 *   render.record_ns_per_packet    recording 1,000,000 packets into a warm context, per packet
 *   render.packets_per_frame_max   the packets one frame recorded, merged, sorted and built
 *                                  (2^20 here; nothing caps it but memory: about 280 bytes each
 *                                  with the display list); render.frame_1m_ms says how long it took
 *   render.build_1t_ms / render.build_2t_ms   building the display list of 100,000 packets on
 *                                  one thread and on the kernel's job pool (2 threads here)
 *   render.build_scaling_2_threads build_1t / build_2t
 *   render.gl_1000_draws_ms        1,000 lit cubes through the gl backend at 640x480 on llvmpipe,
 *                                  glReadPixels of the frame included (median of 21); two materials
 *   render.gl_1000_materials_ms    the same with a material per cube (materials are instance data,
 *                                  so this stays one instanced call)
 *   render.skinned_1000_ms         1,000 skinned characters of 50 bones (a 1,200-vertex body,
 *                                  each vertex on two bones) sharing one mesh: the frame's 50,000
 *                                  bone palette uploaded, drawn (one instanced call), read back
 *                                  (median of 21). The palettes are made beforehand: this is the
 *                                  backend's share; finding bones through the scene graph is
 *                                  measured by the module's own timing, not here
 *   render.rigid_1000_same_mesh_ms the same 1,000 bodies drawn rigid (the target: skinned <= 2x)
 *   render.skinned_vs_rigid        skinned_1000 / rigid_1000_same_mesh
 *   render.debug_lines_100k_ms     recording 100,000 debug lines (render__debug_push_lines, what
 *                                  ct_render_api_v2.debug_line does after its checks), warm buffer,
 *                                  median of 31 (target <= 2 ms)
 *   render.shadow_pass_ms          the demo's shadow layer (a 2048 x 2048 map, as
 *                                  projects/demo/default.render_config declares) with 1,000 crates
 *                                  in it, depth only (median of 21; the demo has about 60 casters,
 *                                  so this is a bound on its cost)
 *   render.point_shadow_pass_ms    the same 1,000 crates into one shadowed point light's cube
 *                                  (six 256 x 256 faces of distances; every caster into every
 *                                  face), median of 21
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ct_heap.h"
#include "../common/bench.h"
#include "base/jobs.h"
#include "render_gpu.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A packet as a frame records it: one of 3 layers, 4 programs, 200 materials, any depth. */
static uint64_t random_key(void)
{
    const render__key_fields f = {.layer = (uint32_t)(next_random() % 3),
                                  .pass = 1,
                                  .program = (uint32_t)(next_random() % 4),
                                  .material = (uint32_t)(next_random() % 200),
                                  .depth = (uint32_t)(next_random() & ((1u << 26) - 1))};
    return render__key_encode(&f);
}

static void record(render__queue *q, uint32_t contexts, uint32_t per_context)
{
    render__queue_begin(q, contexts);
    render__command cmd = {.kind = RENDER_CMD_DRAW, .world = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, -5}};
    for (uint32_t c = 0; c < contexts; c++)
        for (uint32_t i = 0; i < per_context; i++) {
            cmd.mesh = i % 7;
            render__context_record(&q->contexts[c], ct_heap_allocator(), random_key(), &cmd);
        }
}

static int compare_packets(const void *a, const void *b)
{
    const render__packet *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    if (x->context != y->context)
        return x->context < y->context ? -1 : 1;
    return (x->command > y->command) - (x->command < y->command); /* stable, as radix is */
}

static void bench_sort(void)
{
    render__queue q;
    render__queue_init(&q, ct_heap_allocator());
    enum { RUNS = 31 };
    double radix[RUNS], quick[RUNS];
    for (int r = 0; r < RUNS; r++) {
        record(&q, 4, 25000);
        double t0 = bench_now_ns();
        render__merge_sort(&q);
        radix[r] = (bench_now_ns() - t0) / 1e6;
        record(&q, 4, 25000);
        t0 = bench_now_ns();
        uint32_t n = 0;
        for (uint32_t c = 0; c < 4; c++)
            for (uint32_t i = 0; i < q.contexts[c].n; i++)
                q.sorted[n++] = (render__packet){q.contexts[c].keys[i], c, i};
        qsort(q.sorted, n, sizeof *q.sorted, compare_packets);
        quick[r] = (bench_now_ns() - t0) / 1e6;
    }
    bench_report("render.sort_100k_ms", bench_median(radix, RUNS), "ms",
                 "merge 4 contexts + stable radix sort, 100k packets");
    bench_report("render.sort_100k_qsort_ms", bench_median(quick, RUNS), "ms",
                 "the same merge + qsort");
    render__queue_free(&q);
}

static void bench_record(void)
{
    render__queue q;
    render__queue_init(&q, ct_heap_allocator());
    enum { N = 1000000, RUNS = 9 };
    uint64_t *keys = malloc(N * sizeof *keys);
    for (uint32_t i = 0; i < N; i++)
        keys[i] = random_key();
    render__command cmd = {.kind = RENDER_CMD_DRAW, .world = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, -5}};
    double samples[RUNS];
    for (int r = 0; r < RUNS; r++) {
        render__queue_begin(&q, 1); /* warm after the first run: no growth */
        render__context *c = &q.contexts[0];
        const double t0 = bench_now_ns();
        for (uint32_t i = 0; i < N; i++) {
            cmd.mesh = i;
            render__context_record(c, ct_heap_allocator(), keys[i], &cmd);
        }
        samples[r] = (bench_now_ns() - t0) / N;
    }
    bench_report("render.record_ns_per_packet", bench_median(samples, RUNS), "ns",
                 "one packet (key + 64-byte command) into a warm context");
    free(keys);
    render__queue_free(&q);
}

static void jobs_parallel_for(void *ctx, uint32_t count, uint32_t grain, ct_range_f fn, void *user)
{
    const ct_jobs_api_v1 *jobs = ctx;
    jobs->parallel_for(count, grain, fn, user);
}

static const float view_proj[16] = {1.2f, 0, 0, 0, 0, 1.7f, 0, 0, 0, 0, -1.0f, -1, 0, 0, -0.2f, 0};

static void bench_frame_max(const render__pool *pool)
{
    render__queue q;
    render__queue_init(&q, ct_heap_allocator());
    const uint32_t contexts = 1024, per = 1024; /* 1,048,576 packets */
    record(&q, contexts, per);
    const double t0 = bench_now_ns();
    const bool ok =
        render__merge_sort(&q) && render__build(&q, view_proj, NULL, 0, pool) && !q.failed;
    const double ms = (bench_now_ns() - t0) / 1e6;
    bench_report("render.packets_per_frame_max", ok ? (double)q.num_packets : 0, "packets",
                 "recorded, merged, sorted, built in one frame");
    bench_report("render.frame_1m_ms", ms, "ms",
                 "merge-n-sort + build of those packets on the pool");
    render__queue_free(&q);
}

static double build_ms(render__queue *q, const render__pool *pool)
{
    enum { RUNS = 15 };
    double samples[RUNS];
    for (int r = 0; r < RUNS; r++) {
        const double t0 = bench_now_ns();
        render__build(q, view_proj, NULL, 0, pool);
        samples[r] = (bench_now_ns() - t0) / 1e6;
    }
    return bench_median(samples, RUNS);
}

static void bench_build(const render__pool *pool)
{
    render__queue q;
    render__queue_init(&q, ct_heap_allocator());
    record(&q, 100, 1000);
    render__merge_sort(&q);
    const double one = build_ms(&q, NULL), two = build_ms(&q, pool);
    bench_report("render.build_1t_ms", one, "ms", "display list of 100k packets, one thread");
    bench_report("render.build_2t_ms", two, "ms", "the same on the job pool");
    bench_report("render.build_scaling_2_threads", one / two, "x", "build_1t / build_2t");
    render__queue_free(&q);
}

/* 1,000 cubes with `num_materials` materials (cube i uses i % num_materials). */
static void bench_gl(const char *name, uint32_t num_materials, const char *what)
{
    char err[512];
    render__gl *gl = render__gl_create(ct_heap_allocator(), &(render__gl_desc){640, 480, false},
                                       err, sizeof err);
    render__pipeline p;
    render__default_pipeline(&p);
    p.width = 640, p.height = 480;
    if (!gl || !render__gl_set_pipeline(gl, &p, err, sizeof err)) {
        fprintf(stderr, "bench_rendering: no gl backend: %s\n", err);
        bench_report(name, 0, "ms", "gl backend unavailable");
        render__gl_destroy(gl);
        return;
    }
    static const float corners[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                        {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};
    static const uint32_t idx[36] = {0, 3, 2, 0, 2, 1, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                                     3, 7, 6, 3, 6, 2, 0, 4, 7, 0, 7, 3, 1, 2, 6, 1, 6, 5};
    render__vertex v[8];
    for (int k = 0; k < 8; k++) {
        const float len = sqrtf(3.0f);
        v[k] = (render__vertex){{corners[k][0] * 0.5f, corners[k][1] * 0.5f, corners[k][2] * 0.5f},
                                {corners[k][0] / len, corners[k][1] / len, corners[k][2] / len},
                                {0, 0}};
    }
    render__gl_mesh_set(gl, 0, v, 8, idx, 36);
    render__material *mats = malloc(num_materials * sizeof *mats);
    for (uint32_t m = 0; m < num_materials; m++)
        mats[m] = (render__material){
            RENDER_PROGRAM_LIT, 0, {0.8f, 0.5f, (float)(m % 10) * 0.1f, 1}, {0.3f, 16, 0, 0}};
    render__frame_lights lights = {0};
    lights.v[1][0] = lights.v[1][1] = lights.v[1][2] = 0.2f;
    lights.v[2][1] = 1, lights.v[3][0] = lights.v[3][1] = lights.v[3][2] = 1;
    /* 1,000 cubes on a 40 x 25 grid in front of the camera, recorded and built as a frame does. */
    render__queue q;
    render__queue_init(&q, ct_heap_allocator());
    render__queue_begin(&q, 2);
    const render__command begin = {.kind = RENDER_CMD_LAYER, .program = RENDER_NO_INDEX};
    render__context_record(&q.contexts[0], ct_heap_allocator(), 0, &begin);
    for (uint32_t i = 0; i < 1000; i++) {
        const float x = (float)(i % 40) * 0.5f - 10.0f, y = (float)(i / 40) * 0.5f - 6.0f;
        const render__command c = {.kind = RENDER_CMD_DRAW,
                                   .mesh = 0,
                                   .material = i % num_materials,
                                   .program = RENDER_PROGRAM_LIT,
                                   .world = {0.4f, 0, 0, x, 0, 0.4f, 0, y, 0, 0, 0.4f, -20.0f}};
        const render__key_fields f = {
            .pass = 1, .program = RENDER_PROGRAM_LIT, .material = i % num_materials, .depth = i};
        render__context_record(&q.contexts[1], ct_heap_allocator(), render__key_encode(&f), &c);
    }
    const float proj[16] = {1.0f, 0, 0, 0, 0, 1.333f, 0, 0, 0, 0, -1.002f, -1, 0, 0, -0.2002f, 0};
    render__merge_sort(&q);
    render__build(&q, proj, mats, num_materials, NULL);
    uint8_t *px = malloc(640 * 480 * 4);
    enum { RUNS = 21 };
    double samples[RUNS];
    uint64_t checksum = 0;
    for (int r = 0; r < RUNS; r++) {
        const double t0 = bench_now_ns();
        const uint32_t issued =
            render__gl_execute(gl, q.draws, q.num_packets, num_materials, &lights);
        render__gl_read(gl, px);
        samples[r] = (bench_now_ns() - t0) / 1e6;
        checksum += issued + px[(240 * 640 + 320) * 4];
    }
    fprintf(stderr, "gl: %s (checksum %llu)\n", render__gl_renderer(gl),
            (unsigned long long)checksum);
    bench_report(name, bench_median(samples, RUNS), "ms", what);
    free(mats);
    free(px);
    render__queue_free(&q);
    render__gl_destroy(gl);
}

/* A body of 50 bones: a column of 50 boxes, box b's bottom corners on bone b - 1 and b half and
 * half, its top ones on bone b. */
static uint32_t body(render__vertex *v, render__skin_vertex *s, uint32_t *idx)
{
    static const uint32_t face[36] = {0, 3, 2, 0, 2, 1, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                                      3, 7, 6, 3, 6, 2, 0, 4, 7, 0, 7, 3, 1, 2, 6, 1, 6, 5};
    uint32_t nv = 0, ni = 0;
    for (uint32_t b = 0; b < 50; b++) {
        for (uint32_t c = 0; c < 24; c++) {
            const uint32_t k = c % 8;
            const float x = k & 1 ? 0.1f : -0.1f, y = (float)b * 0.04f + (k & 2 ? 0.04f : 0),
                        z = k & 4 ? 0.1f : -0.1f;
            v[nv + c] = (render__vertex){{x, y, z}, {x * 7, 0, z * 7}, {0, 0}};
            const bool top = (k & 2) != 0;
            s[nv + c] =
                (render__skin_vertex){{(uint16_t)b, (uint16_t)(b ? b - 1 : 0), 0, 0},
                                      {top || !b ? 1.0f : 0.5f, top || !b ? 0 : 0.5f, 0, 0}};
        }
        for (uint32_t i = 0; i < 36; i++)
            idx[ni + i] = nv + face[i] % 8;
        nv += 24, ni += 36;
    }
    return ni;
}

/* 1,000 bodies, skinned or rigid (see the header). */
static double bench_bodies(bool skinned)
{
    char err[512];
    render__gl *gl = render__gl_create(ct_heap_allocator(), &(render__gl_desc){640, 480, false},
                                       err, sizeof err);
    render__pipeline p;
    render__default_pipeline(&p);
    p.width = 640, p.height = 480;
    if (!gl || !render__gl_set_pipeline(gl, &p, err, sizeof err)) {
        fprintf(stderr, "bench_rendering: no gl backend: %s\n", err);
        render__gl_destroy(gl);
        return 0;
    }
    static render__vertex v[50 * 24];
    static render__skin_vertex s[50 * 24];
    static uint32_t idx[50 * 36];
    const uint32_t ni = body(v, s, idx);
    render__gl_mesh_set(gl, 0, v, 50 * 24, idx, ni);
    if (skinned)
        render__gl_mesh_set_skin(gl, 0, s, 50 * 24);
    const uint32_t program = skinned ? RENDER_PROGRAM_LIT_SKINNED : RENDER_PROGRAM_LIT;
    render__material mat = {RENDER_PROGRAM_LIT, 0, {0.8f, 0.5f, 0.3f, 1}, {0.3f, 16, 0, 0}};
    render__frame_lights lights = {0};
    lights.v[1][0] = lights.v[1][1] = lights.v[1][2] = 0.2f;
    lights.v[2][1] = 1, lights.v[3][0] = lights.v[3][1] = lights.v[3][2] = 1;
    /* Each body's bones bend a little about z, more towards the top: a palette per body. */
    float(*palette)[12] = malloc(50000 * sizeof *palette);
    for (uint32_t i = 0; i < 1000; i++) {
        float acc = 0;
        for (uint32_t b = 0; b < 50; b++) {
            acc += 0.004f * (float)(i % 7);
            const float c = cosf(acc), sn = sinf(acc);
            const float m[12] = {c, -sn, 0, 0, sn, c, 0, 0, 0, 0, 1, 0};
            memcpy(palette[i * 50 + b], m, sizeof m);
        }
    }
    render__queue q;
    render__queue_init(&q, ct_heap_allocator());
    render__queue_begin(&q, 2);
    const render__command begin = {.kind = RENDER_CMD_LAYER, .program = RENDER_NO_INDEX};
    render__context_record(&q.contexts[0], ct_heap_allocator(), 0, &begin);
    for (uint32_t i = 0; i < 1000; i++) {
        const float x = (float)(i % 40) * 0.5f - 10.0f, y = (float)(i / 40) * 0.5f - 6.0f;
        const render__command c = {.kind = RENDER_CMD_DRAW,
                                   .mesh = 0,
                                   .material = 0,
                                   .program = program,
                                   .palette = skinned ? i * 50 : 0,
                                   .world = {0.2f, 0, 0, x, 0, 0.2f, 0, y, 0, 0, 0.2f, -20.0f}};
        const render__key_fields f = {.pass = 1, .program = program, .material = 0, .depth = i};
        render__context_record(&q.contexts[1], ct_heap_allocator(), render__key_encode(&f), &c);
    }
    const float proj[16] = {1.0f, 0, 0, 0, 0, 1.333f, 0, 0, 0, 0, -1.002f, -1, 0, 0, -0.2002f, 0};
    render__merge_sort(&q);
    render__build(&q, proj, &mat, 1, NULL);
    uint8_t *px = malloc(640 * 480 * 4);
    enum { RUNS = 21 };
    double samples[RUNS];
    uint64_t checksum = 0;
    for (int r = 0; r < RUNS; r++) {
        const double t0 = bench_now_ns();
        if (skinned)
            render__gl_set_palette(gl, (const float(*)[12])palette, 50000);
        const uint32_t issued = render__gl_execute(gl, q.draws, q.num_packets, 1, &lights);
        render__gl_read(gl, px);
        samples[r] = (bench_now_ns() - t0) / 1e6;
        checksum += issued + px[(240 * 640 + 320) * 4];
    }
    fprintf(stderr, "gl bodies (%s): checksum %llu\n", skinned ? "skinned" : "rigid",
            (unsigned long long)checksum);
    free(palette);
    free(px);
    render__queue_free(&q);
    render__gl_destroy(gl);
    return bench_median(samples, RUNS);
}

/* The shadow layer alone: 1,000 cubes drawn depth-only into a 2048 x 2048 map, or (local) into
 * the six faces of one point light's cube. */
static void bench_shadow(bool local)
{
    char err[512];
    render__gl *gl = render__gl_create(ct_heap_allocator(), &(render__gl_desc){640, 360, false},
                                       err, sizeof err);
    render__pipeline p;
    render__default_pipeline(&p);
    p.layers[0].flags = RENDER_LAYER_SHADOW | RENDER_LAYER_DEPTH_TEST | RENDER_LAYER_CLEAR_DEPTH;
    p.shadow_layer = 0, p.shadow_size = 2048, p.shadow_extent = 24, p.shadow_softness = 1.5f;
    if (!gl || render__pipeline_error(&p) || !render__gl_set_pipeline(gl, &p, err, sizeof err)) {
        fprintf(stderr, "bench_rendering: no gl backend for the shadow pass: %s\n", err);
        render__gl_destroy(gl);
        return;
    }
    static render__vertex v[50 * 24];
    static render__skin_vertex s[50 * 24];
    static uint32_t idx[50 * 36];
    body(v, s, idx);
    render__gl_mesh_set(gl, 0, v, 24, idx, 36); /* one box of the body: a crate */
    render__material mat = {RENDER_PROGRAM_LIT, 0, {1, 1, 1, 1}, {0, 1, 0, 0}};
    render__frame_lights lights = {0};
    /* An orthographic sun looking straight down over 24 m. */
    const float half = 12.0f;
    const float sun[16] = {1 / half, 0, 0, 0, 0, 0, -1 / 24.0f, 0, 0, 1 / half, 0, 0, 0, 0, 0, 1};
    for (int c = 0; c < 4; c++)
        memcpy(lights.v[12 + c], &sun[4 * c], 16);
    const uint32_t program = local ? RENDER_PROGRAM_SHADOW_LOCAL : RENDER_PROGRAM_SHADOW;
    if (local) { /* one point light 5 m above the middle, reaching 30 m, its cube the first */
        lights.v[1][3] = 1;
        lights.v[4][1] = 5, lights.v[4][3] = 30;
        lights.v[5][0] = lights.v[5][1] = lights.v[5][2] = 1, lights.v[5][3] = 1;
    }
    render__queue q;
    render__queue_init(&q, ct_heap_allocator());
    render__queue_begin(&q, 2);
    const render__command begin = {.kind = RENDER_CMD_LAYER, .program = RENDER_NO_INDEX};
    render__context_record(&q.contexts[0], ct_heap_allocator(), 0, &begin);
    for (uint32_t i = 0; i < 1000; i++) {
        const float x = (float)(i % 40) * 0.5f - 10.0f, z = (float)(i / 40) * 0.8f - 10.0f;
        const render__command c = {.kind = RENDER_CMD_DRAW,
                                   .program = program,
                                   .world = {2, 0, 0, x, 0, 2, 0, 0, 0, 0, 2, z}};
        const render__key_fields f = {.pass = local ? 2 : 1, .program = program, .depth = i};
        render__context_record(&q.contexts[1], ct_heap_allocator(), render__key_encode(&f), &c);
    }
    const float proj[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    render__merge_sort(&q);
    render__build(&q, proj, &mat, 1, NULL);
    uint8_t *px = malloc(640 * 360 * 4);
    enum { RUNS = 21 };
    double samples[RUNS];
    for (int r = 0; r < RUNS; r++) {
        const double t0 = bench_now_ns();
        render__gl_execute(gl, q.draws, q.num_packets, 1, &lights);
        render__gl_read(gl, px); /* waits for the GPU (the map is drawn when this returns) */
        samples[r] = (bench_now_ns() - t0) / 1e6;
    }
    if (local)
        bench_report(
            "render.point_shadow_pass_ms", bench_median(samples, RUNS), "ms",
            "shadow layer: 1,000 casters into one point light's cube (6 x 256^2), llvmpipe");
    else
        bench_report("render.shadow_pass_ms", bench_median(samples, RUNS), "ms",
                     "shadow layer: 1,000 casters into a 2048^2 depth map, llvmpipe");
    free(px);
    render__queue_free(&q);
    render__gl_destroy(gl);
}

static void bench_debug_lines(void)
{
    render__debug d = {.a = ct_heap_allocator()};
    enum { RUNS = 31 };
    double samples[RUNS];
    for (int r = 0; r < RUNS; r++) {
        render__debug_clear(&d);
        const double t0 = bench_now_ns();
        for (uint32_t i = 0; i < 100000; i++) {
            const float p[2][3] = {{(float)i, 0, 0}, {(float)i, 1, 0}};
            render__debug_push_lines(&d, p, 1, 0xff00ff00u);
        }
        samples[r] = (bench_now_ns() - t0) / 1e6;
    }
    bench_report("render.debug_lines_100k_ms", bench_median(samples, RUNS), "ms",
                 "record 100,000 debug lines (target <= 2)");
    render__debug_free(&d);
}

static void bench_skinned(void)
{
    const double skinned = bench_bodies(true), rigid = bench_bodies(false);
    bench_report("render.skinned_1000_ms", skinned, "ms",
                 "1,000 characters of 50 bones: palette upload + draw + readback, llvmpipe");
    bench_report("render.rigid_1000_same_mesh_ms", rigid, "ms", "the same bodies drawn rigid");
    bench_report("render.skinned_vs_rigid", rigid > 0 ? skinned / rigid : 0, "x", "target <= 2");
}

int main(void)
{
    if (jobs__init(0)) {
        fprintf(stderr, "bench_rendering: the job pool did not start\n");
        return 1;
    }
    const render__pool pool = {jobs_parallel_for, (void *)jobs__api_v1()};
    fprintf(stderr, "job pool: %u threads\n", jobs__api_v1()->thread_count());
    bench_sort();
    bench_record();
    bench_build(&pool);
    bench_frame_max(&pool);
    bench_gl("render.gl_1000_draws_ms", 2, "1,000 lit cubes, 640x480, llvmpipe, readback included");
    bench_gl("render.gl_1000_materials_ms", 1000, "the same, a material per cube");
    bench_debug_lines();
    bench_skinned();
    bench_shadow(false);
    bench_shadow(true);
    bench_print_table();
    jobs__shutdown();
    return 0;
}
