/*
 * render_core.h: the kernel-free core of the rendering module (after the seed post "Parallel
 * rendering"): sort keys, RenderContexts, merge-n-sort, display-list building and the null
 * backend. It takes an allocator, a worker pool and plain arrays, so tests, the benchmark and the
 * replay tool compile it directly; rendering.c binds it to worlds, resources and ct.jobs.
 *
 * The frame's data flow:
 *   1. gather: jobs walk the visible objects and record packets (sort key + command) into their
 *      own RenderContext: a context is written by one job only, so recording takes no lock and no
 *      atomic (render__context_record is a bounds check and two stores; an array only grows when
 *      a frame records more than any frame before, and contexts are reused from frame to frame).
 *   2. merge-n-sort: the contexts are concatenated in context order and sorted by key with a
 *      stable LSD radix sort, so equal keys keep their recording order and never flicker.
 *   3. build: the sorted stream is cut into fixed blocks that jobs turn into display-list entries
 *      (matrices multiplied out, state changes against the previous packet flagged).
 *   4. execute: one backend consumes the display list in order (null or gl).
 * Contexts map to fixed ranges of objects (context k records objects [k * grain, (k + 1) * grain))
 * and build blocks have fixed bounds, so the output is bit-identical whatever the thread count.
 */
#ifndef RENDER_CORE_H
#define RENDER_CORE_H

#include "ct_jobs.h"
#include "ct_types.h"

#include <stdbool.h>
#include <stdint.h>

/* ---- Sort keys (documented field by field in api/ct_render.h) ------------------------------ */

#define RENDER_KEY_LAYER_SHIFT 56
#define RENDER_KEY_LAYER_BITS 8
#define RENDER_KEY_PASS_SHIFT 52
#define RENDER_KEY_PASS_BITS 4
#define RENDER_KEY_PROGRAM_SHIFT 42
#define RENDER_KEY_PROGRAM_BITS 10
#define RENDER_KEY_MATERIAL_SHIFT 26
#define RENDER_KEY_MATERIAL_BITS 16
#define RENDER_KEY_DEPTH_SHIFT 0
#define RENDER_KEY_DEPTH_BITS 26

#define RENDER_MAX_LAYERS (1u << RENDER_KEY_LAYER_BITS)
#define RENDER_MAX_PROGRAMS (1u << RENDER_KEY_PROGRAM_BITS)
#define RENDER_MAX_MATERIALS (1u << RENDER_KEY_MATERIAL_BITS)

typedef struct render__key_fields {
    uint32_t layer, pass, program, material, depth;
} render__key_fields;

uint64_t render__key_encode(const render__key_fields *f);
render__key_fields render__key_decode(uint64_t key);
/* Quantises a view depth into the key's depth field: 0 at `near`, all ones at `far` (clamped);
 * `back_to_front` complements it so that far things sort first. */
uint32_t render__key_depth(float view_depth, float near_plane, float far_plane, bool back_to_front);

/* ---- Commands and packets ------------------------------------------------------------------ */

enum {
    RENDER_CMD_DRAW = 1,       /* a mesh with a material and a world matrix */
    RENDER_CMD_FULLSCREEN = 2, /* a full-screen pass: the layer's program over its input target */
    RENDER_CMD_LAYER = 3,      /* a layer begins: its target is bound and cleared as configured */
    RENDER_CMD_PARTICLES = 4, /* an emitter's particles: `mesh` is its batch (render_particles.c) */
    RENDER_CMD_DEBUG = 5,     /* a batch of debug lines or text: `mesh` vertices of the frame's
                                  debug buffer from `palette` on, drawn over everything */
};

/* 68 bytes. `mesh`, `material` and `program` index the module's tables; `world` is the object's
 * affine 3x4 (ct_transform_matrix_t's layout). A skinned draw's `palette` is the first of its
 * bones in the frame's bone palette (the gl backend's buffer of 3x4 matrices in the object's
 * space); 0 and unused for everything else. */
typedef struct render__command {
    uint32_t kind;
    uint32_t mesh;
    uint32_t material;
    uint32_t program;
    uint32_t palette;
    float world[12];
} render__command;

