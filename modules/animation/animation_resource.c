/* animation_resource.c: the "skeleton" and "clip" resource types: compiling them from SJSON that
 * names a BVH or glTF source (read through formats/), and validating compiled payloads on load. */
#include "animation_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SKELETON_FORMAT 1u
#define CLIP_FORMAT 4u /* 4: rotation tracks before translations, frame numbers apart from values */

/* ---- fields ----------------------------------------------------------------------------------
 * Names and types are checked first by the kernel's check_fields (unknown fields with the nearest
 * known name, wrong types, non-finite numbers); what is left here is what it cannot know: ranges
 * and the words a string may be. */

/* A number field check_fields has passed, if present, within lo..hi. */
static bool ranged_field(const ct_data_o *src, const char *field, double lo, double hi, double *out,
                         ct_compile_ctx_o *ctx)
{
    const ct_data_o *v = anim__m.data->get(src, field);
    if (!v)
        return true;
    const double d = anim__m.data->number(v, NAN);
    if (!(d >= lo && d <= hi)) {
        anim__m.resource->compile_error(ctx, "%s: must be in %g..%g, not %g", field, lo, hi, d);
        return false;
    }
    *out = d;
    return true;
}

/* `animation`: a glTF animation's index (a number) or its name (a string, *name; looked up once
 * the file is read). */
static bool animation_field(const ct_data_o *src, double *index, const char **name,
                            ct_compile_ctx_o *ctx)
{
    const ct_data_o *v = anim__m.data->get(src, "animation");
    *name = v && anim__m.data->type(v) == CT_DATA_STRING ? anim__m.data->string(v, NULL) : NULL;
    if (*name && !(*name)[0]) {
        anim__m.resource->compile_error(ctx, "animation: an empty name");
        return false;
    }
    return *name || ranged_field(src, "animation", 0, 65535, index, ctx);
}

/* One of `count` words, or the default names[0] when absent; its index goes to *out. */
static bool word_field(const ct_data_o *src, const char *field, const char *const *names, int count,
                       int *out, ct_compile_ctx_o *ctx)
{
    const ct_data_o *v = anim__m.data->get(src, field);
    *out = 0;
    if (!v)
        return true;
    const char *s = anim__m.data->string(v, "");
    for (int k = 0; k < count; k++)
        if (strcmp(s, names[k]) == 0) {
            *out = k;
            return true;
        }
    const char *near = anim__m.resource->nearest_name(s, names, (uint32_t)count);
    char known[128] = "";
    for (int k = 0; k < count; k++)
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s\"%s\"", k ? ", " : "",
                 names[k]);
    if (near)
        anim__m.resource->compile_error(ctx, "%s: \"%s\" is not one of %s (did you mean '%s'?)",
                                        field, s, known, near);
    else
        anim__m.resource->compile_error(ctx, "%s: \"%s\" is not one of %s", field, s, known);
    return false;
}

/* Metres per source unit: a number, or a unit's name. */
static bool units_field(const ct_data_o *src, double *out, ct_compile_ctx_o *ctx)
{
    static const char *const names[] = {"m", "cm", "mm", "inch"};
    static const double metres[] = {1.0, 0.01, 0.001, 0.0254};
    const ct_data_o *v = anim__m.data->get(src, "units");
    *out = 1.0;
    const ct_data_type type = v ? anim__m.data->type(v) : CT_DATA_INVALID;
    if (type == CT_DATA_NUMBER)
        return ranged_field(src, "units", 1e-6, 1e6, out, ctx);
    if (v && type != CT_DATA_STRING) {
        anim__m.resource->compile_error(ctx, "units: expected metres per source unit (a number) "
                                             "or a unit's name (a string)");
        return false;
    }
    int k;
    if (!word_field(src, "units", names, 4, &k, ctx))
        return false;
    *out = metres[k];
    return true;
}

/* The source file a skeleton or clip names, read with the reader its extension picks. */
typedef struct source_file {
    ct_bvh_t *bvh;
    ct_gltf_t *gltf;
} source_file;

/* The files a glTF document read besides itself (its .bin buffers), noted so that cuttle-compile
 * compiles the resource again when one changes; they sit in the folder of `name`. */
static bool gltf_files_noted(ct_compile_ctx_o *ctx, const char *name, const ct_gltf_t *doc)
{
    for (uint32_t i = 0; i < doc->num_files; i++) {
        char file[1024];
        if (!ct_gltf_file_path(name, doc->files[i], file, sizeof file)) {
            anim__m.resource->compile_error(ctx, "source: the path of %s is too long",
                                            doc->files[i]);
            return false;
        }
        if (!anim__m.resource->depends_on(ctx, "source", file))
            return false;
    }
    return true;
}

