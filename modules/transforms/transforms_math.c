/* Poses, quaternions and affine 3x4 matrices (layout in api/ct_transform.h). */
#include "transforms_internal.h"

#include <math.h>

const ct_transform_pose_t transforms__identity_pose = {{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
const ct_transform_matrix_t transforms__identity_matrix = {{1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}};

void transforms__matrix_from_pose(const ct_transform_pose_t *pose, ct_transform_matrix_t *out)
{
    const float x = pose->rotation[0], y = pose->rotation[1], z = pose->rotation[2],
                w = pose->rotation[3];
    const float sx = pose->scale[0], sy = pose->scale[1], sz = pose->scale[2];
    float *o = out->m;
    o[0] = (1 - 2 * (y * y + z * z)) * sx;
    o[1] = 2 * (x * y + w * z) * sx;
    o[2] = 2 * (x * z - w * y) * sx;
    o[3] = 2 * (x * y - w * z) * sy;
    o[4] = (1 - 2 * (x * x + z * z)) * sy;
    o[5] = 2 * (y * z + w * x) * sy;
    o[6] = 2 * (x * z + w * y) * sz;
    o[7] = 2 * (y * z - w * x) * sz;
    o[8] = (1 - 2 * (x * x + y * y)) * sz;
    o[9] = pose->position[0];
    o[10] = pose->position[1];
    o[11] = pose->position[2];
}

/* Shepperd's method: build the quaternion from the largest of the four diagonal combinations so
 * the square root never sees a tiny (inaccurate) argument. r is a pure rotation, column-major. */
static void quat_from_rotation(const float r[9], float q[4])
{
    const float m00 = r[0], m11 = r[4], m22 = r[8];
    const float trace = m00 + m11 + m22;
    if (trace > 0) {
        const float s = 2 * sqrtf(trace + 1);
        q[3] = s / 4;
        q[0] = (r[5] - r[7]) / s;
        q[1] = (r[6] - r[2]) / s;
        q[2] = (r[1] - r[3]) / s;
    } else if (m00 > m11 && m00 > m22) {
        const float s = 2 * sqrtf(1 + m00 - m11 - m22);
        q[3] = (r[5] - r[7]) / s;
        q[0] = s / 4;
        q[1] = (r[3] + r[1]) / s;
        q[2] = (r[6] + r[2]) / s;
    } else if (m11 > m22) {
        const float s = 2 * sqrtf(1 + m11 - m00 - m22);
        q[3] = (r[6] - r[2]) / s;
        q[0] = (r[3] + r[1]) / s;
        q[1] = s / 4;
        q[2] = (r[7] + r[5]) / s;
    } else {
        const float s = 2 * sqrtf(1 + m22 - m00 - m11);
        q[3] = (r[1] - r[3]) / s;
        q[0] = (r[6] + r[2]) / s;
        q[1] = (r[7] + r[5]) / s;
        q[2] = s / 4;
    }
    if (!transforms__quat_normalize(q)) {
        q[0] = q[1] = q[2] = 0;
        q[3] = 1;
    }
}

void transforms__pose_from_matrix(const ct_transform_matrix_t *m, ct_transform_pose_t *out)
{
    const float *a = m->m;
    float r[9];
    for (int c = 0; c < 3; c++) {
        const float len = sqrtf(a[3 * c] * a[3 * c] + a[3 * c + 1] * a[3 * c + 1] +
                                a[3 * c + 2] * a[3 * c + 2]);
        out->scale[c] = len;
        for (int k = 0; k < 3; k++)
            r[3 * c + k] = len > 0 ? a[3 * c + k] / len : (k == c ? 1.0f : 0.0f);
    }
    /* A mirrored basis has a negative determinant; put the reflection into scale x so that r is a
     * proper rotation. */
    const float det = r[0] * (r[4] * r[8] - r[7] * r[5]) - r[3] * (r[1] * r[8] - r[7] * r[2]) +
                      r[6] * (r[1] * r[5] - r[4] * r[2]);
    if (det < 0) {
        out->scale[0] = -out->scale[0];
        r[0] = -r[0];
        r[1] = -r[1];
        r[2] = -r[2];
    }
    quat_from_rotation(r, out->rotation);
    out->position[0] = a[9];
    out->position[1] = a[10];
    out->position[2] = a[11];
}

bool transforms__matrix_invert(const ct_transform_matrix_t *m, ct_transform_matrix_t *out)
{
    const float *a = m->m;
    /* Cofactors of the 3x3 part, written straight into the transposed (inverse) positions. */
    float inv[9] = {
        a[4] * a[8] - a[7] * a[5], a[7] * a[2] - a[1] * a[8], a[1] * a[5] - a[4] * a[2],
        a[6] * a[5] - a[3] * a[8], a[0] * a[8] - a[6] * a[2], a[3] * a[2] - a[0] * a[5],
        a[3] * a[7] - a[6] * a[4], a[6] * a[1] - a[0] * a[7], a[0] * a[4] - a[3] * a[1],
    };
    const float det = a[0] * inv[0] + a[3] * inv[1] + a[6] * inv[2];
    if (!(fabsf(det) > 1e-20f))
        return false;
    float *o = out->m;
    for (int k = 0; k < 9; k++)
        o[k] = inv[k] / det;
    for (int r = 0; r < 3; r++)
        o[9 + r] = -(o[r] * a[9] + o[3 + r] * a[10] + o[6 + r] * a[11]);
    return true;
}

void transforms__matrix_transform_point(const ct_transform_matrix_t *m, const float p[3],
                                        float out[3])
{
    const float *a = m->m;
    const float x = p[0], y = p[1], z = p[2];
    for (int r = 0; r < 3; r++)
        out[r] = a[r] * x + a[3 + r] * y + a[6 + r] * z + a[9 + r];
}

void transforms__quat_mul(const float a[4], const float b[4], float out[4])
{
    const float x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    const float y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    const float z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    const float w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    out[0] = x;
    out[1] = y;
    out[2] = z;
    out[3] = w;
}

void transforms__quat_rotate(const float q[4], const float v[3], float out[3])
{
    /* v' = v + w t + u x t with t = 2 (u x v): two cross products instead of a matrix. */
    const float ux = q[0], uy = q[1], uz = q[2], w = q[3];
    const float tx = 2 * (uy * v[2] - uz * v[1]);
    const float ty = 2 * (uz * v[0] - ux * v[2]);
    const float tz = 2 * (ux * v[1] - uy * v[0]);
    out[0] = v[0] + w * tx + (uy * tz - uz * ty);
    out[1] = v[1] + w * ty + (uz * tx - ux * tz);
    out[2] = v[2] + w * tz + (ux * ty - uy * tx);
}

bool transforms__quat_normalize(float q[4])
{
    const float len = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(len > 1e-12f) || !isfinite(len))
        return false;
    for (int k = 0; k < 4; k++)
        q[k] /= len;
    return true;
}
