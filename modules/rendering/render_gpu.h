/*
 * render_gpu.h: what the backends draw with, besides the display list: the pipeline (render
 * targets and layers, the compiled form of a renderer configuration), materials, mesh vertex data,
 * and the gl backend's interface. Kernel-free like render_core.h: the replay tool compiles it.
 */
#ifndef RENDER_GPU_H
#define RENDER_GPU_H

#include "render_core.h"

#define RENDER_NAME_SIZE 32
#define RENDER_MAX_TARGETS 8
#define RENDER_MAX_LAYERS_USED 32
#define RENDER_NO_INDEX 0xffffffffu

/* Built-in shader programs; a key's program field and a material's `program` name one. */
enum {
    RENDER_PROGRAM_UNLIT = 0, /* the material's colour */
    RENDER_PROGRAM_LIT = 1,   /* Lambert plus Blinn-Phong specular, ambient, sun, 4 point lights */
    RENDER_PROGRAM_COPY = 2,  /* full-screen: the input target as it is */
    RENDER_PROGRAM_VIGNETTE = 3, /* full-screen: the input target darkened towards the corners */
    RENDER_PROGRAM_UNLIT_SKINNED =
        4,                          /* unlit and lit for skinned meshes: vertices moved by up to */
    RENDER_PROGRAM_LIT_SKINNED = 5, /* four bones of the draw's palette (render__command.palette) */
    RENDER_PROGRAM_SHADOW = 6,      /* depth only, seen from the sun (a shadow layer's draws) */
    RENDER_PROGRAM_SHADOW_SKINNED = 7,
    RENDER_PROGRAM_DEBUG_LINES = 8,   /* debug lines, coloured, over everything */
    RENDER_PROGRAM_TEXT = 9,          /* screen text from the baked font atlas */
    RENDER_PROGRAM_SHADOW_LOCAL = 10, /* distance from a point or spot light, into its cube map */
    RENDER_PROGRAM_SHADOW_LOCAL_SKINNED = 11,
    RENDER_NUM_PROGRAMS = 12,
};
extern const char *const render__program_names[RENDER_NUM_PROGRAMS];
/* True for the programs a full-screen pass may use (the others draw meshes). */
static inline bool render__program_fullscreen(uint32_t p)
{
    return p == RENDER_PROGRAM_COPY || p == RENDER_PROGRAM_VIGNETTE;
}
/* The program a skinned mesh draws with for a material's program. */
static inline uint32_t render__program_skinned(uint32_t p)
{
    return p == RENDER_PROGRAM_LIT ? RENDER_PROGRAM_LIT_SKINNED : RENDER_PROGRAM_UNLIT_SKINNED;
}

enum { RENDER_FORMAT_RGBA8 = 0, RENDER_FORMAT_RGBA16F = 1 };

enum {
    RENDER_LAYER_CLEAR_COLOR = 1u << 0,
    RENDER_LAYER_CLEAR_DEPTH = 1u << 1,
    RENDER_LAYER_BACK_TO_FRONT = 1u << 2, /* depth sorts far first, and colour blends */
    RENDER_LAYER_DEPTH_TEST = 1u << 3,
    RENDER_LAYER_SHADOW = 1u << 4, /* the sun's shadow map: depth only, into its own texture */
};

/* All POD with fixed sizes: a compiled renderer configuration is exactly one render__pipeline. */
typedef struct render__target_desc {
    char name[RENDER_NAME_SIZE];
    uint32_t format;
    float scale; /* of the backbuffer's size, (0, 1] */
} render__target_desc;

typedef struct render__layer_desc {
    char name[RENDER_NAME_SIZE];
    uint32_t target; /* index into targets; 0 is the backbuffer */
    uint32_t flags;
    float clear_color[4];
    float clear_depth;
    uint32_t program; /* a full-screen pass's program, or RENDER_NO_INDEX for a layer of draws */
    uint32_t input;   /* the target a full-screen pass reads, or RENDER_NO_INDEX */
    uint32_t reserved;
} render__layer_desc;

typedef struct render__pipeline {
    uint32_t width, height; /* the backbuffer */
    uint32_t num_targets, num_layers;
    float ambient[4];
    render__target_desc targets[RENDER_MAX_TARGETS];
    render__layer_desc layers[RENDER_MAX_LAYERS_USED];
    /* The directional shadow: the layer drawing the map (RENDER_NO_INDEX: none), its texels per
     * side, the width in metres of the square it covers around the camera, and the radius in
     * texels of its soft edge (percentage-closer filtering). */
    uint32_t shadow_layer, shadow_size;
    float shadow_extent, shadow_softness;
} render__pipeline;

