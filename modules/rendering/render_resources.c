/*
 * render_resources.c: what the module's resource types share (field readers for their compilers,
 * the slot tables loaded resources live in) and their registration with the kernel. Each type
 * has its own file: render_mesh.c (+ render_mesh_gltf.c), render_material.c, render_config.c;
 * their formats are in api/ct_render.h.
 *
 * A loaded mesh or material's runtime object is its slot + 1 cast to a pointer: the slot is all
 * the module needs, and it stays put while the tables grow.
 */
#include "render_internal.h"
#include "ct_array.h"

#include <math.h>
#include <string.h>

int render__compile_bad(ct_compile_ctx_o *ctx, const char *fmt, const char *a, const char *b)
{
    render__m.resource->compile_error(ctx, fmt, a, b);
    return CT_ERR_BAD_DATA;
}

/* Reads an array of `n` numbers in [lo, hi] (optionally n - 1 of them, the last then `fill`). */
bool render__numbers(const ct_data_o *v, const char *what, int n, bool short_ok, float fill,
                     double lo, double hi, float *out, ct_compile_ctx_o *ctx)
{
    const uint32_t count = render__m.data->type(v) == CT_DATA_ARRAY ? render__m.data->count(v) : 0;
    bool ok = count == (uint32_t)n || (short_ok && count == (uint32_t)n - 1);
    const ct_data_o *c = ok ? render__m.data->first_child(v) : NULL;
    for (uint32_t k = 0; ok && k < count; k++, c = render__m.data->next(c)) {
        const double d = render__m.data->number(c, NAN);
        ok = d >= lo && d <= hi;
        out[k] = (float)d;
    }
    if (ok && count < (uint32_t)n)
        out[n - 1] = fill;
    if (!ok)
        render__m.resource->compile_error(ctx, "%s: must be an array of %d numbers in [%g, %g]",
                                          what, n, lo, hi);
    return ok;
}

bool render__number(const ct_data_o *v, const char *what, double lo, double hi, float *out,
                    ct_compile_ctx_o *ctx)
{
    const double d = render__m.data->number(v, NAN);
    if (render__m.data->type(v) != CT_DATA_NUMBER || !(d >= lo && d <= hi)) {
        render__m.resource->compile_error(ctx, "%s: must be a number in [%g, %g]", what, lo, hi);
        return false;
    }
    *out = (float)d;
    return true;
}

bool render__copy_name(const ct_data_o *v, const char *what, char out[RENDER_NAME_SIZE],
                       ct_compile_ctx_o *ctx)
{
    const char *s = render__m.data->string(v, NULL);
    if (!s || !s[0] || strlen(s) >= RENDER_NAME_SIZE) {
        render__m.resource->compile_error(ctx, "%s: must be a name of 1 to %d characters", what,
                                          RENDER_NAME_SIZE - 1);
        return false;
    }
    memset(out, 0, RENDER_NAME_SIZE);
    memcpy(out, s, strlen(s));
    return true;
}

/* A free slot in a table of `cap` entries of `size` bytes whose first member is `bool used`,
 * growing it (and a parallel table) when full. */
uint32_t render__take_slot(void **table, size_t size, void **parallel, size_t parallel_size,
                           uint32_t *cap, uint32_t max)
{
    for (uint32_t i = 0; i < *cap; i++)
        if (!*(bool *)((char *)*table + i * size))
            return i;
    const uint32_t n = *cap < UINT32_MAX ? ct_array_capacity(*cap, *cap + 1, 16) : 0;
    if (!n || n > max)
        return RENDER_NO_INDEX;
    void *t = ct_realloc(render__m.allocator, *table, *cap * size, n * size);
    if (!t)
        return RENDER_NO_INDEX;
    *table = t;
    memset((char *)t + *cap * size, 0, (n - *cap) * size);
    if (parallel) {
        void *p =
            ct_realloc(render__m.allocator, *parallel, *cap * parallel_size, n * parallel_size);
        if (!p) {
            *table = ct_realloc(render__m.allocator, t, n * size, *cap * size);
            return RENDER_NO_INDEX;
        }
        *parallel = p;
        memset((char *)p + *cap * parallel_size, 0, (n - *cap) * parallel_size);
    }
    const uint32_t first = *cap;
    *cap = n;
    return first;
}
/* ---- registration -------------------------------------------------------------------------- */

static const ct_resource_type_t *const resource_types[] = {
    &render__mesh_resource,
    &render__material_resource,
    &render__config_resource,
};
#define NUM_RESOURCE_TYPES (sizeof resource_types / sizeof resource_types[0])

int render__register_resources(void)
{
    for (uint32_t i = 0; i < NUM_RESOURCE_TYPES; i++) {
        const int r = render__m.resource->register_type(resource_types[i]);
        if (r) {
            while (i--)
                render__m.resource->unregister_type(resource_types[i]->type);
            return r;
        }
    }
    return 0;
}

bool render__rebind_resources(void)
{
    for (uint32_t i = 0; i < NUM_RESOURCE_TYPES; i++)
        if (render__m.resource->replace_type(resource_types[i]))
            return false;
    return true;
}

void render__unregister_resources(void)
{
    render__state *s = render__m.state;
    for (uint32_t i = NUM_RESOURCE_TYPES; i--;)
        render__m.resource->unregister_type(resource_types[i]->type);
    ct_free(render__m.allocator, s->meshes, (size_t)s->meshes_cap * sizeof *s->meshes);
    ct_free(render__m.allocator, s->materials, (size_t)s->materials_cap * sizeof *s->materials);
    ct_free(render__m.allocator, s->material_slots,
            (size_t)s->materials_cap * sizeof *s->material_slots);
    s->meshes = NULL, s->materials = NULL, s->material_slots = NULL;
    s->meshes_cap = s->materials_cap = 0;
}
