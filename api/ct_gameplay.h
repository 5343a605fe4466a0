/*
 * ct_gameplay.h: what gameplay code shares, from modules/gameplay (ct_gameplay.so):
 *   the game clock (API "ct.clock"): game time that pauses and scales, read by modules and
 *   scripts alike, and the timers it drives; and gameplay islands (API "ct.islands", below).
 *
 * The game clock. At the start of every frame (the module's frame_begin hook, before the boot
 * script's update) the clock advances by the frame's dt times its scale, or by 0 while paused;
 * then the timers that are due run, in the order they fall due (ties: the order they were made).
 * Everything that should stop with the game reads the clock's dt instead of the frame's: a script
 * passes Clock.dt() to Physics.simulate and Animation.evaluate; a C module calls dt(). Time is a
 * double in seconds from 0 at boot; a scale is 0..100 (0 is a pause that still counts frames).
 *
 * Lua (module `Clock`): Clock.dt(), Clock.time(), Clock.frame() (frames the clock advanced),
 * Clock.pause(), Clock.resume(), Clock.paused(), Clock.set_scale(s), Clock.scale(), and
 * Clock.real_dt() (the frame's dt before pause and scale).
 * Lua (module `Timer`): Timer.after(seconds, fn, ...) and Timer.every(seconds, fn, ...) return an
 * id; fn(...) runs once when the game time has advanced by `seconds` (every: each time, a
 * period that passed several times in one frame runs that many times, at most 64 per frame); a
 * timer runs in game time, so a paused game runs none. Timer.cancel(id) -> whether it was
 * pending; Timer.pending() -> how many wait. An error in fn is logged with its traceback (naming
 * the timer) and the other timers still run; an `every` timer that raised keeps running.
 * Seconds must be finite and >= 0 (every: > 0), else the call raises.
 *
 * Threads: main thread only.
 */
#ifndef CT_GAMEPLAY_H
#define CT_GAMEPLAY_H

#include "ct_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CT_CLOCK_API 0xa05aab7au /* "ct.clock" */

typedef struct ct_clock_api_v1 {
    /* Game seconds the current frame advanced (0 while paused), and since boot. */
    double (*dt)(void);
    double (*time)(void);
    /* The frame's dt as the kernel gave it, before pause and scale. */
    double (*real_dt)(void);
    /* Frames the clock has advanced (1 during the first frame). */
    uint64_t (*frame)(void);
    /* Pause (nonzero) or resume (0) from the next frame on; whether paused. */
    void (*set_paused)(uint32_t paused);
    uint32_t (*paused)(void);
    /* The scale from the next frame on: 0..100 (others are refused, logged); the scale. */
    void (*set_scale)(double scale);
    double (*scale)(void);
} ct_clock_api_v1;

#ifdef __cplusplus
}
#endif
#endif