/* The built-in pipeline: 640x360, an "opaque" and a "transparent" layer on the backbuffer. */
void render__default_pipeline(render__pipeline *p);
/* Checks indices, flags, finite numbers and NUL-terminated names; NULL or what is wrong. */
const char *render__pipeline_error(const render__pipeline *p);

typedef struct render__vertex {
    float position[3];
    float normal[3];
    float uv[2];
} render__vertex;

/* A skinned vertex's bones (indices into its mesh's joints) and weights (summing to 1). */
#define RENDER_MAX_JOINTS 256
typedef struct render__skin_vertex {
    uint16_t joints[4];
    float weights[4];
} render__skin_vertex;

/* A texture: RGBA8, `levels` mip levels from width x height down to 1 x 1, stored one after the
 * other, top row first. A material's base colour texture is sRGB colour. */
#define RENDER_MAX_TEXTURE_SIZE 4096
enum { RENDER_TEXTURE_SRGB = 1u };
typedef struct render__texture_info {
    uint32_t width, height, levels, flags;
} render__texture_info;

/* The mip levels from w x h down to 1 x 1. */
uint32_t render__texture_levels(uint32_t w, uint32_t h);

/* Decodes PNG or JPEG bytes into RGBA8 with its mip chain (render__texture_bytes of it, from
 * `a`): `flags` RENDER_TEXTURE_SRGB for colour, 0 for a tangent-space normal map. NULL with the
 * reason in err when corrupt, not such an image, or wider or taller than max_size. */
uint8_t *render__texture_decode(const uint8_t *bytes, size_t size, uint32_t flags,
                                uint32_t max_size, ct_allocator_t *a, render__texture_info *out,
                                char *err, size_t err_size);

/* Bytes of a texture's levels. */
static inline size_t render__texture_bytes(uint32_t w, uint32_t h, uint32_t levels)
{
    size_t total = 0;
    for (uint32_t l = 0; l<levels; l++, w = w> 1 ? w / 2 : 1, h = h > 1 ? h / 2 : 1)
        total += (size_t)w * h * 4;
    return total;
}

/* What a frame's uniforms hold for the lit program (16 vec4s, see render_gl_programs.c). */
typedef struct render__frame_lights {
    float v[16][4];
} render__frame_lights;

/*
 * Shadows of point and spot lights: each shadowed light (at most RENDER_MAX_LOCAL_SHADOWS a
 * frame, in light order) gets the six faces of a cube map, RENDER_LOCAL_SHADOW_SIZE texels a
 * side, layers of one depth cube map array, holding the distance to the nearest caster over the
 * light's range. A spot light uses a whole cube too (simple, at the cost of faces outside its
 * cone). Casters are the instances whose bounding sphere meets the light's range, drawn into the
 * pipeline's shadow layer (pass 2, after the sun's map); without a shadow layer nothing casts.
 * render__frame_lights marks a shadowed light by its colour's w (layer + 1, 0: none).
 */
#define RENDER_MAX_LOCAL_SHADOWS 4
#define RENDER_LOCAL_SHADOW_SIZE 256
/* Per point/spot light k of render__frame_lights: v[2k] = (the direction a spot shines, cos of its
 * cone's half angle) or all zero for a point light, v[2k + 1] = (cos of the angle where the
 * cone's fade begins, 0, 0, 0). Not held by captures: a replay draws spot lights as points. */
typedef struct render__local_lights {
    float v[8][4];
} render__local_lights;

/* ---- The gl backend ------------------------------------------------------------------------ */

typedef struct render__gl render__gl;

typedef struct render__gl_desc {
    uint32_t width, height;
    bool window; /* a window on $DISPLAY (X11) instead of surfaceless */
} render__gl_desc;

/* Creates the context and programs; NULL with the reason in err. */
render__gl *render__gl_create(ct_allocator_t *a, const render__gl_desc *desc, char *err,
                              size_t err_size);
void render__gl_destroy(render__gl *g);
/* The renderer string ("llvmpipe (LLVM 15.0.6, 256 bits)") and version. */
const char *render__gl_renderer(const render__gl *g);
/* The X11 window (an XID) in window mode, else 0. */
unsigned long render__gl_x11_window(const render__gl *g);

