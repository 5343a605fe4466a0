/*
 * ct_math.h: rotations as quaternions, matrices and Euler angles in all twelve axis orders.
 * Header only (static inline functions, no API table); any module or plugin may include it.
 *
 * After the seed post "What is gimbal lock and why do we still have to worry about it?": an Euler
 * triple means nothing without its axis order and whether the axes move with the object. So every
 * function here takes both.
 *
 *   Orders. Six Tait-Bryan orders (three different axes: XYZ XZY YXZ YZX ZXY ZYX) and six proper
 *   Euler orders (first axis repeated: XYX XZX YXY YZY ZXZ ZYZ). angles[0] turns about the first
 *   letter, angles[1] the second, angles[2] the third. Radians.
 *   Intrinsic (CT_EULER_INTRINSIC): each turn is about the object's axes as moved by the turns
 *   before it. XYZ intrinsic is R = Rx(a0) * Ry(a1) * Rz(a2) for column vectors (BVH's channel
 *   order "Zrotation Xrotation Yrotation" is ZXY intrinsic).
 *   Extrinsic (CT_EULER_EXTRINSIC): each turn is about the fixed world axes. XYZ extrinsic is
 *   R = Rz(a2) * Ry(a1) * Rx(a0), the same rotation as ZYX intrinsic with the angles reversed.
 *
 * Conventions. Quaternions are (x, y, z, w), unit length, and rotate column vectors like R.
 * Matrices are 3x3, m[row][col], column vectors (m * v). Everything is double: conversions run
 * when data is compiled or edited, and near gimbal lock single precision loses 1e-4 rad.
 *
 * Euler angles from a rotation. For a Tait-Bryan order the middle angle comes out in
 * [-pi/2, pi/2], for a proper order in [0, pi], the others in (-pi, pi]. At gimbal lock (middle
 * angle at +-pi/2, or 0 / pi for proper orders) only the sum or difference of the outer angles is
 * defined; the third angle is then 0. ct_euler_filter picks, among all triples giving the same
 * rotation, the one closest to the previous frame's, so animation curves never jump by 2 pi or
 * flip through the singularity.
 *
 * tests/math checks every order in both conventions against golden vectors from an independent
 * implementation (tests/math/golden_euler.py): round trips stay within 1e-5 rad.
 */
#ifndef CT_MATH_H
#define CT_MATH_H

#include "ct_types.h"

#include <math.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The twelve axis orders (see Orders above); CT_EULER_ORDER_COUNT counts them. */
typedef enum ct_euler_order {
    CT_EULER_XYZ,
    CT_EULER_XZY,
    CT_EULER_YXZ,
    CT_EULER_YZX,
    CT_EULER_ZXY,
    CT_EULER_ZYX,
    CT_EULER_XYX,
    CT_EULER_XZX,
    CT_EULER_YXY,
    CT_EULER_YZY,
    CT_EULER_ZXZ,
    CT_EULER_ZYZ,
    CT_EULER_ORDER_COUNT
} ct_euler_order;

/* Whether the turns are about the moving or the fixed axes (see above). */
typedef enum ct_euler_frame {
    CT_EULER_INTRINSIC = 0, /* about the moving (object) axes */
    CT_EULER_EXTRINSIC = 1, /* about the fixed (world) axes */
} ct_euler_frame;

/* The axes (0 x, 1 y, 2 z) of an order, first to third. */
static inline void ct_euler_axes(ct_euler_order order, int axes[3])
{
    static const char names[CT_EULER_ORDER_COUNT][4] = {"XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX",
                                                        "XYX", "XZX", "YXY", "YZY", "ZXZ", "ZYZ"};
    for (int i = 0; i < 3; i++)
        axes[i] = names[order][i] - 'X';
}

/* The same rotation as intrinsic angles about axes in application order: extrinsic triples are
 * reversed (extrinsic XYZ (a, b, c) is intrinsic ZYX (c, b, a)). */
