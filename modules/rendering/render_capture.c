/* render_capture.c: writing the last frame's sorted stream (layout in render_capture.h). */
#include "render_capture.h"
#include "render_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* An empty slot has no arrays: nothing to write (and fwrite may not be handed NULL). */
static void put(FILE *f, const void *p, size_t n, bool *ok)
{
    *ok = *ok && (n == 0 || fwrite(p, 1, n, f) == n);
}

int render__capture_write(const char *path, char *err, size_t err_size)
{
    const render__state *s = render__m.state;
    if (!s->have_frame) {
        snprintf(err, err_size, "%s: no frame has been rendered yet", path);
        return CT_ERR_INVALID;
    }
    FILE *f = fopen(path, "wb");
    if (!f) {
        snprintf(err, err_size, "cannot write '%s': %s", path, strerror(errno));
        return CT_ERR_IO;
    }
    bool ok = true;
    const uint32_t head[2] = {RENDER_CAPTURE_MAGIC, RENDER_CAPTURE_VERSION};
    put(f, head, sizeof head, &ok);
    put(f, &s->pipeline, sizeof s->pipeline, &ok);
    put(f, s->view_proj, sizeof s->view_proj, &ok);
    put(f, &s->lights, sizeof s->lights, &ok);
    put(f, &s->materials_cap, 4, &ok);
    put(f, s->materials, (size_t)s->materials_cap * sizeof *s->materials, &ok);
    put(f, &s->meshes_cap, 4, &ok);
    for (uint32_t m = 0; m < s->meshes_cap; m++) {
        const render__mesh_slot *mesh = &s->meshes[m];
        const uint32_t counts[2] = {mesh->used ? mesh->num_vertices : 0,
                                    mesh->used ? mesh->num_indices : 0};
        put(f, counts, sizeof counts, &ok);
        put(f, mesh->vertices, (size_t)counts[0] * sizeof *mesh->vertices, &ok);
        put(f, mesh->indices, (size_t)counts[1] * 4, &ok);
    }
    const render__queue *q = &s->queue;
    put(f, &q->num_packets, 4, &ok);
    for (uint32_t i = 0; i < q->num_packets; i++) {
        const render__packet *p = &q->sorted[i];
        put(f, &p->key, 8, &ok);
        put(f, &q->contexts[p->context].commands[p->command], sizeof(render__command), &ok);
    }
    ok = fclose(f) == 0 && ok;
    if (!ok) {
        snprintf(err, err_size, "writing '%s' failed: %s", path, strerror(errno));
        return CT_ERR_IO;
    }
    return 0;
}