static bool read_source(const ct_data_o *src, ct_compile_ctx_o *ctx, source_file *out)
{
    *out = (source_file){0};
    const char *name = anim__m.data->string(anim__m.data->get(src, "source"), NULL);
    const char *inline_bvh = anim__m.data->string(anim__m.data->get(src, "bvh"), NULL);
    char path[1024], err[512];
    if (!name == !inline_bvh) {
        anim__m.resource->compile_error(ctx, "source: %s",
                                        name ? "give source or bvh, not both"
                                             : "missing (the .bvh, .gltf or .glb to read)");
        return false;
    }
    if (inline_bvh) {
        /* The motion written into the source itself: for tests and generated content. */
        out->bvh =
            ct_bvh_parse(inline_bvh, strlen(inline_bvh), "bvh", anim__m.allocator, err, sizeof err);
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
    } else if (len > 5 &&
               (strcmp(name + len - 5, ".gltf") == 0 || strcmp(name + len - 4, ".glb") == 0)) {
        out->gltf = ct_gltf_load_file(path, anim__m.allocator, err, sizeof err);
    } else {
        anim__m.resource->compile_error(ctx, "source: \"%s\" is not a .bvh, .gltf or .glb file",
                                        name);
        return false;
    }
    if (!out->bvh && !out->gltf) {
        /* The reader names the full path; say which field led there. */
        anim__m.resource->compile_error(ctx, "source: %s", err);
        return false;
    }
    if (out->gltf && !gltf_files_noted(ctx, name, out->gltf)) {
        ct_gltf_free(out->gltf);
        out->gltf = NULL;
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
        {"source", CT_DATA_STRING, 0},
        {"bvh", CT_DATA_STRING, 0},
        {"units", CT_DATA_INVALID, 0},
        {"skin", CT_DATA_NUMBER, 0},
    };
    double units, skin = 0;
    source_file file;
    if (!anim__m.resource->check_fields(ctx, src, NULL, known, 4) ||
        !units_field(src, &units, ctx) || !ranged_field(src, "skin", 0, 65535, &skin, ctx) ||
        !read_source(src, ctx, &file))
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
    if (data->count(list) > ANIM_MAX_EVENTS) {
        anim__m.resource->compile_error(ctx, "events: more than %u events", ANIM_MAX_EVENTS);
        return false;
    }
    static const ct_field_t known[] = {{"time", CT_DATA_NUMBER, 0}, {"name", CT_DATA_STRING, 0}};
    for (const ct_data_o *e = data->first_child(list); e; e = data->next(e), (*n)++) {
        char what[32];
        snprintf(what, sizeof what, "events[%u]", *n);
        if (!anim__m.resource->check_fields(ctx, e, what, known, 2))
            return false;
        const char *name = data->string(data->get(e, "name"), NULL);
        const double t = data->number(data->get(e, "time"), NAN);
        if (!(t >= 0 && t <= duration) || !name || !name[0] || strlen(name) >= ANIM_EVENT_NAME) {
            anim__m.resource->compile_error(ctx,
                                            "%s: needs a time in 0..%g s and a name of 1 to "
                                            "%u bytes",
                                            what, duration, ANIM_EVENT_NAME - 1);
            return false;
        }
        out[*n] = (anim__event){.time = (float)t, .name_hash = anim__name_hash(name)};
        snprintf(out[*n].name, sizeof out[*n].name, "%s", name);
    }
    qsort(out, *n, sizeof *out, compare_events);
    return true;
}

/*
 * The clip resource's payload: this header, the motion clip (rotations, translations, events; see
 * animation_core.h), then, when the source animates scale, the scale clip: the same format with
 * the bones' scales in its translation tracks, so scale keys follow the translation key rules
 * (spec: 3 x 16 bits over -10..10; precision: range-reduced per track), and constant identity
 * rotations, stored once. Compressed clips are padded to 8 bytes, so both stay 8-byte aligned.
 */
typedef struct anim__clip_resource_header {
    uint32_t motion_size;
    uint32_t scale_size; /* 0: no scale tracks */
} anim__clip_resource_header;

/* The scale clip of a raw clip with scale. Its error target is the motion's read as metres per
 * metre: a scale error moves the end of a 1 m limb by at most the motion's target. */
