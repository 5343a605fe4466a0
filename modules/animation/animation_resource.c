/* animation_resource.c: the "skeleton" and "clip" resource types: compiling them from SJSON that
 * names a BVH or glTF source (read through formats/), and validating compiled payloads on load. */
#include "animation_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SKELETON_FORMAT 1u
#define CLIP_FORMAT 3u /* 3: rotation tracks before translations, frame numbers apart from values */

/* ---- fields ---------------------------------------------------------------------------------- */

static bool number_field(const ct_data_o *src, const char *field, double lo, double hi,
                         double *out, ct_compile_ctx_o *ctx)
{
    const ct_data_o *v = anim__m.data->get(src, field);
    if (!v)
        return true;
    const double d = anim__m.data->number(v, NAN);
    if (anim__m.data->type(v) != CT_DATA_NUMBER || !(d >= lo && d <= hi)) {
        anim__m.resource->compile_error(ctx, "%s: must be a number in %g..%g", field, lo, hi);
        return false;
    }
    *out = d;
    return true;
}

static bool units_field(const ct_data_o *src, double *out, ct_compile_ctx_o *ctx)
{
    static const char *const names[] = {"m", "cm", "mm", "inch"};
    static const double metres[] = {1.0, 0.01, 0.001, 0.0254};
    const ct_data_o *v = anim__m.data->get(src, "units");
    *out = 1.0;
    if (!v)
        return true;
    if (anim__m.data->type(v) == CT_DATA_NUMBER)
        return number_field(src, "units", 1e-6, 1e6, out, ctx);
    const char *s = anim__m.data->string(v, "");
    for (int k = 0; k < 4; k++)
        if (strcmp(s, names[k]) == 0) {
            *out = metres[k];
            return true;
        }
    anim__m.resource->compile_error(ctx, "units: must be metres per source unit (a number) or "
                                         "\"m\", \"cm\", \"mm\", \"inch\"");
    return false;
}

/* The source file a skeleton or clip names, read with the reader its extension picks. */
typedef struct source_file {
    ct_bvh_t *bvh;
    ct_gltf_t *gltf;
} source_file;

static bool read_source(const ct_data_o *src, ct_compile_ctx_o *ctx, source_file *out)
{
    *out = (source_file){0};
    const char *name = anim__m.data->string(anim__m.data->get(src, "source"), NULL);
    const char *inline_bvh = anim__m.data->string(anim__m.data->get(src, "bvh"), NULL);
    char path[1024], err[512];
    if (!name == !inline_bvh) {
        anim__m.resource->compile_error(ctx, "source: %s", name ? "give source or bvh, not both"
                                        : "missing (the .bvh, .gltf or .glb to read)");
        return false;
    }
    if (inline_bvh) {
        /* The motion written into the source itself: for tests and generated content. */
        out->bvh = ct_bvh_parse(inline_bvh, strlen(inline_bvh), "bvh", anim__m.allocator, err,
                                sizeof err);
        if (!out->bvh) {
            anim__m.resource->compile_error(ctx, "%s", err);
            return false;
        }
        if (out->bvh->warning)
            anim__m.resource->compile_warning(ctx, "bvh: %s", out->bvh->warning);
        return true;
    }
    if (!anim__m.resource->source_file(ctx, "source", name, path, sizeof path))
        return false;
    const size_t len = strlen(name);
    if (len > 4 && strcmp(name + len - 4, ".bvh") == 0) {
        out->bvh = ct_bvh_load_file(path, anim__m.allocator, err, sizeof err);
        if (out->bvh && out->bvh->warning)
            anim__m.resource->compile_warning(ctx, "source: %s: %s", name, out->bvh->warning);
    } else if (len > 5 && (strcmp(name + len - 5, ".gltf") == 0 || strcmp(name + len - 4, ".glb") == 0)) {
        out->gltf = ct_gltf_load_file(path, anim__m.allocator, err, sizeof err);
    } else {
        anim__m.resource->compile_error(ctx, "source: \"%s\" is not a .bvh, .gltf or .glb file", name);
        return false;
    }
    if (!out->bvh && !out->gltf) {
        /* The reader names the full path; say which field led there. */
        anim__m.resource->compile_error(ctx, "source: %s", err);
        return false;
    }
    return true;
}