static inline void ct_euler__intrinsic(ct_euler_order order, ct_euler_frame frame,
                                       const double in[3], int axes[3], double out[3])
{
    int a[3];
    ct_euler_axes(order, a);
    for (int n = 0; n < 3; n++) {
        const int from = frame == CT_EULER_EXTRINSIC ? 2 - n : n;
        axes[n] = a[from];
        out[n] = in[from];
    }
}

/* out = a * b (b's rotation first, then a's); out may be a or b. */
static inline void ct_quat_mul(const double a[4], const double b[4], double out[4])
{
    const double r[4] = {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
                         a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
                         a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
                         a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
    for (int i = 0; i < 4; i++)
        out[i] = r[i];
}

/* The quaternion of an Euler triple: the product of the three axis turns. */
static inline void ct_quat_from_euler(const double angles[3], ct_euler_order order,
                                      ct_euler_frame frame, double q[4])
{
    int axes[3];
    double e[3];
    ct_euler__intrinsic(order, frame, angles, axes, e);
    double r[4] = {0, 0, 0, 1};
    for (int n = 0; n < 3; n++) {
        double turn[4] = {0, 0, 0, cos(0.5 * e[n])};
        turn[axes[n]] = sin(0.5 * e[n]);
        ct_quat_mul(r, turn, r);
    }
    for (int i = 0; i < 4; i++)
        q[i] = r[i];
}

/* The rotation matrix of a unit quaternion. */
static inline void ct_mat3_from_quat(const double q[4], double m[3][3])
{
    const double x = q[0], y = q[1], z = q[2], w = q[3];
    const double n = x * x + y * y + z * z + w * w, s = n > 0 ? 2.0 / n : 0;
    m[0][0] = 1 - s * (y * y + z * z), m[0][1] = s * (x * y - z * w), m[0][2] = s * (x * z + y * w);
    m[1][0] = s * (x * y + z * w), m[1][1] = 1 - s * (x * x + z * z), m[1][2] = s * (y * z - x * w);
    m[2][0] = s * (x * z - y * w), m[2][1] = s * (y * z + x * w), m[2][2] = 1 - s * (x * x + y * y);
}

/* The quaternion of a rotation matrix (w >= 0), branching on the largest diagonal term. */
static inline void ct_quat_from_mat3(const double m[3][3], double q[4])
{
    const double tr = m[0][0] + m[1][1] + m[2][2];
    if (tr > 0) {
        const double s = 2 * sqrt(tr + 1);
        q[3] = 0.25 * s, q[0] = (m[2][1] - m[1][2]) / s, q[1] = (m[0][2] - m[2][0]) / s,
        q[2] = (m[1][0] - m[0][1]) / s;
    } else {
        int i = 0;
        if (m[1][1] > m[0][0])
            i = 1;
        if (m[2][2] > m[i][i])
            i = 2;
        const int j = (i + 1) % 3, k = (i + 2) % 3;
        const double s = 2 * sqrt(fmax(1 + m[i][i] - m[j][j] - m[k][k], 0));
        q[i] = 0.25 * s, q[j] = (m[j][i] + m[i][j]) / s, q[k] = (m[k][i] + m[i][k]) / s,
        q[3] = (m[k][j] - m[j][k]) / s;
    }
    const double sign = q[3] < 0 ? -1 : 1,
                 n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; i++)
        q[i] *= sign / n;
}

/* The rotation matrix of an Euler triple. */
static inline void ct_mat3_from_euler(const double angles[3], ct_euler_order order,
                                      ct_euler_frame frame, double m[3][3])
{
    double q[4];
    ct_quat_from_euler(angles, order, frame, q);
    ct_mat3_from_quat(q, m);
}

