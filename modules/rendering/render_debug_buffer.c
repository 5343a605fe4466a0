/* render_debug_buffer.c: the frame's debug vertices (render_core.h): growable arrays, capped. */
#include "render_core.h"
#include "ct_array.h"

#include <string.h>

/* Makes room for `more` items of `size` bytes in an array of *cap; false past the cap. */
static bool grow(ct_allocator_t *a, void **items, uint32_t n, uint32_t *cap, uint32_t more,
                 size_t size)
{
    if (more > RENDER_DEBUG_MAX_VERTICES - n)
        return false;
    if (n + more <= *cap)
        return true;
    uint32_t c = ct_array_capacity(*cap, n + more, 4096);
    if (!c || c > RENDER_DEBUG_MAX_VERTICES) /* n + more fits the limit: the limit holds it */
        c = RENDER_DEBUG_MAX_VERTICES;
    void *p = ct_realloc(a, *items, (size_t)*cap * size, (size_t)c * size);
    if (!p)
        return false;
    *items = p;
    *cap = c;
    return true;
}

bool render__debug_push_lines(render__debug *d, const float (*points)[3], uint32_t n,
                              uint32_t color)
{
    if (n > RENDER_DEBUG_MAX_VERTICES / 2 ||
        !grow(d->a, (void **)&d->lines, d->num_lines, &d->lines_cap, 2 * n, sizeof *d->lines)) {
        d->dropped += n;
        return false;
    }
    render__debug_vertex *v = &d->lines[d->num_lines];
    for (uint32_t i = 0; i < 2 * n; i++) {
        memcpy(v[i].position, points[i], sizeof v[i].position);
        v[i].color = color;
    }
    d->num_lines += 2 * n;
    return true;
}

bool render__debug_push_text(render__debug *d, const render__text_vertex *v, uint32_t n)
{
    if (!grow(d->a, (void **)&d->text, d->num_text, &d->text_cap, n, sizeof *d->text)) {
        d->dropped += n;
        return false;
    }
    memcpy(&d->text[d->num_text], v, (size_t)n * sizeof *v);
    d->num_text += n;
    return true;
}

void render__debug_clear(render__debug *d) { d->num_lines = d->num_text = 0; }

void render__debug_free(render__debug *d)
{
    ct_free(d->a, d->lines, (size_t)d->lines_cap * sizeof *d->lines);
    ct_free(d->a, d->text, (size_t)d->text_cap * sizeof *d->text);
    d->lines = NULL, d->text = NULL;
    d->num_lines = d->lines_cap = d->num_text = d->text_cap = 0;
}
