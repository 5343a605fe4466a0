/* render_capture_read.c: parsing a capture (layout in render_capture.h), bounds-checked. */
#include "render_capture.h"

#include "../common/byte_reader.h"

#include <stdio.h>
#include <string.h>

typedef struct cursor {
    byte_reader_t bytes;
    char *err;
    size_t err_size;
} cursor;

static const void *take(cursor *c, size_t n, const char *what)
{
    const void *p = byte_reader__take(&c->bytes, n);
    if (!p)
        snprintf(c->err, c->err_size, "capture: %s at offset %zu needs %zu bytes, %zu are left",
                 what, c->bytes.at, n, byte_reader__left(&c->bytes));
    return p;
}

static bool take_u32(cursor *c, uint32_t *v, const char *what)
{
    return byte_reader__u32(&c->bytes, v) || take(c, 4, what);
}

void render__capture_free(render__capture *c, ct_allocator_t *a)
{
    if (c->meshes)
        ct_free(a, c->meshes, (size_t)c->num_meshes * sizeof *c->meshes);
    *c = (render__capture){0};
}

int render__capture_read(const uint8_t *bytes, size_t size, ct_allocator_t *a, render__capture *out,
                         char *err, size_t err_size)
{
    cursor c = {{bytes, size, 0}, err, err_size};
    *out = (render__capture){0};
    uint32_t magic = 0, version = 0;
    if (!take_u32(&c, &magic, "magic") || !take_u32(&c, &version, "version"))
        return CT_ERR_BAD_DATA;
    if (magic != RENDER_CAPTURE_MAGIC || version != RENDER_CAPTURE_VERSION) {
        snprintf(err, err_size, "capture: not a capture (magic %08x, version %u; want %08x, %u)",
                 magic, version, RENDER_CAPTURE_MAGIC, RENDER_CAPTURE_VERSION);
        return CT_ERR_BAD_DATA;
    }
    /* The structs are read in place: captures are written by this build's layout (the version
     * changes with it), and the file buffer is aligned by the allocator that read it. */
    if (!(out->pipeline = take(&c, sizeof *out->pipeline, "pipeline")) ||
        !(out->view_proj = take(&c, 16 * sizeof(float), "view_proj")) ||
        !(out->lights = take(&c, sizeof *out->lights, "lights")) ||
        !take_u32(&c, &out->num_materials, "material count") ||
        !(out->materials =
              take(&c, (size_t)out->num_materials * sizeof *out->materials, "materials")) ||
        !take_u32(&c, &out->num_meshes, "mesh count"))
        return CT_ERR_BAD_DATA;
    const char *why = render__pipeline_error(out->pipeline);
    if (why) {
        snprintf(err, err_size, "capture: pipeline: %s", why);
        return CT_ERR_BAD_DATA;
    }
    if (out->num_meshes > size / 8) {
        snprintf(err, err_size, "capture: %u meshes cannot fit in %zu bytes", out->num_meshes,
                 size);
        return CT_ERR_BAD_DATA;
    }
    out->meshes =
        out->num_meshes ? ct_alloc(a, (size_t)out->num_meshes * sizeof *out->meshes) : NULL;
    if (out->num_meshes && !out->meshes) {
        snprintf(err, err_size, "capture: out of memory");
        return CT_ERR_NOMEM;
    }
    for (uint32_t m = 0; m < out->num_meshes; m++) {
        render__capture_mesh *mesh = &out->meshes[m];
        if (!take_u32(&c, &mesh->num_vertices, "vertex count") ||
            !take_u32(&c, &mesh->num_indices, "index count") ||
            !(mesh->vertices =
                  take(&c, (size_t)mesh->num_vertices * sizeof(render__vertex), "vertices")) ||
            !(mesh->indices = take(&c, (size_t)mesh->num_indices * 4, "indices"))) {
            render__capture_free(out, a);
            return CT_ERR_BAD_DATA;
        }
        for (uint32_t i = 0; i < mesh->num_indices; i++)
            if (mesh->indices[i] >= mesh->num_vertices) {
                snprintf(err, err_size, "capture: mesh %u: index %u is past its %u vertices", m, i,
                         mesh->num_vertices);
                render__capture_free(out, a);
                return CT_ERR_BAD_DATA;
            }
    }
    if (!take_u32(&c, &out->num_packets, "packet count") ||
        !(out->packets =
              take(&c, (size_t)out->num_packets * RENDER_CAPTURE_PACKET_SIZE, "packets"))) {
        render__capture_free(out, a);
        return CT_ERR_BAD_DATA;
    }
    if (byte_reader__left(&c.bytes)) {
        snprintf(err, err_size, "capture: %zu bytes after the last packet",
                 byte_reader__left(&c.bytes));
        render__capture_free(out, a);
        return CT_ERR_BAD_DATA;
    }
    return 0;
}
