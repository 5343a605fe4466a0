/*
 * render_build.c: turning the sorted packet stream into a display list on the worker pool, and
 * the null backend that validates, counts and hashes one. Blocks have fixed bounds and each entry
 * compares itself with the packet before it (across block bounds too), so the list is the same
 * bytes whatever the number of threads.
 */
#include "render_core.h"
#include "ct_array.h"

#include "ct_hash.h"

#include <math.h>
#include <string.h>

#define BUILD_BLOCK 2048u

void render__pool_for(const render__pool *pool, uint32_t count, uint32_t grain, ct_range_f fn,
                      void *user_data)
{
    if (pool && pool->parallel_for && count > grain) {
        pool->parallel_for(pool->ctx, count, grain, fn, user_data);
        return;
    }
    for (uint32_t b = 0; b < count; b += grain)
        fn(user_data, b, count - b < grain ? count : b + grain);
}

void render__mat4_mul(float out[16], const float a[16], const float b[16])
{
    float r[16];
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 4; row++)
            r[c * 4 + row] = a[0 * 4 + row] * b[c * 4 + 0] + a[1 * 4 + row] * b[c * 4 + 1] +
                             a[2 * 4 + row] * b[c * 4 + 2] + a[3 * 4 + row] * b[c * 4 + 3];
    memcpy(out, r, sizeof r);
}

void render__mat4_from_affine(float out[16], const float m[12])
{
    for (int c = 0; c < 4; c++) {
        for (int r = 0; r < 3; r++)
            out[c * 4 + r] = m[4 * r + c];
        out[c * 4 + 3] = c == 3 ? 1.0f : 0.0f;
    }
}

/* The cofactor matrix of world's 3x3 (the inverse transpose times the determinant), with the
 * determinant's sign, so normals keep their side under mirroring; shaders normalise. */
static void normal_matrix(float out[12], const float m[12])
{
    const float a = m[0], b = m[1], c = m[2], d = m[4], e = m[5], f = m[6], g = m[8], h = m[9],
                i = m[10];
    const float co[9] = {e * i - f * h, f * g - d * i, d * h - e * g, c * h - b * i, a * i - c * g,
                         b * g - a * h, b * f - c * e, c * d - a * f, a * e - b * d};
    const float det = a * co[0] + b * co[1] + c * co[2];
    const float s = det < 0.0f ? -1.0f : 1.0f;
    memset(out, 0, 12 * sizeof *out);
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < 3; k++)
            out[4 * r + k] = s * co[3 * r + k];
}

typedef struct build_job {
    render__queue *q;
    const float *view_proj;
    const render__material *materials;
    uint32_t num_materials;
} build_job;

static const render__command *command_of(const render__queue *q, const render__packet *p)
{
    return &q->contexts[p->context].commands[p->command];
}

static void build_range(void *user, uint32_t begin, uint32_t end)
{
    const build_job *j = user;
    const render__queue *q = j->q;
    for (uint32_t i = begin; i < end; i++) {
        const render__packet *p = &q->sorted[i];
        const render__command *cmd = command_of(q, p);
        const render__key_fields k = render__key_decode(p->key);
        render__draw *d = &q->draws[i];
        memset(d, 0, sizeof *d);
        d->kind = cmd->kind;
        d->layer = k.layer;
        d->pass = k.pass;
        d->program = cmd->program;
        d->material = cmd->material;
        d->mesh = cmd->mesh;
        d->palette = cmd->palette;
        if (cmd->kind == RENDER_CMD_LAYER) {
            d->changes = RENDER_CHANGE_LAYER;
        } else if (i == 0) {
            d->changes = RENDER_CHANGE_LAYER | RENDER_CHANGE_PROGRAM | RENDER_CHANGE_MATERIAL |
                         (cmd->kind == RENDER_CMD_DRAW ? RENDER_CHANGE_MESH : 0);
        } else {
            const render__command *prev = command_of(q, &q->sorted[i - 1]);
            const uint32_t prev_layer = render__key_decode(q->sorted[i - 1].key).layer;
            d->changes = (k.layer != prev_layer ? RENDER_CHANGE_LAYER : 0) |
                         (cmd->program != prev->program ? RENDER_CHANGE_PROGRAM : 0) |
                         (cmd->material != prev->material ? RENDER_CHANGE_MATERIAL : 0) |
                         (cmd->kind == RENDER_CMD_DRAW &&
                                  (cmd->mesh != prev->mesh || prev->kind != RENDER_CMD_DRAW)
                              ? RENDER_CHANGE_MESH
                              : 0);
        }
        if (cmd->kind != RENDER_CMD_DRAW)
            continue;
        float w[16];
        render__mat4_from_affine(w, cmd->world);
        render__mat4_mul(d->mvp, j->view_proj, w);
        memcpy(d->world, cmd->world, sizeof d->world);
        normal_matrix(d->normal, cmd->world);
        if (cmd->material < j->num_materials) {
            memcpy(d->params, j->materials[cmd->material].color, 4 * sizeof(float));
            memcpy(d->params + 4, j->materials[cmd->material].specular, 4 * sizeof(float));
        }
    }
}

bool render__build(render__queue *q, const float view_proj[16], const render__material *materials,
                   uint32_t num_materials, const render__pool *pool)
{
    const uint32_t n = q->num_packets;
    if (n > q->draws_cap) {
        /* Rebuilt whole each frame: a new array, nothing to copy. */
        const uint32_t cap = ct_array_capacity(q->draws_cap, n, 4096);
        render__draw *d = cap ? ct_alloc(q->a, (size_t)cap * sizeof *d) : NULL;
        if (!d) {
            q->failed = true;
            return false;
        }
        ct_free(q->a, q->draws, (size_t)q->draws_cap * sizeof *q->draws);
        q->draws = d;
        q->draws_cap = cap;
    }
    build_job job = {q, view_proj, materials, materials ? num_materials : 0};
    render__pool_for(pool, n, BUILD_BLOCK, build_range, &job);
    return true;
}

static bool finite_all(const float *v, int n)
{
    for (int k = 0; k < n; k++)
        if (!isfinite(v[k]))
            return false;
    return true;
}

render__null_stats render__null_execute(const render__draw *draws, uint32_t n, uint32_t num_meshes,
                                        uint32_t num_materials, uint32_t num_programs)
{
    render__null_stats s = {0};
    for (uint32_t i = 0; i < n; i++) {
        const render__draw *d = &draws[i];
        const bool draw = d->kind == RENDER_CMD_DRAW || d->kind == RENDER_CMD_PARTICLES;
        const bool layer = d->kind == RENDER_CMD_LAYER;
        const bool ok =
            layer || d->kind == RENDER_CMD_PARTICLES ||
            ((draw || d->kind == RENDER_CMD_FULLSCREEN || d->kind == RENDER_CMD_DEBUG) &&
             d->program < num_programs &&
             (!draw || (d->mesh < num_meshes && d->material < num_materials &&
                        finite_all(d->mvp, 16) && finite_all(d->world, 12))));
        if (!ok) {
            s.invalid++;
            continue;
        }
        s.draws += draw;
        s.layers += layer;
        s.fullscreen += !draw && !layer;
        s.state_changes += render__state_changes(d->changes);
    }
    s.hash = ct_murmur64a(draws, (size_t)n * sizeof *draws, 0);
    return s;
}
