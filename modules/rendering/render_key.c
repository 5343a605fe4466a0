/* render_key.c: packing and unpacking the 64-bit sort key (layout in api/ct_render.h). */
#include "render_core.h"

#include <math.h>

#define FIELD_MASK(bits) ((1ull << (bits)) - 1ull)

uint64_t render__key_encode(const render__key_fields *f)
{
    return ((uint64_t)f->layer & FIELD_MASK(RENDER_KEY_LAYER_BITS)) << RENDER_KEY_LAYER_SHIFT |
           ((uint64_t)f->pass & FIELD_MASK(RENDER_KEY_PASS_BITS)) << RENDER_KEY_PASS_SHIFT |
           ((uint64_t)f->program & FIELD_MASK(RENDER_KEY_PROGRAM_BITS))
               << RENDER_KEY_PROGRAM_SHIFT |
           ((uint64_t)f->material & FIELD_MASK(RENDER_KEY_MATERIAL_BITS))
               << RENDER_KEY_MATERIAL_SHIFT |
           ((uint64_t)f->depth & FIELD_MASK(RENDER_KEY_DEPTH_BITS)) << RENDER_KEY_DEPTH_SHIFT;
}

render__key_fields render__key_decode(uint64_t key)
{
    return (render__key_fields){
        .layer = (uint32_t)(key >> RENDER_KEY_LAYER_SHIFT & FIELD_MASK(RENDER_KEY_LAYER_BITS)),
        .pass = (uint32_t)(key >> RENDER_KEY_PASS_SHIFT & FIELD_MASK(RENDER_KEY_PASS_BITS)),
        .program =
            (uint32_t)(key >> RENDER_KEY_PROGRAM_SHIFT & FIELD_MASK(RENDER_KEY_PROGRAM_BITS)),
        .material =
            (uint32_t)(key >> RENDER_KEY_MATERIAL_SHIFT & FIELD_MASK(RENDER_KEY_MATERIAL_BITS)),
        .depth = (uint32_t)(key >> RENDER_KEY_DEPTH_SHIFT & FIELD_MASK(RENDER_KEY_DEPTH_BITS)),
    };
}

uint32_t render__key_depth(float view_depth, float near_plane, float far_plane, bool back_to_front)
{
    const uint32_t top = (uint32_t)FIELD_MASK(RENDER_KEY_DEPTH_BITS);
    /* Double: a float cannot hold 2^26 - 1, and rounding up would overflow the field. */
    double t = ((double)view_depth - near_plane) / ((double)far_plane - near_plane);
    /* NaN (a degenerate camera) and anything out of range land on the ends. */
    if (!(t > 0.0))
        t = 0.0;
    if (t > 1.0)
        t = 1.0;
    const uint32_t q = (uint32_t)(t * top);
    return back_to_front ? top - q : q;
}