/* A packet of the merged stream: its key and where its command lives. */
typedef struct render__packet {
    uint64_t key;
    uint32_t context;
    uint32_t command;
} render__packet;

/* One RenderContext: parallel arrays of keys and commands, written by one job at a time. */
typedef struct render__context {
    uint64_t *keys;
    render__command *commands;
    uint32_t n, cap;
    bool failed; /* an append ran out of memory this frame (the packet was dropped) */
} render__context;

/* Grows a context; false when memory ran out (the context keeps what it had). */
bool render__context_grow(render__context *c, ct_allocator_t *a);

/* Appends one packet. The hot path: no lock, no atomic; grows (rarely) through `a`. */
static inline void render__context_record(render__context *c, ct_allocator_t *a, uint64_t key,
                                          const render__command *cmd)
{
    if (c->n == c->cap && !render__context_grow(c, a)) {
        c->failed = true;
        return;
    }
    c->keys[c->n] = key;
    c->commands[c->n] = *cmd;
    c->n++;
}

/* ---- Worker pool ---------------------------------------------------------------------------
 * A zero pool runs everything on the calling thread; rendering.c points it at ct.jobs. */
typedef void (*render__parallel_for_f)(void *ctx, uint32_t count, uint32_t grain, ct_range_f fn,
                                       void *user_data);
typedef struct render__pool {
    render__parallel_for_f parallel_for;
    void *ctx;
} render__pool;

void render__pool_for(const render__pool *pool, uint32_t count, uint32_t grain, ct_range_f fn,
                      void *user_data);

/* ---- Display lists ------------------------------------------------------------------------- */

/* A material as the backends see it: its program, its layer and its parameters (two vec4s, which
 * the build copies into each draw). */
typedef struct render__material {
    uint32_t program;
    uint32_t layer;
    float color[4];
    float specular[4]; /* strength, shininess, 0, 0 */
} render__material;

/* State-change flags of an entry, relative to the entry before it in the sorted stream. A layer
 * entry only changes the layer, and it resets what is bound: the first draw after it binds its
 * program, material and mesh again (as the gl backend does). */
enum {
    RENDER_CHANGE_LAYER = 1u << 0,    /* a new layer: its target is bound (and cleared) */
    RENDER_CHANGE_PROGRAM = 1u << 1,  /* another shader program is bound */
    RENDER_CHANGE_MATERIAL = 1u << 2, /* another material's parameters are set */
    RENDER_CHANGE_MESH = 1u << 3,     /* another vertex array is bound */
};

/* One display-list entry: everything the backend needs, resolved, 224 bytes, no padding holes
 * (the null backend hashes the bytes). The gl backend reads mvp..params as per-instance
 * attributes, so draws that differ only in material still share one instanced call. */
typedef struct render__draw {
    uint32_t kind, layer, pass, program, material, mesh, changes, palette;
    float mvp[16];    /* projection * view * world, column-major (GL's layout) */
    float world[12];  /* as recorded */
    float normal[12]; /* the inverse transpose of world's 3x3, as three padded rows */
    float params[8];  /* the material's colour and specular (zero without a material) */
} render__draw;

/* ---- The queue: contexts, the merged stream, the display list ------------------------------ */

/* The radix sort's digits: 6 of 11 bits cover a key. */
#define RENDER_RADIX_DIGITS 6
#define RENDER_RADIX_BUCKETS 2048

typedef struct render__queue {
    ct_allocator_t *a;
    render__context *contexts;
    uint32_t num_contexts, contexts_cap;
    render__packet *sorted, *scratch;
    uint32_t num_packets, packets_cap;
    render__draw *draws;
    uint32_t draws_cap;
    uint32_t histograms
        [RENDER_RADIX_DIGITS]
        [RENDER_RADIX_BUCKETS]; /* the radix sort's (RENDER_RADIX_*); 48 KB is no stack object */
    bool failed; /* out of memory this frame: packets were dropped (reported by the caller) */
} render__queue;

