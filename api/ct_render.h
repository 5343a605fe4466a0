/*
 * ct_render.h: drawing worlds. API "ct.render", served by modules/rendering (ct_rendering.so).
 *
 * How a frame is made (after the seed post "Parallel rendering").
 *   1. gather: the world's mesh instances are cut into fixed ranges of 1024; a job on ct.jobs
 *      per range culls them against the camera's frustum (a bounding sphere per mesh) and records
 *      a packet for each visible one into its own RenderContext: a 64-bit sort key and a 64-byte
 *      command. Recording takes no lock and no atomic; contexts are reused from frame to frame.
 *   2. merge-n-sort: the contexts are concatenated in range order and sorted by key with a stable
 *      radix sort: packets with equal keys keep their order, so nothing flickers.
 *   3. build: jobs turn fixed blocks of the sorted stream into display-list entries (matrices
 *      multiplied out, state changes against the previous entry flagged).
 *   4. execute: one backend consumes the list on the calling thread. The gl backend uploads the
 *      list once (materials' parameters included) and draws each run of entries that share
 *      program and mesh as one instanced call (the demo's 10,000 markers are one draw call).
 * The output depends only on the scene: 1 or 8 threads give the same bytes (and pixels).
 * Each render() is a whole frame of its own (culling, lights, the sun's shadow map, every layer
 * cleared as configured): a game may render several cameras in one of its own frames (the demo's
 * close-ups of the ragdoll) and each gives the pixels it gives rendered alone; stats, screenshot
 * and capture are of the last one.
 *
 * The sort key, from the most significant bit:
 *     bits 63..56  layer     index of the layer in the renderer configuration: layers draw in order
 *     bits 55..52  pass      0 for the layer's own begin packet (bind target, clear), 1 for draws
 *                            and full-screen passes
 *     bits 51..42  program   the shader program (ct_render_program), so draws sharing one run together
 *     bits 41..26  material  the material's slot, so a material's draws share their parameters
 *     bits 25..0   depth     the view depth quantised between near and far: front to back in opaque
 *                            layers (early depth rejection), complemented (back to front) in layers
 *                            whose `sort = "back_to_front"` (blending)
 * ct_render_decode_key() below takes a key apart; Render.decode_key(hex) does it in Lua. A state
 * change is a layer begin, or a draw that binds another program, material or mesh than the entry
 * before it; the frame's count is in ct_render_stats_t.state_changes.
 *
 * Backends.
 *   "gl"   OpenGL 4.5 core through EGL. Headless by default (EGL's surfaceless platform: Mesa's
 *          llvmpipe draws on any Linux machine without GPU or display); the command-line flag
 *          `--window` opens an X11 window on $DISPLAY and shows the frames there too.
 *          Every layer draws into framebuffer objects, so screenshots are the same either way.
 *   "null" validates the display list (every index and matrix), counts draws and state changes,
 *          and hashes the list's bytes, for tests without pixels. The gl backend runs the same
 *          checks and hash before drawing, so stats are comparable across backends.
 * The default is gl; `--render-backend null` or set_backend("null") chooses null. If the gl
 * backend cannot start, the reason is logged and rendering continues on null.
 *
 * Command-line options (read through ct.host):
 *   --render-backend gl|null   --window
 *   --screenshot DIR           writes DIR/frame_NNNNNN.png after every rendered frame (N: frame number)
 *   --capture FILE             writes every rendered frame's sorted packet stream (with what it
 *                              draws) to FILE, so it holds the last one when the run ends;
 *                              `cuttle-render-replay FILE [--png OUT] [--keys]` replays it (null
 *                              backend: counts, state changes and hash; gl: a PNG) and decodes keys
 *
 * Resources (SJSON sources; compiled by cuttle-compile like every resource).
 *   *.render_config  the pipeline, as data; a project changes it without C code:
 *       resolution = [640 360]
 *       ambient = [0.15 0.15 0.18]
 *       targets = [ { name = "scene" format = "rgba8" scale = 1 } ]   // "backbuffer" always exists
 *       layers = [                                                     // drawn in this order
 *         { name = "opaque" target = "scene" clear_color = [0.1 0.1 0.12 1] clear_depth = 1 }
 *         { name = "transparent" target = "scene" sort = "back_to_front" }
 *         { name = "post" target = "backbuffer" fullscreen = { program = "vignette" input = "scene" } }
 *       ]
 *     A layer is the key range of its index; a `fullscreen` layer is one full-screen pass (the
 *     slides' resource generator) reading `input`. A layer with
 *       shadow = { size = 1024 extent = 20 softness = 1.5 }      (the defaults)
 *     draws the first directional light's shadow map instead: every mesh of a layer of draws
 *     that is not back_to_front, inside an orthographic box `extent` metres wide around the point
 *     extent / 2 in front of the camera, seen along the sunlight, into a size x size depth
 *     texture; the lit programs of the layers after it darken the sun's light where the map says
 *     it is blocked, averaging 3 x 3 filtered comparisons `softness` texels apart (a soft edge).
 *     The box is snapped to whole texels across the light, so shadows do not shimmer when the
 *     camera moves. At most one shadow layer; it comes before the layers that read it. Names must be unique; unknown fields, targets,
 *     programs and bad numbers are refused naming the field. The module loads "render_config"
 *     "default" if the project has one (else a built-in single-layer pipeline); set_pipeline picks
 *     another. The pipeline in use follows its source through the kernel
 *     (ct_resource_api_v5.watch_source): when the file changes, the kernel compiles it again at
 *     the end of the frame and the next render switches; a broken edit, or a file that is not a
 *     regular file (a FIFO, a device), is reported and the old pipeline stays. Meshes and
 *     materials reloaded the same way (or with the console's `reload`) keep their instances
 *     drawing, with the new version.
 *   *.mesh           source = "models/bunny.obj"  (an OBJ, or a glTF 2.0 .gltf/.glb: a canonical
 *                                                 project path, see ct_resource_api_v2.source_file)
 *                    gltf_mesh = 0                 (which glTF mesh; optional)
 *                    skin = 0   units = 1          (optional, glTF: the mesh drawn with skin 0,
 *                        skinned on the GPU: each instance's vertices follow the bones of the
 *                        animation on its entity, found by joint name (ct.animation); `units`
 *                        as the skeleton's. Up to 4 bones per vertex, 256 per mesh. Without an
 *                        animation the mesh stays in its rest pose. Instances sharing a mesh
 *                        draw as one instanced call, each with its own bone palette; culling
 *                        bounds grow with how far the bones moved.)
 *                    Vertices are positions, normals (computed when the file has none) and
 *                    texture coordinates (OBJ `vt`, glTF TEXCOORD_0; 0 without). What a mesh
 *                    resource does not draw is named in a compile warning: glTF points and
 *                    lines, and the joints of a skinned mesh compiled without `skin` (drawn in
 *                    its bind pose).
 *   *.material       program = "lit"   layer = "opaque"   color = [0.8 0.6 0.4 1]
 *                    specular = 0.3    shininess = 24      (specular, shininess: lit only)
 *                    texture = "textures/wood.png"         (optional base colour texture)
 *                    normal_texture = "textures/wood_n.png"  normal_scale = 1
 *                        (optional tangent-space normal map, OpenGL convention: green is the
 *                        image's up; normal_scale scales its x and y, 0 turns it off; lit only)
 *                    gltf = "models/box.glb"  gltf_material = 0
 *                        (optional, instead of the textures: a glTF material's base colour factor
 *                        and texture, its normalTexture and scale, embedded or beside the file,
 *                        and a Blinn-Phong approximation of its metallic-roughness; the fields
 *                        above override it)
 *                    Textures are PNG or JPEG, decoded with stb_image when the material is
 *                    compiled, at most 4096 x 4096 and 64 MiB, and stored with their mip chain
 *                    (averaged in linear light) as sRGB: draws multiply the material's colour by
 *                    the texture read as linear colour; normal maps' mips are averaged as unit
 *                    vectors. The image's top row is at v = 0 (glTF's convention). A missing,
 *                    corrupt, too large or not regular file is refused naming it.
 *                    Meshes carry a tangent per vertex for normal maps: glTF's TANGENT, or
 *                    derived from the texture coordinates (per-triangle, area-weighted, made
 *                    square to the normal; not MikkTSpace).
 *
 * Components (under `components` of an entity; the entity's transform places it):
 *   mesh   = { mesh = "meshes/crate" material = "materials/wood" }   the resources load with it
 *   camera = { fov = 60 near = 0.1 far = 500 }   vertical degrees; looks down its -Z axis
 *   light  = { type = "directional" color = [1 1 1] intensity = 1 }  shines along its -Z axis
 *   light  = { type = "point" color = [1 0.8 0.6] intensity = 2 range = 10 shadows = true }
 *   light  = { type = "spot" angle = 30 range = 10 shadows = true }   shines along its -Z axis in
 *                                         a cone `angle` degrees (1..89) from it, fading over
 *                                         the outer fifth of that angle
 * The lit program uses the first directional light and the first four point or spot lights. The
 * directional light's shadow is the render_config's shadow layer; point and spot lights with
 * `shadows` cast them too when the pipeline has that layer (at most four a frame, each a
 * 256-texel cube map of distances; a spot light uses a whole cube).
 *
 * Lua (module Render; worlds are light userdata, entities numbers):
 *   Render.render(world, camera)          draws a frame seen from the camera entity
 *   Render.screenshot(path)               the last frame as PNG (a relative path inside the
 *                                         working folder: no '..', not absolute); returns path
 *   Render.stats() -> { frame, objects, visible, packets, draws, state_changes, contexts,
 *                       invalid, hash = "hex" }
 *   Render.decode_key("hex") -> { layer, pass, program, material, depth }
 *   Render.set_backend("gl" | "null")     Render.backend() -> name
 *   Render.set_pipeline(name)             a render_config resource
 *   Render.look_at(world, e, x, y, z)     turns e's transform to look at a point (cameras)
 *   Render.set_material(w, e, name)      gives e's mesh the material resource `name` (loaded; the
 *                                         old one's load dropped); raises when e has no mesh
 *   Render.capture(path)                  the last frame's packet stream, for the replay tool
 *   Render.debug_physics(world [, r, g, b[, a]]) -> bodies drawn    the bodies' shapes this frame
 * Bad arguments raise a Lua error naming the argument.
 *
 * Threads: main thread only (the module runs its jobs itself), but ct_render_api_v3.execute.
 */
