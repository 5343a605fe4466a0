/*
 * ct_rendering.so: the plugin entry, the ct.render v1 table, backend choice, screenshots and the
 * command-line options (api/ct_render.h has the rules).
 */
#include "render_internal.h"

#include "ct_particles.h"

#include "ct_memory.h"
#include "ct_module.h"
#include "ct_plugin.h"
#include "ct_render_frame.h"
#include "render_gl_internal.h" /* render__state reaches struct render__gl: part of the layout */
#include "render_layout.h"
#include "ct_profiler.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

render__module render__m;

/* ---- backends ------------------------------------------------------------------------------ */

static int start_gl(void)
{
    render__state *s = render__m.state;
    if (s->gl)
        return 0;
    char err[512];
    render__gl_enter();
    s->gl = render__gl_create(render__m.allocator,
                              &(render__gl_desc){s->pipeline.width, s->pipeline.height, s->window},
                              err, sizeof err);
    render__gl_bound(s->gl != NULL);
    if (s->gl && !render__gl_set_pipeline(s->gl, &s->pipeline, err, sizeof err)) {
        render__gl_destroy(s->gl);
        render__gl_bound(false);
        s->gl = NULL;
    }
    if (!s->gl) {
        render__gl_leave();
        RENDER_LOG(CT_LOG_ERROR, "%s; rendering continues on the null backend", err);
        s->gl_failed = true;
        s->backend = RENDER_BACKEND_NULL;
        return CT_ERR_INIT_FAILED;
    }
    RENDER_LOG(CT_LOG_INFO, "gl backend: %s%s", render__gl_renderer(s->gl),
               s->window ? ", in a window" : ", headless");
    render__upload_meshes();
    render__upload_textures();
    render__upload_font();
    render__gl_leave();
    if (render__m.input && render__gl_x11_window(s->gl))
        render__m.input->attach_x11(render__gl_x11_window(s->gl));
    return 0;
}

int render__set_backend(const char *name)
{
    render__state *s = render__m.state;
    if (name && !strcmp(name, "null")) {
        s->backend = RENDER_BACKEND_NULL;
        return 0;
    }
    if (name && !strcmp(name, "gl")) {
        s->backend = RENDER_BACKEND_GL;
        s->gl_failed = false;
        return start_gl();
    }
    RENDER_LOG(CT_LOG_ERROR, "set_backend: unknown backend '%s' (known: \"gl\", \"null\")",
               name ? name : "(null)");
    return CT_ERR_INVALID;
}

static const char *backend(void)
{
    return render__m.state->backend == RENDER_BACKEND_GL ? "gl" : "null";
}

int render__screenshot(const char *path)
{
    render__state *s = render__m.state;
    if (!path || !path[0]) {
        RENDER_LOG(CT_LOG_ERROR, "screenshot: no path given");
        return CT_ERR_INVALID;
    }
    if (!s->have_frame || s->backend != RENDER_BACKEND_GL || !s->gl) {
        RENDER_LOG(CT_LOG_ERROR, "screenshot %s: %s", path,
                   s->have_frame ? "the null backend has no pixels (use the gl backend)"
                                 : "no frame has been rendered yet");
        return CT_ERR_INVALID;
    }
    const uint32_t w = s->pipeline.width, h = s->pipeline.height;
    const size_t size = (size_t)w * h * 4;
    uint8_t *px = ct_alloc(render__m.allocator, size);
    if (!px)
        return CT_ERR_NOMEM;
    char err[RENDER_PATH_SIZE + 100];
    render__gl_enter();
    int r = render__gl_read(s->gl, px) ? 0 : CT_ERR_IO;
    render__gl_leave();
    if (r)
        snprintf(err, sizeof err, "reading the backbuffer failed");
    else if (!render__png_write(path, px, w, h, err, sizeof err))
        r = CT_ERR_IO;
    ct_free(render__m.allocator, px, size);
    if (r)
        RENDER_LOG(CT_LOG_ERROR, "screenshot: %s", err);
    return r;
}

/* ---- the API table ------------------------------------------------------------------------- */

static int capture(const char *path)
{
    char err[RENDER_PATH_SIZE + 100];
    const int r = render__capture_write(path, err, sizeof err);
    if (r)
        RENDER_LOG(CT_LOG_ERROR, "capture: %s", err);
    return r;
}

