/*
 * render_material.c: the resource type "material" (format in api/ct_render.h): a program, a layer
 * name, parameters, a base colour texture and a tangent-space normal map (image files, or a glTF
 * material's), loaded into the module's material slots; layers are resolved against the current
 * pipeline.
 */
#include "render_internal.h"
#include "ct_plugin.h" /* CT_ARRAY_COUNT */

#include "gltf.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define TEXTURE_MAX_FILE_BYTES (64u << 20)

/* Decodes an image file into the texture that follows the blob; NULL (reported) on failure. */
static uint8_t *texture_file(const char *field, const char *rel, uint32_t flags,
                             render__texture_info *info, ct_compile_ctx_o *ctx)
{
    size_t size = 0;
    uint8_t *bytes = render__read_project_file(ctx, field, rel, TEXTURE_MAX_FILE_BYTES, &size);
    if (!bytes)
        return NULL;
    char what[RENDER_PATH_SIZE];
    snprintf(what, sizeof what, "%s: '%s'", field, rel);
    uint8_t *levels = render__decode_texture(ctx, what, bytes, size, flags, info);
    ct_free(render__m.allocator, bytes, size + 1);
    return levels;
}

/* glTF image `image` of `doc` (read from `rel`) decoded into *levels; 0 or CT_ERR_BAD_DATA. */
static int gltf_image(const ct_gltf_t *doc, const char *rel, int32_t image, uint32_t flags,
                      uint8_t **levels, render__texture_info *info, ct_compile_ctx_o *ctx)
{
    const ct_gltf_image_t *im = &doc->images[image];
    if (im->uri) {
        char file[RENDER_PATH_SIZE];
        if (!ct_gltf_file_path(rel, im->uri, file, sizeof file))
            return render__compile_bad(
                ctx, "material.gltf: the path of image '%s' beside '%s' is too long", im->uri, rel);
        return (*levels = texture_file("material.gltf", file, flags, info, ctx)) ? 0
                                                                                 : CT_ERR_BAD_DATA;
    }
    char what[RENDER_PATH_SIZE];
    snprintf(what, sizeof what, "material.gltf: '%s' image %d", rel, image);
    return (*levels = render__decode_texture(ctx, what, im->data, im->size, flags, info))
               ? 0
               : CT_ERR_BAD_DATA;
}

/* A glTF material's base colour (factor and texture), normal map (texture and scale) and an
 * approximation of metallic-roughness for the lit program. */
static int gltf_material(const ct_data_o *src, render__material_blob *b, uint8_t **levels,
                         uint8_t **normal, ct_compile_ctx_o *ctx)
{
    const char *rel = render__m.data->string(render__m.data->get(src, "gltf"), "");
    char path[RENDER_PATH_SIZE * 2], err[512];
    if (!render__m.resource->source_file(ctx, "material.gltf", rel, path, sizeof path))
        return CT_ERR_BAD_DATA;
    ct_gltf_t *doc = ct_gltf_load_file(path, render__m.allocator, err, sizeof err);
    if (!doc) {
        render__m.resource->compile_error(ctx, "material.gltf: %s", err);
        return CT_ERR_BAD_DATA;
    }
    int e = 0;
    for (uint32_t i = 0; i < doc->num_files && !e; i++) {
        char file[RENDER_PATH_SIZE];
        if (!ct_gltf_file_path(rel, doc->files[i], file, sizeof file) ||
            !render__m.resource->depends_on(ctx, "material.gltf", file))
            e = CT_ERR_BAD_DATA;
    }
    const double pick = render__m.data->number(render__m.data->get(src, "gltf_material"), 0);
    if (!e && !(pick >= 0 && pick < doc->num_materials && pick == floor(pick))) {
        render__m.resource->compile_error(
            ctx,
            "material.gltf_material: must be a material index below %u (the "
            "count in '%s')",
            doc->num_materials, rel);
        e = CT_ERR_BAD_DATA;
    }
    const ct_gltf_material_t *m = e ? NULL : &doc->materials[(uint32_t)pick];
    if (m) {
        memcpy(b->color, m->base_color, sizeof b->color);
        /* Blinn-Phong from metallic-roughness: smoother is shinier, metal reflects more. */
        const float r = fmaxf(m->roughness, 0.05f);
        b->specular[0] = 0.04f + 0.5f * m->metallic * (1.0f - r);
        b->specular[1] = fminf(fmaxf(2.0f / (r * r * r * r) - 2.0f, 1.0f), 4096.0f);
    }
    const int32_t image =
        m && m->base_color_texture >= 0 ? doc->textures[m->base_color_texture].image : -1;
    if (image >= 0)
        e = gltf_image(doc, rel, image, RENDER_TEXTURE_SRGB, levels, &b->texture, ctx);
    const int32_t bumps =
        m && !e && m->normal_texture >= 0 ? doc->textures[m->normal_texture].image : -1;
    if (bumps >= 0) {
        e = gltf_image(doc, rel, bumps, 0, normal, &b->normal, ctx);
        b->specular[2] = fminf(fmaxf(m->normal_scale, 0.0f), 10.0f);
    }
    ct_gltf_free(doc);
    return e;
}

