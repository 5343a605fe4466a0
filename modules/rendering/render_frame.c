/*
 * render_frame.c: one frame. The camera and lights are read on the calling thread, and so are the
 * world matrices of the mesh instances (ct.transform is main-thread only); culling and recording
 * run on ct.jobs, one RenderContext per fixed range of instances; then merge-n-sort, the display
 * list built on ct.jobs, validation and hashing (the null backend's pass, always run), and the gl
 * backend when it is the chosen one.
 */
#include "render_internal.h"
#include "ct_array.h"

#include "ct_profiler.h"

#include <math.h>
#include <string.h>

#define GATHER_GRAIN 1024u

static void pool_parallel_for(void *ctx, uint32_t count, uint32_t grain, ct_range_f fn, void *user)
{
    const ct_jobs_api_v1 *jobs = ctx;
    jobs->parallel_for(count, grain, fn, user);
}

typedef struct gather_job {
    render__state *s;
    const render__manager *meshes;
    const float *worlds;
    float planes[6][4];
    float eye[3], forward[3];
    float right[3], up[3]; /* the camera's axes (camera-facing particles) */
    float near_plane, far_plane;
    /* The sun's shadow map, when the pipeline has a shadow layer and the world a sun: its box's
     * planes, the direction the sunlight travels, and the box's near point along it. */
    bool shadow;
    float shadow_planes[6][4];
    float sun_forward[3], sun_near, sun_depth;
    /* Point and spot lights casting shadows (into the shadow layer's pass 2): their spheres. */
    uint32_t num_local;
    float local[RENDER_MAX_LOCAL_SHADOWS][4];
} gather_job;