static int render(ct_world_o *world, ct_entity_t camera)
{
    render__state *s = render__m.state;
    ct_profile_scope_t scope = ct_profile_scope_begin(render__m.profiler, "render.frame");
    const int r = render__frame(world, camera);
    ct_profile_scope_end(&scope);
    if (r || !s->have_frame)
        return r;
    /* Written at every frame, so the file holds the last frame while its meshes are loaded. */
    if (s->capture_path[0])
        capture(s->capture_path);
    if (s->screenshot_dir[0]) {
        char path[RENDER_PATH_SIZE + 32];
        snprintf(path, sizeof path, "%s/frame_%06llu.png", s->screenshot_dir,
                 (unsigned long long)s->stats.frame);
        if (render__screenshot(path) == 0)
            RENDER_LOG(CT_LOG_INFO, "screenshot %s", path);
    }
    return 0;
}

static ct_render_stats_t stats(void) { return render__m.state->stats; }

const ct_render_api_v2 render__api_v2 = {
    .render = render,
    .stats = stats,
    .set_backend = render__set_backend,
    .backend = backend,
    .set_pipeline = render__use_pipeline,
    .screenshot = render__screenshot,
    .capture = capture,
    .debug_line = render__debug_line,
    .debug_lines = render__debug_lines_api,
    .debug_box = render__debug_box,
    .debug_sphere = render__debug_sphere,
    .debug_arrow = render__debug_arrow,
    .debug_skeleton = render__debug_skeleton,
    .debug_text = render__debug_text,
    .debug_physics = render__debug_physics,
};

static int prepare(ct_world_o *world, ct_entity_t camera)
{
    ct_profile_scope_t scope = ct_profile_scope_begin(render__m.profiler, "render.prepare");
    const int r = render__frame_prepare(world, camera);
    ct_profile_scope_end(&scope);
    return r;
}

const ct_render_api_v3 render__api_v3 = {
    .render = render,
    .stats = stats,
    .set_backend = render__set_backend,
    .backend = backend,
    .set_pipeline = render__use_pipeline,
    .screenshot = render__screenshot,
    .capture = capture,
    .debug_line = render__debug_line,
    .debug_lines = render__debug_lines_api,
    .debug_box = render__debug_box,
    .debug_sphere = render__debug_sphere,
    .debug_arrow = render__debug_arrow,
    .debug_skeleton = render__debug_skeleton,
    .debug_text = render__debug_text,
    .debug_physics = render__debug_physics,
    .prepare = prepare,
    .execute = render__frame_execute,
    .set_max_shadow_size = render__set_max_shadow_size,
};

const ct_render_api_v1 render__api_v1 = {
    .render = render,
    .stats = stats,
    .set_backend = render__set_backend,
    .backend = backend,
    .set_pipeline = render__use_pipeline,
    .screenshot = render__screenshot,
    .capture = capture,
};

/* ---- plugin -------------------------------------------------------------------------------- */

/* Copies an option's value into `out`; false (logged) when it is too long or empty. */
static bool read_path_option(const char *name, char *out, size_t size)
{
    const char *v = render__m.host ? render__m.host->option(name) : NULL;
    if (!v)
        return true;
    if (!v[0] || strlen(v) >= size) {
        RENDER_LOG(CT_LOG_ERROR, "--%s wants a path (shorter than %zu bytes)", name, size);
        return false;
    }
    memcpy(out, v, strlen(v) + 1);
    return true;
}

/* Makes a folder and its parents (the --screenshot folder); false (logged) on failure. */
static bool make_folders(const char *path)
{
    char dir[RENDER_PATH_SIZE];
    snprintf(dir, sizeof dir, "%s/", path);
    for (char *slash = strchr(dir + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
            RENDER_LOG(CT_LOG_ERROR, "--screenshot: cannot make folder '%s': %s", dir,
                       strerror(errno));
            return false;
        }
        *slash = '/';
    }
    return true;
}

static int read_options(void)
{
    render__state *s = render__m.state;
    const ct_host_api_v2 *host = render__m.host;
    const char *b = host ? host->option("render-backend") : NULL;
    s->backend = b && !strcmp(b, "null") ? RENDER_BACKEND_NULL : RENDER_BACKEND_GL;
    if (b && strcmp(b, "null") && strcmp(b, "gl")) {
        RENDER_LOG(CT_LOG_ERROR, "--render-backend '%s': known backends are gl and null", b);
        return CT_ERR_INVALID;
    }
    s->window = host && host->option("window") != NULL;
    if (!read_path_option("screenshot", s->screenshot_dir, sizeof s->screenshot_dir) ||
        !read_path_option("capture", s->capture_path, sizeof s->capture_path) ||
        (s->screenshot_dir[0] && !make_folders(s->screenshot_dir)))
        return CT_ERR_INVALID;
    return 0;
}

