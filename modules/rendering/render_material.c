/*
 * render_material.c: the resource type "material" (format in api/ct_render.h): a program, a layer
 * name and parameters, loaded into the module's material slots; layers are resolved against the
 * current pipeline.
 */
#include "render_internal.h"
#include "ct_plugin.h" /* CT_ARRAY_COUNT */

#include <math.h>
#include <stdio.h>
#include <string.h>

static int compile_material(void *user_data, const ct_data_o *src, ct_compile_ctx_o *ctx)
{
    (void)user_data;
    static const ct_field_t known[] = {
        {"program", CT_DATA_STRING, 0},     {"layer", CT_DATA_INVALID, 0},
        {"color", CT_DATA_INVALID, 0},      {"specular", CT_DATA_INVALID, 0},
        {"shininess", CT_DATA_INVALID, 0},
    };
    render__material_blob b = {.program = RENDER_PROGRAM_LIT, .color = {0.8f, 0.8f, 0.8f, 1.0f},
                                .specular = {0.25f, 32.0f, 0, 0}};
    strcpy(b.layer, "opaque");
    if (!render__m.resource->check_fields(ctx, src, "material", known, CT_ARRAY_COUNT(known)))
        return CT_ERR_BAD_DATA;
    const char *program = render__m.data->string(render__m.data->get(src, "program"), "lit");
    if (!strcmp(program, "unlit"))
        b.program = RENDER_PROGRAM_UNLIT;
    else if (strcmp(program, "lit"))
        return render__compile_bad(ctx, "material.program: '%s' is not a program for meshes (\"lit\" or \"unlit\")%s", program, "");
    const ct_data_o *v;
    if ((v = render__m.data->get(src, "layer")) && !render__copy_name(v, "material.layer", b.layer, ctx))
        return CT_ERR_BAD_DATA;
    if ((v = render__m.data->get(src, "color")) && !render__numbers(v, "material.color", 4, true, 1.0f, 0.0, 1.0, b.color, ctx))
        return CT_ERR_BAD_DATA;
    if ((v = render__m.data->get(src, "specular")) && !render__number(v, "material.specular", 0.0, 10.0, &b.specular[0], ctx))
        return CT_ERR_BAD_DATA;
    if ((v = render__m.data->get(src, "shininess")) && !render__number(v, "material.shininess", 1.0, 4096.0, &b.specular[1], ctx))
        return CT_ERR_BAD_DATA;
    render__m.resource->write(ctx, &b, sizeof b);
    return 0;
}

static uint32_t layer_index(const char *name)
{
    const render__pipeline *p = &render__m.state->pipeline;
    for (uint32_t l = 0; l < p->num_layers; l++)
        if (!strcmp(p->layers[l].name, name) && p->layers[l].program == RENDER_NO_INDEX)
            return l;
    return RENDER_NO_INDEX;
}

static void *load_material(void *user_data, const void *payload, uint64_t size, char *err, size_t err_size)
{
    (void)user_data;
    render__material_blob b;
    if (size != sizeof b) {
        snprintf(err, err_size, "material: %llu bytes, expected %zu", (unsigned long long)size, sizeof b);
        return NULL;
    }
    memcpy(&b, payload, sizeof b);
    bool ok = b.program <= RENDER_PROGRAM_LIT && memchr(b.layer, 0, sizeof b.layer);
    for (int k = 0; ok && k < 4; k++)
        ok = isfinite(b.color[k]) && isfinite(b.specular[k]);
    if (!ok) {
        snprintf(err, err_size, "material: bad program, layer name or parameter");
        return NULL;
    }
    render__state *s = render__m.state;
    const uint32_t slot = render__take_slot((void **)&s->material_slots, sizeof *s->material_slots, (void **)&s->materials,
                                    sizeof *s->materials, &s->materials_cap, RENDER_MAX_MATERIALS);
    if (slot == RENDER_NO_INDEX) {
        snprintf(err, err_size, "material: the table is full (%u materials) or memory ran out", RENDER_MAX_MATERIALS);
        return NULL;
    }
    s->material_slots[slot] = (render__material_slot){.used = true};
    memcpy(s->material_slots[slot].layer, b.layer, sizeof b.layer);
    s->materials[slot] = (render__material){.program = b.program, .layer = layer_index(b.layer)};
    memcpy(s->materials[slot].color, b.color, sizeof b.color);
    memcpy(s->materials[slot].specular, b.specular, sizeof b.specular);
    return render__runtime_from_slot(slot);
}

static void unload_material(void *user_data, void *runtime)
{
    (void)user_data;
    render__state *s = render__m.state;
    const uint32_t slot = render__slot_from_runtime(runtime);
    if (slot < s->materials_cap)
        s->material_slots[slot] = (render__material_slot){0};
}

uint32_t render__material_slot_of(const char *name)
{
    void *r = render__m.resource->get("material", name);
    if (!r)
        return RENDER_NO_INDEX;
    const uint32_t slot = render__slot_from_runtime(r);
    render__material_slot *m = &render__m.state->material_slots[slot];
    snprintf(m->name, sizeof m->name, "%s", name);
    if (render__m.state->materials[slot].layer == RENDER_NO_INDEX)
        RENDER_LOG(CT_LOG_WARNING, "material '%s': the pipeline has no layer of draws named '%s'; its "
                   "meshes are not drawn", name, m->layer);
    return slot;
}

void render__resolve_material_layers(void)
{
    render__state *s = render__m.state;
    for (uint32_t i = 0; i < s->materials_cap; i++)
        if (s->material_slots[i].used)
            s->materials[i].layer = layer_index(s->material_slots[i].layer);
}

const ct_resource_type_t render__material_resource = {
    .type = "material",
    .format_version = 1,
    .compile = compile_material,
    .load = load_material,
    .unload = unload_material,
};
