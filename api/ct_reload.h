/*
 * ct_reload.h: handing a plugin's state to its new code on a hot reload (an SDK helper, no API
 * id: inline functions only).
 *
 * A reloadable plugin keeps everything that must survive a reload in one state block (allocated
 * from its plugin allocator, which survives reloads), and the block starts with a
 * ct_reload_header_t. The old code's reload_save hands the block over as is; the new code's
 * reload_load adopts it only when the header says it has the layout this code was built for:
 *
 *     #define MY_LAYOUT 1u  // bump whenever a field of my_state_t (or what it points to) changes
 *     typedef struct { ct_reload_header_t header; uint64_t greetings; } my_state_t;
 *
 *     // init
 *     state = ct_alloc(allocator, sizeof *state);
 *     *state = (my_state_t){ .header = ct_reload_header(sizeof *state, MY_LAYOUT) };
 *
 *     // reload_load (the new code)
 *     int err = ct_reload_adopt(log, self, saved, sizeof(my_state_t), MY_LAYOUT);
 *     if (err < 0) return err;  // logged; the kernel keeps the old code running
 *     state = saved;
 *
 * Refusing is always safe: the kernel then keeps the old code and its state. Who owns the block:
 * the old code, until reload_load returns 0; from then on the new code (plugin API v2 also gives
 * the old code a reload_abort hook, see ct_plugin.h).
 *
 * Threads: reload hooks run on the main thread between two frames; so do these helpers.
 */
#ifndef CT_RELOAD_H
#define CT_RELOAD_H

#include <string.h>

#include "ct_log.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The first member of every state block handed across a reload. Frozen. */
typedef struct ct_reload_header_t {
    uint32_t size;           /* sizeof the whole block, as the code that made it saw it */
    uint32_t layout_version; /* that code's layout number for the block */
} ct_reload_header_t;

/* The header for a block of `size` bytes in layout `layout_version`. */
static inline ct_reload_header_t ct_reload_header(size_t size, uint32_t layout_version)
{
    ct_reload_header_t h;
    h.size = (uint32_t)size;
    h.layout_version = layout_version;
    return h;
}

/*
 * Whether the new code may adopt `saved`, the block the old code's reload_save returned: 0 when
 * it starts with a header for `size` bytes in layout `layout_version`; otherwise CT_ERR_VERSION,
 * after logging (through `log` as `self`, when `log` is not NULL) which layout the running code
 * has and which this code needs. A NULL `saved` is refused the same way.
 */
static inline int ct_reload_adopt(const ct_log_api_v1 *log, ct_plugin_o *self, const void *saved,
                                  size_t size, uint32_t layout_version)
{
    ct_reload_header_t h = {0, 0};
    if (saved)
        memcpy(&h, saved, sizeof h);
    if (saved && h.size == size && h.layout_version == layout_version)
        return 0;
    if (log)
        log->write(self, CT_LOG_ERROR,
                   "reload: the running code's state has layout %u (%u bytes), this code needs "
                   "layout %u (%u bytes); restart to use it",
                   (unsigned)h.layout_version, (unsigned)h.size, (unsigned)layout_version,
                   (unsigned)size);
    return CT_ERR_VERSION;
}

#ifdef __cplusplus
}
#endif
#endif