static int material_parameters(const ct_data_o *src, render__material_blob *bp,
                               ct_compile_ctx_o *ctx);

static void free_levels(uint8_t *levels, const render__texture_info *t)
{
    if (levels)
        ct_free(render__m.allocator, levels, render__texture_bytes(t->width, t->height, t->levels));
}

static int compile_material(void *user_data, const ct_data_o *src, ct_compile_ctx_o *ctx)
{
    (void)user_data;
    static const ct_field_t known[] = {
        {"program", CT_DATA_STRING, 0},        {"layer", CT_DATA_INVALID, 0},
        {"color", CT_DATA_INVALID, 0},         {"specular", CT_DATA_INVALID, 0},
        {"shininess", CT_DATA_INVALID, 0},     {"texture", CT_DATA_STRING, 0},
        {"gltf", CT_DATA_STRING, 0},           {"gltf_material", CT_DATA_NUMBER, 0},
        {"normal_texture", CT_DATA_STRING, 0}, {"normal_scale", CT_DATA_INVALID, 0},
    };
    render__material_blob b = {.program = RENDER_PROGRAM_LIT,
                               .color = {0.8f, 0.8f, 0.8f, 1.0f},
                               .specular = {0.25f, 32.0f, 0, 0}};
    strcpy(b.layer, "opaque");
    if (!render__m.resource->check_fields(ctx, src, "material", known, CT_ARRAY_COUNT(known)))
        return CT_ERR_BAD_DATA;
    const char *program = render__m.data->string(render__m.data->get(src, "program"), "lit");
    if (!strcmp(program, "unlit"))
        b.program = RENDER_PROGRAM_UNLIT;
    else if (strcmp(program, "lit"))
        return render__compile_bad(
            ctx, "material.program: '%s' is not a program for meshes (\"lit\" or \"unlit\")%s",
            program, "");
    const ct_data_o *v;
    if ((v = render__m.data->get(src, "layer")) &&
        !render__copy_name(v, "material.layer", b.layer, ctx))
        return CT_ERR_BAD_DATA;
    const char *texture = render__m.data->string(render__m.data->get(src, "texture"), NULL);
    const char *normal_file =
        render__m.data->string(render__m.data->get(src, "normal_texture"), NULL);
    const bool gltf = render__m.data->get(src, "gltf") != NULL;
    if ((texture || normal_file) && gltf)
        return render__compile_bad(
            ctx, "material.%s: give textures or a glTF material (gltf), not both%s",
            texture ? "texture" : "normal_texture", "");
    if (!gltf && render__m.data->get(src, "gltf_material"))
        return render__compile_bad(
            ctx, "material.gltf_material: needs material.gltf (the file)%s%s", "", "");
    uint8_t *levels = NULL, *normal = NULL;
    int e = 0;
    if (gltf)
        e = gltf_material(src, &b, &levels, &normal, ctx);
    if (!e && texture &&
        !(levels = texture_file("material.texture", texture, RENDER_TEXTURE_SRGB, &b.texture, ctx)))
        e = CT_ERR_BAD_DATA;
    if (!e && normal_file) {
        if (!(normal = texture_file("material.normal_texture", normal_file, 0, &b.normal, ctx)))
            e = CT_ERR_BAD_DATA;
        b.specular[2] = 1.0f;
    }
    if (!e)
        e = material_parameters(src, &b, ctx);
    if (!e && render__m.data->get(src, "normal_scale") && !normal)
        e = render__compile_bad(
            ctx,
            "material.normal_scale: needs a normal map (normal_texture, or a glTF "
            "material's)%s%s",
            "", "");
    if (!e) {
        render__m.resource->write(ctx, &b, sizeof b);
        if (levels)
            render__m.resource->write(
                ctx, levels,
                render__texture_bytes(b.texture.width, b.texture.height, b.texture.levels));
        if (normal)
            render__m.resource->write(
                ctx, normal,
                render__texture_bytes(b.normal.width, b.normal.height, b.normal.levels));
    }
    free_levels(levels, &b.texture);
    free_levels(normal, &b.normal);
    return e;
}

