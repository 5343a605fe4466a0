#!/usr/bin/env python3
"""Golden vectors for api/ct_math.h, from an independent implementation.

Written in plain Python from a different formulation than the C header, so the two can only
agree by both being right:
  - forward: the rotation MATRIX is the product of elementary axis matrices (the C header
    multiplies axis quaternions); the quaternion is then taken from that matrix by Shepperd's
    method on the largest of 1+t, 1+2m00-t, ...;
  - inverse: angles are recovered geometrically (the C header uses index formulas on the
    matrix): the axis left alone by the last turn is mapped through the matrix, which fixes the
    middle angle from one component and the first angle from the rotation of the other two in
    their plane; the last angle is what remains after undoing the first two turns.
Conventions as in ct_math.h: intrinsic ABC = R_A(a0) R_B(a1) R_C(a2) on column vectors;
extrinsic ABC (a0, a1, a2) = intrinsic CBA (a2, a1, a0).

Run:  python3 tests/math/golden_euler.py > tests/math/golden_euler.inc
The output is deterministic (fixed seed)."""
import math
import random

ORDERS = ["XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX", "XYX", "XZX", "YXY", "YZY", "ZXZ", "ZYZ"]


def axis_matrix(axis, angle):
    c, s = math.cos(angle), math.sin(angle)
    if axis == 0:
        return [[1, 0, 0], [0, c, -s], [0, s, c]]
    if axis == 1:
        return [[c, 0, s], [0, 1, 0], [-s, 0, c]]
    return [[c, -s, 0], [s, c, 0], [0, 0, 1]]


def mul(a, b):
    return [[sum(a[r][k] * b[k][c] for k in range(3)) for c in range(3)] for r in range(3)]


def transpose(a):
    return [[a[c][r] for c in range(3)] for r in range(3)]


def intrinsic(order, frame, angles):
    axes = ["XYZ".index(ch) for ch in order]
    if frame == 1:
        return axes[::-1], angles[::-1]
    return axes, list(angles)


def matrix_of(order, frame, angles):
    axes, e = intrinsic(order, frame, angles)
    m = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    for axis, angle in zip(axes, e):
        m = mul(m, axis_matrix(axis, angle))
    return m


def quat_of_matrix(m):
    t = m[0][0] + m[1][1] + m[2][2]
    cands = [1 + t, 1 + 2 * m[0][0] - t, 1 + 2 * m[1][1] - t, 1 + 2 * m[2][2] - t]
    best = max(range(4), key=lambda i: cands[i])
    r = math.sqrt(cands[best]) * 0.5  # 2r = 4 * (component), per Shepperd
    if best == 0:
        w = r
        x, y, z = (m[2][1] - m[1][2]) / (4 * r), (m[0][2] - m[2][0]) / (4 * r), (m[1][0] - m[0][1]) / (4 * r)
    elif best == 1:
        x = r
        w, y, z = (m[2][1] - m[1][2]) / (4 * r), (m[0][1] + m[1][0]) / (4 * r), (m[0][2] + m[2][0]) / (4 * r)
    elif best == 2:
        y = r
        w, x, z = (m[0][2] - m[2][0]) / (4 * r), (m[0][1] + m[1][0]) / (4 * r), (m[1][2] + m[2][1]) / (4 * r)
    else:
        z = r
        w, x, y = (m[1][0] - m[0][1]) / (4 * r), (m[0][2] + m[2][0]) / (4 * r), (m[1][2] + m[2][1]) / (4 * r)
    if w < 0:
        x, y, z, w = -x, -y, -z, -w
    return [x, y, z, w]


def matrix_of_quat(q):
    x, y, z, w = q
    return [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]


def apply(m, v):
    return [sum(m[r][k] * v[k] for k in range(3)) for r in range(3)]


def unit(axis):
    v = [0.0, 0.0, 0.0]
    v[axis] = 1.0
    return v


def plane_angle(axis, frm, to):
    """Signed angle turning vector frm into vector to about `axis`, looking at their
    components in the plane orthogonal to it."""
    p, q = (axis + 1) % 3, (axis + 2) % 3
    a1 = math.atan2(frm[q], frm[p])
    a2 = math.atan2(to[q], to[p])
    d = a2 - a1
    while d > math.pi:
        d -= 2 * math.pi
    while d <= -math.pi:
        d += 2 * math.pi
    return d


