/* render_lua.c: the Render module for scripts (documented in api/ct_render.h). Everything goes
 * through the ct.render table or the same checks C callers get; bad arguments raise errors that
 * name them. */
#include "render_internal.h"

#include "../common/lua_checks.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define L_API (render__m.lua)

/* Scripts write files only where the host's output rules allow (api/ct_host.h: a canonical
 * relative path below the output folder, no link, FIFO or device on the way); the folders on the
 * way are made. Returns the full path, valid until the next call (main thread only). */
static const char *check_output_path(lua_State *L, int idx, const char *what)
{
    size_t len;
    const char *name = L_API->check_string(L, idx, &len);
    char why[512];
    static char path[RENDER_PATH_SIZE];
    if (!render__m.host || strlen(name) != len)
        L_API->error(L, "%s: '%s' cannot be written (no output folder)", what, name);
    if (render__m.host->output_path(name, path, RENDER_PATH_SIZE, why, sizeof why))
        L_API->error(L, "%s: %s", what, why);
    return path;
}

static int l_render_render(lua_State *L)
{
    ct_world_o *w = check__world(L_API, L, 1, "Render.render", NULL);
    const ct_entity_t camera = check__entity(L_API, L, 2, "Render.render");
    const int r = render__api_v1.render(w, camera);
    if (r == CT_ERR_NOT_FOUND)
        return L_API->error(L, "Render.render: entity %u has no camera in this world", camera.id);
    if (r)
        return L_API->error(L, "Render.render: %s", render__m.log->error_message(r));
    return 0;
}

static int l_render_screenshot(lua_State *L)
{
    const char *path = check_output_path(L, 1, "Render.screenshot");
    if (render__api_v1.screenshot(path))
        return L_API->error(L, "Render.screenshot: '%s' was not written (the log says why)", path);
    L_API->push_string(L, path, strlen(path));
    return 1;
}

static int l_render_capture(lua_State *L)
{
    const char *path = check_output_path(L, 1, "Render.capture");
    if (render__api_v1.capture(path))
        return L_API->error(L, "Render.capture: '%s' was not written (the log says why)", path);
    L_API->push_string(L, path, strlen(path));
    return 1;
}

static void set_number(lua_State *L, const char *key, double v)
{
    L_API->push_number(L, v);
    L_API->set_field(L, -2, key);
}

static int l_render_stats(lua_State *L)
{
    const ct_render_stats_t s = render__api_v1.stats();
    L_API->new_table(L, 0, 9);
    set_number(L, "frame", (double)s.frame);
    set_number(L, "objects", s.objects);
    set_number(L, "visible", s.visible);
    set_number(L, "packets", s.packets);
    set_number(L, "draws", s.draws);
    set_number(L, "state_changes", s.state_changes);
    set_number(L, "contexts", s.contexts);
    set_number(L, "invalid", s.invalid);
    char hex[17];
    snprintf(hex, sizeof hex, "%016" PRIx64, s.command_hash);
    L_API->push_string(L, hex, 16);
    L_API->set_field(L, -2, "hash");
    return 1;
}

static int l_render_decode_key(lua_State *L)
{
    size_t len;
    const char *hex = L_API->check_string(L, 1, &len);
    size_t digits = 0;
    while (digits < len && isxdigit((unsigned char)hex[digits]))
        digits++;
    const unsigned long long key = digits ? strtoull(hex, NULL, 16) : 0;
    /* Hex digits only: strtoull alone would take "-1", " 7" or "0x7". */
    if (!len || len > 16 || digits != len)
        return L_API->error(L, "Render.decode_key: '%s' is not a 64-bit key in hexadecimal", hex);
    const ct_render_key_t k = ct_render_decode_key(key);
    L_API->new_table(L, 0, 5);
    set_number(L, "layer", k.layer);
    set_number(L, "pass", k.pass);
    set_number(L, "program", k.program);
    set_number(L, "material", k.material);
    set_number(L, "depth", k.depth);
    return 1;
}

