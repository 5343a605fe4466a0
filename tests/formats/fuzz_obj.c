/* Fuzz target: the OBJ reader on any bytes; whatever it accepts is walked through its indices. */
#include "obj.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void *heap(ct_allocator_t *a, void *p, size_t old_size, size_t new_size, const char *f, uint32_t l)
{
    (void)a, (void)old_size, (void)f, (void)l;
    if (!new_size) {
        free(p);
        return NULL;
    }
    return realloc(p, new_size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ct_allocator_t a = {NULL, heap};
    obj_mesh_t m;
    char err[256];
    if (obj_read((const char *)data, size, "fuzz.obj", &a, &m, err, sizeof err))
        return 0;
    volatile float sink = 0;
    for (uint32_t i = 0; i < m.num_indices; i++)
        sink += m.positions[3 * m.indices[i]] + m.normals[3 * m.indices[i]] + m.uvs[2 * m.indices[i]];
    (void)sink;
    obj_free(&m, &a);
    return 0;
}
