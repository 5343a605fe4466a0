/* A frame's pixels as a page gets them: whole, or the rectangle that changed (editor_pixels.h). */
#include "editor/editor_pixels.h"

#include <string.h>

/* Rows compared as whole pixels: rgba is 4 bytes, any alignment (memcpy'd). */
static uint32_t pixel(const uint8_t *row, uint32_t x)
{
    uint32_t v;
    memcpy(&v, row + 4 * (size_t)x, 4);
    return v;
}

void editor_pixels__changed(const uint8_t *before, const uint8_t *now, uint32_t width,
                            uint32_t height, uint32_t *x, uint32_t *y, uint32_t *w, uint32_t *h)
{
    const size_t row = (size_t)width * 4;
    uint32_t top = 0, bottom = height;
    while (top < height && !memcmp(before + top * row, now + top * row, row))
        top++;
    if (top == height) {
        *x = *y = *w = *h = 0;
        return;
    }
    while (bottom > top + 1 && !memcmp(before + (bottom - 1) * row, now + (bottom - 1) * row, row))
        bottom--;
    /* Columns: each row between only narrows what is left to look at on either side. */
    uint32_t left = width, right = 0;
    for (uint32_t r = top; r < bottom; r++) {
        const uint8_t *a = before + r * row, *b = now + r * row;
        for (uint32_t c = 0; c < left; c++)
            if (pixel(a, c) != pixel(b, c)) {
                left = c;
                break;
            }
        for (uint32_t c = width; c > right && c > left; c--)
            if (pixel(a, c - 1) != pixel(b, c - 1)) {
                right = c;
                break;
            }
    }
    *x = left;
    *y = top;
    *w = right > left ? right - left : 0;
    *h = bottom - top;
}

editor_pixels_kind editor_pixels__kind(const editor_pixels_t *p, uint64_t has)
{
    if (!p->serial || !has)
        return EDITOR_PIXELS_WHOLE;
    if (has == p->serial)
        return EDITOR_PIXELS_SAME;
    if (p->has_change && has == p->serial - 1)
        return EDITOR_PIXELS_CHANGE;
    return EDITOR_PIXELS_WHOLE;
}

size_t editor_pixels__size(const editor_pixels_t *p, editor_pixels_kind kind)
{
    switch (kind) {
    case EDITOR_PIXELS_CHANGE: return EDITOR_PIXELS_HEADER + (size_t)p->w * p->h * 4;
    case EDITOR_PIXELS_SAME: return EDITOR_PIXELS_HEADER;
    case EDITOR_PIXELS_WHOLE: break;
    }
    return EDITOR_PIXELS_HEADER + (size_t)p->width * p->height * 4;
}

static void put32(uint8_t *out, uint32_t v)
{
    for (int b = 0; b < 4; b++)
        out[b] = (uint8_t)(v >> (8 * b));
}

void editor_pixels__write(const editor_pixels_t *p, editor_pixels_kind kind, uint64_t frame,
                          uint8_t *out)
{
    uint32_t x = 0, y = 0, w = p->width, h = p->height;
    if (kind == EDITOR_PIXELS_CHANGE)
        x = p->x, y = p->y, w = p->w, h = p->h;
    else if (kind == EDITOR_PIXELS_SAME)
        w = h = 0;
    const uint32_t head[7] = {(uint32_t)frame, p->width, p->height, x, y, w, h};
    for (int k = 0; k < 7; k++)
        put32(out + 4 * k, head[k]);
    uint8_t *dst = out + EDITOR_PIXELS_HEADER;
    const size_t row = (size_t)p->width * 4, span = (size_t)w * 4;
    for (uint32_t r = 0; r < h; r++)
        memcpy(dst + r * span, p->rgba + (size_t)(y + r) * row + (size_t)x * 4, span);
}
