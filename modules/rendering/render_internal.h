/*
 * render_internal.h: the rendering module's private contract between its files.
 *
 * rendering.c     plugin entry, the ct.render table, backends, reload
 * render_frame.c  one frame: gather (cull + record on ct.jobs), merge-n-sort, build, execute
 * render_component.c  the mesh, camera and light component types
 * render_resources.c  what the resource types share (field readers, slot tables), registration
 * render_mesh.c, render_mesh_gltf.c  the mesh resource type (OBJ, glTF)
 * render_mesh_skin.c  skinned glTF meshes (bones, weights, rest frames)
 * render_material.c   the material resource type
 * render_texture.c    textures (stb_image, mip chains) and the module's reader of source files
 * render_config.c     the render_config resource type, switching pipelines and following edits
 * render_skin.c       the frame's bone palettes
 * render_debug.c      debug lines, shapes, skeletons and text (stb_truetype)
 * render_capture.c    writing a frame's packet stream (the replay tool reads it)
 * render_lua.c        the Render module for scripts
 * The core knows nothing of the kernel: render_core.h (render_key.c, render_queue.c,
 * render_build.c, render_debug_buffer.c: keys, contexts, merge-n-sort, display lists, the
 * frame's debug vertices, the null backend) and
 * render_gpu.h (render_pipeline.c, render_gl*.c, render_png.c, render_capture_read.c).
 */
#ifndef RENDER_INTERNAL_H
#define RENDER_INTERNAL_H

#include "ct_animation.h"
#include "ct_data.h"
#include "ct_entity.h"
#include "ct_host.h"
#include "ct_input.h"
#include "ct_jobs.h"
#include "ct_log.h"
#include "ct_lua.h"
#include "ct_physics.h"
#include "ct_reload.h"
#include "ct_render.h"
#include "ct_resource.h"
#include "ct_transform.h"
#include "ct_world.h"

#include "render_gpu.h"
#include "render_mesh_blob.h"

#include <pthread.h>

/* RENDER_LAYOUT_VERSION, the layout identity a reload compares, is made at build time from the
 * layouts of render__state, render__manager and every struct they reach (render_layout.h, by
 * tools/abi/layout_id.py): a change there changes it, so there is no number to bump. The module's
 * entry file includes render_layout.h. */

#define RENDER_LOG(level, ...) render__m.log->write(render__m.self, level, __VA_ARGS__)
#define RENDER_PATH_SIZE 512
#define RENDER_RESOURCE_NAME_SIZE 64

enum { RENDER_MESH_TYPE, RENDER_CAMERA_TYPE, RENDER_LIGHT_TYPE, RENDER_NUM_TYPES };
enum { RENDER_BACKEND_NULL = 0, RENDER_BACKEND_GL = 1 };

/* Compiled component data. */
typedef struct render__mesh_instance_desc {
    char mesh[RENDER_RESOURCE_NAME_SIZE];
    char material[RENDER_RESOURCE_NAME_SIZE];
} render__mesh_instance_desc;

typedef struct render__camera_desc {
    float fov_degrees, near_plane, far_plane;
} render__camera_desc;

/* A spot light shines along its transform's -Z (as a camera looks), in a cone `angle` degrees
 * from its axis, fading over the outer fifth of that angle. Point and spot lights with `shadows`
 * cast them when the pipeline has a shadow layer (render_gpu.h, RENDER_MAX_LOCAL_SHADOWS). */
enum { RENDER_LIGHT_DIRECTIONAL = 0, RENDER_LIGHT_POINT = 1, RENDER_LIGHT_SPOT = 2 };
typedef struct render__light_desc {
    uint32_t type;
    float color[3];
    float intensity;
    float range;
    float angle;      /* spot lights: the cone's half angle in degrees */
    uint32_t shadows; /* 1: casts shadows (point and spot lights) */
} render__light_desc;

/* One manager per component type and world: entities and fixed-size data, packed, found through
 * the paged index. For meshes the data is two slots (mesh, material); the instance holds one load
 * of each resource. */
typedef struct render__manager {
    ct_allocator_t *a;
    ct_world_o *world;
    uint32_t type, size;
    ct_entity_t *entity;
    uint8_t *data;
    uint32_t n, cap;
    ct_entity_pages_t index; /* entity -> instance + 1 */
    uint64_t reloads_seen;   /* render__state.reloads_seen when the slots below were resolved */
} render__manager;

/* A mesh instance: the slots gather reads, and the entries of render__state.names they came from,
 * which find the slots again after a reload replaced a resource (its new version has a new slot). */
typedef struct render__mesh_ref {
    uint32_t mesh, material;           /* slots */
    uint32_t mesh_name, material_name; /* render__state.names */
} render__mesh_ref;

