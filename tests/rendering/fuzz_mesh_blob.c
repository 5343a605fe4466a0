/* Fuzz target: the compiled mesh payload's reader (render__mesh_parse) on any bytes. What it
 * accepts is read whole, as the gl backend would upload it: every index, vertex and skin entry. */
#include "render_mesh_blob.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The kernel hands loaders 16-byte aligned payloads: give the reader the same. */
    uint8_t *bytes = malloc(size ? size : 1);
    memcpy(bytes, data, size);
    render__mesh_view v;
    char err[256];
    if (render__mesh_parse(bytes, size, &v, err, sizeof err)) {
        float sum = 0;
        for (uint32_t i = 0; i < v.num_indices; i++) {
            if (v.indices[i] >= v.num_vertices)
                abort();
            sum += v.vertices[v.indices[i]].position[0] * 0.0f;
        }
        for (uint32_t i = 0; v.skin && i < v.num_vertices; i++)
            for (int k = 0; k < 4; k++)
                if (v.skin[i].joints[k] >= v.num_joints)
                    abort();
        for (uint32_t j = 0; j < v.num_joints; j++)
            if (!memchr(v.joints[j].name, 0, sizeof v.joints[j].name))
                abort();
        if (!isfinite(sum))
            abort();
    } else if (!err[0]) {
        abort(); /* a refusal always says why */
    }
    free(bytes);
    return 0;
}