def angles_of(order, frame, m):
    axes, _ = intrinsic(order, frame, [0, 0, 0])
    i, j, last = axes
    proper = i == last
    # The axis the last turn leaves alone: for proper orders the first axis itself, else the third.
    fixed = i if proper else last
    col = apply(m, unit(fixed))  # = R_i(a) R_j(b) e_fixed
    if proper:
        b = math.acos(max(-1.0, min(1.0, col[i])))  # the component along i survives R_i
    else:
        # R_j(b) e_last has component sin(b) or -sin(b) along i, depending on handedness.
        probe = apply(axis_matrix(j, 1.0), unit(last))
        sign = 1.0 if probe[i] > 0 else -1.0
        b = math.asin(max(-1.0, min(1.0, sign * col[i])))
    w = apply(axis_matrix(j, b), unit(fixed))
    locked = math.hypot(w[(i + 1) % 3], w[(i + 2) % 3]) < 1e-9
    if locked:
        # Only a0 + a2 (or a0 - a2) is defined: a2 = 0, a0 from the remaining first turn.
        rest = mul(m, transpose(axis_matrix(j, b)))
        other = (i + 1) % 3
        a = plane_angle(i, unit(other), apply(rest, unit(other)))
        c = 0.0
    else:
        a = plane_angle(i, w, col)
        rest = mul(transpose(axis_matrix(j, b)), mul(transpose(axis_matrix(i, a)), m))
        other = (last + 1) % 3
        c = plane_angle(last, unit(other), apply(rest, unit(other)))
    e = [a, b, c]
    return (e[::-1] if frame == 1 else e), locked


def fmt(values):
    return ", ".join("%.17g" % v for v in values)


def main():
    rnd = random.Random(20130315)  # the date of the gimbal lock post
    half = math.pi / 2
    print("/* Generated by tests/math/golden_euler.py; do not edit. */")
    print("/* {order, frame, angles[3], quat[4] (w >= 0), locked} */")
    print("static const golden_euler_t golden_from_euler[] = {")
    for o, order in enumerate(ORDERS):
        proper = order[0] == order[2]
        for frame in (0, 1):
            inputs = []
            for _ in range(24):
                mid = rnd.uniform(0.01, math.pi - 0.01) if proper else rnd.uniform(-half + 0.01, half - 0.01)
                inputs.append([rnd.uniform(-math.pi, math.pi), mid, rnd.uniform(-math.pi, math.pi)])
                if frame == 1:
                    inputs[-1] = inputs[-1][::-1]
            # Gimbal edges: the middle angle at and next to the singularity.
            edges = [0.0, math.pi] if proper else [half, -half]
            for edge in edges:
                for eps in (0.0, 1e-7, -1e-7, 1e-4):
                    mid = edge + eps
                    t = [rnd.uniform(-math.pi, math.pi), mid, rnd.uniform(-math.pi, math.pi)]
                    inputs.append(t)
            for e in inputs:
                q = quat_of_matrix(matrix_of(order, frame, e))
                _, locked = angles_of(order, frame, matrix_of(order, frame, e))
                print("    {%d, %d, {%s}, {%s}, %d}," % (o, frame, fmt(e), fmt(q), int(locked)))
    print("};")
    print("/* {order, frame, quat[4], angles[3] as the independent extraction finds them, locked} */")
    print("static const golden_euler_t golden_to_euler[] = {")
    for o, order in enumerate(ORDERS):
        for frame in (0, 1):
            for _ in range(16):
                g = [rnd.gauss(0, 1) for _ in range(4)]
                n = math.sqrt(sum(v * v for v in g))
                q = [v / n for v in g]
                if q[3] < 0:
                    q = [-v for v in q]
                e, locked = angles_of(order, frame, matrix_of_quat(q))
                print("    {%d, %d, {%s}, {%s}, %d}," % (o, frame, fmt(e), fmt(q), int(locked)))
    print("};")


if __name__ == "__main__":
    main()