#ifndef CT_RENDER_H
#define CT_RENDER_H

#include "ct_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CT_RENDER_API 0xd745d006u /* "ct.render" */

#define CT_RENDER_MESH_COMPONENT_NAME "mesh"
#define CT_RENDER_CAMERA_COMPONENT_NAME "camera"
#define CT_RENDER_LIGHT_COMPONENT_NAME "light"

typedef struct ct_entity_t ct_entity_t;
typedef struct ct_world_o ct_world_o;

/* The built-in shader programs. */
typedef enum ct_render_program {
    CT_RENDER_PROGRAM_UNLIT = 0,
    CT_RENDER_PROGRAM_LIT = 1,
    CT_RENDER_PROGRAM_COPY = 2,     /* full-screen */
    CT_RENDER_PROGRAM_VIGNETTE = 3, /* full-screen */
    CT_RENDER_PROGRAM_UNLIT_SKINNED = 4,
    CT_RENDER_PROGRAM_LIT_SKINNED = 5,
    CT_RENDER_PROGRAM_SHADOW = 6, /* a shadow layer's draws */
    CT_RENDER_PROGRAM_SHADOW_SKINNED = 7,
    CT_RENDER_PROGRAM_DEBUG_LINES = 8,
    CT_RENDER_PROGRAM_TEXT = 9,
} ct_render_program;

