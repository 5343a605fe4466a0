/*
 * render_internal.h: the rendering module's private contract between its files.
 *
 * rendering.c     plugin entry, the ct.render table, backends, reload
 * render_frame.c  one frame: gather (cull + record on ct.jobs), merge-n-sort, build, execute
 * render_component.c  the mesh, camera and light component types
 * render_resources.c  the mesh, material and render_config resource types, config hot reload
 * render_capture.c    writing a frame's packet stream (the replay tool reads it)
 * render_lua.c        the Render module for scripts
 * The core knows nothing of the kernel: render_core.h (render_key.c, render_queue.c,
 * render_build.c: keys, contexts, merge-n-sort, display lists, the null backend) and
 * render_gpu.h (render_pipeline.c, render_gl*.c, render_png.c, render_capture_read.c).
 */
#ifndef RENDER_INTERNAL_H
#define RENDER_INTERNAL_H

#include "ct_data.h"
#include "ct_entity.h"
#include "ct_host.h"
#include "ct_input.h"
#include "ct_jobs.h"
#include "ct_log.h"
#include "ct_lua.h"
#include "ct_reload.h"
#include "ct_render.h"
#include "ct_resource.h"
#include "ct_transform.h"
#include "ct_world.h"

#include "render_gpu.h"

/* Bumped whenever render__state or a manager changes layout: a hot reload across it is refused. */
#ifndef RENDER_LAYOUT_VERSION
#define RENDER_LAYOUT_VERSION 1u
#endif

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

enum { RENDER_LIGHT_DIRECTIONAL = 0, RENDER_LIGHT_POINT = 1 };
typedef struct render__light_desc {
    uint32_t type;
    float color[3];
    float intensity;
    float range;
} render__light_desc;

/* One manager per component type and world: entities and fixed-size data, packed. For meshes the
 * data is two slots (mesh, material); the instance holds one load of each resource. */
typedef struct render__manager {
    ct_allocator_t *a;
    ct_world_o *world;
    uint32_t type, size;
    ct_entity_t *entity;
    uint8_t *data;
    uint32_t n, cap;
} render__manager;

typedef struct render__mesh_ref {
    uint32_t mesh, material;
} render__mesh_ref;

/* A loaded mesh resource: its compiled payload (owned by the kernel) and its bounds. */
typedef struct render__mesh_slot {
    bool used, uploaded;
    char name[RENDER_RESOURCE_NAME_SIZE];
    const render__vertex *vertices;
    const uint32_t *indices;
    uint32_t num_vertices, num_indices;
    float center[3], radius; /* local bounding sphere */
} render__mesh_slot;

/* The compiled mesh payload's header; vertices and indices follow. */
typedef struct render__mesh_header {
    uint32_t num_vertices, num_indices;
    float center[3], radius;
} render__mesh_header;

/* The compiled material payload. */
typedef struct render__material_blob {
    uint32_t program;
    char layer[RENDER_NAME_SIZE];
    float color[4];
    float specular[4];
} render__material_blob;

typedef struct render__material_slot {
    bool used;
    char name[RENDER_RESOURCE_NAME_SIZE];
    char layer[RENDER_NAME_SIZE];
} render__material_slot;

/* Everything the module keeps, in one allocation that survives a hot reload. */
typedef struct render__state {
    ct_reload_header_t header; /* first: what a hot reload checks (ct_reload.h) */
    uint64_t type_id[RENDER_NUM_TYPES];
    ct_component_type_t registered[RENDER_NUM_TYPES];

    uint32_t backend;
    bool window, gl_failed;
    render__gl *gl;

    render__pipeline pipeline;
    char pipeline_name[RENDER_RESOURCE_NAME_SIZE]; /* "" for the built-in one */
    int64_t pipeline_mtime;                         /* of its source, for hot reload */
    bool pipeline_checked;                          /* the project's "default" was looked for */

    render__mesh_slot *meshes;
    uint32_t meshes_cap;
    render__material *materials; /* what backends read, indexed by slot */
    render__material_slot *material_slots;
    uint32_t materials_cap;

    render__queue queue;
    float *worlds; /* per mesh instance, gathered on the main thread */
    uint32_t worlds_cap;
    float view_proj[16];
    render__frame_lights lights;
    ct_render_stats_t stats;
    bool have_frame;

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
    const ct_resource_api_v4 *resource; /* v2: source_file for the files meshes name; v3: check_fields; v4: depends_on */
    const ct_jobs_api_v1 *jobs;
    const ct_host_api_v1 *host;
    const ct_input_api_v1 *input; /* optional: gets the --window for keyboard and mouse */
    const struct ct_profiler_api_v1 *profiler; /* optional: scopes for the thread profiler */
    ct_allocator_t *allocator;
    render__state *state;
} render__module;

extern render__module render__m;

/* render_runtime.c: Render.set_material and other changes while the game runs. */
void render__register_runtime_lua(void);
extern const ct_render_api_v1 render__api_v1;

/* render_component.c */
int render__register_components(void);
bool render__rebind_components(void);
void render__unregister_components(void);
render__manager *render__manager_of(ct_world_o *world, uint32_t type);
/* The data of entity e in a manager, or NULL. */
void *render__instance_of(render__manager *m, ct_entity_t e);

/* render_resources.c */
int render__register_resources(void);
bool render__rebind_resources(void);
void render__unregister_resources(void);
/* The slot of a loaded resource (after resource->load), or RENDER_NO_INDEX. */
uint32_t render__mesh_slot_of(const char *name);
uint32_t render__material_slot_of(const char *name);
/* Resolves every material's layer name against the current pipeline. */
void render__resolve_material_layers(void);
/* Loads and switches to a render_config resource; reports and keeps the old one on failure. */
int render__use_pipeline(const char *name);
/* Uses the project's render_config "default" when it has one (no message when it has none). */
void render__use_project_pipeline(void);
/* Checks whether the current pipeline's source changed on disk and reloads it. */
void render__watch_pipeline(void);
/* Uploads every loaded mesh to a freshly made gl backend. */
void render__upload_meshes(void);

/* render_frame.c */
int render__frame(ct_world_o *world, ct_entity_t camera);
void render__frame_free(void);

/* rendering.c */
int render__set_backend(const char *name);
int render__screenshot(const char *path);

/* render_capture.c (the replay tool reads what it writes) */
int render__capture_write(const char *path, char *err, size_t err_size);

/* render_lua.c */
void render__register_lua(void);

#endif
