/* Fuzz target: the OBJ reader on any bytes; whatever it accepts is walked through its indices. */
#include "ct_heap.h"
#include "obj.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ct_allocator_t *a = ct_heap_allocator();
    obj_mesh_t m;
    char err[256];
    if (obj_read((const char *)data, size, "fuzz.obj", a, &m, err, sizeof err))
        return 0;
    volatile float sink = 0;
    for (uint32_t i = 0; i < m.num_indices; i++)
        sink +=
            m.positions[3 * m.indices[i]] + m.normals[3 * m.indices[i]] + m.uvs[2 * m.indices[i]];
    (void)sink;
    obj_free(&m, a);
    return 0;
}
