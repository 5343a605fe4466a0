/*
 * render_debug.c: debug drawing (ct_render_api_v2.debug_*): lines, boxes, spheres, arrows, the
 * skeleton of an animated entity, the physics shapes of a world's bodies, and text on screen. Shapes are turned into lines when they are
 * asked for and collected until the next render(), which draws them as two packets (one batch of
 * lines, one of text) at the end of the last layer, over everything, and forgets them: ask again
 * every frame. Text uses a TrueType font (Debian's fonts-dejavu-core) baked into an atlas with
 * stb_truetype the first time text is drawn.
 */
#include "render_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#define STB_TRUETYPE_IMPLEMENTATION
#define STBTT_STATIC
#include <stb/stb_truetype.h>
#pragma GCC diagnostic pop

#define FONT_PATH "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
#define FONT_PIXELS 18.0f
#define FONT_ATLAS 512
#define FONT_FIRST 32
#define FONT_COUNT 95 /* printable ASCII */
#define FONT_MAX_FILE (16u << 20)

struct render__font {
    stbtt_bakedchar chars[FONT_COUNT];
    uint8_t atlas[FONT_ATLAS * FONT_ATLAS];
};

static render__debug *buffer(void) { return &render__m.state->debug; }

static void lines(const float (*points)[3], uint32_t n, const float color[4])
{
    render__debug *d = buffer();
    render__data_enter(); /* a prepared frame's execute may be reading the buffer */
    d->a = render__m.allocator;
    render__debug_push_lines(d, points, n, render__debug_color(color));
    render__data_leave();
}