static float dot3(const float *a, const float *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void normalize3(float v[3])
{
    const float len = sqrtf(dot3(v, v));
    if (len > 0.0f)
        v[0] /= len, v[1] /= len, v[2] /= len;
}

/* Whether a sphere is inside (or touches) a set of inward planes. */
static bool inside(const float planes[6][4], const float c[3], float radius)
{
    for (int p = 0; p < 6; p++)
        if (dot3(planes[p], c) + planes[p][3] < -radius)
            return false;
    return true;
}

/* Culls and records instances [begin, end) into context 1 + begin / GATHER_GRAIN: a packet for the
 * camera when it sees them, one for the sun's shadow map when they can cast into it. */
static void gather_range(void *user, uint32_t begin, uint32_t end)
{
    const gather_job *j = user;
    render__state *s = j->s;
    render__context *ctx = &s->queue.contexts[1 + begin / GATHER_GRAIN];
    const render__mesh_ref *refs = (const render__mesh_ref *)(const void *)j->meshes->data;
    for (uint32_t i = begin; i < end; i++) {
        const render__mesh_ref r = refs[i];
        if (r.mesh >= s->meshes_cap || !s->meshes[r.mesh].used || r.material >= s->materials_cap ||
            !s->material_slots[r.material].used)
            continue;
        const render__material *mat = &s->materials[r.material];
        if (mat->layer == RENDER_NO_INDEX)
            continue;
        const render__mesh_slot *mesh = &s->meshes[r.mesh];
        const float *w = &j->worlds[12 * i];
        const uint32_t palette = s->palette_of[i];
        const float c[3] = {
            w[0] * mesh->center[0] + w[1] * mesh->center[1] + w[2] * mesh->center[2] + w[3],
            w[4] * mesh->center[0] + w[5] * mesh->center[1] + w[6] * mesh->center[2] + w[7],
            w[8] * mesh->center[0] + w[9] * mesh->center[1] + w[10] * mesh->center[2] + w[11]};
        float scale2 = 0.0f;
        for (int k = 0; k < 3; k++) {
            const float col = w[k] * w[k] + w[4 + k] * w[4 + k] + w[8 + k] * w[8 + k];
            scale2 = col > scale2 ? col : scale2;
        }
        const float radius =
            (palette != RENDER_NO_INDEX ? s->skinned_radius[i] : mesh->radius) * sqrtf(scale2);
        const render__layer_desc *layer = &s->pipeline.layers[mat->layer];
        const bool seen = inside(j->planes, c, radius);
        const bool opaque = !(layer->flags & RENDER_LAYER_BACK_TO_FRONT);
        const bool casts = j->shadow && opaque && inside(j->shadow_planes, c, radius);
        bool casts_local = false;
        for (uint32_t k = 0; opaque && k < j->num_local && !casts_local; k++) {
            const float d[3] = {c[0] - j->local[k][0], c[1] - j->local[k][1],
                                c[2] - j->local[k][2]};
            casts_local = dot3(d, d) < (radius + j->local[k][3]) * (radius + j->local[k][3]);
        }
        render__command cmd = {.kind = RENDER_CMD_DRAW,
                               .mesh = r.mesh,
                               .material = r.material,
                               .palette = palette != RENDER_NO_INDEX ? palette : 0};
        memcpy(cmd.world, w, sizeof cmd.world);
        if (seen) {
            const float to[3] = {c[0] - j->eye[0], c[1] - j->eye[1], c[2] - j->eye[2]};
            cmd.program =
                palette != RENDER_NO_INDEX ? render__program_skinned(mat->program) : mat->program;
            const render__key_fields f = {
                .layer = mat->layer,
                .pass = 1,
                .program = cmd.program,
                .material = r.material,
                .depth = render__key_depth(dot3(to, j->forward), j->near_plane, j->far_plane,
                                           (layer->flags & RENDER_LAYER_BACK_TO_FRONT) != 0)};
            render__context_record(ctx, s->queue.a, render__key_encode(&f), &cmd);
        }
        if (casts) { /* into the sun's shadow map, nearest the sun first */
            cmd.program =
                palette != RENDER_NO_INDEX ? RENDER_PROGRAM_SHADOW_SKINNED : RENDER_PROGRAM_SHADOW;
            const render__key_fields f = {
                .layer = s->pipeline.shadow_layer,
                .pass = 1,
                .program = cmd.program,
                .material = r.material,
                .depth = render__key_depth(dot3(c, j->sun_forward) - j->sun_near, 1e-3f,
                                           j->sun_depth, false)};
            render__context_record(ctx, s->queue.a, render__key_encode(&f), &cmd);
        }
        if (casts_local) { /* into the cube maps of the point and spot lights (pass 2) */
            cmd.program = palette != RENDER_NO_INDEX ? RENDER_PROGRAM_SHADOW_LOCAL_SKINNED
                                                     : RENDER_PROGRAM_SHADOW_LOCAL;
            const render__key_fields f = {.layer = s->pipeline.shadow_layer,
                                          .pass = 2,
                                          .program = cmd.program,
                                          .material = r.material};
            render__context_record(ctx, s->queue.a, render__key_encode(&f), &cmd);
        }
    }
}

/* Frustum planes (normalised, pointing inwards) of a column-major projection * view. */
static void frustum_planes(const float m[16], float planes[6][4])
{
    for (int p = 0; p < 6; p++) {
        const int row = p / 2;
        const float sign = p % 2 ? -1.0f : 1.0f;
        for (int k = 0; k < 4; k++)
            planes[p][k] = m[4 * k + 3] + sign * m[4 * k + row];
        const float len = sqrtf(dot3(planes[p], planes[p]));
        for (int k = 0; k < 4 && len > 0.0f; k++)
            planes[p][k] /= len;
    }
}

static ct_transform_matrix_t world_of(ct_world_o *world, ct_entity_t e)
{
    const ct_transform_t t = render__m.transform->lookup(world, e);
    if (t.i)
        return render__m.transform->world_matrix(world, t);
    return (ct_transform_matrix_t){{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}};
}

/* The camera's view and projection; false (logged) when e has no camera in `world`. */
static bool camera_setup(ct_world_o *world, ct_entity_t e, gather_job *j, float view_proj[16])
{
    const render__camera_desc *cam =
        render__instance_of(render__manager_of(world, RENDER_CAMERA_TYPE), e);
    if (!cam) {
        RENDER_LOG(CT_LOG_ERROR, "render: entity %u has no camera in this world", e.id);
        return false;
    }
    const float *m = world_of(world, e).m;
    float right[3] = {m[0], m[4], m[8]}, up[3] = {m[1], m[5], m[9]}, back[3] = {m[2], m[6], m[10]};
    normalize3(right), normalize3(up), normalize3(back);
    const float eye[3] = {m[3], m[7], m[11]};
    const float view[16] = {
        right[0], up[0], back[0], 0, right[1],          up[1],          back[1],          0,
        right[2], up[2], back[2], 0, -dot3(right, eye), -dot3(up, eye), -dot3(back, eye), 1};
    const render__pipeline *p = &render__m.state->pipeline;
    const float aspect = (float)p->width / (float)p->height;
    const float f = 1.0f / tanf(cam->fov_degrees * 0.5f * 3.14159265f / 180.0f);
    const float n = cam->near_plane, fa = cam->far_plane;
    const float proj[16] = {
        f / aspect, 0, 0, 0, 0, f, 0, 0, 0, 0, (fa + n) / (n - fa), -1, 0, 0, 2 * fa * n / (n - fa),
        0};
    render__mat4_mul(view_proj, proj, view);
    frustum_planes(view_proj, j->planes);
    memcpy(j->eye, eye, sizeof eye);
    j->forward[0] = -back[0], j->forward[1] = -back[1], j->forward[2] = -back[2];
    memcpy(j->right, right, sizeof right);
    memcpy(j->up, up, sizeof up);
    j->near_plane = n;
    j->far_plane = fa;
    return true;
}

/* The lit program's frame uniforms: camera, ambient, the first directional light, four point or
 * spot lights (their cones into `local`); the shadowed ones among those into j->local when the
 * pipeline has a shadow layer. */
static bool gather_lights(ct_world_o *world, const float eye[3], render__frame_lights *out,
                          render__local_lights *local, gather_job *j)
{
    memset(out, 0, sizeof *out);
    memset(local, 0, sizeof *local);
    memcpy(out->v[0], eye, 3 * sizeof(float));
    memcpy(out->v[1], render__m.state->pipeline.ambient, 3 * sizeof(float));
    const bool shadow_layer = render__m.state->pipeline.shadow_layer != RENDER_NO_INDEX;
    const render__manager *m = render__manager_of(world, RENDER_LIGHT_TYPE);
    bool sun = false;
    uint32_t points = 0;
    for (uint32_t i = 0; m && i < m->n; i++) {
        const render__light_desc *l =
            (const render__light_desc *)(const void *)(m->data + (size_t)i * m->size);
        const float *w = world_of(world, m->entity[i]).m;
        float *slot;
        if (l->type == RENDER_LIGHT_DIRECTIONAL && !sun) {
            sun = true;
            out->v[2][0] = w[2], out->v[2][1] = w[6],
            out->v[2][2] = w[10]; /* +Z: towards the light */
            normalize3(out->v[2]);
            slot = out->v[3];
        } else if ((l->type == RENDER_LIGHT_POINT || l->type == RENDER_LIGHT_SPOT) && points < 4) {
            float *pos = out->v[4 + 2 * points];
            pos[0] = w[3], pos[1] = w[7], pos[2] = w[11], pos[3] = l->range;
            if (l->type == RENDER_LIGHT_SPOT) {
                float *cone = local->v[2 * points];
                cone[0] = -w[2], cone[1] = -w[6], cone[2] = -w[10]; /* -Z: where it shines */
                normalize3(cone);
                const float outer = l->angle * 3.14159265f / 180.0f;
                cone[3] = cosf(outer);
                local->v[2 * points + 1][0] = cosf(0.8f * outer);
            }
            slot = out->v[5 + 2 * points++];
            if (l->shadows && shadow_layer && j->num_local < RENDER_MAX_LOCAL_SHADOWS) {
                memcpy(j->local[j->num_local], pos, sizeof j->local[0]);
                slot[3] = (float)++j->num_local; /* its cube's layer + 1 */
            } else if (l->shadows && !render__m.state->local_shadows_warned) {
                render__m.state->local_shadows_warned = true;
                RENDER_LOG(CT_LOG_WARNING,
                           "render: entity %u's light asks for shadows, but %s; it lights "
                           "without them (said once)",
                           m->entity[i].id,
                           shadow_layer ? "four point or spot lights cast them already this frame"
                                        : "the render_config has no shadow layer to draw them in");
            }
        } else {
            continue;
        }
        for (int k = 0; k < 3; k++)
            slot[k] = l->color[k] * l->intensity;
    }
    out->v[1][3] = (float)points;
    return sun;
}

/* The sun's shadow matrix (column-major, into lights->v[12..15]; lights->v[2].w the softness): an
 * orthographic box shadow_extent wide around the point shadow_extent / 2 in front of the camera,
 * looking along the sunlight, as deep as it is wide on either side. Its centre is snapped to whole
 * texels of the map across the light, so as the camera moves every caster stays on the same
 * texels (no shimmering edges), and it keeps its size whatever the camera looks at. */
static void shadow_setup(const render__pipeline *p, render__frame_lights *lights, gather_job *j)
{
    float f[3] = {-lights->v[2][0], -lights->v[2][1], -lights->v[2][2]};
    const float up0[3] = {fabsf(f[1]) > 0.99f ? 1.0f : 0.0f, fabsf(f[1]) > 0.99f ? 0.0f : 1.0f,
                          0.0f};
    float r[3] = {f[1] * up0[2] - f[2] * up0[1], f[2] * up0[0] - f[0] * up0[2],
                  f[0] * up0[1] - f[1] * up0[0]};
    normalize3(f), normalize3(r);
    const float u[3] = {r[1] * f[2] - r[2] * f[1], r[2] * f[0] - r[0] * f[2],
                        r[0] * f[1] - r[1] * f[0]};
    const float half = 0.5f * p->shadow_extent, texel = p->shadow_extent / (float)p->shadow_size;
    const float centre[3] = {j->eye[0] + j->forward[0] * half, j->eye[1] + j->forward[1] * half,
                             j->eye[2] + j->forward[2] * half};
    const float cr = floorf(dot3(centre, r) / texel) * texel,
                cu = floorf(dot3(centre, u) / texel) * texel;
    const float cf = dot3(centre, f), depth = p->shadow_extent;
    float m[16];
    for (int k = 0; k < 3; k++) {
        m[4 * k + 0] = r[k] / half;
        m[4 * k + 1] = u[k] / half;
        m[4 * k + 2] = f[k] / depth;
        m[4 * k + 3] = 0.0f;
    }
    m[12] = -cr / half, m[13] = -cu / half, m[14] = -cf / depth, m[15] = 1.0f;
    for (int c = 0; c < 4; c++)
        memcpy(lights->v[12 + c], &m[4 * c], sizeof lights->v[12 + c]);
    lights->v[2][3] = p->shadow_softness;
    frustum_planes(m, j->shadow_planes);
    memcpy(j->sun_forward, f, sizeof f);
    j->sun_near = cf - depth;
    j->sun_depth = 2.0f * depth;
    j->shadow = true;
}

/* Context 0: a begin packet per layer, and the full-screen passes. */
static void record_pipeline(render__state *s)
{
    render__context *ctx = &s->queue.contexts[0];
    for (uint32_t l = 0; l < s->pipeline.num_layers; l++) {
        const render__layer_desc *d = &s->pipeline.layers[l];
        render__command begin = {.kind = RENDER_CMD_LAYER,
                                 .program = RENDER_NO_INDEX,
                                 .material = RENDER_NO_INDEX,
                                 .mesh = RENDER_NO_INDEX};
        render__context_record(ctx, s->queue.a,
                               render__key_encode(&(render__key_fields){.layer = l}), &begin);
        if (d->program == RENDER_NO_INDEX)
            continue;
        render__command pass = {.kind = RENDER_CMD_FULLSCREEN,
                                .program = d->program,
                                .material = RENDER_NO_INDEX,
                                .mesh = RENDER_NO_INDEX};
        render__context_record(
            ctx, s->queue.a,
            render__key_encode(&(render__key_fields){.layer = l, .pass = 1, .program = d->program}),
            &pass);
    }
}

static bool gather_worlds(render__state *s, ct_world_o *world, const render__manager *m)
{
    /* 12 floats (one 3x4 matrix, 48 bytes) per instance. */
    if (!ct_array_reserve(render__m.allocator, &s->worlds, &s->worlds_cap, m->n, 48, 1024))
        return false;
    for (uint32_t i = 0; i < m->n; i++)
        memcpy(&s->worlds[12 * i], world_of(world, m->entity[i]).m, 48);
    return true;
}

int render__frame_prepare(ct_world_o *world, ct_entity_t camera)
{
    render__state *s = render__m.state;
    /* The display list, palette and lights below are what a prepared frame's execute reads. */
    render__wait_executed();
    if (!s->pipeline_checked) {
        s->pipeline_checked = true;
        render__use_project_pipeline();
    }
    render__follow_reloads();
    if (s->backend == RENDER_BACKEND_GL && !s->gl && !s->gl_failed)
        render__set_backend("gl");
    render__manager *meshes = render__manager_of(world, RENDER_MESH_TYPE);
    render__refresh_mesh_refs(meshes);
    gather_job job = {.s = s, .meshes = meshes};
    if (!meshes || !camera_setup(world, camera, &job, s->view_proj))
        return CT_ERR_NOT_FOUND;
    if (gather_lights(world, job.eye, &s->lights, &s->local, &job) &&
        s->pipeline.shadow_layer != RENDER_NO_INDEX)
        shadow_setup(&s->pipeline, &s->lights, &job);
    const render__pool pool = {render__m.jobs ? pool_parallel_for : NULL, (void *)render__m.jobs};
    const uint32_t ranges = (meshes->n + GATHER_GRAIN - 1) / GATHER_GRAIN;
    if (!gather_worlds(s, world, meshes) || !render__gather_palettes(s, world, meshes) ||
        !render__queue_begin(&s->queue, 1 + ranges)) {
        RENDER_LOG(CT_LOG_ERROR, "render: out of memory for %u mesh instances", meshes->n);
        return CT_ERR_NOMEM;
    }
    job.worlds = s->worlds;
    record_pipeline(s);
    render__particles_record(s, world, job.eye, job.forward, job.near_plane, job.far_plane,
                             job.right, job.up);
    render__record_debug(s);
    ct_profile_scope_t phase = ct_profile_scope_begin(render__m.profiler, "render.gather");
    render__pool_for(&pool, meshes->n, GATHER_GRAIN, gather_range, &job);
    ct_profile_scope_end(&phase);
    phase = ct_profile_scope_begin(render__m.profiler, "render.sort_build");
    uint32_t packets = 0;
    for (uint32_t c = 1; c <= ranges; c++)
        packets += s->queue.contexts[c].n;
    if (!render__merge_sort(&s->queue) ||
        !render__build(&s->queue, s->view_proj, s->materials, s->materials_cap, &pool) ||
        s->queue.failed) {
        ct_profile_scope_end(&phase);
        RENDER_LOG(CT_LOG_ERROR, "render: out of memory; packets of this frame were dropped");
        return CT_ERR_NOMEM;
    }
    ct_profile_scope_end(&phase);
    /* What the camera sees: the draws recorded, less those into the shadow map. */
    uint32_t visible = packets;
    for (uint32_t k = 0; (job.shadow || job.num_local) && k < s->queue.num_packets; k++)
        visible -= s->queue.sorted[k].context != 0 && /* context 0: layer begins and passes */
                   render__key_decode(s->queue.sorted[k].key).layer == s->pipeline.shadow_layer;
    const render__null_stats ns = render__null_execute(
        s->queue.draws, s->queue.num_packets, s->meshes_cap, s->materials_cap, RENDER_NUM_PROGRAMS);
    s->stats = (ct_render_stats_t){.frame = s->stats.frame + 1,
                                   .objects = meshes->n,
                                   .visible = visible,
                                   .packets = s->queue.num_packets,
                                   .draws = ns.draws,
                                   .state_changes = ns.state_changes,
                                   .contexts = s->queue.num_contexts,
                                   .invalid = ns.invalid,
                                   .command_hash = ns.hash};
    render__gl_enter();
    render__set_pending(true);
    render__gl_leave();
    return 0;
}

int render__frame_execute(uint8_t *rgba, size_t capacity, uint32_t *width, uint32_t *height)
{
    render__state *s = render__m.state;
    render__gl_enter();
    if (!render__pending()) {
        render__gl_leave();
        return CT_ERR_INVALID;
    }
    ct_profile_scope_t phase = ct_profile_scope_begin(render__m.profiler, "render.execute");
    const bool gl = s->backend == RENDER_BACKEND_GL && s->gl;
    if (gl) {
        render__gl_set_palette(s->gl, (const float(*)[12])s->palette, s->palette_n);
        render__gl_set_debug(s->gl, &s->debug, s->view_proj);
        render__gl_set_local_lights(s->gl, &s->local);
        render__gl_execute(s->gl, s->queue.draws, s->queue.num_packets, s->materials_cap,
                           &s->lights);
        render__gl_present(s->gl);
    }
    ct_profile_scope_end(&phase);
    s->have_frame = true;
    render__debug_clear(&s->debug); /* drawn once: a caller asks again next frame */
    int r = 0;
    if (rgba) {
        const uint32_t w = s->pipeline.width, h = s->pipeline.height;
        if (width)
            *width = w;
        if (height)
            *height = h;
        if (!gl || capacity < (size_t)w * h * 4)
            r = CT_ERR_INVALID;
        else if (!render__gl_read(s->gl, rgba)) {
            RENDER_LOG(CT_LOG_ERROR, "execute: reading the backbuffer failed");
            r = CT_ERR_IO;
        }
    }
    render__set_pending(false);
    render__gl_leave();
    return r;
}

int render__frame(ct_world_o *world, ct_entity_t camera)
{
    /* One section around both: the context stays on this thread. */
    render__wait_executed();
    render__gl_enter();
    int r = render__frame_prepare(world, camera);
    if (!r)
        r = render__frame_execute(NULL, 0, NULL, NULL);
    render__gl_leave();
    return r;
}

void render__frame_free(void)
{
    render__state *s = render__m.state;
    render__queue_free(&s->queue);
    render__particles_free();
    ct_free(render__m.allocator, s->worlds, (size_t)s->worlds_cap * 48);
    s->worlds = NULL;
    s->worlds_cap = 0;
    render__skin_free();
    render__debug_release();
}