/* The parameters a source gives itself (they override a glTF material's). */
static int material_parameters(const ct_data_o *src, render__material_blob *bp,
                               ct_compile_ctx_o *ctx)
{
    render__material_blob b = *bp;
    const ct_data_o *v;
    if ((v = render__m.data->get(src, "color")) &&
        !render__numbers(v, "material.color", 4, true, 1.0f, 0.0, 1.0, b.color, ctx))
        return CT_ERR_BAD_DATA;
    if ((v = render__m.data->get(src, "specular")) &&
        !render__number(v, "material.specular", 0.0, 10.0, &b.specular[0], ctx))
        return CT_ERR_BAD_DATA;
    if ((v = render__m.data->get(src, "shininess")) &&
        !render__number(v, "material.shininess", 1.0, 4096.0, &b.specular[1], ctx))
        return CT_ERR_BAD_DATA;
    if ((v = render__m.data->get(src, "normal_scale")) &&
        !render__number(v, "material.normal_scale", 0.0, 10.0, &b.specular[2], ctx))
        return CT_ERR_BAD_DATA;
    *bp = b;
    return 0;
}

static uint32_t layer_index(const char *name)
{
    const render__pipeline *p = &render__m.state->pipeline;
    for (uint32_t l = 0; l < p->num_layers; l++)
        if (!strcmp(p->layers[l].name, name) && p->layers[l].program == RENDER_NO_INDEX &&
            !(p->layers[l].flags & RENDER_LAYER_SHADOW))
            return l;
    return RENDER_NO_INDEX;
}

static bool upload_textures(render__gl *gl, uint32_t slot, const render__material_slot *m)
{
    return (!m->texels ||
            render__gl_texture_set(gl, slot, RENDER_TEXTURE_BASE, &m->texture, m->texels)) &&
           (!m->normal_texels ||
            render__gl_texture_set(gl, slot, RENDER_TEXTURE_NORMAL, &m->normal, m->normal_texels));
}

/* The bytes of a compiled texture whose flags must be `flags`: 0 for none (all zero), UINT64_MAX
 * when its sizes, levels or flags are not what the compiler writes. */
static uint64_t texture_size(const render__texture_info *t, uint32_t flags)
{
    if (!t->width)
        return t->height || t->levels || t->flags ? UINT64_MAX : 0;
    if (t->width > RENDER_MAX_TEXTURE_SIZE || t->height == 0 ||
        t->height > RENDER_MAX_TEXTURE_SIZE ||
        t->levels != render__texture_levels(t->width, t->height) || t->flags != flags)
        return UINT64_MAX;
    return render__texture_bytes(t->width, t->height, t->levels);
}

