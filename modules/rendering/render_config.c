/*
 * render_config.c: the resource type "render_config" (format in api/ct_render.h): targets,
 * layers and full-screen passes compiled into a render__pipeline, switching pipelines, and
 * following the current one's source when it changes.
 */
#include "render_internal.h"
#include "ct_plugin.h" /* CT_ARRAY_COUNT */

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static uint32_t target_index(const render__pipeline *p, const char *name)
{
    for (uint32_t t = 0; name && t < p->num_targets; t++)
        if (!strcmp(p->targets[t].name, name))
            return t;
    return RENDER_NO_INDEX;
}

static int compile_target(const ct_data_o *t, render__pipeline *p, ct_compile_ctx_o *ctx)
{
    static const ct_field_t known[] = {
        {"name", CT_DATA_INVALID, 0},
        {"format", CT_DATA_STRING, 0},
        {"scale", CT_DATA_INVALID, 0},
    };
    if (p->num_targets == RENDER_MAX_TARGETS)
        return render__compile_bad(ctx, "targets: at most %s targets besides %s", "7",
                                   "the backbuffer");
    render__target_desc *d = &p->targets[p->num_targets];
    *d = (render__target_desc){.scale = 1.0f};
    if (!render__m.resource->check_fields(ctx, t, "targets[]", known, CT_ARRAY_COUNT(known)) ||
        !render__copy_name(render__m.data->get(t, "name"), "targets[].name", d->name, ctx))
        return CT_ERR_BAD_DATA;
    if (target_index(p, d->name) != RENDER_NO_INDEX)
        return render__compile_bad(ctx, "targets: the name '%s' is used twice%s", d->name, "");
    const char *format = render__m.data->string(render__m.data->get(t, "format"), "rgba8");
    if (!strcmp(format, "rgba16f"))
        d->format = RENDER_FORMAT_RGBA16F;
    else if (strcmp(format, "rgba8"))
        return render__compile_bad(ctx, "targets[%s].format: '%s' is not \"rgba8\" or \"rgba16f\"",
                                   d->name, format);
    const ct_data_o *v = render__m.data->get(t, "scale");
    if (v && !render__number(v, "targets[].scale", 0.01, 1.0, &d->scale, ctx))
        return CT_ERR_BAD_DATA;
    p->num_targets++;
    return 0;
}

/* A layer's `shadow = { size extent softness }`: the sun's shadow map is drawn in this layer
 * (which the layers that read it must follow). */
static int compile_shadow(const ct_data_o *v, render__pipeline *p, render__layer_desc *d,
                          ct_compile_ctx_o *ctx)
{
    static const ct_field_t known[] = {{"size", CT_DATA_NUMBER, 0},
                                       {"extent", CT_DATA_NUMBER, 0},
                                       {"softness", CT_DATA_NUMBER, 0}};
    if (!render__m.resource->check_fields(ctx, v, "layers[].shadow", known, CT_ARRAY_COUNT(known)))
        return CT_ERR_BAD_DATA;
    if (p->shadow_layer != RENDER_NO_INDEX)
        return render__compile_bad(
            ctx, "layers[%s].shadow: layer '%s' draws the shadow already (one sun, one map)",
            d->name, p->layers[p->shadow_layer].name);
    if (d->program != RENDER_NO_INDEX)
        return render__compile_bad(
            ctx, "layers[%s].shadow: a full-screen pass cannot draw the shadow%s", d->name, "");
    float size = 1024, extent = 20, softness = 1.5f;
    const ct_data_o *f;
    if (((f = render__m.data->get(v, "size")) &&
         !render__number(f, "layers[].shadow.size", 64, 4096, &size, ctx)) ||
        ((f = render__m.data->get(v, "extent")) &&
         !render__number(f, "layers[].shadow.extent", 0.1, 10000, &extent, ctx)) ||
        ((f = render__m.data->get(v, "softness")) &&
         !render__number(f, "layers[].shadow.softness", 0, 8, &softness, ctx)))
        return CT_ERR_BAD_DATA;
    if (size != floorf(size))
        return render__compile_bad(
            ctx, "layers[%s].shadow.size: must be a whole number of texels%s", d->name, "");
    p->shadow_layer = p->num_layers;
    p->shadow_size = (uint32_t)size;
    p->shadow_extent = extent;
    p->shadow_softness = softness;
    d->flags |= RENDER_LAYER_SHADOW | RENDER_LAYER_DEPTH_TEST | RENDER_LAYER_CLEAR_DEPTH;
    d->flags &= ~(uint32_t)(RENDER_LAYER_CLEAR_COLOR | RENDER_LAYER_BACK_TO_FRONT);
    d->clear_depth = 1.0f;
    return 0;
}

