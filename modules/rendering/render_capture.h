/*
 * render_capture.h: a frame's sorted packet stream on disk, with what replaying it needs.
 * `--capture FILE` / Render.capture write it; tools/cuttle-render-replay reads it.
 *
 * Layout (little-endian, no padding between items):
 *     u32 magic "CTRP", u32 version (2; version 1's commands had no palette)
 *     render__pipeline                          validated like a compiled render_config
 *     f32 view_proj[16]
 *     render__frame_lights                      the lit program's frame uniforms
 *     u32 num_materials, render__material[num_materials]
 *     u32 num_meshes, then per mesh: u32 num_vertices, num_indices, render__vertex[], u32 index[]
 *                                    (0, 0 for an empty slot)
 *     u32 num_packets, then per packet: u64 key, render__command (in sorted order)
 * Not held: the frame's bone palette and debug vertices, so a replay draws skinned meshes with
 * zero bones (collapsed at their origin) and skips debug lines and text; textures, normal maps and
 * tangents (a replay draws untextured, with plain normals); spot cones (render__local_lights: a
 * replay draws spot lights as point lights, their shadow cubes still drawn from the packets).
 * Reading checks every count against the bytes left and every index against its table.
 */
#ifndef RENDER_CAPTURE_H
#define RENDER_CAPTURE_H

#include "render_gpu.h"

#define RENDER_CAPTURE_MAGIC 0x50525443u /* "CTRP" */
#define RENDER_CAPTURE_VERSION 2u

typedef struct render__capture_mesh {
    const render__vertex *vertices;
    const uint32_t *indices;
    uint32_t num_vertices, num_indices;
} render__capture_mesh;

/* A parsed capture; every pointer points into the file's bytes (keep them alive). */
typedef struct render__capture {
    const render__pipeline *pipeline;
    const float *view_proj;
    const render__frame_lights *lights;
    const render__material *materials;
    uint32_t num_materials;
    render__capture_mesh *meshes; /* allocated: free with render__capture_free */
    uint32_t num_meshes;
    const uint8_t *packets; /* num_packets records of u64 key + render__command */
    uint32_t num_packets;
} render__capture;

#define RENDER_CAPTURE_PACKET_SIZE (8u + (uint32_t)sizeof(render__command))

/* Parses `size` bytes; 0, or CT_ERR_BAD_DATA with the reason (and its offset) in err. */
int render__capture_read(const uint8_t *bytes, size_t size, ct_allocator_t *a, render__capture *out,
                         char *err, size_t err_size);
void render__capture_free(render__capture *c, ct_allocator_t *a);

#endif
