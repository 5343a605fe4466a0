/*
 * Particles from ct.particles (when that module is loaded): each emitter of the world becomes one
 * RENDER_CMD_PARTICLES packet in the first blending layer (sort = "back_to_front"; without one,
 * the last layer that draws), keyed by the emitter's view depth like any draw, and its live
 * particles become camera-facing quads (render_particles_gl.c). The instance data is gathered on
 * the calling thread into one array kept from frame to frame.
 */
#include "render_internal.h"

#include <math.h>
#include <string.h>

#include "ct_particles.h"

#define MAX_BATCHES 1024u

static struct {
    float *instances;
    uint32_t cap;
    render__particle_batch batches[MAX_BATCHES];
} parts;

static uint32_t particle_layer(const render__pipeline *p)
{
    uint32_t last = RENDER_NO_INDEX;
    for (uint32_t l = 0; l < p->num_layers; l++) {
        if (p->layers[l].program != RENDER_NO_INDEX)
            continue;
        if (p->layers[l].flags & RENDER_LAYER_BACK_TO_FRONT)
            return l;
        last = l;
    }
    return last;
}

void render__particles_record(render__state *s, ct_world_o *world, const float eye[3],
                              const float forward[3], float near_plane, float far_plane,
                              const float right[3], const float up[3])
{
    const ct_particles_api_v1 *api = render__m.particles;
    render__particles_set_frame(NULL, 0, NULL, 0, s->view_proj, right, up);
    const uint32_t layer = particle_layer(&s->pipeline);
    if (!api || layer == RENDER_NO_INDEX)
        return;
    ct_particle_emitter_t emitters[MAX_BATCHES];
    uint32_t n = api->emitters(world, emitters, MAX_BATCHES);
    n = n < MAX_BATCHES ? n : MAX_BATCHES;
    uint32_t total = 0;
    for (uint32_t e = 0; e < n; e++) {
        ct_particles_view_t v;
        if (api->view(world, emitters[e], &v))
            total += v.count;
    }
    if (total > parts.cap) {
        float *grown = ct_realloc(render__m.allocator, parts.instances, (size_t)parts.cap * 32,
                                  (size_t)total * 32);
        if (!grown) {
            RENDER_LOG(CT_LOG_ERROR, "render: out of memory for %u particles", total);
            return;
        }
        parts.instances = grown;
        parts.cap = total;
    }
    uint32_t at = 0, batches = 0;
    render__context *ctx = &s->queue.contexts[0];
    const bool back_to_front = (s->pipeline.layers[layer].flags & RENDER_LAYER_BACK_TO_FRONT) != 0;
    for (uint32_t e = 0; e < n; e++) {
        ct_particles_view_t v;
        if (!api->view(world, emitters[e], &v) || !v.count)
            continue;
        float *out = parts.instances + (size_t)at * 8;
        float cx = 0, cy = 0, cz = 0;
        for (uint32_t i = 0; i < v.count; i++, out += 8) {
            out[0] = v.px[i], out[1] = v.py[i], out[2] = v.pz[i], out[3] = v.size[i];
            out[4] = v.color[0], out[5] = v.color[1], out[6] = v.color[2];
            out[7] = v.color[3] * v.alpha[i];
            cx += v.px[i], cy += v.py[i], cz += v.pz[i];
        }
        const float inv = 1.0f / (float)v.count;
        const float to[3] = {cx * inv - eye[0], cy * inv - eye[1], cz * inv - eye[2]};
        const float depth = to[0] * forward[0] + to[1] * forward[1] + to[2] * forward[2];
        parts.batches[batches] = (render__particle_batch){at, v.count};
        const render__key_fields f = {
            .layer = layer,
            .pass = 1,
            .program = RENDER_NO_INDEX & 0x3ffu,
            .material = 0,
            .depth = render__key_depth(depth, near_plane, far_plane, back_to_front)};
        const render__command cmd = {.kind = RENDER_CMD_PARTICLES,
                                     .mesh = batches,
                                     .material = RENDER_NO_INDEX,
                                     .program = RENDER_NO_INDEX};
        render__context_record(ctx, s->queue.a, render__key_encode(&f), &cmd);
        batches++;
        at += v.count;
    }
    render__particles_set_frame(parts.instances, at, parts.batches, batches, s->view_proj, right,
                                up);
}

void render__particles_free(void)
{
    if (parts.instances)
        ct_free(render__m.allocator, parts.instances, (size_t)parts.cap * 32);
    parts.instances = NULL;
    parts.cap = 0;
}