static bool finite3(const float *v)
{
    return v && isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

void render__debug_line(const float from[3], const float to[3], const float color[4])
{
    if (!finite3(from) || !finite3(to))
        return;
    const float p[2][3] = {{from[0], from[1], from[2]}, {to[0], to[1], to[2]}};
    lines(p, 1, color);
}

void render__debug_lines_api(const float (*points)[3], uint32_t num_lines, const float color[4])
{
    if (points && num_lines)
        lines(points, num_lines, color);
}

static void rotate(const float q[4], const float v[3], float out[3])
{
    const float c1[3] = {q[1] * v[2] - q[2] * v[1], q[2] * v[0] - q[0] * v[2],
                         q[0] * v[1] - q[1] * v[0]};
    const float c2[3] = {q[1] * c1[2] - q[2] * c1[1], q[2] * c1[0] - q[0] * c1[2],
                         q[0] * c1[1] - q[1] * c1[0]};
    for (int k = 0; k < 3; k++)
        out[k] = v[k] + 2 * (q[3] * c1[k] + c2[k]);
}

void render__debug_box(const float center[3], const float half[3], const float rotation[4],
                       const float color[4])
{
    static const float identity[4] = {0, 0, 0, 1};
    const float *q = rotation ? rotation : identity;
    if (!finite3(center) || !finite3(half) || !isfinite(q[0] + q[1] + q[2] + q[3]))
        return;
    float corner[8][3];
    for (int k = 0; k < 8; k++) {
        const float local[3] = {k & 1 ? half[0] : -half[0], k & 2 ? half[1] : -half[1],
                                k & 4 ? half[2] : -half[2]};
        rotate(q, local, corner[k]);
        for (int c = 0; c < 3; c++)
            corner[k][c] += center[c];
    }
    static const uint8_t edges[12][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3},
                                         {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
    float p[24][3];
    for (int e = 0; e < 12; e++)
        memcpy(p[2 * e], corner[edges[e][0]], 12), memcpy(p[2 * e + 1], corner[edges[e][1]], 12);
    lines(p, 12, color);
}

void render__debug_sphere(const float center[3], float radius, const float color[4])
{
    if (!finite3(center) || !(radius >= 0 && isfinite(radius)))
        return;
    enum { SEGMENTS = 24 };
    float p[3 * SEGMENTS * 2][3];
    uint32_t n = 0;
    for (int axis = 0; axis < 3; axis++)
        for (int s = 0; s < SEGMENTS; s++)
            for (int end = 0; end < 2; end++) {
                const float a = 6.2831853f * (float)(s + end) / SEGMENTS;
                float *v = p[n++];
                v[axis] = center[axis];
                v[(axis + 1) % 3] = center[(axis + 1) % 3] + radius * cosf(a);
                v[(axis + 2) % 3] = center[(axis + 2) % 3] + radius * sinf(a);
            }
    lines(p, n / 2, color);
}

void render__debug_arrow(const float from[3], const float to[3], const float color[4])
{
    if (!finite3(from) || !finite3(to))
        return;
    float d[3] = {to[0] - from[0], to[1] - from[1], to[2] - from[2]};
    const float len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (!(len > 0))
        return;
    for (int k = 0; k < 3; k++)
        d[k] /= len;
    /* Two directions across the shaft, for a four-line head a fifth of the length long. */
    const float other[3] = {fabsf(d[1]) < 0.9f ? 0.0f : 1.0f, fabsf(d[1]) < 0.9f ? 1.0f : 0.0f,
                            0.0f};
    float u[3] = {d[1] * other[2] - d[2] * other[1], d[2] * other[0] - d[0] * other[2],
                  d[0] * other[1] - d[1] * other[0]};
    const float ul = sqrtf(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (int k = 0; k < 3; k++)
        u[k] /= ul;
    const float v[3] = {d[1] * u[2] - d[2] * u[1], d[2] * u[0] - d[0] * u[2],
                        d[0] * u[1] - d[1] * u[0]};
    const float head = 0.2f * len, wide = 0.08f * len;
    float p[10][3];
    memcpy(p[0], from, 12), memcpy(p[1], to, 12);
    for (int k = 0; k < 4; k++) {
        const float *side = k < 2 ? u : v;
        const float sign = k % 2 ? -1.0f : 1.0f;
        memcpy(p[2 + 2 * k], to, 12);
        for (int c = 0; c < 3; c++)
            p[3 + 2 * k][c] = to[c] - d[c] * head + sign * side[c] * wide;
    }
    lines(p, 5, color);
}

void render__debug_skeleton(ct_world_o *world, ct_entity_t e, const float color[4])
{
    const ct_animation_api_v1 *anim = render__m.animation;
    const uint32_t n = anim ? anim->bone_count(world, e) : 0;
    for (uint32_t b = 0; b < n; b++) {
        const ct_transform_t t = render__m.transform->lookup(world, anim->bone(world, e, b));
        const ct_transform_t parent =
            t.i ? render__m.transform->parent(world, t) : (ct_transform_t){0};
        if (!t.i || !parent.i || render__m.transform->entity(world, parent).id == e.id)
            continue; /* a root bone: nothing to join it to */
        const ct_transform_matrix_t a = render__m.transform->world_matrix(world, t);
        const ct_transform_matrix_t p = render__m.transform->world_matrix(world, parent);
        const float ends[2][3] = {{a.m[3], a.m[7], a.m[11]}, {p.m[3], p.m[7], p.m[11]}};
        lines(ends, 1, color);
    }
}

/* An arc of `radius` about `center` in the plane of the rotated axes a and b (0 x, 1 y, 2 z of
 * the shape), from angle `from` over `span` radians, in `segments` lines. */
static void arc(const float center[3], const float q[4], int a, int b, float radius, float from,
                float span, int segments, const float color[4])
{
    float p[2 * 24][3];
    for (int s = 0; s < segments && s < 24; s++)
        for (int end = 0; end < 2; end++) {
            const float t = from + span * (float)(s + end) / (float)segments;
            float local[3] = {0, 0, 0}, *v = p[2 * s + end];
            local[a] = radius * cosf(t);
            local[b] = radius * sinf(t);
            rotate(q, local, v);
            for (int k = 0; k < 3; k++)
                v[k] += center[k];
        }
    lines(p, (uint32_t)(segments < 24 ? segments : 24), color);
}

void render__debug_capsule(const float center[3], float radius, float half_height,
                           const float rotation[4], const float color[4])
{
    static const float identity[4] = {0, 0, 0, 1};
    const float *q = rotation ? rotation : identity;
    if (!finite3(center) || !(radius >= 0 && isfinite(radius)) ||
        !(half_height >= 0 && isfinite(half_height)) || !isfinite(q[0] + q[1] + q[2] + q[3]))
        return;
    const float pi = 3.14159265f;
    for (int end = 0; end < 2; end++) {
        const float sign = end ? -1.0f : 1.0f, up[3] = {0, sign * half_height, 0};
        float c[3];
        rotate(q, up, c);
        for (int k = 0; k < 3; k++)
            c[k] += center[k];
        arc(c, q, 2, 0, radius, 0, 2 * pi, 24, color);        /* the ring (x-z plane) */
        arc(c, q, 0, 1, radius, end ? pi : 0, pi, 12, color); /* half circles over the end */
        arc(c, q, 2, 1, radius, end ? pi : 0, pi, 12, color);
    }
    float p[8][3];
    for (int k = 0; k < 4; k++) { /* four lines along the segment */
        const float x = k == 0   ? radius
                        : k == 1 ? -radius
                                 : 0,
                    z = k == 2   ? radius
                        : k == 3 ? -radius
                                 : 0;
        const float top[3] = {x, half_height, z}, bottom[3] = {x, -half_height, z};
        rotate(q, top, p[2 * k]);
        rotate(q, bottom, p[2 * k + 1]);
        for (int c = 0; c < 3; c++)
            p[2 * k][c] += center[c], p[2 * k + 1][c] += center[c];
    }
    lines(p, 4, color);
}

uint32_t render__debug_physics(ct_world_o *world, const float color[4])
{
    const ct_physics_api_v4 *phys = render__m.physics;
    if (!phys || !world)
        return 0;
    static const float by_kind[3][4] = {[CT_BODY_DYNAMIC] = {0.2f, 1.0f, 0.3f, 1.0f},
                                        [CT_BODY_STATIC] = {0.6f, 0.6f, 0.6f, 1.0f},
                                        [CT_BODY_KINEMATIC] = {0.3f, 0.6f, 1.0f, 1.0f}};
    enum { PAGE = 256 };
    ct_physics_shape_t page[PAGE];
    uint32_t drawn = 0, total = phys->shapes(world, 0, NULL, 0);
    for (uint32_t first = 0; first < total; first += PAGE) {
        total = phys->shapes(world, first, page, PAGE);
        if (first >= total)
            break;
        const uint32_t n = total - first < PAGE ? total - first : PAGE;
        for (uint32_t i = 0; i < n; i++) {
            const ct_physics_shape_t *b = &page[i];
            float c[4];
            if (color) {
                memcpy(c, color, sizeof c);
            } else {
                memcpy(c, by_kind[b->kind < 3 ? b->kind : CT_BODY_STATIC], sizeof c);
                for (int k = 0; k < 3 && b->sleeping; k++)
                    c[k] *= 0.5f;
            }
            if (b->shape == CT_BODY_BOX) {
                render__debug_box(b->position, b->half_extents, b->rotation, c);
            } else if (b->shape == CT_BODY_SPHERE || b->shape == CT_BODY_CAPSULE) {
                /* A sphere is a capsule without a segment: its circles turn with the body. */
                render__debug_capsule(b->position, b->radius,
                                      b->shape == CT_BODY_CAPSULE ? b->half_height : 0, b->rotation,
                                      c);
            } else {
                continue;
            }
            drawn++;
        }
    }
    return drawn;
}

/* Bakes the font the first time text is asked for; NULL (said once) when it cannot. */
static struct render__font *font(void)
{
    render__state *s = render__m.state;
    if (s->font || s->font_failed)
        return s->font;
    s->font_failed = true;
    FILE *f = fopen(FONT_PATH, "rb");
    uint8_t *ttf = f ? malloc(FONT_MAX_FILE) : NULL;
    const size_t size = ttf ? fread(ttf, 1, FONT_MAX_FILE, f) : 0;
    if (f)
        fclose(f);
    struct render__font *baked = size ? ct_alloc(render__m.allocator, sizeof *baked) : NULL;
    if (!baked || size == FONT_MAX_FILE ||
        stbtt_BakeFontBitmap(ttf, 0, FONT_PIXELS, baked->atlas, FONT_ATLAS, FONT_ATLAS, FONT_FIRST,
                             FONT_COUNT, baked->chars) <= 0) {
        RENDER_LOG(CT_LOG_WARNING,
                   "debug text: the font %s cannot be read or baked (install fonts-dejavu-core); "
                   "text is not drawn",
                   FONT_PATH);
        if (baked)
            ct_free(render__m.allocator, baked, sizeof *baked);
        free(ttf);
        return NULL;
    }
    free(ttf);
    s->font = baked;
    s->font_failed = false;
    render__gl_enter();
    if (s->gl)
        render__gl_set_font(s->gl, baked->atlas, FONT_ATLAS, FONT_ATLAS);
    render__gl_leave();
    return baked;
}

void render__upload_font(void)
{
    render__state *s = render__m.state;
    if (s->font && s->gl)
        render__gl_set_font(s->gl, s->font->atlas, FONT_ATLAS, FONT_ATLAS);
}

void render__debug_text(float x, float y, const float color[4], const char *text)
{
    struct render__font *f = text && isfinite(x) && isfinite(y) ? font() : NULL;
    if (!f)
        return;
    const uint32_t c = render__debug_color(color);
    float px = x, py = y + FONT_PIXELS;
    for (const unsigned char *ch = (const unsigned char *)text; *ch; ch++) {
        if (*ch == '\n') {
            px = x, py += FONT_PIXELS * 1.25f;
            continue;
        }
        stbtt_aligned_quad q;
        const int glyph = *ch >= FONT_FIRST && *ch < FONT_FIRST + FONT_COUNT ? *ch - FONT_FIRST
                                                                             : '?' - FONT_FIRST;
        stbtt_GetBakedQuad(f->chars, FONT_ATLAS, FONT_ATLAS, glyph, &px, &py, &q, 1);
        const render__text_vertex v[6] = {
            {{q.x0, q.y0}, {q.s0, q.t0}, c}, {{q.x1, q.y0}, {q.s1, q.t0}, c},
            {{q.x1, q.y1}, {q.s1, q.t1}, c}, {{q.x0, q.y0}, {q.s0, q.t0}, c},
            {{q.x1, q.y1}, {q.s1, q.t1}, c}, {{q.x0, q.y1}, {q.s0, q.t1}, c},
        };
        render__debug *d = buffer();
        render__data_enter();
        d->a = render__m.allocator;
        render__debug_push_text(d, v, 6);
        render__data_leave();
    }
}

void render__record_debug(render__state *s)
{
    const uint32_t layer = s->pipeline.num_layers - 1;
    const uint32_t counts[2] = {s->debug.num_lines, s->debug.num_text};
    for (uint32_t k = 0; k < 2; k++) {
        if (!counts[k])
            continue;
        const uint32_t program = k ? RENDER_PROGRAM_TEXT : RENDER_PROGRAM_DEBUG_LINES;
        render__command cmd = {.kind = RENDER_CMD_DEBUG,
                               .program = program,
                               .mesh = counts[k],
                               .material = RENDER_NO_INDEX,
                               .palette = 0};
        const render__key_fields f = {.layer = layer,
                                      .pass = (1u << RENDER_KEY_PASS_BITS) - 1,
                                      .program = program,
                                      .depth = k};
        render__context_record(&s->queue.contexts[0], s->queue.a, render__key_encode(&f), &cmd);
    }
}

void render__debug_release(void)
{
    render__state *s = render__m.state;
    s->debug.a = render__m.allocator;
    render__debug_free(&s->debug);
    if (s->font)
        ct_free(render__m.allocator, s->font, sizeof *s->font);
    s->font = NULL;
    s->font_failed = false;
}
