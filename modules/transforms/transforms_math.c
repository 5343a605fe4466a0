/* Poses, quaternions and affine 3x4 matrices (layout in api/ct_transform.h). */
#include "transforms_internal.h"

#include <math.h>
#include <stdio.h>

const ct_transform_pose_t transforms__identity_pose = {{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
const ct_transform_matrix_t transforms__identity_matrix = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}};

/* Element (row r, column c) of a row-major 3x4 `a`. */
#define A(r, c) a[4 * (r) + (c)]

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
        const float len = sqrtf(A(0, c) * A(0, c) + A(1, c) * A(1, c) + A(2, c) * A(2, c));
        out->scale[c] = len;
        for (int k = 0; k < 3; k++)
            r[3 * c + k] = len > 0 ? A(k, c) / len : (k == c ? 1.0f : 0.0f);
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
    for (int k = 0; k < 3; k++)
        out->position[k] = A(k, 3);
}

bool transforms__matrix_invert(const ct_transform_matrix_t *m, ct_transform_matrix_t *out)
{
    const float *a = m->m;
    /* The adjugate (transposed cofactors) of the 3x3 part, row-major. */
    const float adj[3][3] = {
        {A(1, 1) * A(2, 2) - A(1, 2) * A(2, 1), A(0, 2) * A(2, 1) - A(0, 1) * A(2, 2),
         A(0, 1) * A(1, 2) - A(0, 2) * A(1, 1)},
        {A(1, 2) * A(2, 0) - A(1, 0) * A(2, 2), A(0, 0) * A(2, 2) - A(0, 2) * A(2, 0),
         A(0, 2) * A(1, 0) - A(0, 0) * A(1, 2)},
        {A(1, 0) * A(2, 1) - A(1, 1) * A(2, 0), A(0, 1) * A(2, 0) - A(0, 0) * A(2, 1),
         A(0, 0) * A(1, 1) - A(0, 1) * A(1, 0)},
    };
    const float det = A(0, 0) * adj[0][0] + A(0, 1) * adj[1][0] + A(0, 2) * adj[2][0];
    if (!(fabsf(det) > 1e-20f))
        return false;
    float *o = out->m;
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++)
            o[4 * r + c] = adj[r][c] / det;
        /* The inverse moves back by the rotated-back translation. */
        o[4 * r + 3] = -(o[4 * r] * A(0, 3) + o[4 * r + 1] * A(1, 3) + o[4 * r + 2] * A(2, 3));
    }
    return true;
}

void transforms__matrix_transform_point(const ct_transform_matrix_t *m, const float p[3],
                                        float out[3])
{
    const float *a = m->m;
    const float x = p[0], y = p[1], z = p[2];
    for (int r = 0; r < 3; r++)
        out[r] = A(r, 0) * x + A(r, 1) * y + A(r, 2) * z + A(r, 3);
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

/* A unit quaternion is kept as given so that reading it back is exact; anything else finite is
 * scaled to unit length, since every formula here assumes one. A quaternion that cannot be is
 * refused for what it is: its length, in float, is nearly zero, or too large to square (a
 * component past 1e19, as [1e30 0 0 1], whose refusal called it a zero-length quaternion). */
static bool check_rotation(float q[4], char *why, size_t why_size)
{
    for (int k = 0; k < 4; k++) {
        if (!isfinite(q[k])) {
            snprintf(why, why_size, "rotation[%d] is not a finite number", k);
            return false;
        }
    }
    const float len2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (fabsf(len2 - 1) > 1e-6f && !transforms__quat_normalize(q)) {
        snprintf(why, why_size,
                 "rotation = [%.3g %.3g %.3g %.3g] does not normalise: its length %s", (double)q[0],
                 (double)q[1], (double)q[2], (double)q[3],
                 isfinite(len2) ? "is zero or nearly" : "overflows a float");
        return false;
    }
    return true;
}

bool transforms__check_position(const float p[3], char *why, size_t why_size)
{
    for (int k = 0; k < 3; k++) {
        if (!isfinite(p[k]) || fabsf(p[k]) > CT_TRANSFORM_MAX_POSITION) {
            snprintf(why, why_size, "position[%d] = %g is not a finite number within +-%g", k,
                     (double)p[k], (double)CT_TRANSFORM_MAX_POSITION);
            return false;
        }
    }
    return true;
}

bool transforms__check_rotation(float q[4], char *why, size_t why_size)
{
    return check_rotation(q, why, why_size);
}

bool transforms__check_pose(ct_transform_pose_t *pose, char *why, size_t why_size)
{
    if (!transforms__check_position(pose->position, why, why_size) ||
        !check_rotation(pose->rotation, why, why_size))
        return false;
    for (int k = 0; k < 3; k++) {
        const float s = fabsf(pose->scale[k]);
        if (!(s >= CT_TRANSFORM_MIN_SCALE && s <= CT_TRANSFORM_MAX_SCALE)) {
            snprintf(why, why_size, "scale[%d] = %g is not within +-[%g, %g]", k,
                     (double)pose->scale[k], (double)CT_TRANSFORM_MIN_SCALE,
                     (double)CT_TRANSFORM_MAX_SCALE);
            return false;
        }
    }
    return true;
}
