/* render_gl_internal.h: the gl backend's private state, shared by render_gl.c (context, targets,
 * meshes, execution) and render_gl_programs.c (shaders). OpenGL 4.5 core through EGL: libOpenGL
 * (glvnd) exports the 4.5 entry points, so they are called directly. */
#ifndef RENDER_GL_INTERNAL_H
#define RENDER_GL_INTERNAL_H

#define GL_GLEXT_PROTOTYPES 1
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/glcorearb.h>

#include "render_gpu.h"

typedef struct render__gl_target {
    GLuint fbo, color, depth;
    uint32_t width, height, format;
} render__gl_target;

typedef struct render__gl_mesh {
    GLuint vao, vbo, ibo, skin; /* skin: a skinned mesh's bones and weights (binding 2), else 0 */
    GLuint tangents;            /* binding 3, location 15; 0 without */
    uint32_t num_indices;
} render__gl_mesh;

/* What a lean lit program leaves out (bits; render__gl.lean_lit). */
enum { RENDER_LEAN_NO_LOCAL = 1, RENDER_LEAN_NO_NORMAL_MAP = 2, RENDER_LEAN_KINDS = 4 };

struct render__gl {
    ct_allocator_t *a;
    EGLDisplay display;
    EGLContext context;
    EGLSurface surface; /* window mode only */
    void *x_display;    /* window mode only: the X11 Display */
    unsigned long x_window;
    uint32_t width, height;
    GLuint programs[RENDER_NUM_PROGRAMS];
    /* LIT and LIT_SKINNED compiled without what a run does not use (RENDER_LEAN_* bits: the
     * point and spot lights' loop in a frame without them, the normal map for materials without
     * one), the same pixels for less work on llvmpipe; [0] is unused (the full programs), all 0
     * when they did not build (the full ones draw then). */
    GLuint lean_lit[2][RENDER_LEAN_KINDS];
    GLuint empty_vao; /* full-screen passes make their vertices from gl_VertexID */
    GLuint instances; /* the frame's display list, read as per-draw vertex attributes */
    size_t instances_size;
    GLuint palette; /* the frame's bone palette, read through palette_texture (unit 1) */
    GLuint palette_texture;
    size_t palette_size;
    render__pipeline pipeline;
    render__gl_target targets[RENDER_MAX_TARGETS];
    GLuint shadow_fbo, shadow_depth; /* the sun's shadow map (a shadow layer draws into it) */
    uint32_t shadow_size;
    GLuint no_shadow;              /* 1 x 1 depth texture bound at unit 2 without a shadow map */
    GLuint local_fbo, local_depth; /* point and spot lights' shadow cubes (a cube map array) */
    GLuint no_local;               /* 1 x 1 cube array bound at unit 5 without them */
    render__local_lights local;    /* the frame's spot cones (render__gl_set_local_lights) */
    GLuint debug_vao, debug_vbo, text_vao, text_vbo; /* the frame's debug lines and text */
    size_t debug_size, text_size;
    uint32_t debug_lines, debug_text; /* vertices set this frame (a replayed capture has none) */
    float debug_view_proj[16];
    GLuint font; /* the font atlas (unit 3), 0 until set */
    render__gl_mesh *meshes;
    uint32_t meshes_cap;
    GLuint (*textures)
        [RENDER_TEXTURE_KINDS]; /* per material slot, 0: none (draws sample `white`, `flat`) */
    uint32_t textures_cap;
    GLuint white; /* 1 x 1 white, for materials without a texture */
    GLuint flat;  /* 1 x 1 (0, 0, 1) normal, for materials without a normal map */
    char renderer[160];
};

bool render__gl_build_programs(GLuint out[RENDER_NUM_PROGRAMS], char *err, size_t err_size);
/* The lean LIT and LIT_SKINNED (render__gl.lean_lit); false (err says why) when they fail. */
bool render__gl_build_lean_lit(GLuint out[2][RENDER_LEAN_KINDS], char *err, size_t err_size);

#endif