/* A sort key taken apart (layout above). */
typedef struct ct_render_key_t {
    uint32_t layer, pass, program, material, depth; /* the key's fields, each right-aligned */
} ct_render_key_t;

/* Takes a 64-bit sort key apart into its fields. */
static inline ct_render_key_t ct_render_decode_key(uint64_t key)
{
    ct_render_key_t k;
    k.layer = (uint32_t)(key >> 56) & 0xffu;
    k.pass = (uint32_t)(key >> 52) & 0xfu;
    k.program = (uint32_t)(key >> 42) & 0x3ffu;
    k.material = (uint32_t)(key >> 26) & 0xffffu;
    k.depth = (uint32_t)key & 0x3ffffffu;
    return k;
}

/* What the last frame did. */
typedef struct ct_render_stats_t {
    uint64_t frame;   /* frames rendered since start */
    uint32_t objects; /* mesh instances in the world */
    uint32_t visible; /* those inside the frustum */
    uint32_t packets; /* in the sorted stream: draws, layer begins, full-screen passes */
    uint32_t draws;
    uint32_t state_changes;
    uint32_t contexts; /* RenderContexts recorded into */
    uint32_t invalid;  /* display-list entries the backend refused (0 unless data is broken) */
    uint32_t reserved;
    uint64_t command_hash; /* MurmurHash64A of the display list's bytes */
} ct_render_stats_t;