/* A resource mesh instances name, and its slot as of the last reload. Entries stay for the
 * module's life (one per distinct name ever spawned), so instances can keep their index. */
enum { RENDER_NAMED_MESH, RENDER_NAMED_MATERIAL };
typedef struct render__named {
    uint32_t type; /* RENDER_NAMED_* */
    uint32_t slot;
    char name[RENDER_RESOURCE_NAME_SIZE];
} render__named;

/* A loaded mesh resource: its compiled payload (owned by the kernel) and its bounds. */
typedef struct render__mesh_slot {
    bool used, uploaded;
    char name[RENDER_RESOURCE_NAME_SIZE];
    const render__vertex *vertices;
    const uint32_t *indices;
    uint32_t num_vertices, num_indices;
    float center[3], radius;    /* local bounding sphere (the rest pose's for a skinned mesh) */
    const float (*tangents)[4]; /* per vertex (render_mesh_blob.h) */
    const render__skin_vertex *skin; /* skinned meshes: per vertex; NULL for rigid ones */
    const render__mesh_joint *joints;
    uint32_t num_joints;
    uint32_t *joint_bone;      /* joint -> bone index in the skeleton seen first (render_skin.c) */
    uint32_t joint_bone_count; /* that skeleton's bone count */
} render__mesh_slot;

/* What a skinned mesh adds to render__write_mesh. */
typedef struct render__mesh_skin {
    const render__skin_vertex *vertices;
    const render__mesh_joint *joints;
    uint32_t num_joints;
} render__mesh_skin;

/* The compiled material payload (format 3); the base colour texture's levels follow it, then the
 * normal map's. specular is (strength, shininess, normal map strength (0: none), 0). */
typedef struct render__material_blob {
    uint32_t program;
    char layer[RENDER_NAME_SIZE];
    float color[4];
    float specular[4];
    render__texture_info texture; /* width 0: none; sRGB colour */
    render__texture_info normal;  /* width 0: none; a tangent-space normal map (flags 0) */
} render__material_blob;

typedef struct render__material_slot {
    bool used, uploaded;
    char name[RENDER_RESOURCE_NAME_SIZE];
    char layer[RENDER_NAME_SIZE];
    render__texture_info texture, normal;
    const uint8_t *texels,
        *normal_texels; /* in the loaded payload (the kernel keeps it), or NULL */
} render__material_slot;

/* Everything the module keeps, in one allocation that survives a hot reload. */
typedef struct render__state {
    ct_reload_header_t header; /* first: what a hot reload checks (ct_reload.h) */
    uint64_t type_id[RENDER_NUM_TYPES];
    ct_component_type_t registered[RENDER_NUM_TYPES];

    uint32_t backend;
    bool window, gl_failed;
    render__gl *gl;
    /* render_thread.c: who uses the context, and a prepared frame waiting for its execute. Here,
     * not in the library, so a hot reload keeps serialising with an execute still running. */
    pthread_mutex_t gl_mutex;
    pthread_cond_t executed;
    pthread_t main_thread; /* the module's start: it keeps the context between frames */
    bool pending;

    render__pipeline pipeline;  /* as drawn: its shadow map capped by max_shadow_size */
    uint32_t shadow_size_asked; /* the configuration's own shadow map size */
    uint32_t max_shadow_size;   /* ct_render_api_v3.set_max_shadow_size; 0: none */
    char pipeline_name[RENDER_RESOURCE_NAME_SIZE]; /* "" for the built-in one */
    bool pipeline_checked;                         /* the project's "default" was looked for */
    uint64_t reloads_seen;                         /* ct_resource_api_v5.reloads, last followed */

    render__named *names;
    uint32_t num_names, names_cap;

    render__mesh_slot *meshes;
    uint32_t meshes_cap;
    render__material *materials; /* what backends read, indexed by slot */
    render__material_slot *material_slots;
    uint32_t materials_cap;

    render__queue queue;
    float *worlds; /* per mesh instance, gathered on the main thread */
    uint32_t worlds_cap;
    float (*palette)[12]; /* the frame's bone palette (render_skin.c) */
    uint32_t palette_n, palette_cap;
    uint32_t *palette_of;  /* per mesh instance: its first palette entry, or RENDER_NO_INDEX */
    float *skinned_radius; /* per skinned instance: its culling radius in the posed frame */
    uint32_t skinned_cap;
    float view_proj[16];
    render__frame_lights lights;
    render__local_lights
        local; /* spot cones and shadow filtering of the frame's point/spot lights */
    bool local_shadows_warned; /* said once: a light asks for shadows the pipeline cannot draw */
    ct_render_stats_t stats;
    bool have_frame;

    render__debug debug;       /* this frame's debug lines and text (render_debug.c) */
    struct render__font *font; /* baked on first text, NULL before or without the font */
    bool font_failed;

    char screenshot_dir[RENDER_PATH_SIZE];
    char capture_path[RENDER_PATH_SIZE];
} render__state;