static int compress_scale(const anim__raw_owned *raw, const anim__settings *s, anim__bytes *out,
                          ct_compile_ctx_o *ctx)
{
    const size_t n = (size_t)raw->raw.num_bones * raw->raw.num_samples;
    for (size_t i = 0; i < n && s->mode == ANIM_SPEC; i++)
        for (int k = 0; k < 3; k++)
            if (!(fabsf(raw->scale[i][k]) <= 10.0f)) {
                anim__m.resource->compile_error(ctx,
                                                "source: bone %u scales by %g at sample %u, "
                                                "outside the spec format's -10..10; use mode = "
                                                "\"precision\"",
                                                (uint32_t)(i % raw->raw.num_bones),
                                                (double)raw->scale[i][k],
                                                (uint32_t)(i / raw->raw.num_bones));
                return CT_ERR_BAD_DATA;
            }
    float(*identity)[4] = ct_alloc(anim__m.allocator, n * sizeof *identity);
    if (!identity)
        return CT_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
        memcpy(identity[i], (const float[4]){0, 0, 0, 1}, sizeof identity[i]);
    anim__raw scale = raw->raw;
    scale.rotation = identity;
    scale.translation = raw->scale;
    double achieved = 0;
    const int rc = anim__compress(&scale, s, NULL, 0, anim__m.allocator, out, &achieved);
    ct_free(anim__m.allocator, identity, n * sizeof *identity);
    if (rc)
        anim__m.resource->compile_error(ctx, "compressing the scale tracks failed: %s",
                                        anim__m.log->error_message(rc));
    return rc;
}

/* A clip over its error target compiles (the tightest fit) with a warning that says why and what
 * to try (anim__explain_miss). */
static void warn_miss(const anim__raw_owned *raw, const anim__bytes *motion,
                      const anim__settings *s, const char *mode_name, ct_compile_ctx_o *ctx)
{
    anim__clip clip;
    anim__error_report r;
    char why[768];
    if (anim__clip_open(motion->data, motion->size, &clip) ||
        anim__measure(&raw->raw, &clip, motion->size, anim__m.allocator, &r)) {
        anim__m.resource->compile_warning(
            ctx, "error_mm: the %s format misses the target %g mm on this clip", mode_name,
            s->target_error_m * 1000);
        return;
    }
    anim__explain_miss(&raw->raw, &r, s->target_error_m * 1000, mode_name,
                       r.worst_bone < raw->raw.num_bones ? raw->name[r.worst_bone] : NULL, why,
                       sizeof why);
    anim__m.resource->compile_warning(ctx, "error_mm: %s", why);
}

/* Compresses the motion (and the scale, if any) and writes the payload. */
static int write_clip(const anim__raw_owned *raw, const anim__settings *s, const char *mode_name,
                      const anim__event *events, uint32_t num_events, ct_compile_ctx_o *ctx)
{
    anim__bytes motion = {0}, scale = {0};
    double achieved = 0;
    int rc =
        anim__compress(&raw->raw, s, events, num_events, anim__m.allocator, &motion, &achieved);
    if (rc) {
        anim__m.resource->compile_error(ctx, "compression failed: %s",
                                        anim__m.log->error_message(rc));
        return rc;
    }
    if (achieved > s->target_error_m * 1000)
        warn_miss(raw, &motion, s, mode_name, ctx);
    if (raw->scale && (rc = compress_scale(raw, s, &scale, ctx))) {
        anim__bytes_free(&motion);
        return rc;
    }
    const anim__clip_resource_header h = {(uint32_t)motion.size, (uint32_t)scale.size};
    anim__m.resource->write(ctx, &h, sizeof h);
    anim__m.resource->write(ctx, motion.data, motion.size);
    if (scale.size)
        anim__m.resource->write(ctx, scale.data, scale.size);
    anim__bytes_free(&motion);
    anim__bytes_free(&scale);
    return 0;
}

