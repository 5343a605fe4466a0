/*
 * ct_render_frame.h: the last rendered frame's pixels, in memory. API "ct.render_frame" (version
 * 1), served by modules/rendering (ct_rendering.so) beside "ct.render".
 *
 * Why a separate API: a tool that shows the engine's frames somewhere else (the level editor's
 * page, kernel/editor) needs the pixels every frame, and a PNG file per frame costs far more than
 * the frame (ct_render_api_v1.screenshot compresses). Reading the pixels is one copy.
 *
 * Threads: main thread only, after ct_render_api_v1.render.
 */
#ifndef CT_RENDER_FRAME_H
#define CT_RENDER_FRAME_H

#include "ct_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CT_RENDER_FRAME_API 0xa6bf8884u /* "ct.render_frame" */

typedef struct ct_render_frame_api_v1 {
    /* The size of the last frame (the pipeline's resolution); false before a frame or on the
     * null backend (which has no pixels). */
    bool (*size)(uint32_t *width, uint32_t *height);
    /* Copies the last frame into `rgba`: width * height * 4 bytes, 8 bits per channel, rows from
     * the top, as a PNG screenshot would hold them. Returns 0, CT_ERR_INVALID (no frame, the null
     * backend, or `capacity` smaller than the frame: *width and *height say what it needs) or
     * CT_ERR_IO (the read failed; logged). */
    int (*read)(uint8_t *rgba, size_t capacity, uint32_t *width, uint32_t *height);
} ct_render_frame_api_v1;

#ifdef __cplusplus
}
#endif
#endif