typedef struct ct_render_api_v1 {
    /* Draws `world` seen from `camera` (an entity with a camera component and a transform).
     * 0, or CT_ERR_NOT_FOUND (no such camera), CT_ERR_NOMEM (packets dropped; logged). */
    int (*render)(ct_world_o *world, ct_entity_t camera);
    ct_render_stats_t (*stats)(void);
    /* "gl" or "null"; CT_ERR_INVALID for another name, CT_ERR_INIT_FAILED if gl cannot start
     * (logged; null stays). */
    int (*set_backend)(const char *name);
    const char *(*backend)(void);
    /* Uses the render_config resource `name` (loading it). Errors as ct_resource_api_v1.load. */
    int (*set_pipeline)(const char *name);
    /* Writes the last frame as a PNG. CT_ERR_INVALID on the null backend or before a frame,
     * CT_ERR_IO when the file cannot be written (logged with the reason). */
    int (*screenshot)(const char *path);
    /* Writes the last frame's sorted packet stream with what replaying it needs (pipeline,
     * materials, meshes, lights). CT_ERR_INVALID before a frame, CT_ERR_IO. */
    int (*capture)(const char *path);
} ct_render_api_v1;

/*
 * Version 2: everything of v1 (same order, same meaning), plus debug drawing. Shapes are world
 * space (metres), text is screen space (pixels from the top left of the backbuffer); colours are
 * r g b a in 0..1 (NULL: white). What is asked for between two render() calls is drawn by the
 * second, as one batch of lines and one of text at the end of the last layer, over everything
 * (no depth test), and then forgotten: ask again every frame. Non-finite input is ignored. At
 * most 2^24 line ends and 2^24 text vertices a frame; the rest is dropped. Text uses DejaVu Sans
 * (Debian's fonts-dejavu-core) baked with stb_truetype on first use; without the font, text is
 * not drawn and the log says so once. Main thread only.
 * Lua: Render.debug_line(x1, y1, z1, x2, y2, z2 [, r, g, b, a]), Render.debug_box(cx, cy, cz,
 * hx, hy, hz [, r, g, b, a]), Render.debug_sphere(cx, cy, cz, radius [, r, g, b, a]),
 * Render.debug_arrow(x1, y1, z1, x2, y2, z2 [, r, g, b, a]), Render.debug_skeleton(world, e
 * [, r, g, b, a]), Render.debug_text(x, y, text [, r, g, b, a]).
 */
typedef struct ct_render_api_v2 {
    int (*render)(ct_world_o *world, ct_entity_t camera);
    ct_render_stats_t (*stats)(void);
    int (*set_backend)(const char *name);
    const char *(*backend)(void);
    int (*set_pipeline)(const char *name);
    int (*screenshot)(const char *path);
    int (*capture)(const char *path);

    /* One line, or `num_lines` lines from pairs of points (points[2i] to points[2i + 1]). */
    void (*debug_line)(const float from[3], const float to[3], const float color[4]);
    void (*debug_lines)(const float (*points)[3], uint32_t num_lines, const float color[4]);
    /* A box's 12 edges: centre, half sizes, rotation (x y z w; NULL: none). */
    void (*debug_box)(const float center[3], const float half[3], const float rotation[4],
                      const float color[4]);
    /* Three great circles. */
    void (*debug_sphere)(const float center[3], float radius, const float color[4]);
    /* A line with a four-line head at `to`. */
    void (*debug_arrow)(const float from[3], const float to[3], const float color[4]);
    /* The bones of e's animation (ct.animation): a line from each bone to its parent bone. */
    void (*debug_skeleton)(ct_world_o *world, ct_entity_t e, const float color[4]);
    /* Text whose first line's top is at (x, y) pixels; '\n' starts a line below. */
    void (*debug_text)(float x, float y, const float color[4], const char *text);
    /* The physics shapes of every body of `world` as wireframes, as physics last saw them
     * (ct_physics_api_v4.shapes, when ct.physics is loaded; nothing otherwise): boxes, spheres
     * (three great circles turning with the body) and capsules (two rings, four lines along the
     * segment and half circles over its ends). color NULL: by state, dynamic green, kinematic
     * blue, static grey, sleeping bodies darker. Returns the number of bodies drawn. */
    uint32_t (*debug_physics)(ct_world_o *world, const float color[4]);
} ct_render_api_v2;