static int compile_clip(void *user_data, const ct_data_o *src, ct_compile_ctx_o *ctx)
{
    (void)user_data;
    static const ct_field_t known[] = {
        {"source", CT_DATA_STRING, 0},   {"bvh", CT_DATA_STRING, 0},
        {"units", CT_DATA_INVALID, 0},   {"mode", CT_DATA_STRING, 0},
        {"error_mm", CT_DATA_NUMBER, 0}, {"animation", CT_DATA_INVALID, 0},
        {"rate", CT_DATA_NUMBER, 0},     {"skin", CT_DATA_NUMBER, 0},
        {"events", CT_DATA_ARRAY, 0},
    };
    static const char *const modes[] = {"spec", "precision"};
    double units, animation = 0, rate = 30, skin = 0, error_mm = -1;
    const char *animation_name = NULL;
    int mode_index;
    if (!anim__m.resource->check_fields(ctx, src, NULL, known, 9) ||
        !units_field(src, &units, ctx) || !animation_field(src, &animation, &animation_name, ctx) ||
        !ranged_field(src, "rate", 1, 1000, &rate, ctx) ||
        !ranged_field(src, "skin", 0, 65535, &skin, ctx) ||
        !ranged_field(src, "error_mm", 0.001, 1000, &error_mm, ctx) ||
        !word_field(src, "mode", modes, 2, &mode_index, ctx))
        return CT_ERR_BAD_DATA;
    const anim__mode mode = mode_index == 0 ? ANIM_SPEC : ANIM_PRECISION;
    const char *mode_name = modes[mode_index];
    source_file file;
    if (!read_source(src, ctx, &file))
        return CT_ERR_BAD_DATA;
    anim__raw_owned raw;
    char err[768] = "too many bones or frames";
    if (animation_name && file.bvh) {
        anim__m.resource->compile_error(
            ctx,
            "animation: '%s' names a glTF animation, but a BVH file holds one "
            "motion (leave animation out)",
            animation_name);
        free_source(&file);
        return CT_ERR_BAD_DATA;
    }
    if (animation_name &&
        (animation = anim__gltf_animation(file.gltf, animation_name, anim__m.resource->nearest_name,
                                          err, sizeof err)) < 0) {
        anim__m.resource->compile_error(ctx, "animation: %s", err);
        free_source(&file);
        return CT_ERR_BAD_DATA;
    }
    int rc = file.bvh
                 ? anim__raw_from_bvh(file.bvh, units, anim__m.allocator, &raw)
                 : anim__raw_from_gltf(file.gltf, (uint32_t)skin, (uint32_t)animation, (float)rate,
                                       units, anim__m.allocator, &raw, err, sizeof err);
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
        const anim__settings s = {mode, (error_mm > 0        ? error_mm
                                         : mode == ANIM_SPEC ? 10
                                                             : 0.5) /
                                            1000};
        rc = write_clip(&raw, &s, mode_name, events, num_events, ctx);
    }
    if (events)
        ct_free(anim__m.allocator, events, events_size);
    anim__raw_free(&raw);
    return rc;
}

/* Why a scale clip does not belong to its motion clip, or NULL. */
static const char *scale_mismatch(const anim__clip *motion, const anim__clip *scale)
{
    const anim__clip_header_t *m = motion->header, *s = scale->header;
    if (s->num_bones != m->num_bones || s->num_samples != m->num_samples ||
        s->sample_rate != m->sample_rate || s->hierarchy_hash != m->hierarchy_hash)
        return "its scale tracks do not match its bones and samples";
    if (s->num_events)
        return "its scale tracks carry events";
    return NULL;
}

static void *load_clip(void *user_data, const void *payload, uint64_t size, char *err,
                       size_t err_size)
{
    (void)user_data;
    const anim__clip_resource_header *h = payload;
    const uint8_t *motion = (const uint8_t *)(h + 1);
    anim__clip opened, scale = {0};
    const char *bad = NULL;
    if (size < sizeof *h || (uint64_t)h->motion_size + h->scale_size != size - sizeof *h ||
        (h->motion_size & 7u))
        bad = "its section sizes disagree with its size";
    if (!bad)
        bad = anim__clip_open(motion, h->motion_size, &opened);
    const bool has_scale = !bad && h->scale_size;
    if (has_scale)
        bad = anim__clip_open(motion + h->motion_size, h->scale_size, &scale);
    if (has_scale && !bad)
        bad = scale_mismatch(&opened, &scale);
    const uint32_t motion_tables = bad ? 0 : anim__clip_tables_size(&opened);
    const size_t bytes = bad ? 0
                             : sizeof(ct_animation_clip_o) + ((motion_tables + 7u) & ~7u) +
                                   (has_scale ? anim__clip_tables_size(&scale) : 0);
    ct_animation_clip_o *clip = bad ? NULL : ct_alloc(anim__m.allocator, bytes);
    if (!clip) {
        snprintf(err, err_size, "clip: %s", bad ? bad : "out of memory");
        return NULL;
    }
    *clip = (ct_animation_clip_o){
        .clip = opened, .scale = scale, .has_scale = has_scale, .size = bytes};
    anim__clip_keep_tables(&clip->clip, clip->tables);
    if (has_scale)
        anim__clip_keep_tables(&clip->scale, clip->tables + (motion_tables + 7u) / 8);
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

const anim__skeleton *anim__skeleton_get(const char *name) { return get_or_load("skeleton", name); }

const ct_animation_clip_o *anim__clip_get(const char *name) { return get_or_load("clip", name); }
