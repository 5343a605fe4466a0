/* Fuzz target: the texture decoder (stb_image for PNG and JPEG, then the mip chain) on any bytes,
 * as colour and as a normal map. Images over 256 texels a side are refused like too-large ones,
 * which keeps each run short; whatever decodes must have exactly its levels' bytes. */
#include "ct_heap.h"
#include "render_gpu.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ct_allocator_t *a = ct_heap_allocator();
    for (uint32_t flags = 0; flags <= RENDER_TEXTURE_SRGB; flags++) {
        render__texture_info info;
        char err[256];
        uint8_t *levels = render__texture_decode(data, size, flags, 256, a, &info, err, sizeof err);
        if (!levels)
            continue;
        if (info.width < 1 || info.width > 256 || info.height < 1 || info.height > 256 ||
            info.levels != render__texture_levels(info.width, info.height) || info.flags != flags)
            abort();
        const size_t bytes = render__texture_bytes(info.width, info.height, info.levels);
        volatile uint8_t sink = levels[bytes - 1]; /* the last texel of the 1 x 1 level is there */
        (void)sink;
        ct_free(a, levels, bytes);
    }
    return 0;
}