typedef struct render__module {
    ct_plugin_o *self;
    const ct_log_api_v1 *log;
    const ct_entity_api_v2 *entity;
    const ct_component_api_v1 *component;
    const ct_transform_api_v2 *transform;
    const ct_lua_api_v1 *lua;
    const ct_data_api_v1 *data;
    const ct_resource_api_v6 *
        resource; /* v6: reference for the names mesh components read; v2: source_file for the files meshes name; v3: check_fields; v4: depends_on;
                                           v5: reloads and followed sources */
    const ct_jobs_api_v1 *jobs;
    const ct_host_api_v2 *host;           /* v2: output_path for what scripts ask to be written */
    const ct_animation_api_v1 *animation; /* optional: skinned meshes follow its bones */
    const ct_physics_api_v4 *physics;     /* optional: debug drawing of bodies' shapes */
    const struct ct_particles_api_v1 *particles; /* optional: ct.particles, drawn when loaded */
    const ct_input_api_v1 *input; /* optional: gets the --window for keyboard and mouse */
    const struct ct_profiler_api_v1 *profiler; /* optional: scopes for the thread profiler */
    ct_allocator_t *allocator;
    render__state *state;
} render__module;

extern render__module render__m;

/* render_runtime.c: Render.set_material and other changes while the game runs. */
void render__register_runtime_lua(void);
extern const ct_render_api_v1 render__api_v1;
extern const ct_render_api_v2 render__api_v2;
extern const ct_render_api_v3 render__api_v3;

/* render_component.c */
int render__register_components(void);
bool render__rebind_components(void);
void render__unregister_components(void);
render__manager *render__manager_of(ct_world_o *world, uint32_t type);
/* The data of entity e in a manager, or NULL. */
void *render__instance_of(render__manager *m, ct_entity_t e);
/* Finds the mesh instances' slots again after resources were reloaded (cheap when none was). */
void render__refresh_mesh_refs(render__manager *m);

/* render_resources.c */
int render__register_resources(void);
bool render__rebind_resources(void);
void render__unregister_resources(void);
/* Field readers for the compilers; each reports what is wrong through compile_error.
 * render__compile_bad reports fmt (two string arguments) and returns CT_ERR_BAD_DATA. */
int render__compile_bad(ct_compile_ctx_o *ctx, const char *fmt, const char *a, const char *b);
/* An array of `n` numbers in [lo, hi] (optionally n - 1 of them, the last then `fill`). */
bool render__numbers(const ct_data_o *v, const char *what, int n, bool short_ok, float fill,
                     double lo, double hi, float *out, ct_compile_ctx_o *ctx);
bool render__number(const ct_data_o *v, const char *what, double lo, double hi, float *out,
                    ct_compile_ctx_o *ctx);
bool render__copy_name(const ct_data_o *v, const char *what, char out[RENDER_NAME_SIZE],
                       ct_compile_ctx_o *ctx);
/* A free slot in a table of `cap` entries of `size` bytes whose first member is `bool used`,
 * growing it (and a parallel table) when full; RENDER_NO_INDEX past `max` or out of memory. */
uint32_t render__take_slot(void **table, size_t size, void **parallel, size_t parallel_size,
                           uint32_t *cap, uint32_t max);
static inline uint32_t render__slot_from_runtime(void *runtime)
{
    return (uint32_t)((uintptr_t)runtime - 1u);
}
static inline void *render__runtime_from_slot(uint32_t slot)
{
    return (void *)((uintptr_t)slot + 1u);
}

/* render_mesh.c, render_mesh_gltf.c */
extern const ct_resource_type_t render__mesh_resource;
/* Writes the compiled mesh: header (with bounds), vertices, indices, tangents (4 per vertex;
 * NULL: derived by render__mesh_tangents), and the skin; 0 or CT_ERR_BAD_DATA (reported). */
int render__write_mesh(ct_compile_ctx_o *ctx, const float *pos, const float *nrm, const float *uv,
                       uint32_t nv, const uint32_t *idx, uint32_t ni, const float *tangents,
                       const render__mesh_skin *skin);
int render__compile_gltf_mesh(const char *rel, const ct_data_o *src, ct_compile_ctx_o *ctx);
/* render_mesh_skin.c: the skinned mesh of glTF skin `skin`, posed at rest, in metres times `units`. */
struct ct_gltf_t;
int render__compile_skinned_mesh(const char *rel, const struct ct_gltf_t *doc, uint32_t skin,
                                 double units, ct_compile_ctx_o *ctx);
/* The slot of a loaded resource (after resource->load), or RENDER_NO_INDEX. */
uint32_t render__mesh_slot_of(const char *name);
/* Uploads every loaded mesh to a freshly made gl backend. */
void render__upload_meshes(void);