static int compile_layer(const ct_data_o *l, render__pipeline *p, ct_compile_ctx_o *ctx)
{
    static const ct_field_t known[] = {
        {"name", CT_DATA_INVALID, 0},        {"target", CT_DATA_STRING, 0},
        {"clear_color", CT_DATA_INVALID, 0}, {"clear_depth", CT_DATA_INVALID, 0},
        {"sort", CT_DATA_STRING, 0},         {"depth_test", CT_DATA_INVALID, 0},
        {"fullscreen", CT_DATA_INVALID, 0},  {"shadow", CT_DATA_INVALID, 0},
    };
    if (p->num_layers == RENDER_MAX_LAYERS_USED)
        return render__compile_bad(ctx, "layers: at most %s layers%s", "32", "");
    render__layer_desc *d = &p->layers[p->num_layers];
    *d = (render__layer_desc){.clear_depth = 1.0f,
                              .program = RENDER_NO_INDEX,
                              .input = RENDER_NO_INDEX,
                              .flags = RENDER_LAYER_DEPTH_TEST};
    if (!render__m.resource->check_fields(ctx, l, "layers[]", known, CT_ARRAY_COUNT(known)) ||
        !render__copy_name(render__m.data->get(l, "name"), "layers[].name", d->name, ctx))
        return CT_ERR_BAD_DATA;
    for (uint32_t k = 0; k < p->num_layers; k++)
        if (!strcmp(p->layers[k].name, d->name))
            return render__compile_bad(ctx, "layers: the name '%s' is used twice%s", d->name, "");
    const char *target = render__m.data->string(render__m.data->get(l, "target"), "backbuffer");
    if ((d->target = target_index(p, target)) == RENDER_NO_INDEX)
        return render__compile_bad(ctx, "layers[%s].target: no target is named '%s'", d->name,
                                   target);
    const ct_data_o *v;
    if ((v = render__m.data->get(l, "clear_color"))) {
        if (!render__numbers(v, "layers[].clear_color", 4, true, 1.0f, 0.0, 1.0, d->clear_color,
                             ctx))
            return CT_ERR_BAD_DATA;
        d->flags |= RENDER_LAYER_CLEAR_COLOR;
    }
    if ((v = render__m.data->get(l, "clear_depth"))) {
        if (!render__number(v, "layers[].clear_depth", 0.0, 1.0, &d->clear_depth, ctx))
            return CT_ERR_BAD_DATA;
        d->flags |= RENDER_LAYER_CLEAR_DEPTH;
    }
    if ((v = render__m.data->get(l, "depth_test"))) {
        if (render__m.data->type(v) != CT_DATA_BOOL)
            return render__compile_bad(ctx, "layers[%s].depth_test: must be true or false%s",
                                       d->name, "");
        if (!render__m.data->boolean(v, true))
            d->flags &= ~(uint32_t)RENDER_LAYER_DEPTH_TEST;
    }
    const char *sort = render__m.data->string(render__m.data->get(l, "sort"), "front_to_back");
    if (!strcmp(sort, "back_to_front"))
        d->flags |= RENDER_LAYER_BACK_TO_FRONT;
    else if (strcmp(sort, "front_to_back"))
        return render__compile_bad(
            ctx, "layers[%s].sort: '%s' is not \"front_to_back\" or \"back_to_front\"", d->name,
            sort);
    if ((v = render__m.data->get(l, "fullscreen"))) {
        static const ct_field_t fs_known[] = {{"program", CT_DATA_STRING, 0},
                                              {"input", CT_DATA_STRING, 0}};
        if (!render__m.resource->check_fields(ctx, v, "layers[].fullscreen", fs_known,
                                              CT_ARRAY_COUNT(fs_known)))
            return CT_ERR_BAD_DATA;
        const char *program = render__m.data->string(render__m.data->get(v, "program"), "");
        for (uint32_t k = 0; k < RENDER_NUM_PROGRAMS; k++)
            if (!strcmp(program, render__program_names[k]) && render__program_fullscreen(k))
                d->program = k;
        if (d->program == RENDER_NO_INDEX)
            return render__compile_bad(ctx,
                                       "layers[%s].fullscreen.program: '%s' is not a full-screen "
                                       "program (\"copy\", \"vignette\")",
                                       d->name, program);
        const char *input = render__m.data->string(render__m.data->get(v, "input"), "");
        d->input = target_index(p, input);
        if (d->input == RENDER_NO_INDEX || d->input == d->target)
            return render__compile_bad(
                ctx,
                "layers[%s].fullscreen.input: '%s' must name a target other than the layer's own",
                d->name, input);
    }
    if ((v = render__m.data->get(l, "shadow")) && compile_shadow(v, p, d, ctx))
        return CT_ERR_BAD_DATA;
    p->num_layers++;
    return 0;
}

