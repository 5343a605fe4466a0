/*
 * render_gl.c: the gl backend. An OpenGL 4.5 core context through EGL: by default on EGL's
 * surfaceless platform (Mesa's llvmpipe draws it on any Linux machine, no GPU and no display
 * needed), with `window` on an X11 window of $DISPLAY. Either way every layer draws into
 * framebuffer objects, the backbuffer included, so pictures read back (screenshots, golden tests)
 * are the same with or without a window; the window only gets a copy at present.
 */
#include "render_gl_internal.h"

#include "ct_array.h"

#include <X11/Xlib.h>
#include <stdio.h>
#include <string.h>

static bool egl_fail(char *err, size_t err_size, const char *what)
{
    snprintf(err, err_size, "gl backend: %s failed (EGL error 0x%04x)", what,
             (unsigned)eglGetError());
    return false;
}

static bool open_display(render__gl *g, bool window, char *err, size_t err_size)
{
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    if (!get_display)
        return egl_fail(err, err_size, "finding eglGetPlatformDisplayEXT");
    if (window) {
        Display *x = XOpenDisplay(NULL);
        if (!x) {
            const char *name = XDisplayName(NULL);
            snprintf(err, err_size, "gl backend: --window needs an X display, and %s%s%s",
                     name[0] ? "'" : "", name[0] ? name : "$DISPLAY is not set",
                     name[0] ? "' does not open" : "");
            return false;
        }
        g->x_display = x;
        g->x_window =
            XCreateSimpleWindow(x, DefaultRootWindow(x), 0, 0, g->width, g->height, 0, 0, 0);
        XStoreName(x, g->x_window, "cuttle");
        XMapWindow(x, g->x_window);
        XFlush(x);
        g->display = get_display(EGL_PLATFORM_X11_KHR, x, NULL);
    } else {
        g->display = get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    }
    if (g->display == EGL_NO_DISPLAY)
        return egl_fail(err, err_size,
                        window ? "opening the X11 EGL display"
                               : "opening the surfaceless EGL display");
    if (!eglInitialize(g->display, NULL, NULL))
        return egl_fail(err, err_size, "eglInitialize");
    return true;
}

static bool create_context(render__gl *g, bool window, char *err, size_t err_size)
{
    if (!eglBindAPI(EGL_OPENGL_API))
        return egl_fail(err, err_size, "eglBindAPI(OpenGL)");
    const EGLint config_attribs[] = {EGL_RENDERABLE_TYPE,
                                     EGL_OPENGL_BIT,
                                     EGL_SURFACE_TYPE,
                                     window ? EGL_WINDOW_BIT : EGL_PBUFFER_BIT,
                                     EGL_RED_SIZE,
                                     8,
                                     EGL_GREEN_SIZE,
                                     8,
                                     EGL_BLUE_SIZE,
                                     8,
                                     EGL_NONE};
    EGLConfig config = NULL;
    EGLint n = 0;
    if (!eglChooseConfig(g->display, config_attribs, &config, 1, &n) || n < 1) {
        if (window)
            return egl_fail(err, err_size, "finding an RGB8 window config");
        config = EGL_NO_CONFIG_KHR; /* surfaceless contexts need none (EGL_KHR_no_config_context) */
    }
    const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION,
                                      4,
                                      EGL_CONTEXT_MINOR_VERSION,
                                      5,
                                      EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                      EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                      EGL_NONE};
    g->context = eglCreateContext(g->display, config, EGL_NO_CONTEXT, context_attribs);
    if (g->context == EGL_NO_CONTEXT)
        return egl_fail(err, err_size, "creating an OpenGL 4.5 core context");
    if (window) {
        g->surface =
            eglCreateWindowSurface(g->display, config, (EGLNativeWindowType)g->x_window, NULL);
        if (g->surface == EGL_NO_SURFACE)
            return egl_fail(err, err_size, "creating the window surface");
    }
    if (!eglMakeCurrent(g->display, g->surface, g->surface, g->context))
        return egl_fail(err, err_size, "eglMakeCurrent");
    snprintf(g->renderer, sizeof g->renderer, "%s, OpenGL %s",
             (const char *)glGetString(GL_RENDERER), (const char *)glGetString(GL_VERSION));
    return true;
}

/* A depth texture the lit programs compare against (linear filtering of the comparisons: the
 * 2x2 neighbourhood of each tap, which the shader's taps widen into a soft edge). */