static int l_render_set_backend(lua_State *L)
{
    static const char *const backends[] = {"null", "gl"};
    const uint32_t b = check__enum(L_API, L, 1, "Render.set_backend", backends, 2,
                                   render__m.resource->nearest_name);
    const int r = render__api_v1.set_backend(backends[b]);
    L_API->push_boolean(L, r == 0);
    return 1;
}

static int l_render_backend(lua_State *L)
{
    const char *b = render__api_v1.backend();
    L_API->push_string(L, b, strlen(b));
    return 1;
}

static int l_render_set_pipeline(lua_State *L)
{
    const char *name = L_API->check_string(L, 1, NULL);
    if (render__api_v1.set_pipeline(name))
        return L_API->error(
            L, "Render.set_pipeline: render_config '%s' cannot be used (the log says why)", name);
    return 0;
}

/* The rotation whose -Z axis points from `from` to `to` (+Y up where possible), as a quaternion. */
static bool look_rotation(const float from[3], const float to[3], float q[4])
{
    float b[3] = {from[0] - to[0], from[1] - to[1], from[2] - to[2]};
    float len = sqrtf(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
    if (!(len > 1e-6f) || !isfinite(len))
        return false;
    b[0] /= len, b[1] /= len, b[2] /= len;
    const float up[3] = {0, fabsf(b[1]) > 0.999f ? 0.0f : 1.0f, fabsf(b[1]) > 0.999f ? 1.0f : 0.0f};
    float r[3] = {up[1] * b[2] - up[2] * b[1], up[2] * b[0] - up[0] * b[2],
                  up[0] * b[1] - up[1] * b[0]};
    len = sqrtf(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    r[0] /= len, r[1] /= len, r[2] /= len;
    const float u[3] = {b[1] * r[2] - b[2] * r[1], b[2] * r[0] - b[0] * r[2],
                        b[0] * r[1] - b[1] * r[0]};
    /* Columns r, u, b; the standard matrix-to-quaternion conversion. */
    const float m00 = r[0], m11 = u[1], m22 = b[2], trace = m00 + m11 + m22;
    if (trace > 0.0f) {
        const float s = sqrtf(trace + 1.0f) * 2.0f;
        q[3] = 0.25f * s, q[0] = (u[2] - b[1]) / s, q[1] = (b[0] - r[2]) / s,
        q[2] = (r[1] - u[0]) / s;
    } else if (m00 > m11 && m00 > m22) {
        const float s = sqrtf(1.0f + m00 - m11 - m22) * 2.0f;
        q[3] = (u[2] - b[1]) / s, q[0] = 0.25f * s, q[1] = (u[0] + r[1]) / s,
        q[2] = (b[0] + r[2]) / s;
    } else if (m11 > m22) {
        const float s = sqrtf(1.0f + m11 - m00 - m22) * 2.0f;
        q[3] = (b[0] - r[2]) / s, q[0] = (u[0] + r[1]) / s, q[1] = 0.25f * s,
        q[2] = (b[1] + u[2]) / s;
    } else {
        const float s = sqrtf(1.0f + m22 - m00 - m11) * 2.0f;
        q[3] = (r[1] - u[0]) / s, q[0] = (b[0] + r[2]) / s, q[1] = (b[1] + u[2]) / s,
        q[2] = 0.25f * s;
    }
    return true;
}

static int l_render_look_at(lua_State *L)
{
    ct_world_o *w = check__world(L_API, L, 1, "Render.look_at", NULL);
    const ct_entity_t e = check__entity(L_API, L, 2, "Render.look_at");
    float to[3], from[3], q[4];
    for (int k = 0; k < 3; k++)
        to[k] = (float)check__range(L_API, L, 3 + k, "Render.look_at", -1e9, 1e9);
    if (!render__m.transform->world_position(w, e, from))
        return L_API->error(L, "Render.look_at: entity %u has no transform in this world", e.id);
    if (!look_rotation(from, to, q))
        return L_API->error(L, "Render.look_at: entity %u is at the point it should look at", e.id);
    render__m.transform->set_world_rotation(w, e, q);
    return 0;
}

/* ---- debug drawing ---- */

/* n finite numbers from idx on into out (the shared checks raise naming fn and the argument). */
static void check_floats(lua_State *L, const char *fn, int idx, int n, float *out)
{
    for (int k = 0; k < n; k++)
        out[k] = check__finite(L_API, L, idx + k, fn);
}

/* The optional colour r, g, b, a from idx on (white, alpha 1, when absent). */
static void opt_color(lua_State *L, const char *fn, int idx, float out[4])
{
    for (int k = 0; k < 4; k++)
        out[k] = L_API->type(L, idx + k) <= CT_LUA_NIL
                     ? 1.0f
                     : (float)check__range(L_API, L, idx + k, fn, 0.0, 1.0);
}

static int l_render_debug_line(lua_State *L)
{
    float p[6], c[4];
    check_floats(L, "Render.debug_line", 1, 6, p);
    opt_color(L, "Render.debug_line", 7, c);
    render__debug_line(p, p + 3, c);
    return 0;
}

static int l_render_debug_arrow(lua_State *L)
{
    float p[6], c[4];
    check_floats(L, "Render.debug_arrow", 1, 6, p);
    opt_color(L, "Render.debug_arrow", 7, c);
    render__debug_arrow(p, p + 3, c);
    return 0;
}

static int l_render_debug_box(lua_State *L)
{
    float p[6], c[4];
    check_floats(L, "Render.debug_box", 1, 6, p);
    opt_color(L, "Render.debug_box", 7, c);
    render__debug_box(p, p + 3, NULL, c);
    return 0;
}

static int l_render_debug_sphere(lua_State *L)
{
    float p[3], c[4];
    check_floats(L, "Render.debug_sphere", 1, 3, p);
    const float radius = (float)check__range(L_API, L, 4, "Render.debug_sphere", 0.0, 1e9);
    opt_color(L, "Render.debug_sphere", 5, c);
    render__debug_sphere(p, radius, c);
    return 0;
}

static int l_render_debug_skeleton(lua_State *L)
{
    ct_world_o *w = check__world(L_API, L, 1, "Render.debug_skeleton", NULL);
    const ct_entity_t e = check__entity(L_API, L, 2, "Render.debug_skeleton");
    float c[4];
    opt_color(L, "Render.debug_skeleton", 3, c);
    render__debug_skeleton(w, e, c);
    return 0;
}

/* Render.debug_physics(world [, r, g, b[, a]]): without a colour, each body's by its state. */
static int l_render_debug_physics(lua_State *L)
{
    ct_world_o *w = check__world(L_API, L, 1, "Render.debug_physics", NULL);
    float c[4];
    opt_color(L, "Render.debug_physics", 2, c);
    const bool coloured = L_API->type(L, 2) > CT_LUA_NIL;
    L_API->push_number(L, render__debug_physics(w, coloured ? c : NULL));
    return 1;
}

static int l_render_debug_text(lua_State *L)
{
    float p[2], c[4];
    check_floats(L, "Render.debug_text", 1, 2, p);
    size_t len;
    const char *text = L_API->check_string(L, 3, &len);
    opt_color(L, "Render.debug_text", 4, c);
    render__debug_text(p[0], p[1], c, text);
    return 0;
}

void render__register_lua(void)
{
    static const ct_lua_reg_t fns[] = {
        {"render", l_render_render},
        {"screenshot", l_render_screenshot},
        {"capture", l_render_capture},
        {"stats", l_render_stats},
        {"decode_key", l_render_decode_key},
        {"set_backend", l_render_set_backend},
        {"backend", l_render_backend},
        {"set_pipeline", l_render_set_pipeline},
        {"look_at", l_render_look_at},
        {"debug_line", l_render_debug_line},
        {"debug_arrow", l_render_debug_arrow},
        {"debug_box", l_render_debug_box},
        {"debug_sphere", l_render_debug_sphere},
        {"debug_skeleton", l_render_debug_skeleton},
        {"debug_text", l_render_debug_text},
        {"debug_physics", l_render_debug_physics},
    };
    L_API->register_module("Render", fns, sizeof fns / sizeof fns[0]);
    render__register_runtime_lua();
}