static int compile_config(void *user_data, const ct_data_o *src, ct_compile_ctx_o *ctx)
{
    (void)user_data;
    static const ct_field_t known[] = {
        {"resolution", CT_DATA_INVALID, 0},
        {"ambient", CT_DATA_INVALID, 0},
        {"targets", CT_DATA_INVALID, 0},
        {"layers", CT_DATA_INVALID, 0},
    };
    render__pipeline p = {.width = 640,
                          .height = 360,
                          .num_targets = 1,
                          .ambient = {0.15f, 0.15f, 0.18f, 0},
                          .shadow_layer = RENDER_NO_INDEX};
    strcpy(p.targets[0].name, "backbuffer");
    p.targets[0].scale = 1.0f;
    if (!render__m.resource->check_fields(ctx, src, "render_config", known, CT_ARRAY_COUNT(known)))
        return CT_ERR_BAD_DATA;
    const ct_data_o *v;
    float res[2];
    if ((v = render__m.data->get(src, "resolution"))) {
        if (!render__numbers(v, "resolution", 2, false, 0, 1, 4096, res, ctx))
            return CT_ERR_BAD_DATA;
        if (res[0] != floorf(res[0]) || res[1] != floorf(res[1]))
            return render__compile_bad(ctx, "resolution: must be two whole numbers%s%s", "", "");
        p.width = (uint32_t)res[0];
        p.height = (uint32_t)res[1];
    }
    if ((v = render__m.data->get(src, "ambient")) &&
        !render__numbers(v, "ambient", 3, false, 0, 0.0, 10.0, p.ambient, ctx))
        return CT_ERR_BAD_DATA;
    const ct_data_o *targets = render__m.data->get(src, "targets"),
                    *layers = render__m.data->get(src, "layers");
    if (targets && render__m.data->type(targets) != CT_DATA_ARRAY)
        return render__compile_bad(ctx, "targets: must be an array of { name format scale }%s%s",
                                   "", "");
    for (const ct_data_o *t = render__m.data->first_child(targets); t; t = render__m.data->next(t))
        if (compile_target(t, &p, ctx))
            return CT_ERR_BAD_DATA;
    if (!layers || render__m.data->type(layers) != CT_DATA_ARRAY ||
        render__m.data->count(layers) == 0)
        return render__compile_bad(ctx, "layers: an array of at least one layer is required%s%s",
                                   "", "");
    for (const ct_data_o *l = render__m.data->first_child(layers); l; l = render__m.data->next(l))
        if (compile_layer(l, &p, ctx))
            return CT_ERR_BAD_DATA;
    const char *why = render__pipeline_error(&p);
    if (why)
        return render__compile_bad(ctx, "render_config: %s%s", why, "");
    render__m.resource->write(ctx, &p, sizeof p);
    return 0;
}

static void *load_config(void *user_data, const void *payload, uint64_t size, char *err,
                         size_t err_size)
{
    (void)user_data;
    const char *why =
        size != sizeof(render__pipeline) ? "wrong size" : render__pipeline_error(payload);
    if (why) {
        snprintf(err, err_size, "render_config: %s", why);
        return NULL;
    }
    return (void *)payload;
}

/* ---- switching and following edits --------------------------------------------------------- */

/* Whether the project has a source for render_config `name` (looked for once, at the first
 * frame: a project without "default" runs on the built-in pipeline without a message). */
