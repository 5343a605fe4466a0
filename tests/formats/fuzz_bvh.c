/* Fuzz target: the BVH reader on any bytes; whatever it accepts is posed at every frame. */
#include "bvh.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256];
    ct_bvh_t *b = ct_bvh_parse((const char *)data, size, "fuzz.bvh", NULL, err, sizeof err);
    if (!b)
        return 0;
    volatile double sink = 0;
    for (uint32_t f = 0; f < b->num_frames && f < 64; f++)
        for (uint32_t j = 0; j < b->num_joints; j++) {
            double t[3], q[4];
            ct_bvh_local_pose(b, f, j, 0.01, t, q);
            sink += t[0] + q[3] +
                    (b->joints[j].parent >= 0 ? b->joints[b->joints[j].parent].offset[0] : 0);
        }
    (void)sink;
    ct_bvh_free(b);
    return 0;
}
