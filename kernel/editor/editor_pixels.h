/*
 * A frame's pixels as a page gets them: the whole frame, or only the rectangle that changed since
 * the frame the page already has.
 *
 * Why: an edit moves one thing, and the frame after it differs from the one before in a small
 * rectangle (the thing's old and new place and their shadows). Sending each page 640 x 360 x 4
 * bytes per frame cost the browser more than a millisecond per page to take in and draw, on the
 * CPU the engine's next frame needs; the rectangle costs a fraction of it.
 *
 * The binary message (little-endian u32s, then rgba rows from the top):
 *   [frame][width][height][x][y][w][h] then w * h * 4 bytes: the frame's pixels in the
 *   rectangle (x, y, w, h) of a width x height frame. The whole frame is (0, 0, width, height);
 *   an empty rectangle (w = h = 0) says frame `frame` looks like the one before it.
 * A page draws the rectangle over what its canvas shows, so a page is sent a rectangle only when
 * it has the frame before (its pixels' serial is the one before); else the whole frame.
 */
#ifndef CT_KERNEL_EDITOR_PIXELS_H
#define CT_KERNEL_EDITOR_PIXELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EDITOR_PIXELS_HEADER 28u

/* The newest frame's pixels (editor_world__pixels). */
typedef struct editor_pixels_t {
    const uint8_t *rgba; /* rgba rows from the top */
    uint32_t width, height;
    /* Counts the pixel sets the frame thread made, from 1; 0: pixels made on the main thread,
     * never sent as a rectangle. */
    uint64_t serial;
    /* The rectangle where these pixels differ from those of serial - 1 (empty: none differ);
     * false when unknown (the first, or the size changed). */
    bool has_change;
    uint32_t x, y, w, h;
} editor_pixels_t;

typedef enum editor_pixels_kind {
    EDITOR_PIXELS_WHOLE,  /* the whole frame */
    EDITOR_PIXELS_CHANGE, /* the rectangle that changed */
    EDITOR_PIXELS_SAME,   /* the page has these pixels (a frame that changed none): the header */
} editor_pixels_kind;

/* Where `now` differs from `before` (both width x height rgba): sets x, y, w, h (all 0 when they
 * are the same). */
void editor_pixels__changed(const uint8_t *before, const uint8_t *now, uint32_t width,
                            uint32_t height, uint32_t *x, uint32_t *y, uint32_t *w, uint32_t *h);

/* What a page whose canvas shows the pixels of serial `has` (0: none yet) is sent. */
editor_pixels_kind editor_pixels__kind(const editor_pixels_t *p, uint64_t has);

/* The message's size for `kind`. */
size_t editor_pixels__size(const editor_pixels_t *p, editor_pixels_kind kind);

/* Writes the message of frame number `frame` into out (editor_pixels__size bytes). */
void editor_pixels__write(const editor_pixels_t *p, editor_pixels_kind kind, uint64_t frame,
                          uint8_t *out);

#endif
