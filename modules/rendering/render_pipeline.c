/* render_pipeline.c: the built-in pipeline and the checks every pipeline passes (a compiled
 * renderer configuration is validated with them when it loads, and so is a capture's). */
#include "render_gpu.h"

#include <math.h>
#include <string.h>

void render__default_pipeline(render__pipeline *p)
{
    *p = (render__pipeline){.width = 640,
                            .height = 360,
                            .num_targets = 1,
                            .num_layers = 2,
                            .ambient = {0.15f, 0.15f, 0.18f, 0.0f},
                            .shadow_layer = RENDER_NO_INDEX};
    strcpy(p->targets[0].name, "backbuffer");
    p->targets[0].scale = 1.0f;
    p->layers[0] = (render__layer_desc){.name = "opaque",
                                        .target = 0,
                                        .clear_color = {0.08f, 0.09f, 0.11f, 1.0f},
                                        .clear_depth = 1.0f,
                                        .flags = RENDER_LAYER_CLEAR_COLOR |
                                                 RENDER_LAYER_CLEAR_DEPTH | RENDER_LAYER_DEPTH_TEST,
                                        .program = RENDER_NO_INDEX,
                                        .input = RENDER_NO_INDEX};
    p->layers[1] =
        (render__layer_desc){.name = "transparent",
                             .target = 0,
                             .flags = RENDER_LAYER_BACK_TO_FRONT | RENDER_LAYER_DEPTH_TEST,
                             .program = RENDER_NO_INDEX,
                             .input = RENDER_NO_INDEX};
}

static bool named(const char *name) { return memchr(name, 0, RENDER_NAME_SIZE) != NULL && name[0]; }

static bool finite4(const float *v)
{
    return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]) && isfinite(v[3]);
}

const char *render__pipeline_error(const render__pipeline *p)
{
    if (p->width < 1 || p->width > 4096 || p->height < 1 || p->height > 4096)
        return "resolution must be between 1 and 4096 in each direction";
    if (p->num_targets < 1 || p->num_targets > RENDER_MAX_TARGETS)
        return "too many targets";
    if (p->num_layers < 1 || p->num_layers > RENDER_MAX_LAYERS_USED)
        return "a pipeline needs between 1 and 32 layers";
    if (!finite4(p->ambient))
        return "ambient is not finite";
    for (uint32_t t = 0; t < p->num_targets; t++) {
        const render__target_desc *d = &p->targets[t];
        if (!named(d->name) || d->format > RENDER_FORMAT_RGBA16F ||
            !(d->scale > 0.0f && d->scale <= 1.0f))
            return "a target has a bad name, format or scale";
    }
    for (uint32_t l = 0; l < p->num_layers; l++) {
        const render__layer_desc *d = &p->layers[l];
        if (!named(d->name) || d->target >= p->num_targets || d->flags > 31u ||
            !finite4(d->clear_color) || !(d->clear_depth >= 0.0f && d->clear_depth <= 1.0f))
            return "a layer has a bad name, target, flags or clear value";
        const bool fullscreen = d->program != RENDER_NO_INDEX;
        if (fullscreen && (!render__program_fullscreen(d->program) || d->input >= p->num_targets ||
                           d->input == d->target))
            return "a full-screen layer needs a full-screen program and an input other than its "
                   "target";
        if (!fullscreen && d->input != RENDER_NO_INDEX)
            return "a layer of draws has an input";
        if (((d->flags & RENDER_LAYER_SHADOW) != 0) != (l == p->shadow_layer) ||
            (fullscreen && l == p->shadow_layer))
            return "the shadow layer is not the one marked as such, or is a full-screen pass";
    }
    if (p->shadow_layer != RENDER_NO_INDEX &&
        (p->shadow_layer >= p->num_layers || p->shadow_size < 64 || p->shadow_size > 4096 ||
         !(p->shadow_extent > 0.0f && p->shadow_extent <= 10000.0f) ||
         !(p->shadow_softness >= 0.0f && p->shadow_softness <= 8.0f)))
        return "the shadow layer, its size (64..4096), extent or softness (0..8) is out of range";
    return NULL;
}