static void free_source(source_file *s)
{
    ct_bvh_free(s->bvh);
    ct_gltf_free(s->gltf);
}

/* ---- skeleton -------------------------------------------------------------------------------- */

static int compile_skeleton(void *user_data, const ct_data_o *src, ct_compile_ctx_o *ctx)
{
    (void)user_data;
    static const ct_field_t known[] = {
        {"source", CT_DATA_STRING, 0}, {"bvh", CT_DATA_STRING, 0},
        {"units", CT_DATA_INVALID, 0}, {"skin", CT_DATA_NUMBER, 0},
    };
    double units, skin = 0;
    source_file file;
    if (!anim__m.resource->check_fields(ctx, src, NULL, known, 4) || !units_field(src, &units, ctx) ||
        !number_field(src, "skin", 0, 65535, &skin, ctx) || !read_source(src, ctx, &file))
        return CT_ERR_BAD_DATA;
    const size_t bones_size = ANIM_MAX_BONES * sizeof(anim__bone_t);
    anim__bone_t *bones = ct_alloc(anim__m.allocator, bones_size);
    uint32_t n = 0;
    int rc = bones ? 0 : CT_ERR_NOMEM;
    char err[256];
    if (!rc && file.bvh) {
        if (file.bvh->num_joints > ANIM_MAX_BONES)
            rc = CT_ERR_FULL;
        else
            n = anim__bones_from_bvh(file.bvh, units, bones);
    } else if (!rc && (rc = anim__bones_from_gltf(file.gltf, (uint32_t)skin, units, bones, &n, err,
                                                   sizeof err))) {
        anim__m.resource->compile_error(ctx, "skin: %s", err);
    }
    if (!rc) {
        int32_t parents[ANIM_MAX_BONES];
        for (uint32_t b = 0; b < n; b++)
            parents[b] = bones[b].parent;
        const anim__skeleton_header_t h = {n, 0, anim__hierarchy_hash(parents, n)};
        anim__m.resource->write(ctx, &h, sizeof h);
        anim__m.resource->write(ctx, bones, (uint64_t)n * sizeof *bones);
    }
    if (bones)
        ct_free(anim__m.allocator, bones, bones_size);
    free_source(&file);
    return rc;
}

static void *load_skeleton(void *user_data, const void *payload, uint64_t size, char *err,
                           size_t err_size)
{
    (void)user_data;
    const anim__skeleton_header_t *h = payload;
    const char *bad = NULL;
    if (size < sizeof *h || h->num_bones == 0 || h->num_bones > ANIM_MAX_BONES ||
        size != sizeof *h + (uint64_t)h->num_bones * sizeof(anim__bone_t))
        bad = "its bone count disagrees with its size";
    const anim__bone_t *bones = (const anim__bone_t *)(h + 1);
    int32_t parents[ANIM_MAX_BONES];
    for (uint32_t b = 0; !bad && b < h->num_bones; b++) {
        const anim__bone_t *bone = &bones[b];
        parents[b] = bone->parent;
        if (bone->parent >= (int32_t)b || bone->parent < -1)
            bad = "a bone's parent does not come before it";
        else if (bone->name[ANIM_BONE_NAME - 1] != '\0')
            bad = "a bone name is not terminated";
        for (int k = 0; k < 3 && !bad; k++)
            if (!isfinite(bone->translation[k]) || !isfinite(bone->scale[k]) || bone->scale[k] == 0)
                bad = "a bone's rest translation or scale is not finite and non-zero";
        for (int k = 0; k < 4 && !bad; k++)
            if (!isfinite(bone->rotation[k]))
                bad = "a bone's rest rotation is not finite";
    }
    if (!bad && anim__hierarchy_hash(parents, h->num_bones) != h->hierarchy_hash)
        bad = "its hierarchy hash does not match its bones";
    anim__skeleton *s = bad ? NULL : ct_alloc(anim__m.allocator, sizeof *s);
    if (!s) {
        snprintf(err, err_size, "skeleton: %s", bad ? bad : "out of memory");
        return NULL;
    }
    s->header = h;
    s->bones = bones;
    return s;
}