static bool has_source(const char *name)
{
    const char *dir = render__m.host ? render__m.host->project_dir() : NULL;
    char path[RENDER_PATH_SIZE * 2];
    struct stat st;
    return dir &&
           (size_t)snprintf(path, sizeof path, "%s/%s.render_config", dir, name) < sizeof path &&
           stat(path, &st) == 0;
}

/* The configuration as drawn: its shadow map no larger than set_max_shadow_size allows. */
static render__pipeline capped(const render__pipeline *p)
{
    render__pipeline q = *p;
    const uint32_t max = render__m.state->max_shadow_size;
    if (q.shadow_layer != RENDER_NO_INDEX && max && q.shadow_size > max)
        q.shadow_size = max;
    return q;
}

/* Adopts a loaded configuration: targets, then materials' layers. */
static int adopt(const render__pipeline *p, const char *name)
{
    render__state *s = render__m.state;
    char err[256];
    const render__pipeline q = capped(p);
    render__gl_enter();
    if (s->gl && !render__gl_set_pipeline(s->gl, &q, err, sizeof err)) {
        RENDER_LOG(CT_LOG_ERROR, "render_config '%s': %s; keeping the previous pipeline", name,
                   err);
        render__gl_set_pipeline(s->gl, &s->pipeline, err, sizeof err);
        render__gl_leave();
        return CT_ERR_INIT_FAILED;
    }
    s->pipeline = q;
    s->shadow_size_asked = p->shadow_size;
    render__gl_leave();
    render__resolve_material_layers();
    return 0;
}

void render__set_max_shadow_size(uint32_t texels)
{
    render__state *s = render__m.state;
    s->max_shadow_size = texels == 0 ? 0 : texels < 64 ? 64 : texels > 4096 ? 4096 : texels;
    render__pipeline p = s->pipeline;
    if (p.shadow_layer == RENDER_NO_INDEX)
        return;
    p.shadow_size = s->shadow_size_asked;
    adopt(&p, s->pipeline_name[0] ? s->pipeline_name : "built-in");
}

int render__use_pipeline(const char *name)
{
    render__state *s = render__m.state;
    if (!name || strlen(name) >= sizeof s->pipeline_name) {
        RENDER_LOG(CT_LOG_ERROR, "set_pipeline: bad render_config name");
        return CT_ERR_INVALID;
    }
    int r = render__m.resource->load("render_config", name);
    if (r)
        return r;
    r = adopt(render__m.resource->get("render_config", name), name);
    if (r) {
        render__m.resource->unload("render_config", name);
        return r;
    }
    if (s->pipeline_name[0] && strcmp(s->pipeline_name, name))
        render__m.resource->unwatch_source("render_config", s->pipeline_name);
    if (s->pipeline_name[0])
        render__m.resource->unload("render_config", s->pipeline_name);
    snprintf(s->pipeline_name, sizeof s->pipeline_name, "%s", name);
    /* The kernel follows the source and reloads it; render__follow_reloads adopts the result. */
    render__m.resource->watch_source("render_config", name);
    return 0;
}

void render__use_project_pipeline(void)
{
    if (!render__m.state->pipeline_name[0] && has_source("default"))
        render__use_pipeline("default");
}

void render__follow_reloads(void)
{
    render__state *s = render__m.state;
    const uint64_t reloads = render__m.resource->reloads();
    if (reloads == s->reloads_seen)
        return;
    s->reloads_seen = reloads;
    for (uint32_t i = 0; i < s->num_names; i++) {
        render__named *n = &s->names[i];
        n->slot = n->type == RENDER_NAMED_MESH ? render__mesh_slot_of(n->name)
                                               : render__material_slot_of(n->name);
    }
    const render__pipeline *p =
        s->pipeline_name[0] ? render__m.resource->get("render_config", s->pipeline_name) : NULL;
    const render__pipeline q = p ? capped(p) : (render__pipeline){0};
    if (p && memcmp(&q, &s->pipeline, sizeof q) && adopt(p, s->pipeline_name) == 0)
        RENDER_LOG(CT_LOG_INFO, "render_config '%s' reloaded: %u targets, %u layers",
                   s->pipeline_name, s->pipeline.num_targets, s->pipeline.num_layers);
}

const ct_resource_type_t render__config_resource = {
    .type = "render_config",
    .format_version = 2, /* 2: the shadow layer */
    .compile = compile_config,
    .load = load_config,
};