/* Uploads a mesh into slot `mesh` (replacing what was there); false on a GL error. */
bool render__gl_mesh_set(render__gl *g, uint32_t mesh, const render__vertex *v,
                         uint32_t num_vertices, const uint32_t *indices, uint32_t num_indices);
/* Adds a mesh's tangents (4 floats per vertex, as given to mesh_set: render_mesh_blob.h), which
 * normal-mapped materials need; a mesh without them draws with its plain normals. */
bool render__gl_mesh_set_tangents(render__gl *g, uint32_t mesh, const float (*tangents)[4],
                                  uint32_t num_vertices);
/* Adds a skinned mesh's bones and weights (num_vertices of them, as given to mesh_set). */
bool render__gl_mesh_set_skin(render__gl *g, uint32_t mesh, const render__skin_vertex *skin,
                              uint32_t num_vertices);
/* The frame's debug lines and text (see render__debug), the camera's projection * view for the
 * lines, and the font atlas (width x height, one byte of coverage per texel; uploaded once). */
bool render__gl_set_debug(render__gl *g, const render__debug *d, const float view_proj[16]);
bool render__gl_set_font(render__gl *g, const uint8_t *atlas, uint32_t width, uint32_t height);
/* The frame's bone palette: 3x4 row-major matrices, the object's space; skinned draws read
 * render__draw.palette onwards. */
bool render__gl_set_palette(render__gl *g, const float (*bones)[12], uint32_t n);
void render__gl_mesh_release(render__gl *g, uint32_t mesh);
/* Uploads material `material`'s base colour texture or normal map (replacing what was there;
 * draws of a material without one sample white, or a flat normal); false on a GL error. */
enum { RENDER_TEXTURE_BASE = 0, RENDER_TEXTURE_NORMAL = 1, RENDER_TEXTURE_KINDS = 2 };
bool render__gl_texture_set(render__gl *g, uint32_t material, uint32_t kind,
                            const render__texture_info *info, const uint8_t *levels);
void render__gl_texture_release(render__gl *g, uint32_t material);

/* Makes the targets match the pipeline (resizing or recreating them); false on failure. */
bool render__gl_set_pipeline(render__gl *g, const render__pipeline *p, char *err, size_t err_size);
/* Draws a display list: a run of draws sharing program and mesh is one instanced call (materials
 * travel in the draws). Draws naming a material at or past num_materials are skipped. Returns the
 * number of GL draw calls. */
uint32_t render__gl_execute(render__gl *g, const render__draw *draws, uint32_t n,
                            uint32_t num_materials, const render__frame_lights *lights);
/* The frame's spot cones (render__local_lights); zeros (all point lights) until set. */
void render__gl_set_local_lights(render__gl *g, const render__local_lights *local);
/* Makes the context (and window surface) current on the calling thread, or releases it from
 * the calling thread: a context is current on at most one thread at a time. */
bool render__gl_bind(render__gl *g, bool on);
/* Reads the backbuffer as RGBA8, top row first, into rgba (width * height * 4 bytes). */
bool render__gl_read(render__gl *g, uint8_t *rgba);
/* In window mode: shows the backbuffer. */
void render__gl_present(render__gl *g);

/* Particles (render_particles_gl.c): the frame's instances (8 floats each: x y z size, r g b a)
 * and the batches RENDER_CMD_PARTICLES entries name, with the camera's axes; memory the caller
 * keeps for the frame. render__gl_particles draws a batch as camera-facing quads and puts the
 * layer's blend state back; returns the number of GL draw calls (0 or 1). */
typedef struct render__particle_batch {
    uint32_t first, count;
} render__particle_batch;
void render__particles_set_frame(const float *instances, uint32_t count,
                                 const render__particle_batch *batches, uint32_t num_batches,
                                 const float view_proj[16], const float right[3],
                                 const float up[3]);
uint32_t render__gl_particles(render__gl *g, uint32_t batch, uint32_t layer_flags);

/* ---- PNG ----------------------------------------------------------------------------------- */

/* Writes RGBA8 pixels (top row first) as a PNG; false (with errno's reason in err) on failure. */
bool render__png_write(const char *path, const uint8_t *rgba, uint32_t width, uint32_t height,
                       char *err, size_t err_size);

#endif