/* What the state block points to: the frame's buffers and the GL backend. */
static void release_state(void)
{
    render__frame_free();
    if (render__m.input && render__m.state->gl && render__gl_x11_window(render__m.state->gl))
        render__m.input->detach_x11(render__gl_x11_window(render__m.state->gl));
    render__wait_executed();
    render__gl_enter();
    render__gl_destroy(render__m.state->gl);
    render__gl_bound(false);
    render__m.state->gl = NULL;
    render__gl_leave();
}

static int start(void)
{
    render__state *s = render__m.state;
    render__thread_init();
    render__queue_init(&s->queue, render__m.allocator);
    render__default_pipeline(&s->pipeline);
    int err = read_options();
    if (!err)
        err = render__register_resources();
    if (!err && (err = render__register_components()))
        render__unregister_resources();
    if (err) {
        release_state();
        return err;
    }
    render__register_lua();
    return 0;
}

static void stop(void)
{
    render__unregister_components();
    render__unregister_resources();
    release_state();
}

static int rebind(void)
{
    render__register_lua();
    return render__rebind_components() && render__rebind_resources() ? 0 : CT_ERR_VERSION;
}

/* ct.render_frame (api/ct_render_frame.h): the last frame's pixels, without a file. */
static bool frame_size(uint32_t *width, uint32_t *height)
{
    const render__state *s = render__m.state;
    if (!s->have_frame || s->backend != RENDER_BACKEND_GL || !s->gl)
        return false;
    *width = s->pipeline.width;
    *height = s->pipeline.height;
    return true;
}

static int frame_read(uint8_t *rgba, size_t capacity, uint32_t *width, uint32_t *height)
{
    if (!frame_size(width, height))
        return CT_ERR_INVALID;
    if (!rgba || capacity < (size_t)*width * *height * 4)
        return CT_ERR_INVALID;
    render__gl_enter();
    const bool read = render__gl_read(render__m.state->gl, rgba);
    render__gl_leave();
    if (!read) {
        RENDER_LOG(CT_LOG_ERROR, "read: reading the backbuffer failed");
        return CT_ERR_IO;
    }
    return 0;
}

static const ct_render_frame_api_v1 render__frame_api_v1 = {frame_size, frame_read};

static const ct_api_ref_t provides[] = {
    CT_API_PROVIDE("ct.render", 1, ct_render_api_v1),
    CT_API_PROVIDE("ct.render", 2, ct_render_api_v2),
    CT_API_PROVIDE("ct.render", 3, ct_render_api_v3),
    CT_API_PROVIDE("ct.render_frame", 1, ct_render_frame_api_v1),
};

static const ct_module_api_t apis[] = {
    CT_MODULE_API(entity, 2, &render__m.entity),
    CT_MODULE_API(component, 1, &render__m.component),
    CT_MODULE_API(transform, 2, &render__m.transform),
    CT_MODULE_API(log, 1, &render__m.log),
    CT_MODULE_API_NO_SLOT(memory, 1),
    CT_MODULE_API(lua, 1, &render__m.lua),
    CT_MODULE_API(data, 1, &render__m.data),
    CT_MODULE_API(resource, 6, &render__m.resource),
    CT_MODULE_API_OPTIONAL(jobs, 1, &render__m.jobs),
    CT_MODULE_API_OPTIONAL(host, 2, &render__m.host),
    CT_MODULE_API_OPTIONAL(animation, 1, &render__m.animation),
    CT_MODULE_API_OPTIONAL(physics, 4, &render__m.physics),
    CT_MODULE_API_OPTIONAL(particles, 1, &render__m.particles),
    CT_MODULE_API_OPTIONAL(input, 1, &render__m.input),
    CT_MODULE_API_OPTIONAL(profiler, 1, &render__m.profiler),
};

static const ct_module_v3_t module = {
    .plugin = {CT_MODULE_V3_HOOKS, .name = "ct.rendering", .version = {1, 0, 0, 0},
               .provides = provides, .num_provides = CT_ARRAY_COUNT(provides)},
    .apis = apis,
    .num_apis = CT_ARRAY_COUNT(apis),
    .module = {.self = &render__m.self,
               .allocator = &render__m.allocator,
               .state = &render__m.state,
               .state_size = sizeof(render__state),
               .layout_version = RENDER_LAYOUT_VERSION,
               .start = start,
               .stop = stop,
               .rebind = rebind},
};

CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version)
{
    static const ct_api_table_t tables[] = {{CT_RENDER_API, 1, &render__api_v1},
                                            {CT_RENDER_API, 2, &render__api_v2},
                                            {CT_RENDER_API, 3, &render__api_v3},
                                            {CT_RENDER_FRAME_API, 1, &render__frame_api_v1}};
    return ct_module_v3_serve(&module, tables, CT_ARRAY_COUNT(tables), api, version);
}
