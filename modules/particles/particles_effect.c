/*
 * Effects: the "particles" resource type. Compiling checks every field, compiles the four
 * expressions with ct.expr (a bad one fails naming the file, the field and the place, caret
 * included) and writes the numbers and the programs' saved bytes; loading checks the blob and
 * loads the programs back through ct.expr's verifier.
 *
 * The blob, little-endian:
 *     u32 magic "CTPE", u32 format, u32 max_particles, u32 burst, u32 shape, u32 seed,
 *     f32 rate, lifetime, duration, radius, extent[3], color[4],
 *     u32 program_size[4]   (0: none), then the programs' bytes one after the other.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ct_data.h"
#include "ct_hash.h"
#include "particles_internal.h"

#define EFFECT_MAGIC 0x45505443u /* "CTPE" */
#define SIZES_AT 17u             /* the word of program_size[0] */
#define HEADER_WORDS (SIZES_AT + NUM_PROGRAMS)

static const char *const particle_inputs[NUM_INPUTS] = {"px",  "py",   "pz", "vx", "vy", "vz",
                                                        "age", "life", "n",  "t",  "dt"};
static const char *const spawn_inputs[] = {"n", "t", "x", "y", "z"};
static const char *const velocity_outputs[] = {"vx", "vy", "vz"};
static const char *const size_outputs[] = {"size"};
static const char *const alpha_outputs[] = {"alpha"};

static const struct {
    const char *field;
    const char *const *inputs;
    uint32_t num_inputs;
    const char *const *outputs;
    uint32_t num_outputs;
} programs[NUM_PROGRAMS] = {
    [PROGRAM_SPAWN] = {"spawn", spawn_inputs, 5, velocity_outputs, 3},
    [PROGRAM_VELOCITY] = {"velocity", particle_inputs, NUM_INPUTS, velocity_outputs, 3},
    [PROGRAM_SIZE] = {"size", particle_inputs, NUM_INPUTS, size_outputs, 1},
    [PROGRAM_ALPHA] = {"alpha", particle_inputs, NUM_INPUTS, alpha_outputs, 1},
};

static const ct_field_t effect_fields[] = {
    {"max_particles", CT_DATA_NUMBER, 0}, {"rate", CT_DATA_NUMBER, 0},
    {"burst", CT_DATA_NUMBER, 0},         {"lifetime", CT_DATA_NUMBER, 0},
    {"duration", CT_DATA_NUMBER, 0},      {"shape", CT_DATA_STRING, 0},
    {"radius", CT_DATA_NUMBER, 0},        {"extent", CT_DATA_ARRAY, 3},
    {"color", CT_DATA_ARRAY, 4},          {"spawn", CT_DATA_STRING, 0},
    {"velocity", CT_DATA_STRING, 0},      {"size", CT_DATA_STRING, 0},
    {"alpha", CT_DATA_STRING, 0},
};

static void put32(uint8_t *b, uint32_t v)
{
    b[0] = (uint8_t)v, b[1] = (uint8_t)(v >> 8), b[2] = (uint8_t)(v >> 16),
    b[3] = (uint8_t)(v >> 24);
}