/* Euler angles of a rotation matrix (see the header comment for ranges and gimbal lock). */
static inline void ct_euler_from_mat3(const double m[3][3], ct_euler_order order,
                                      ct_euler_frame frame, double angles[3])
{
    int axes[3];
    double unused[3] = {0, 0, 0}, e[3];
    ct_euler__intrinsic(order, frame, unused, axes, e);
    const int i = axes[0], j = axes[1];
    const bool proper = axes[2] == i;
    const int k = 3 - i - j;
    /* even: (i, j, k) is a cyclic permutation of (x, y, z); odd orders mirror the signs. */
    const double s = (j == (i + 1) % 3) ? 1.0 : -1.0;
    double sb, cb;
    if (proper) {
        cb = m[i][i];
        sb = sqrt(m[i][j] * m[i][j] + m[i][k] * m[i][k]);
        e[1] = atan2(sb, cb);
    } else {
        sb = s * m[i][k];
        cb = sqrt(m[i][i] * m[i][i] + m[i][j] * m[i][j]);
        e[1] = atan2(sb, cb);
    }
    const bool locked = proper ? sb < 1e-12 : cb < 1e-12;
    if (!locked && proper) {
        e[0] = atan2(m[j][i], -s * m[k][i]);
        e[2] = atan2(m[i][j], s * m[i][k]);
    } else if (!locked) {
        e[0] = atan2(-s * m[j][k], m[k][k]);
        e[2] = atan2(-s * m[i][j], m[i][i]);
    } else {
        /* Only the first angle is left once the third is 0: Ri(a) = m * Rj(b)^T. */
        double rj[3][3] = {{0}}, ri[3][3];
        const double c = cos(e[1]), sn = sin(e[1]);
        rj[j][j] = 1, rj[(j + 1) % 3][(j + 1) % 3] = c, rj[(j + 2) % 3][(j + 2) % 3] = c;
        rj[(j + 2) % 3][(j + 1) % 3] = sn, rj[(j + 1) % 3][(j + 2) % 3] = -sn;
        for (int r = 0; r < 3; r++)
            for (int col = 0; col < 3; col++)
                ri[r][col] = m[r][0] * rj[col][0] + m[r][1] * rj[col][1] + m[r][2] * rj[col][2];
        const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        e[0] = atan2(ri[i2][i1], ri[i1][i1]);
        e[2] = 0;
    }
    for (int n = 0; n < 3; n++)
        angles[n] = e[frame == CT_EULER_EXTRINSIC ? 2 - n : n];
}

/* Euler angles of a unit quaternion (as ct_euler_from_mat3). */
static inline void ct_euler_from_quat(const double q[4], ct_euler_order order, ct_euler_frame frame,
                                      double angles[3])
{
    double m[3][3];
    ct_mat3_from_quat(q, m);
    ct_euler_from_mat3((const double(*)[3])m, order, frame, angles);
}

/* Adds the multiple of 2 pi to a that brings it closest to near. */
static inline double ct_angle_near(double a, double near)
{
    const double two_pi = 6.283185307179586;
    return a + two_pi * floor((near - a) / two_pi + 0.5);
}

/*
 * The Euler filter. angles holds a triple of `order`/`frame`; it is replaced by the equivalent
 * triple (same rotation) closest to `previous`: each angle moved by whole turns, and the
 * alternative solution (first and third angle +pi, middle angle mirrored) tried as well.
 */
static inline void ct_euler_filter(const double previous[3], ct_euler_order order,
                                   ct_euler_frame frame, double angles[3])
{
    (void)frame; /* both solutions have the same shape in either frame */
    int axes[3];
    ct_euler_axes(order, axes);
    const double pi = 3.141592653589793;
    const bool proper = axes[0] == axes[2];
    double best[3] = {angles[0], angles[1], angles[2]}, best_cost = INFINITY;
    for (int alt = 0; alt < 2; alt++) {
        double c[3] = {angles[0], angles[1], angles[2]}, cost = 0;
        if (alt) {
            c[0] += pi;
            c[1] = proper ? -c[1] : pi - c[1];
            c[2] += pi;
        }
        for (int n = 0; n < 3; n++) {
            c[n] = ct_angle_near(c[n], previous[n]);
            cost += fabs(c[n] - previous[n]);
        }
        if (cost < best_cost) {
            best_cost = cost;
            for (int n = 0; n < 3; n++)
                best[n] = c[n];
        }
    }
    for (int n = 0; n < 3; n++)
        angles[n] = best[n];
}

#ifdef __cplusplus
}
#endif
#endif