static void unload_skeleton(void *user_data, void *runtime)
{
    (void)user_data;
    ct_free(anim__m.allocator, runtime, sizeof(anim__skeleton));
}

/* ---- clip ------------------------------------------------------------------------------------ */

static int compare_events(const void *a, const void *b)
{
    const float x = ((const anim__event *)a)->time, y = ((const anim__event *)b)->time;
    return (x > y) - (x < y);
}

static bool read_events(const ct_data_o *src, float duration, anim__event *out, uint32_t *n,
                        ct_compile_ctx_o *ctx)
{
    const ct_data_api_v1 *data = anim__m.data;
    const ct_data_o *list = data->get(src, "events");
    *n = 0;
    if (!list)
        return true;
    if (data->type(list) != CT_DATA_ARRAY || data->count(list) > ANIM_MAX_EVENTS) {
        anim__m.resource->compile_error(ctx, "events: must be an array of at most %u events",
                                        ANIM_MAX_EVENTS);
        return false;
    }
    static const ct_field_t known[] = {{"time", CT_DATA_NUMBER, 0}, {"name", CT_DATA_STRING, 0}};
    for (const ct_data_o *e = data->first_child(list); e; e = data->next(e), (*n)++) {
        const char *name = data->string(data->get(e, "name"), NULL);
        double t = NAN;
        if (!anim__m.resource->check_fields(ctx, e, "events[]", known, 2) ||
            !number_field(e, "time", 0, duration, &t, ctx))
            return false;
        if (isnan(t) || !name || !name[0] || strlen(name) >= ANIM_EVENT_NAME) {
            anim__m.resource->compile_error(ctx, "events[%u]: needs a time in 0..%g s and a name "
                                                 "of 1 to %u bytes", *n, duration, ANIM_EVENT_NAME - 1);
            return false;
        }
        out[*n] = (anim__event){.time = (float)t, .name_hash = anim__name_hash(name)};
        snprintf(out[*n].name, sizeof out[*n].name, "%s", name);
    }
    qsort(out, *n, sizeof *out, compare_events);
    return true;
}

static int compile_clip(void *user_data, const ct_data_o *src, ct_compile_ctx_o *ctx)
{
    (void)user_data;
    static const ct_field_t known[] = {
        {"source", CT_DATA_STRING, 0},   {"bvh", CT_DATA_STRING, 0},
        {"units", CT_DATA_INVALID, 0},   {"mode", CT_DATA_STRING, 0},
        {"error_mm", CT_DATA_NUMBER, 0}, {"animation", CT_DATA_NUMBER, 0},
        {"rate", CT_DATA_NUMBER, 0},     {"skin", CT_DATA_NUMBER, 0},
        {"events", CT_DATA_ARRAY, 0},
    };
    const ct_data_api_v1 *data = anim__m.data;
    double units, animation = 0, rate = 30, skin = 0, error_mm = -1;
    const char *mode_name = data->string(data->get(src, "mode"), "spec");
    if (!anim__m.resource->check_fields(ctx, src, NULL, known, 9) ||
        !units_field(src, &units, ctx) ||
        !number_field(src, "animation", 0, 65535, &animation, ctx) ||
        !number_field(src, "rate", 1, 1000, &rate, ctx) ||
        !number_field(src, "skin", 0, 65535, &skin, ctx) ||
        !number_field(src, "error_mm", 0.001, 1000, &error_mm, ctx))
        return CT_ERR_BAD_DATA;
    if (strcmp(mode_name, "spec") != 0 && strcmp(mode_name, "precision") != 0) {
        anim__m.resource->compile_error(ctx, "mode: must be \"spec\" or \"precision\"");
        return CT_ERR_BAD_DATA;
    }
    const anim__mode mode = mode_name[0] == 's' ? ANIM_SPEC : ANIM_PRECISION;
    source_file file;
    if (!read_source(src, ctx, &file))
        return CT_ERR_BAD_DATA;
    anim__raw_owned raw;
    char err[256] = "too many bones or frames";
    int rc = file.bvh ? anim__raw_from_bvh(file.bvh, units, anim__m.allocator, &raw)
                      : anim__raw_from_gltf(file.gltf, (uint32_t)skin, (uint32_t)animation,
                                            (float)rate, units, anim__m.allocator, &raw, err,
                                            sizeof err);
    free_source(&file);
    if (rc) {
        anim__m.resource->compile_error(ctx, "source: %s", err);
        return rc;
    }
    const size_t events_size = ANIM_MAX_EVENTS * sizeof(anim__event);
    anim__event *events = ct_alloc(anim__m.allocator, events_size);
    uint32_t num_events = 0;
    const float duration = (float)(raw.raw.num_samples - 1) / raw.raw.sample_rate;
    if (!events || !read_events(src, duration, events, &num_events, ctx)) {
        rc = events ? CT_ERR_BAD_DATA : CT_ERR_NOMEM;
    } else {
        const anim__settings s = {mode, (error_mm > 0 ? error_mm : mode == ANIM_SPEC ? 10 : 0.5) / 1000};
        anim__bytes blob;
        double achieved = 0;
        rc = anim__compress(&raw.raw, &s, events, num_events, anim__m.allocator, &blob, &achieved);
        if (!rc) {
            if (achieved > s.target_error_m * 1000)
                anim__m.resource->compile_warning(
                    ctx, "error_mm: the %s format cannot get below %.3f mm on this clip (target %g)",
                    mode_name, achieved, s.target_error_m * 1000);
            anim__m.resource->write(ctx, blob.data, blob.size);
            anim__bytes_free(&blob);
        } else {
            anim__m.resource->compile_error(ctx, "compression failed: %s",
                                            anim__m.log->error_message(rc));
        }
    }
    if (events)
        ct_free(anim__m.allocator, events, events_size);
    anim__raw_free(&raw);
    return rc;
}

