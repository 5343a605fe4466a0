/* render_png.c: PNG files through stb_image_write (Debian's libstb-dev): a well-kept, tiny,
 * dependency-free writer beats writing zlib framing ourselves. Its implementation is compiled
 * here, once, with its own warnings silenced (it is not our code to change). */
#include "render_gpu.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wconversion"
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_WRITE_STATIC
#include <stb/stb_image_write.h>
#pragma GCC diagnostic pop

bool render__png_write(const char *path, const uint8_t *rgba, uint32_t width, uint32_t height,
                       char *err, size_t err_size)
{
    errno = 0;
    if (!stbi_write_png(path, (int)width, (int)height, 4, rgba, (int)width * 4)) {
        snprintf(err, err_size, "cannot write '%s': %s", path,
                 errno ? strerror(errno) : "PNG encoding failed");
        return false;
    }
    return true;
}