static void *load_material_locked(void *user_data, const void *payload, uint64_t size, char *err,
                                  size_t err_size)
{
    (void)user_data;
    render__material_blob b;
    if (size < sizeof b) {
        snprintf(err, err_size, "material: %llu bytes, shorter than its %zu",
                 (unsigned long long)size, sizeof b);
        return NULL;
    }
    memcpy(&b, payload, sizeof b);
    const uint64_t base = texture_size(&b.texture, RENDER_TEXTURE_SRGB),
                   bumps = texture_size(&b.normal, 0);
    if (base == UINT64_MAX || bumps == UINT64_MAX || size != sizeof b + base + bumps) {
        snprintf(
            err, err_size,
            "material: its textures (%u x %u, %u levels; normal map %u x %u, %u levels) do not "
            "fit its %llu bytes",
            b.texture.width, b.texture.height, b.texture.levels, b.normal.width, b.normal.height,
            b.normal.levels, (unsigned long long)size);
        return NULL;
    }
    const bool textured = b.texture.width != 0;
    if (!b.normal.width)
        b.specular[2] = 0; /* the lit program maps normals only with a map */
    bool ok = b.program <= RENDER_PROGRAM_LIT && memchr(b.layer, 0, sizeof b.layer);
    for (int k = 0; ok && k < 4; k++)
        ok = isfinite(b.color[k]) && isfinite(b.specular[k]);
    if (!ok) {
        snprintf(err, err_size, "material: bad program, layer name or parameter");
        return NULL;
    }
    render__state *s = render__m.state;
    const uint32_t slot = render__take_slot((void **)&s->material_slots, sizeof *s->material_slots,
                                            (void **)&s->materials, sizeof *s->materials,
                                            &s->materials_cap, RENDER_MAX_MATERIALS);
    if (slot == RENDER_NO_INDEX) {
        snprintf(err, err_size, "material: the table is full (%u materials) or memory ran out",
                 RENDER_MAX_MATERIALS);
        return NULL;
    }
    render__material_slot *m = &s->material_slots[slot];
    *m = (render__material_slot){
        .used = true,
        .texture = b.texture,
        .normal = b.normal,
        .texels = textured ? (const uint8_t *)payload + sizeof b : NULL,
        .normal_texels = b.normal.width ? (const uint8_t *)payload + sizeof b + base : NULL};
    if (s->gl)
        m->uploaded = upload_textures(s->gl, slot, m);
    memcpy(s->material_slots[slot].layer, b.layer, sizeof b.layer);
    s->materials[slot] = (render__material){.program = b.program, .layer = layer_index(b.layer)};
    memcpy(s->materials[slot].color, b.color, sizeof b.color);
    memcpy(s->materials[slot].specular, b.specular, sizeof b.specular);
    return render__runtime_from_slot(slot);
}

/* Loads and unloads upload to or release from the GL context: inside a section. */
static void *load_material(void *user_data, const void *payload, uint64_t size, char *err,
                           size_t err_size)
{
    render__gl_enter();
    void *r = load_material_locked(user_data, payload, size, err, err_size);
    render__gl_leave();
    return r;
}

static void unload_material_locked(void *user_data, void *runtime)
{
    (void)user_data;
    render__state *s = render__m.state;
    const uint32_t slot = render__slot_from_runtime(runtime);
    if (slot >= s->materials_cap)
        return;
    if (s->gl)
        render__gl_texture_release(s->gl, slot);
    s->material_slots[slot] = (render__material_slot){0};
}

static void unload_material(void *user_data, void *runtime)
{
    render__gl_enter();
    unload_material_locked(user_data, runtime);
    render__gl_leave();
}

void render__upload_textures(void)
{
    render__state *s = render__m.state;
    for (uint32_t i = 0; i < s->materials_cap; i++) {
        render__material_slot *m = &s->material_slots[i];
        if (m->used)
            m->uploaded = upload_textures(s->gl, i, m);
    }
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
        RENDER_LOG(CT_LOG_WARNING,
                   "material '%s': the pipeline has no layer of draws named '%s'; its "
                   "meshes are not drawn",
                   name, m->layer);
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
    .format_version = 3, /* 2: a base colour texture; 3: a normal map */
    .compile = compile_material,
    .load = load_material,
    .unload = unload_material,
};