static GLuint shadow_texture(uint32_t size)
{
    GLuint t;
    glCreateTextures(GL_TEXTURE_2D, 1, &t);
    glTextureStorage2D(t, 1, GL_DEPTH_COMPONENT24, (GLsizei)size, (GLsizei)size);
    glTextureParameteri(t, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTextureParameteri(t, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTextureParameteri(t, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTextureParameteri(t, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glTextureParameteri(t, GL_TEXTURE_COMPARE_MODE, GL_COMPARE_REF_TO_TEXTURE);
    glTextureParameteri(t, GL_TEXTURE_COMPARE_FUNC, GL_LEQUAL);
    if (size == 1) {
        const float one = 1.0f;
        glTextureSubImage2D(t, 0, 0, 0, 1, 1, GL_DEPTH_COMPONENT, GL_FLOAT, &one);
    }
    return t;
}

/* A depth cube map array of `size` texels a side holding `cubes` cubes, compared like the sun's
 * map (linear filtering of the comparisons). */
static GLuint cube_array(uint32_t size, uint32_t cubes)
{
    GLuint t;
    glCreateTextures(GL_TEXTURE_CUBE_MAP_ARRAY, 1, &t);
    glTextureStorage3D(t, 1, GL_DEPTH_COMPONENT32F, (GLsizei)size, (GLsizei)size,
                       (GLsizei)(6 * cubes));
    glTextureParameteri(t, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTextureParameteri(t, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTextureParameteri(t, GL_TEXTURE_COMPARE_MODE, GL_COMPARE_REF_TO_TEXTURE);
    glTextureParameteri(t, GL_TEXTURE_COMPARE_FUNC, GL_LEQUAL);
    if (size == 1) {
        const float one[6] = {1, 1, 1, 1, 1, 1};
        glTextureSubImage3D(t, 0, 0, 0, 0, 1, 1, (GLsizei)(6 * cubes), GL_DEPTH_COMPONENT, GL_FLOAT,
                            one);
    }
    return t;
}

static void release_shadow(render__gl *g)
{
    if (g->shadow_fbo)
        glDeleteFramebuffers(1, &g->shadow_fbo);
    if (g->shadow_depth)
        glDeleteTextures(1, &g->shadow_depth);
    if (g->local_fbo)
        glDeleteFramebuffers(1, &g->local_fbo);
    if (g->local_depth)
        glDeleteTextures(1, &g->local_depth);
    g->shadow_fbo = g->shadow_depth = g->local_fbo = g->local_depth = 0;
    g->shadow_size = 0;
}

/* The vertex arrays of debug lines (position, colour) and text (pixel position, uv, colour). */
static void make_debug_arrays(render__gl *g)
{
    glCreateBuffers(1, &g->debug_vbo);
    glCreateBuffers(1, &g->text_vbo);
    glCreateVertexArrays(1, &g->debug_vao);
    glVertexArrayVertexBuffer(g->debug_vao, 0, g->debug_vbo, 0, sizeof(render__debug_vertex));
    glEnableVertexArrayAttrib(g->debug_vao, 0);
    glEnableVertexArrayAttrib(g->debug_vao, 1);
    glVertexArrayAttribFormat(g->debug_vao, 0, 3, GL_FLOAT, GL_FALSE,
                              offsetof(render__debug_vertex, position));
    glVertexArrayAttribFormat(g->debug_vao, 1, 4, GL_UNSIGNED_BYTE, GL_TRUE,
                              offsetof(render__debug_vertex, color));
    glVertexArrayAttribBinding(g->debug_vao, 0, 0);
    glVertexArrayAttribBinding(g->debug_vao, 1, 0);
    glCreateVertexArrays(1, &g->text_vao);
    glVertexArrayVertexBuffer(g->text_vao, 0, g->text_vbo, 0, sizeof(render__text_vertex));
    glEnableVertexArrayAttrib(g->text_vao, 0);
    glEnableVertexArrayAttrib(g->text_vao, 1);
    glEnableVertexArrayAttrib(g->text_vao, 2);
    glVertexArrayAttribFormat(g->text_vao, 0, 2, GL_FLOAT, GL_FALSE,
                              offsetof(render__text_vertex, position));
    glVertexArrayAttribFormat(g->text_vao, 1, 2, GL_FLOAT, GL_FALSE,
                              offsetof(render__text_vertex, uv));
    glVertexArrayAttribFormat(g->text_vao, 2, 4, GL_UNSIGNED_BYTE, GL_TRUE,
                              offsetof(render__text_vertex, color));
    for (GLuint k = 0; k < 3; k++)
        glVertexArrayAttribBinding(g->text_vao, k, 0);
}

/* A GL buffer object grown to twice what is asked when too small (GPU memory: not a host array
 * for ct_array.h), then filled. */
static void upload(GLuint buffer, size_t *capacity, const void *data, size_t size)
{
    if (size > *capacity) {
        *capacity = size * 2;
        glNamedBufferData(buffer, (GLsizeiptr)*capacity, NULL, GL_STREAM_DRAW);
    }
    if (size)
        glNamedBufferSubData(buffer, 0, (GLsizeiptr)size, data);
}

bool render__gl_set_debug(render__gl *g, const render__debug *d, const float view_proj[16])
{
    upload(g->debug_vbo, &g->debug_size, d->lines, (size_t)d->num_lines * sizeof *d->lines);
    upload(g->text_vbo, &g->text_size, d->text, (size_t)d->num_text * sizeof *d->text);
    g->debug_lines = d->num_lines, g->debug_text = d->num_text;
    memcpy(g->debug_view_proj, view_proj, sizeof g->debug_view_proj);
    return glGetError() == GL_NO_ERROR;
}

bool render__gl_set_font(render__gl *g, const uint8_t *atlas, uint32_t width, uint32_t height)
{
    if (g->font)
        glDeleteTextures(1, &g->font);
    glCreateTextures(GL_TEXTURE_2D, 1, &g->font);
    glTextureStorage2D(g->font, 1, GL_R8, (GLsizei)width, (GLsizei)height);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTextureSubImage2D(g->font, 0, 0, 0, (GLsizei)width, (GLsizei)height, GL_RED, GL_UNSIGNED_BYTE,
                        atlas);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTextureParameteri(g->font, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTextureParameteri(g->font, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    return glGetError() == GL_NO_ERROR;
}

/* A batch of debug lines or text over whatever the layer's target holds. */
static void draw_debug(render__gl *g, const render__draw *d)
{
    const bool text = d->program == RENDER_PROGRAM_TEXT;
    /* Only what this frame set (a capture holds the packets but not the vertices). */
    const uint64_t end = (uint64_t)d->palette + d->mesh;
    if ((text && !g->font) || end > (text ? g->debug_text : g->debug_lines))
        return;
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_CULL_FACE);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glUseProgram(g->programs[d->program]);
    GLint viewport[4];
    glGetIntegerv(GL_VIEWPORT, viewport);
    if (text) {
        glUniform2f(0, (float)viewport[2], (float)viewport[3]);
        glBindTextureUnit(3, g->font);
        glBindVertexArray(g->text_vao);
        glDrawArrays(GL_TRIANGLES, (GLint)d->palette, (GLsizei)d->mesh);
    } else {
        glUniformMatrix4fv(0, 1, GL_FALSE, g->debug_view_proj);
        glBindVertexArray(g->debug_vao);
        glDrawArrays(GL_LINES, (GLint)d->palette, (GLsizei)d->mesh);
    }
    glEnable(GL_CULL_FACE);
    glDisable(GL_BLEND);
}

render__gl *render__gl_create(ct_allocator_t *a, const render__gl_desc *desc, char *err,
                              size_t err_size)
{
    render__gl *g = ct_alloc(a, sizeof *g);
    if (!g) {
        snprintf(err, err_size, "gl backend: out of memory");
        return NULL;
    }
    *g = (render__gl){.a = a,
                      .display = EGL_NO_DISPLAY,
                      .context = EGL_NO_CONTEXT,
                      .surface = EGL_NO_SURFACE,
                      .width = desc->width,
                      .height = desc->height};
    if (!open_display(g, desc->window, err, err_size) ||
        !create_context(g, desc->window, err, err_size) ||
        !render__gl_build_programs(g->programs, err, err_size)) {
        render__gl_destroy(g);
        return NULL;
    }
    char lean_err[256];
    if (!render__gl_build_lean_lit(g->lean_lit, lean_err, sizeof lean_err))
        fprintf(stderr, "gl backend: %s (frames without point lights draw the full program)\n",
                lean_err);
    glCreateVertexArrays(1, &g->empty_vao);
    glCreateBuffers(1, &g->instances);
    glCreateBuffers(1, &g->palette);
    glCreateTextures(GL_TEXTURE_BUFFER, 1, &g->palette_texture);
    static const uint8_t white[4] = {255, 255, 255, 255};
    glCreateTextures(GL_TEXTURE_2D, 1, &g->white);
    glTextureStorage2D(g->white, 1, GL_SRGB8_ALPHA8, 1, 1);
    glTextureSubImage2D(g->white, 0, 0, 0, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, white);
    static const uint8_t flat[4] = {128, 128, 255, 255};
    glCreateTextures(GL_TEXTURE_2D, 1, &g->flat);
    glTextureStorage2D(g->flat, 1, GL_RGBA8, 1, 1);
    glTextureSubImage2D(g->flat, 0, 0, 0, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, flat);
    g->no_shadow = shadow_texture(1);
    g->no_local = cube_array(1, 1);
    make_debug_arrays(g);
    return g;
}

static void release_target(render__gl_target *t)
{
    glDeleteFramebuffers(1, &t->fbo);
    glDeleteTextures(1, &t->color);
    glDeleteTextures(1, &t->depth);
    *t = (render__gl_target){0};
}

void render__gl_destroy(render__gl *g)
{
    if (!g)
        return;
    if (g->context != EGL_NO_CONTEXT) {
        for (uint32_t k = 0; k < g->meshes_cap; k++)
            render__gl_mesh_release(g, k);
        for (uint32_t k = 0; k < g->textures_cap; k++)
            render__gl_texture_release(g, k);
        glDeleteTextures(1, &g->white);
        glDeleteTextures(1, &g->flat);
        glDeleteTextures(1, &g->no_shadow);
        glDeleteTextures(1, &g->no_local);
        glDeleteVertexArrays(1, &g->debug_vao);
        glDeleteVertexArrays(1, &g->text_vao);
        glDeleteBuffers(1, &g->debug_vbo);
        glDeleteBuffers(1, &g->text_vbo);
        if (g->font)
            glDeleteTextures(1, &g->font);
        release_shadow(g);
        for (uint32_t k = 0; k < RENDER_MAX_TARGETS; k++)
            release_target(&g->targets[k]);
        for (uint32_t k = 0; k < RENDER_NUM_PROGRAMS; k++)
            glDeleteProgram(g->programs[k]);
        for (uint32_t k = 0; k < RENDER_LEAN_KINDS; k++) {
            glDeleteProgram(g->lean_lit[0][k]);
            glDeleteProgram(g->lean_lit[1][k]);
        }
        glDeleteVertexArrays(1, &g->empty_vao);
        glDeleteBuffers(1, &g->instances);
        glDeleteTextures(1, &g->palette_texture);
        glDeleteBuffers(1, &g->palette);
        eglMakeCurrent(g->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        if (g->surface != EGL_NO_SURFACE)
            eglDestroySurface(g->display, g->surface);
        eglDestroyContext(g->display, g->context);
    }
    if (g->display != EGL_NO_DISPLAY)
        eglTerminate(g->display);
    if (g->x_display) {
        XDestroyWindow(g->x_display, g->x_window);
        XCloseDisplay(g->x_display);
    }
    ct_free(g->a, g->meshes, (size_t)g->meshes_cap * sizeof *g->meshes);
    ct_free(g->a, g->textures, (size_t)g->textures_cap * sizeof *g->textures);
    ct_free(g->a, g, sizeof *g);
}

const char *render__gl_renderer(const render__gl *g) { return g->renderer; }

unsigned long render__gl_x11_window(const render__gl *g) { return g->x_display ? g->x_window : 0; }

bool render__gl_mesh_set(render__gl *g, uint32_t mesh, const render__vertex *v,
                         uint32_t num_vertices, const uint32_t *indices, uint32_t num_indices)
{
    if (mesh >= g->meshes_cap) {
        const uint32_t old = g->meshes_cap;
        if (!ct_array_reserve_of(g->a, &g->meshes, &g->meshes_cap, mesh + 1, 64))
            return false;
        memset(g->meshes + old, 0, (size_t)(g->meshes_cap - old) * sizeof *g->meshes);
    }
    render__gl_mesh_release(g, mesh);
    render__gl_mesh *m = &g->meshes[mesh];
    glCreateBuffers(1, &m->vbo);
    glCreateBuffers(1, &m->ibo);
    glNamedBufferData(m->vbo, (GLsizeiptr)num_vertices * (GLsizeiptr)sizeof *v, v, GL_STATIC_DRAW);
    glNamedBufferData(m->ibo, (GLsizeiptr)num_indices * (GLsizeiptr)sizeof *indices, indices,
                      GL_STATIC_DRAW);
    glCreateVertexArrays(1, &m->vao);
    glVertexArrayVertexBuffer(m->vao, 0, m->vbo, 0, sizeof *v);
    glVertexArrayElementBuffer(m->vao, m->ibo);
    glEnableVertexArrayAttrib(m->vao, 0);
    glEnableVertexArrayAttrib(m->vao, 1);
    glVertexArrayAttribFormat(m->vao, 0, 3, GL_FLOAT, GL_FALSE, offsetof(render__vertex, position));
    glVertexArrayAttribFormat(m->vao, 1, 3, GL_FLOAT, GL_FALSE, offsetof(render__vertex, normal));
    glVertexArrayAttribBinding(m->vao, 0, 0);
    glVertexArrayAttribBinding(m->vao, 1, 0);
    glEnableVertexArrayAttrib(m->vao, 14);
    glVertexArrayAttribFormat(m->vao, 14, 2, GL_FLOAT, GL_FALSE, offsetof(render__vertex, uv));
    glVertexArrayAttribBinding(m->vao, 14, 0);
    /* Binding 1: the display list, one render__draw per instance (its buffer is bound per frame):
     * mvp, world, normal and the material's two vectors, 12 vec4s from render__draw.mvp on. */
    for (GLuint k = 0; k < 12; k++) {
        glEnableVertexArrayAttrib(m->vao, 2 + k);
        glVertexArrayAttribFormat(m->vao, 2 + k, 4, GL_FLOAT, GL_FALSE,
                                  (GLuint)(offsetof(render__draw, mvp) + 16 * k));
        glVertexArrayAttribBinding(m->vao, 2 + k, 1);
    }
    glVertexArrayBindingDivisor(m->vao, 1, 1);
    m->num_indices = num_indices;
    return glGetError() == GL_NO_ERROR;
}

bool render__gl_mesh_set_tangents(render__gl *g, uint32_t mesh, const float (*tangents)[4],
                                  uint32_t num_vertices)
{
    if (mesh >= g->meshes_cap || !g->meshes[mesh].vao)
        return false;
    render__gl_mesh *m = &g->meshes[mesh];
    if (!m->tangents)
        glCreateBuffers(1, &m->tangents);
    glNamedBufferData(m->tangents, (GLsizeiptr)num_vertices * 16, tangents, GL_STATIC_DRAW);
    glVertexArrayVertexBuffer(m->vao, 3, m->tangents, 0, 16);
    glEnableVertexArrayAttrib(m->vao, 15);
    glVertexArrayAttribFormat(m->vao, 15, 4, GL_FLOAT, GL_FALSE, 0);
    glVertexArrayAttribBinding(m->vao, 15, 3);
    return glGetError() == GL_NO_ERROR;
}

bool render__gl_mesh_set_skin(render__gl *g, uint32_t mesh, const render__skin_vertex *skin,
                              uint32_t num_vertices)
{
    if (mesh >= g->meshes_cap || !g->meshes[mesh].vao)
        return false;
    render__gl_mesh *m = &g->meshes[mesh];
    glCreateBuffers(1, &m->skin);
    glNamedBufferData(m->skin, (GLsizeiptr)num_vertices * (GLsizeiptr)sizeof *skin, skin,
                      GL_STATIC_DRAW);
    /* Sixteen attribute locations are all a GL 4.5 implementation must offer (llvmpipe offers no
     * more), so a skinned mesh's vertex array reads its draws differently: no normal matrix (the
     * skinned program turns normals by the world matrix), locations 9..10 the material, 11 the
     * palette, 12..13 the bones and weights (binding 2). */
    const GLuint material = (GLuint)offsetof(render__draw, params);
    glVertexArrayAttribFormat(m->vao, 9, 4, GL_FLOAT, GL_FALSE, material);
    glVertexArrayAttribFormat(m->vao, 10, 4, GL_FLOAT, GL_FALSE, material + 16);
    glVertexArrayAttribIFormat(m->vao, 11, 1, GL_UNSIGNED_INT,
                               (GLuint)offsetof(render__draw, palette));
    glVertexArrayVertexBuffer(m->vao, 2, m->skin, 0, sizeof *skin);
    glVertexArrayAttribIFormat(m->vao, 12, 4, GL_UNSIGNED_SHORT,
                               (GLuint)offsetof(render__skin_vertex, joints));
    glVertexArrayAttribFormat(m->vao, 13, 4, GL_FLOAT, GL_FALSE,
                              (GLuint)offsetof(render__skin_vertex, weights));
    glVertexArrayAttribBinding(m->vao, 12, 2);
    glVertexArrayAttribBinding(m->vao, 13, 2);
    return glGetError() == GL_NO_ERROR;
}

bool render__gl_set_palette(render__gl *g, const float (*bones)[12], uint32_t n)
{
    const size_t size = (size_t)n * sizeof *bones;
    if (size > g->palette_size) {
        g->palette_size = size * 2;
        glNamedBufferData(g->palette, (GLsizeiptr)g->palette_size, NULL, GL_STREAM_DRAW);
        glTextureBuffer(g->palette_texture, GL_RGBA32F, g->palette);
    }
    if (size)
        glNamedBufferSubData(g->palette, 0, (GLsizeiptr)size, bones);
    return glGetError() == GL_NO_ERROR;
}

void render__gl_mesh_release(render__gl *g, uint32_t mesh)
{
    if (mesh >= g->meshes_cap || !g->meshes[mesh].vao)
        return;
    render__gl_mesh *m = &g->meshes[mesh];
    glDeleteVertexArrays(1, &m->vao);
    glDeleteBuffers(1, &m->vbo);
    glDeleteBuffers(1, &m->ibo);
    if (m->skin)
        glDeleteBuffers(1, &m->skin);
    if (m->tangents)
        glDeleteBuffers(1, &m->tangents);
    *m = (render__gl_mesh){0};
}

bool render__gl_texture_set(render__gl *g, uint32_t material, uint32_t kind,
                            const render__texture_info *info, const uint8_t *levels)
{
    if (kind >= RENDER_TEXTURE_KINDS)
        return false;
    if (material >= g->textures_cap) {
        const uint32_t old = g->textures_cap;
        if (!ct_array_reserve_of(g->a, &g->textures, &g->textures_cap, material + 1, 64))
            return false;
        memset(g->textures + old, 0, (size_t)(g->textures_cap - old) * sizeof *g->textures);
    }
    GLuint *tex = &g->textures[material][kind];
    if (*tex)
        glDeleteTextures(1, tex);
    glCreateTextures(GL_TEXTURE_2D, 1, tex);
    glTextureStorage2D(*tex, (GLsizei)info->levels,
                       info->flags & RENDER_TEXTURE_SRGB ? GL_SRGB8_ALPHA8 : GL_RGBA8,
                       (GLsizei)info->width, (GLsizei)info->height);
    uint32_t w = info->width, h = info->height;
    for (uint32_t l = 0; l < info->levels; l++) {
        glTextureSubImage2D(*tex, (GLint)l, 0, 0, (GLsizei)w, (GLsizei)h, GL_RGBA, GL_UNSIGNED_BYTE,
                            levels);
        levels += (size_t)w * h * 4;
        w = w > 1 ? w / 2 : 1, h = h > 1 ? h / 2 : 1;
    }
    glTextureParameteri(*tex, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
    glTextureParameteri(*tex, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTextureParameteri(*tex, GL_TEXTURE_WRAP_S, GL_REPEAT);
    glTextureParameteri(*tex, GL_TEXTURE_WRAP_T, GL_REPEAT);
    return glGetError() == GL_NO_ERROR;
}

void render__gl_texture_release(render__gl *g, uint32_t material)
{
    for (uint32_t k = 0; material < g->textures_cap && k < RENDER_TEXTURE_KINDS; k++)
        if (g->textures[material][k]) {
            glDeleteTextures(1, &g->textures[material][k]);
            g->textures[material][k] = 0;
        }
}

/* The textures draws of `material` sample. */
static GLuint texture_of(const render__gl *g, uint32_t material)
{
    return material < g->textures_cap && g->textures[material][0] ? g->textures[material][0]
                                                                  : g->white;
}

static GLuint normal_map_of(const render__gl *g, uint32_t material)
{
    return material < g->textures_cap && g->textures[material][1] ? g->textures[material][1]
                                                                  : g->flat;
}

static bool make_target(render__gl_target *t, uint32_t w, uint32_t h, uint32_t format)
{
    if (t->fbo && t->width == w && t->height == h && t->format == format)
        return true;
    release_target(t);
    *t = (render__gl_target){.width = w, .height = h, .format = format};
    glCreateTextures(GL_TEXTURE_2D, 1, &t->color);
    glTextureStorage2D(t->color, 1, format == RENDER_FORMAT_RGBA16F ? GL_RGBA16F : GL_RGBA8,
                       (GLsizei)w, (GLsizei)h);
    glTextureParameteri(t->color, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTextureParameteri(t->color, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTextureParameteri(t->color, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTextureParameteri(t->color, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glCreateTextures(GL_TEXTURE_2D, 1, &t->depth);
    glTextureStorage2D(t->depth, 1, GL_DEPTH_COMPONENT24, (GLsizei)w, (GLsizei)h);
    glCreateFramebuffers(1, &t->fbo);
    glNamedFramebufferTexture(t->fbo, GL_COLOR_ATTACHMENT0, t->color, 0);
    glNamedFramebufferTexture(t->fbo, GL_DEPTH_ATTACHMENT, t->depth, 0);
    return glCheckNamedFramebufferStatus(t->fbo, GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
}

/* The shadow map the pipeline asks for (none: released). */
static bool make_shadow(render__gl *g, const render__pipeline *p)
{
    const uint32_t size = p->shadow_layer != RENDER_NO_INDEX ? p->shadow_size : 0;
    if (size == g->shadow_size)
        return true;
    release_shadow(g);
    if (!size)
        return true;
    g->shadow_depth = shadow_texture(size);
    glCreateFramebuffers(1, &g->shadow_fbo);
    glNamedFramebufferTexture(g->shadow_fbo, GL_DEPTH_ATTACHMENT, g->shadow_depth, 0);
    glNamedFramebufferDrawBuffer(g->shadow_fbo, GL_NONE);
    glNamedFramebufferReadBuffer(g->shadow_fbo, GL_NONE);
    g->shadow_size = size;
    /* The point and spot lights' cubes draw in the same layer: made with it. */
    g->local_depth = cube_array(RENDER_LOCAL_SHADOW_SIZE, RENDER_MAX_LOCAL_SHADOWS);
    glCreateFramebuffers(1, &g->local_fbo);
    glNamedFramebufferTextureLayer(g->local_fbo, GL_DEPTH_ATTACHMENT, g->local_depth, 0, 0);
    glNamedFramebufferDrawBuffer(g->local_fbo, GL_NONE);
    glNamedFramebufferReadBuffer(g->local_fbo, GL_NONE);
    return glCheckNamedFramebufferStatus(g->shadow_fbo, GL_FRAMEBUFFER) ==
               GL_FRAMEBUFFER_COMPLETE &&
           glCheckNamedFramebufferStatus(g->local_fbo, GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
}

bool render__gl_set_pipeline(render__gl *g, const render__pipeline *p, char *err, size_t err_size)
{
    g->pipeline = *p;
    if (!make_shadow(g, p)) {
        snprintf(err, err_size, "gl backend: the %u x %u shadow map is not complete",
                 p->shadow_size, p->shadow_size);
        return false;
    }
    for (uint32_t k = 0; k < p->num_targets; k++) {
        const render__target_desc *d = &p->targets[k];
        const uint32_t w = k ? (uint32_t)(d->scale * (float)p->width) : p->width;
        const uint32_t h = k ? (uint32_t)(d->scale * (float)p->height) : p->height;
        if (!make_target(&g->targets[k], w ? w : 1, h ? h : 1,
                         k ? d->format : RENDER_FORMAT_RGBA8)) {
            snprintf(err, err_size, "gl backend: render target '%s' (%ux%u) is not complete",
                     d->name, w, h);
            return false;
        }
    }
    for (uint32_t k = p->num_targets; k < RENDER_MAX_TARGETS; k++)
        release_target(&g->targets[k]);
    return true;
}

static void begin_layer(render__gl *g, uint32_t layer)
{
    const render__layer_desc *l = &g->pipeline.layers[layer];
    const render__gl_target *t = &g->targets[l->target];
    const bool shadow = (l->flags & RENDER_LAYER_SHADOW) && g->shadow_fbo;
    glBindFramebuffer(GL_FRAMEBUFFER, shadow ? g->shadow_fbo : t->fbo);
    if (shadow)
        glViewport(0, 0, (GLsizei)g->shadow_size, (GLsizei)g->shadow_size);
    else
        glViewport(0, 0, (GLsizei)t->width, (GLsizei)t->height);
    /* Layers after the shadow layer read its maps (a layer before it would read last frame's). */
    glBindTextureUnit(2, !shadow && g->shadow_depth ? g->shadow_depth : g->no_shadow);
    glBindTextureUnit(5, !shadow && g->local_depth ? g->local_depth : g->no_local);
    /* Depth pushed away from the sun a little, so lit surfaces do not shadow themselves. */
    if (shadow) {
        glEnable(GL_POLYGON_OFFSET_FILL);
        glPolygonOffset(1.5f, 2.0f);
    } else {
        glDisable(GL_POLYGON_OFFSET_FILL);
    }
    glDepthMask(GL_TRUE);
    GLbitfield clear = 0;
    if ((l->flags & RENDER_LAYER_CLEAR_COLOR) && !shadow) {
        glClearColor(l->clear_color[0], l->clear_color[1], l->clear_color[2], l->clear_color[3]);
        clear |= GL_COLOR_BUFFER_BIT;
    }
    if (l->flags & RENDER_LAYER_CLEAR_DEPTH) {
        glClearDepth(l->clear_depth);
        clear |= GL_DEPTH_BUFFER_BIT;
    }
    if (clear)
        glClear(clear);
    if (l->flags & RENDER_LAYER_DEPTH_TEST)
        glEnable(GL_DEPTH_TEST);
    else
        glDisable(GL_DEPTH_TEST);
    if (l->flags & RENDER_LAYER_BACK_TO_FRONT) {
        glEnable(GL_BLEND);
        glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
        glDepthMask(GL_FALSE);
    } else {
        glDisable(GL_BLEND);
    }
}

/* The display list goes to the GPU once per frame; draws read their matrices from it. */
static void upload_draws(render__gl *g, const render__draw *draws, uint32_t n)
{
    upload(g->instances, &g->instances_size, draws, (size_t)n * sizeof *draws);
}

/* Entries after `i` that draw the same mesh with the same program and textures (materials'
 * parameters are instance data: a change of material alone does not end a run). */
static uint32_t run_end(const render__gl *g, const render__draw *draws, uint32_t i, uint32_t n)
{
    const GLuint texture = texture_of(g, draws[i].material),
                 normal = normal_map_of(g, draws[i].material);
    uint32_t j = i + 1;
    while (
        j < n && draws[j].kind == RENDER_CMD_DRAW &&
        !(draws[j].changes & (RENDER_CHANGE_PROGRAM | RENDER_CHANGE_MESH | RENDER_CHANGE_LAYER)) &&
        texture_of(g, draws[j].material) == texture &&
        normal_map_of(g, draws[j].material) == normal)
        j++;
    return j;
}

void render__gl_set_local_lights(render__gl *g, const render__local_lights *local)
{
    g->local = *local;
}

static bool local_program(uint32_t p)
{
    return p == RENDER_PROGRAM_SHADOW_LOCAL || p == RENDER_PROGRAM_SHADOW_LOCAL_SKINNED;
}

/* Face f of a cube seen from `eye`: projection (90 degrees, near 5 cm, far `range`) * view, with
 * the axes GL's cube map sampling gives each face (right, up, and the face's direction). */
static void cube_face(const float eye[3], float range, uint32_t f, float out[16])
{
    static const float axes[6][3][3] = {
        {{0, 0, -1}, {0, -1, 0}, {1, 0, 0}}, {{0, 0, 1}, {0, -1, 0}, {-1, 0, 0}},
        {{1, 0, 0}, {0, 0, 1}, {0, 1, 0}},   {{1, 0, 0}, {0, 0, -1}, {0, -1, 0}},
        {{1, 0, 0}, {0, -1, 0}, {0, 0, 1}},  {{-1, 0, 0}, {0, -1, 0}, {0, 0, -1}},
    };
    const float *r = axes[f][0], *u = axes[f][1], *d = axes[f][2];
    const float view[16] = {r[0],
                            u[0],
                            -d[0],
                            0,
                            r[1],
                            u[1],
                            -d[1],
                            0,
                            r[2],
                            u[2],
                            -d[2],
                            0,
                            -(r[0] * eye[0] + r[1] * eye[1] + r[2] * eye[2]),
                            -(u[0] * eye[0] + u[1] * eye[1] + u[2] * eye[2]),
                            d[0] * eye[0] + d[1] * eye[1] + d[2] * eye[2],
                            1};
    const float n = 0.05f, fa = range > 0.1f ? range : 0.1f;
    const float proj[16] = {
        1, 0, 0, 0, 0, 1, 0, 0, 0, 0, (fa + n) / (n - fa), -1, 0, 0, 2 * fa * n / (n - fa), 0};
    render__mat4_mul(out, proj, view);
}

/* The shadow layer's pass 2, draws [begin, end): every caster into the six faces of each
 * shadowed point or spot light's cube (the light's colour w in `lights` is its cube + 1). */
static uint32_t draw_local_shadows(render__gl *g, const render__draw *draws, uint32_t begin,
                                   uint32_t end, uint32_t num_materials,
                                   const render__frame_lights *lights)
{
    if (!g->local_fbo)
        return 0;
    uint32_t calls = 0;
    glBindFramebuffer(GL_FRAMEBUFFER, g->local_fbo);
    glViewport(0, 0, RENDER_LOCAL_SHADOW_SIZE, RENDER_LOCAL_SHADOW_SIZE);
    glDisable(GL_POLYGON_OFFSET_FILL); /* the distance written is exact; the lit programs bias it */
    glEnable(GL_DEPTH_TEST);
    glDepthMask(GL_TRUE);
    glDisable(GL_BLEND);
    glClearDepth(1.0);
    for (uint32_t k = 0; k < 4; k++) {
        const float *light = lights->v[4 + 2 * k], layer = lights->v[5 + 2 * k][3];
        if (!(layer >= 1.0f && layer <= (float)RENDER_MAX_LOCAL_SHADOWS) ||
            k >= (uint32_t)lights->v[1][3])
            continue;
        for (uint32_t f = 0; f < 6; f++) {
            glNamedFramebufferTextureLayer(g->local_fbo, GL_DEPTH_ATTACHMENT, g->local_depth, 0,
                                           (GLint)(6 * ((uint32_t)layer - 1) + f));
            glClear(GL_DEPTH_BUFFER_BIT);
            float face[16];
            cube_face(light, light[3], f, face);
            for (uint32_t p = RENDER_PROGRAM_SHADOW_LOCAL; p <= RENDER_PROGRAM_SHADOW_LOCAL_SKINNED;
                 p++) {
                glProgramUniformMatrix4fv(g->programs[p], 40, 1, GL_FALSE, face);
                glProgramUniform4fv(g->programs[p], 44, 1, light);
            }
            for (uint32_t i = begin; i < end;) {
                const render__draw *d = &draws[i];
                uint32_t j = i + 1;
                while (j < end && draws[j].program == d->program && draws[j].mesh == d->mesh)
                    j++;
                if (d->material < num_materials && d->mesh < g->meshes_cap &&
                    g->meshes[d->mesh].vao) {
                    const render__gl_mesh *m = &g->meshes[d->mesh];
                    glUseProgram(g->programs[d->program]);
                    glVertexArrayVertexBuffer(m->vao, 1, g->instances, 0, sizeof *d);
                    glBindVertexArray(m->vao);
                    glDrawElementsInstancedBaseInstance(GL_TRIANGLES, (GLsizei)m->num_indices,
                                                        GL_UNSIGNED_INT, NULL, (GLsizei)(j - i), i);
                    calls++;
                }
                i = j;
            }
        }
    }
    return calls;
}

uint32_t render__gl_execute(render__gl *g, const render__draw *draws, uint32_t n,
                            uint32_t num_materials, const render__frame_lights *lights)
{
    glEnable(GL_CULL_FACE);
    glDepthFunc(GL_LEQUAL);
    upload_draws(g, draws, n);
    glBindTextureUnit(1, g->palette_texture);
    glBindTextureUnit(2, g->no_shadow);
    uint32_t calls = 0, layer = RENDER_NO_INDEX;
    GLuint frame_set = 0; /* bit k: program k has this frame's lights (below) */
    GLuint used_lean = 0; /* the lean lit program in use, 0: the draw's own */
    for (uint32_t i = 0; i < n;) {
        const render__draw *d = &draws[i];
        if (d->kind == RENDER_CMD_LAYER) {
            layer = d->layer < g->pipeline.num_layers ? d->layer : RENDER_NO_INDEX;
            if (layer != RENDER_NO_INDEX)
                begin_layer(g, layer);
            i++;
            continue;
        }
        if (d->kind == RENDER_CMD_PARTICLES) {
            if (layer != RENDER_NO_INDEX)
                calls += render__gl_particles(g, d->mesh, g->pipeline.layers[layer].flags);
            i++;
            continue;
        }
        /* Entries outside a configured layer, or naming things that do not exist, are skipped:
         * the null backend reports them as invalid. */
        if (layer == RENDER_NO_INDEX || d->program >= RENDER_NUM_PROGRAMS) {
            i++;
            continue;
        }
        if (d->kind == RENDER_CMD_DEBUG) {
            draw_debug(g, d);
            calls++;
            i++;
            continue;
        }
        if (d->kind == RENDER_CMD_FULLSCREEN) {
            const render__layer_desc *l = &g->pipeline.layers[layer];
            if (l->input < g->pipeline.num_targets && l->input != l->target) {
                glDisable(GL_DEPTH_TEST);
                glUseProgram(g->programs[d->program]);
                glBindTextureUnit(0, g->targets[l->input].color);
                glBindVertexArray(g->empty_vao);
                glDrawArrays(GL_TRIANGLES, 0, 3);
                calls++;
            }
            i++;
            continue;
        }
        if (local_program(d->program)) { /* the block of point/spot shadow casters, all at once */
            uint32_t end = i + 1;
            while (end < n && draws[end].kind == RENDER_CMD_DRAW &&
                   local_program(draws[end].program) && draws[end].layer == d->layer)
                end++;
            calls += draw_local_shadows(g, draws, i, end, num_materials, lights);
            /* What follows sets its program, mesh and target again. */
            glBindFramebuffer(GL_FRAMEBUFFER, g->shadow_fbo);
            i = end;
            continue;
        }
        const uint32_t end = run_end(g, draws, i, n);
        if (d->material >= num_materials || d->mesh >= g->meshes_cap || !g->meshes[d->mesh].vao) {
            i = end;
            continue;
        }
        /* Only the lit programs read the frame's lights (setting an absent location fails). A
         * lit run draws the lean variant that leaves out what it does not use (the same pixels):
         * the lights' loop in a frame without point or spot lights, the normal map for materials
         * without one. Runs split where the normal map changes (run_end). */
        const bool lit =
            d->program == RENDER_PROGRAM_LIT || d->program == RENDER_PROGRAM_LIT_SKINNED;
        const uint32_t lean =
            !lit ? 0
                 : (lights->v[1][3] == 0.0f ? RENDER_LEAN_NO_LOCAL : 0) |
                       (normal_map_of(g, d->material) == g->flat ? RENDER_LEAN_NO_NORMAL_MAP : 0);
        const GLuint lean_program =
            lean ? g->lean_lit[d->program == RENDER_PROGRAM_LIT_SKINNED][lean] : 0;
        /* Bit k: program k has this frame's uniforms; bits 16 + 4 * skinned + kind the lean. */
        const uint32_t slot = lean_program
                                  ? 16u + 4u * (d->program == RENDER_PROGRAM_LIT_SKINNED) + lean
                                  : d->program;
        if ((d->changes & RENDER_CHANGE_PROGRAM) || lean_program != used_lean) {
            glUseProgram(lean_program ? lean_program : g->programs[d->program]);
            used_lean = lean_program;
            if ((lit || d->program == RENDER_PROGRAM_SHADOW ||
                 d->program == RENDER_PROGRAM_SHADOW_SKINNED) &&
                !(frame_set & (1u << slot))) {
                glUniform4fv(12, 16, &lights->v[0][0]);
                if (lit && !(lean & RENDER_LEAN_NO_LOCAL))
                    glUniform4fv(28, 8, &g->local.v[0][0]);
                frame_set |= 1u << slot;
            }
        }
        const render__gl_mesh *m = &g->meshes[d->mesh];
        if (d->changes & RENDER_CHANGE_MESH) {
            glVertexArrayVertexBuffer(m->vao, 1, g->instances, 0, sizeof *d);
            glBindVertexArray(m->vao);
        }
        glBindTextureUnit(0, texture_of(g, d->material));
        glBindTextureUnit(4, normal_map_of(g, d->material));
        glDrawElementsInstancedBaseInstance(GL_TRIANGLES, (GLsizei)m->num_indices, GL_UNSIGNED_INT,
                                            NULL, (GLsizei)(end - i), i);
        calls++;
        i = end;
    }
    glBindVertexArray(0);
    return calls;
}

bool render__gl_bind(render__gl *g, bool on)
{
    /* Releasing flushes the commands given so far: the next thread sees them done. */
    return on ? eglMakeCurrent(g->display, g->surface, g->surface, g->context)
              : eglMakeCurrent(g->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
}

bool render__gl_read(render__gl *g, uint8_t *rgba)
{
    const render__gl_target *t = &g->targets[0];
    if (!t->fbo)
        return false;
    while (glGetError() != GL_NO_ERROR) /* an earlier frame's error is not this read's */
        ;
    glBindFramebuffer(GL_FRAMEBUFFER, t->fbo);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, (GLsizei)t->width, (GLsizei)t->height, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    /* GL's first row is the bottom one; images start at the top. */
    const size_t row = (size_t)t->width * 4;
    uint8_t tmp[4 * 4096];
    for (uint32_t y = 0; y < t->height / 2 && row <= sizeof tmp; y++) {
        uint8_t *a = rgba + (size_t)y * row, *b = rgba + (size_t)(t->height - 1 - y) * row;
        memcpy(tmp, a, row);
        memcpy(a, b, row);
        memcpy(b, tmp, row);
    }
    return glGetError() == GL_NO_ERROR;
}

void render__gl_present(render__gl *g)
{
    if (g->surface == EGL_NO_SURFACE || !g->targets[0].fbo)
        return;
    const render__gl_target *t = &g->targets[0];
    glBlitNamedFramebuffer(t->fbo, 0, 0, 0, (GLint)t->width, (GLint)t->height, 0, 0,
                           (GLint)g->width, (GLint)g->height, GL_COLOR_BUFFER_BIT, GL_NEAREST);
    eglSwapBuffers(g->display, g->surface);
}