/* render_material.c */
extern const ct_resource_type_t render__material_resource;
/* Uploads every loaded material's texture to a freshly made gl backend. */
void render__upload_textures(void);

/* render_texture.c */
/* A file a source names (`rel`, checked and noted through source_file), read whole without
 * blocking; regular files of at most `max` bytes only. NULL, reported as "field: 'rel': why". The
 * buffer (size + 1 bytes, NUL-terminated) is freed from render__m.allocator. */
void *render__read_project_file(ct_compile_ctx_o *ctx, const char *field, const char *rel,
                                uint64_t max, size_t *size);
/* Decodes PNG or JPEG bytes into RGBA8 with its mip chain (render__texture_bytes of it, from
 * render__m.allocator; `flags` as render__texture_decode's); NULL when corrupt, not an image or over
 * RENDER_MAX_TEXTURE_SIZE, reported naming `what`. */
uint8_t *render__decode_texture(ct_compile_ctx_o *ctx, const char *what, const uint8_t *bytes,
                                size_t size, uint32_t flags, render__texture_info *out);
uint32_t render__material_slot_of(const char *name);
/* Resolves every material's layer name against the current pipeline. */
void render__resolve_material_layers(void);

/* render_config.c */
extern const ct_resource_type_t render__config_resource;
/* Loads and switches to a render_config resource; reports and keeps the old one on failure. */
int render__use_pipeline(const char *name);
void render__set_max_shadow_size(uint32_t texels);
/* Uses the project's render_config "default" when it has one (no message when it has none). */
void render__use_project_pipeline(void);
/* Follows what the kernel reloaded since the last frame (ct_resource_api_v5.reloads): the slots
 * of named meshes and materials, and the current pipeline (whose source the kernel follows). */
void render__follow_reloads(void);

/* render_skin.c */
/* The bone palettes of every skinned instance of `meshes` (after gather_worlds). */
bool render__gather_palettes(render__state *s, ct_world_o *world, const render__manager *meshes);
void render__skin_free(void);

/* render_debug.c */
void render__debug_line(const float from[3], const float to[3], const float color[4]);
void render__debug_lines_api(const float (*points)[3], uint32_t num_lines, const float color[4]);
void render__debug_box(const float center[3], const float half[3], const float rotation[4],
                       const float color[4]);
void render__debug_sphere(const float center[3], float radius, const float color[4]);
void render__debug_arrow(const float from[3], const float to[3], const float color[4]);
void render__debug_skeleton(ct_world_o *world, ct_entity_t e, const float color[4]);
void render__debug_capsule(const float center[3], float radius, float half_height,
                           const float rotation[4], const float color[4]);
uint32_t render__debug_physics(ct_world_o *world, const float color[4]);
void render__debug_text(float x, float y, const float color[4], const char *text);
/* Records the frame's debug batches into context 0 (after record_pipeline). */
void render__record_debug(render__state *s);
void render__upload_font(void);
void render__debug_release(void);

/* render_frame.c: render__frame is prepare then execute on the calling thread. prepare (main
 * thread) reads the world and builds the display list; execute (any one thread) draws it and,
 * when rgba is not NULL, reads the pixels (as ct_render_frame_api_v1.read). */
int render__frame(ct_world_o *world, ct_entity_t camera);
int render__frame_prepare(ct_world_o *world, ct_entity_t camera);
int render__frame_execute(uint8_t *rgba, size_t capacity, uint32_t *width, uint32_t *height);
void render__frame_free(void);

/* render_thread.c: the GL context's owner and the prepared frame (see there). Every use of the
 * context is inside render__gl_enter / render__gl_leave (they nest); what only touches data the
 * executing thread reads is inside render__data_enter / render__data_leave. */
void render__thread_init(void);
void render__gl_enter(void);
void render__gl_leave(void);
void render__data_enter(void);
void render__data_leave(void);
/* Tells the section the context was made current (true, render__gl_create) or released (false,
 * render__gl_destroy) on this thread. */
void render__gl_bound(bool on);
/* Waits until no prepared frame waits for its execute (outside every section). */
void render__wait_executed(void);
/* Inside a section: a frame is prepared (true) or was executed (false, wakes the waiters). */
void render__set_pending(bool on);
bool render__pending(void);

/* render_particles.c */
void render__particles_record(render__state *s, ct_world_o *world, const float eye[3],
                              const float forward[3], float near_plane, float far_plane,
                              const float right[3], const float up[3]);
void render__particles_free(void);

/* rendering.c */
int render__set_backend(const char *name);
int render__screenshot(const char *path);

/* render_capture.c (the replay tool reads what it writes) */
int render__capture_write(const char *path, char *err, size_t err_size);

/* render_lua.c */
void render__register_lua(void);

#endif