static uint32_t get32(const uint8_t *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint32_t fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float bitsf(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* A number field in [lo, hi] (whole when `whole`), or the default when absent. */
static bool number_field(const ct_data_o *src, const char *key, double lo, double hi, bool whole,
                         double fallback, double *out, ct_compile_ctx_o *ctx)
{
    const ct_data_api_v1 *data = particles__m.data;
    const ct_data_o *n = data->get(src, key);
    *out = n ? data->number(n, fallback) : fallback;
    if (!(*out >= lo && *out <= hi) || (whole && *out != floor(*out))) {
        particles__m.resource->compile_error(ctx, "%s: %g is not a%s number in %g..%g", key, *out,
                                             whole ? " whole" : "", lo, hi);
        return false;
    }
    return true;
}

static bool numbers_field(const ct_data_o *src, const char *key, uint32_t n, double lo, double hi,
                          const float *fallback, float *out, ct_compile_ctx_o *ctx)
{
    const ct_data_api_v1 *data = particles__m.data;
    const ct_data_o *arr = data->get(src, key);
    memcpy(out, fallback, n * sizeof *out);
    if (!arr)
        return true;
    uint32_t i = 0;
    for (const ct_data_o *c = data->first_child(arr); c && i < n; c = data->next(c), i++) {
        double v = data->number(c, NAN);
        if (!(v >= lo && v <= hi)) {
            particles__m.resource->compile_error(ctx, "%s[%u]: not a number in %g..%g", key, i, lo,
                                                 hi);
            return false;
        }
        out[i] = (float)v;
    }
    return true;
}

static int compile_effect(void *user_data, const ct_data_o *src, ct_compile_ctx_o *ctx)
{
    (void)user_data;
    const ct_resource_api_v6 *res = particles__m.resource;
    const ct_data_api_v1 *data = particles__m.data;
    if (!res->check_fields(ctx, src, "effect", effect_fields, CT_ARRAY_COUNT(effect_fields)))
        return CT_ERR_BAD_DATA;
    double max_particles, rate, burst, lifetime, duration, radius;
    float extent[3], color[4];
    static const float zero3[3] = {0, 0, 0}, white[4] = {1, 1, 1, 1};
    if (!number_field(src, "max_particles", 1, PARTICLES_MAX_POOL, true, 1024, &max_particles,
                      ctx) ||
        !number_field(src, "rate", 0, 1e7, false, 0, &rate, ctx) ||
        !number_field(src, "burst", 0, PARTICLES_MAX_POOL, true, 0, &burst, ctx) ||
        !number_field(src, "lifetime", 1e-3, 3600, false, 1, &lifetime, ctx) ||
        !number_field(src, "duration", 0, 1e6, false, 0, &duration, ctx) ||
        !number_field(src, "radius", 0, 1e4, false, 0.5, &radius, ctx) ||
        !numbers_field(src, "extent", 3, 0, 1e4, zero3, extent, ctx) ||
        !numbers_field(src, "color", 4, 0, 1e3, white, color, ctx))
        return CT_ERR_BAD_DATA;
    uint32_t shape = PARTICLES_SHAPE_POINT;
    const ct_data_o *shape_node = data->get(src, "shape");
    if (shape_node) {
        static const char *const shapes[] = {"point", "sphere", "box"};
        const char *s = data->string(shape_node, "");
        uint32_t k = 0;
        while (k < 3 && strcmp(s, shapes[k]))
            k++;
        if (k == 3) {
            const char *near = res->nearest_name(s, shapes, 3);
            res->compile_error(ctx, "shape: '%s' is not a shape (point, sphere, box)%s%s%s", s,
                               near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
            return CT_ERR_BAD_DATA;
        }
        shape = k;
    }
    const char *path = res->source_path(ctx);
    const uint32_t seed = ct_hash32(path ? path : "");

    /* The programs, compiled with the effect's seed and saved into the blob. */
    uint8_t *saved[NUM_PROGRAMS] = {0};
    size_t saved_size[NUM_PROGRAMS] = {0};
    int result = 0;
    for (uint32_t p = 0; p < NUM_PROGRAMS && !result; p++) {
        const ct_data_o *node = data->get(src, programs[p].field);
        if (!node)
            continue;
        ct_expr_error_t err;
        ct_expr_program_o *prog =
            particles__m.expr->compile(data->string(node, ""),
                                       &(ct_expr_desc_t){.inputs = programs[p].inputs,
                                                         .num_inputs = programs[p].num_inputs,
                                                         .outputs = programs[p].outputs,
                                                         .num_outputs = programs[p].num_outputs,
                                                         .seed = seed + p},
                                       &err);
        if (!prog) {
            res->compile_error(ctx, "%s: %s", programs[p].field, err.text);
            result = CT_ERR_BAD_DATA;
            break;
        }
        saved_size[p] = particles__m.expr->save(prog, NULL, 0);
        saved[p] = ct_alloc(particles__m.allocator, saved_size[p]);
        if (!saved[p])
            result = CT_ERR_NOMEM;
        else
            particles__m.expr->save(prog, saved[p], saved_size[p]);
        particles__m.expr->destroy(prog);
    }
    if (!result) {
        uint8_t header[4 * HEADER_WORDS];
        const uint32_t words[HEADER_WORDS] = {
            EFFECT_MAGIC,
            PARTICLES_EFFECT_FORMAT,
            (uint32_t)max_particles,
            (uint32_t)burst,
            shape,
            seed,
            fbits((float)rate),
            fbits((float)lifetime),
            fbits((float)duration),
            fbits((float)radius),
            fbits(extent[0]),
            fbits(extent[1]),
            fbits(extent[2]),
            fbits(color[0]),
            fbits(color[1]),
            fbits(color[2]),
            fbits(color[3]),
            (uint32_t)saved_size[0],
            (uint32_t)saved_size[1],
            (uint32_t)saved_size[2],
            (uint32_t)saved_size[3],
        };
        for (uint32_t i = 0; i < HEADER_WORDS; i++)
            put32(header + 4 * i, words[i]);
        res->write(ctx, header, sizeof header);
        for (uint32_t p = 0; p < NUM_PROGRAMS; p++)
            if (saved[p])
                res->write(ctx, saved[p], saved_size[p]);
    }
    for (uint32_t p = 0; p < NUM_PROGRAMS; p++)
        if (saved[p])
            ct_free(particles__m.allocator, saved[p], saved_size[p]);
    return result;
}

static void unload_effect(void *user_data, void *runtime)
{
    (void)user_data;
    particles_effect_t *e = runtime;
    if (!e)
        return;
    for (uint32_t p = 0; p < NUM_PROGRAMS; p++)
        particles__m.expr->destroy(e->program[p]);
    ct_free(particles__m.allocator, e, sizeof *e);
}

static void *load_effect(void *user_data, const void *payload, uint64_t size, char *err,
                         size_t err_size)
{
    const uint8_t *b = payload;
    if (size < 4u * HEADER_WORDS) {
        snprintf(err, err_size, "effect: %llu bytes, shorter than its header",
                 (unsigned long long)size);
        return NULL;
    }
    uint32_t w[HEADER_WORDS];
    for (uint32_t i = 0; i < HEADER_WORDS; i++)
        w[i] = get32(b + 4 * i);
    uint64_t total = 4u * HEADER_WORDS;
    for (uint32_t p = 0; p < NUM_PROGRAMS; p++)
        total += w[SIZES_AT + p];
    const float rate = bitsf(w[6]), lifetime = bitsf(w[7]), duration = bitsf(w[8]);
    const float radius = bitsf(w[9]);
    if (w[0] != EFFECT_MAGIC || w[1] != PARTICLES_EFFECT_FORMAT || total != size || !w[2] ||
        w[2] > PARTICLES_MAX_POOL || w[3] > PARTICLES_MAX_POOL || w[4] > PARTICLES_SHAPE_BOX ||
        !(rate >= 0 && rate <= 1e7f) || !(lifetime >= 1e-3f && lifetime <= 3600) ||
        !(duration >= 0 && duration <= 1e6f) || !(radius >= 0 && radius <= 1e4f)) {
        snprintf(err, err_size, "effect: not a valid format %u effect", PARTICLES_EFFECT_FORMAT);
        return NULL;
    }
    particles_effect_t *e = ct_alloc(particles__m.allocator, sizeof *e);
    if (!e) {
        snprintf(err, err_size, "effect: out of memory");
        return NULL;
    }
    memset(e, 0, sizeof *e);
    e->max_particles = w[2], e->burst = w[3], e->shape = w[4], e->seed = w[5];
    e->rate = rate, e->lifetime = lifetime, e->duration = duration, e->radius = radius;
    for (int k = 0; k < 3; k++)
        e->extent[k] = bitsf(w[10 + k]);
    for (int k = 0; k < 4; k++)
        e->color[k] = bitsf(w[13 + k]);
    for (int k = 0; k < 3; k++)
        if (!(e->extent[k] >= 0 && e->extent[k] <= 1e4f)) {
            snprintf(err, err_size, "effect: extent out of range");
            unload_effect(user_data, e);
            return NULL;
        }
    const uint8_t *at = b + 4u * HEADER_WORDS;
    for (uint32_t p = 0; p < NUM_PROGRAMS; p++) {
        if (!w[SIZES_AT + p])
            continue;
        ct_expr_error_t xerr;
        e->program[p] = particles__m.expr->load(at, w[SIZES_AT + p], particles__m.allocator, &xerr);
        /* The program must be the shape this field's programs have. */
        if (!e->program[p] ||
            particles__m.expr->num_inputs(e->program[p]) != programs[p].num_inputs ||
            particles__m.expr->num_outputs(e->program[p]) != programs[p].num_outputs) {
            snprintf(err, err_size, "effect: %s: %s", programs[p].field,
                     e->program[p] ? "the program has the wrong inputs or outputs" : xerr.text);
            unload_effect(user_data, e);
            return NULL;
        }
        at += w[SIZES_AT + p];
    }
    return e;
}

static const ct_resource_type_t effect_type = {
    .type = "particles",
    .format_version = PARTICLES_EFFECT_FORMAT,
    .compile = compile_effect,
    .load = load_effect,
    .unload = unload_effect,
};

int particles__register_effects(void)
{
    const int r = particles__m.resource->register_type(&effect_type);
    return r == CT_ERR_CONFLICT ? particles__m.resource->replace_type(&effect_type) : r;
}

void particles__unregister_effects(void) { particles__m.resource->unregister_type("particles"); }

const particles_effect_t *particles__effect(const char *name)
{
    return particles__m.resource->get("particles", name);
}