/*
 * Version 3: everything of v2 (same order, same meaning), plus a frame in two halves, so the
 * thread that rasterises is not the one that reads worlds, and a cap on the shadow map.
 *
 * Why: Mesa's llvmpipe rasterises on the thread that flushes the commands, tens of milliseconds a
 * frame at a 2048-texel shadow map. A tool that must keep answering while a frame is drawn (the
 * level editor: its pages' messages are served on the main thread) prepares the frame on the main
 * thread and executes it on a thread of its own.
 *
 *   prepare   main thread. Everything render() does that reads the world, components and
 *             resources: cull, record, sort, build the display list; stats() describe the frame
 *             from here on. Nothing is drawn. A prepare while an earlier prepared frame has not
 *             been executed waits for that execute (so does render()): call execute for every
 *             prepare that returned 0.
 *   execute   any one thread at a time. Draws the prepared frame with the backend (the gl backend
 *             makes its context current on the calling thread for the call and, off the main
 *             thread, releases it after) and, when rgba is not NULL, copies its pixels as
 *             ct_render_frame_api_v1.read does (same arguments, same errors). CT_ERR_INVALID when
 *             no frame is prepared. It reads no world: between prepare and execute the main thread
 *             may change worlds, spawn and destroy. Calls of this module that use the GL context
 *             (loading a mesh, a screenshot, set_pipeline) or what execute reads (debug drawing)
 *             wait for a running execute to end; debug drawing asked meanwhile goes to the next
 *             frame. --screenshot and --capture files are written by render() only.
 *   set_max_shadow_size  caps the sun's shadow map at `texels` (64..4096; 0: the pipeline's own
 *             size, the default), for a cheaper frame when a preview does not need the full map
 *             (the editor's viewport). The shadow's box, softness and everything else stay as the
 *             render_config says; the map is made again at once (main thread).
 */
typedef struct ct_render_api_v3 {
    int (*render)(ct_world_o *world, ct_entity_t camera);
    ct_render_stats_t (*stats)(void);
    int (*set_backend)(const char *name);
    const char *(*backend)(void);
    int (*set_pipeline)(const char *name);
    int (*screenshot)(const char *path);
    int (*capture)(const char *path);
    void (*debug_line)(const float from[3], const float to[3], const float color[4]);
    void (*debug_lines)(const float (*points)[3], uint32_t num_lines, const float color[4]);
    void (*debug_box)(const float center[3], const float half[3], const float rotation[4],
                      const float color[4]);
    void (*debug_sphere)(const float center[3], float radius, const float color[4]);
    void (*debug_arrow)(const float from[3], const float to[3], const float color[4]);
    void (*debug_skeleton)(ct_world_o *world, ct_entity_t e, const float color[4]);
    void (*debug_text)(float x, float y, const float color[4], const char *text);
    uint32_t (*debug_physics)(ct_world_o *world, const float color[4]);

    /* The first half of render(): 0, or render()'s errors (nothing is left to execute then). */
    int (*prepare)(ct_world_o *world, ct_entity_t camera);
    /* The second half, on any one thread; rgba NULL: draw only (width, height may be NULL). */
    int (*execute)(uint8_t *rgba, size_t capacity, uint32_t *width, uint32_t *height);
    /* The shadow map's size at most `texels` (clamped to 64..4096); 0: the pipeline's own. */
    void (*set_max_shadow_size)(uint32_t texels);
} ct_render_api_v3;

#ifdef __cplusplus
}
#endif
#endif