void render__queue_init(render__queue *q, ct_allocator_t *a);
void render__queue_free(render__queue *q);
/* Starts a frame with `n` empty contexts (kept from earlier frames where possible). Returns
 * false when memory ran out. */
bool render__queue_begin(render__queue *q, uint32_t n);

/* Concatenates the contexts in order into q->sorted and sorts it by key, stably. */
bool render__merge_sort(render__queue *q);
/* The stable LSD radix sort alone: sorts n packets of `p` by key using `scratch` (n packets) and
 * `hist` for its counters. Digits whose value is the same in every key are skipped. The result
 * ends in `p`. */
void render__radix_sort(render__packet *p, render__packet *scratch, uint32_t n,
                        uint32_t hist[RENDER_RADIX_DIGITS][RENDER_RADIX_BUCKETS]);

/* Builds q->draws[0, num_packets) from the sorted stream on the pool. `view_proj` is the camera's
 * projection * view (column-major 4x4); draws copy their parameters from `materials` (a material
 * index at or past num_materials gets zeros, and the null backend reports it). */
bool render__build(render__queue *q, const float view_proj[16], const render__material *materials,
                   uint32_t num_materials, const render__pool *pool);

/* ---- Debug drawing ------------------------------------------------------------------------- */

/* A debug line's end (world space) or a text quad's corner (screen pixels, uv in the font atlas),
 * with its colour as RGBA8 (r in the low byte). */
typedef struct render__debug_vertex {
    float position[3];
    uint32_t color;
} render__debug_vertex;

typedef struct render__text_vertex {
    float position[2], uv[2];
    uint32_t color;
} render__text_vertex;

/* The frame's debug shapes, collected between two renders: lines (pairs of vertices) and text
 * (triangles). At most RENDER_DEBUG_MAX_VERTICES of each; past it the rest is dropped and
 * `dropped` counts it. */
#define RENDER_DEBUG_MAX_VERTICES (1u << 24)
typedef struct render__debug {
    ct_allocator_t *a;
    render__debug_vertex *lines;
    uint32_t num_lines, lines_cap; /* vertices */
    render__text_vertex *text;
    uint32_t num_text, text_cap;
    uint64_t dropped;
} render__debug;

static inline uint32_t render__debug_color(const float c[4])
{
    uint32_t out = 0;
    for (int k = 0; k < 4; k++) {
        const float v = c ? c[k] : 1.0f;
        out |= (uint32_t)(v <= 0.0f ? 0.0f : v >= 1.0f ? 255.0f : v * 255.0f + 0.5f) << (8 * k);
    }
    return out;
}

/* Appends `n` lines (2n points) of one colour; false when memory or the cap ran out. */
bool render__debug_push_lines(render__debug *d, const float (*points)[3], uint32_t n,
                              uint32_t color);
/* Appends `n` text vertices (whole triangles); false when memory or the cap ran out. */
bool render__debug_push_text(render__debug *d, const render__text_vertex *v, uint32_t n);
void render__debug_clear(render__debug *d);
void render__debug_free(render__debug *d);

/* ---- The null backend ---------------------------------------------------------------------- */

typedef struct render__null_stats {
    uint32_t draws, fullscreen, layers, state_changes, invalid;
    uint64_t hash; /* MurmurHash64A of the display list's bytes */
} render__null_stats;

/* Validates, counts and hashes a display list. Indices at or above the given table sizes, and
 * non-finite matrices, count as invalid. */
render__null_stats render__null_execute(const render__draw *draws, uint32_t n, uint32_t num_meshes,
                                        uint32_t num_materials, uint32_t num_programs);

/* State changes a draw causes: one per flag set in `changes`. */
static inline uint32_t render__state_changes(uint32_t changes)
{
    return (uint32_t)__builtin_popcount(changes);
}

/* ---- Small math shared by the pipeline ----------------------------------------------------- */

/* out = a * b, column-major 4x4. */
void render__mat4_mul(float out[16], const float a[16], const float b[16]);
/* A 4x4 column-major matrix from an affine 3x4 row-major one (ct_transform_matrix_t). */
void render__mat4_from_affine(float out[16], const float m[12]);

#endif