static void *load_clip(void *user_data, const void *payload, uint64_t size, char *err,
                       size_t err_size)
{
    (void)user_data;
    anim__clip opened;
    const char *bad = anim__clip_open(payload, size, &opened);
    const size_t bytes = bad ? 0 : sizeof(ct_animation_clip_o) + anim__clip_tables_size(&opened);
    ct_animation_clip_o *clip = bad ? NULL : ct_alloc(anim__m.allocator, bytes);
    if (!clip) {
        snprintf(err, err_size, "clip: %s", bad ? bad : "out of memory");
        return NULL;
    }
    clip->clip = opened;
    clip->size = bytes;
    anim__clip_keep_tables(&clip->clip, clip->tables);
    return clip;
}

static void unload_clip(void *user_data, void *runtime)
{
    (void)user_data;
    ct_free(anim__m.allocator, runtime, ((ct_animation_clip_o *)runtime)->size);
}

static const ct_resource_type_t types[] = {
    {"skeleton", SKELETON_FORMAT, NULL, compile_skeleton, load_skeleton, unload_skeleton},
    {"clip", CLIP_FORMAT, NULL, compile_clip, load_clip, unload_clip},
};

int anim__register_resources(void)
{
    for (uint32_t i = 0; i < 2; i++) {
        const int rc = anim__m.resource->register_type(&types[i]);
        if (rc) {
            while (i--)
                anim__m.resource->unregister_type(types[i].type);
            return rc;
        }
    }
    return 0;
}

int anim__rebind_resources(void)
{
    for (uint32_t i = 0; i < 2; i++) {
        const int rc = anim__m.resource->replace_type(&types[i]);
        if (rc)
            return rc;
    }
    return 0;
}

void anim__unregister_resources(void)
{
    anim__m.resource->unregister_type("clip");
    anim__m.resource->unregister_type("skeleton");
}

/* Loads on first use and keeps the load (like World.spawn_unit does for units). */
static void *get_or_load(const char *type, const char *name)
{
    void *r = anim__m.resource->get(type, name);
    if (!r && anim__m.resource->load(type, name) == 0)
        r = anim__m.resource->get(type, name);
    return r;
}

const anim__skeleton *anim__skeleton_get(const char *name)
{
    return get_or_load("skeleton", name);
}

const ct_animation_clip_o *anim__clip_get(const char *name)
{
    return get_or_load("clip", name);
}
