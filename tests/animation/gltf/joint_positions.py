#!/usr/bin/env python3
"""Where every joint of a glTF skin is, in the scene, at given times of an animation.

An evaluation of glTF 2.0 written from the specification alone, sharing no code with the
engine's reader (formats/gltf*.c) or the animation compiler: it reads the JSON and the buffers
(.bin files, data: URIs), builds each node's matrix from its translation/rotation/scale (or
matrix), samples the animation's channels (LINEAR with slerp for rotations, STEP, CUBICSPLINE)
and multiplies the whole parent chain, every node above a joint included, in double precision.

    joint_positions.py FILE.gltf [FILE.gltf ...]  > joint_positions.txt

For each file it prints the rest pose ("-") and each animation at the times listed in TIMES
(multiples of 1/30 s, the compiler's default sample rate), one joint per line:

    walker.gltf Walk 6 Hips 0.500000000 0.980000000 -0.840000000   (frame 6: 0.2 s)

tests/animation/test_gltf_joints.c reads these lines and compares the importer's skeleton and
clips with them. The output is checked in (joint_positions.txt); run this again when a test
model changes.
"""
import base64
import json
import math
import os
import struct
import sys

TIMES = [0, 6, 15, 22, 30, 40, 59, 75, 120, 165]  # in 1/30 s, those within an animation's span


def read_buffers(path, doc):
    out = []
    for b in doc["buffers"]:
        uri = b["uri"]
        if uri.startswith("data:"):
            out.append(base64.b64decode(uri.split(",", 1)[1]))
        else:
            with open(os.path.join(os.path.dirname(path), uri), "rb") as f:
                out.append(f.read())
    return out


SIZES = {5120: ("b", 1), 5121: ("B", 1), 5122: ("h", 2), 5123: ("H", 2), 5125: ("I", 4), 5126: ("f", 4)}
COUNTS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}
NORMALIZE = {5120: 127.0, 5121: 255.0, 5122: 32767.0, 5123: 65535.0}


def accessor(doc, buffers, i):
    a = doc["accessors"][i]
    v = doc["bufferViews"][a["bufferView"]]
    fmt, size = SIZES[a["componentType"]]
    n = COUNTS[a["type"]]
    stride = v.get("byteStride", size * n)
    data = buffers[v["buffer"]]
    base = v.get("byteOffset", 0) + a.get("byteOffset", 0)
    rows = []
    for k in range(a["count"]):
        row = list(struct.unpack_from("<%d%s" % (n, fmt), data, base + k * stride))
        if a["componentType"] != 5126:
            row = [max(x / NORMALIZE[a["componentType"]], -1.0) for x in row]
        rows.append(row)
    return rows


def quat_matrix(q):
    x, y, z, w = q
    n = math.sqrt(x * x + y * y + z * z + w * w)
    x, y, z, w = x / n, y / n, z / n, w / n
    return [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]


def trs(t, q, s):
    r = quat_matrix(q)
    return [[r[i][0] * s[0], r[i][1] * s[1], r[i][2] * s[2], t[i]] for i in range(3)] + [[0.0, 0.0, 0.0, 1.0]]


def mul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(4)) for j in range(4)] for i in range(4)]


def slerp(a, b, u):
    d = sum(x * y for x, y in zip(a, b))
    if d < 0:
        b, d = [-x for x in b], -d
    if d > 0.9995:
        r = [x + (y - x) * u for x, y in zip(a, b)]
    else:
        th = math.acos(min(d, 1.0))
        wa, wb = math.sin((1 - u) * th) / math.sin(th), math.sin(u * th) / math.sin(th)
        r = [wa * x + wb * y for x, y in zip(a, b)]
    n = math.sqrt(sum(x * x for x in r))
    return [x / n for x in r]


def sample(times, values, interpolation, path, t):
    cubic = interpolation == "CUBICSPLINE"

    def key(k, part=1):
        return values[3 * k + part] if cubic else values[k]
    n = len(times)
    if t <= times[0] or n == 1:
        out = key(0)
    elif t >= times[-1]:
        out = key(n - 1)
    else:
        k = max(i for i in range(n - 1) if times[i] <= t)
        dt = times[k + 1] - times[k]
        u = (t - times[k]) / dt
        if interpolation == "STEP":
            out = key(k)
        elif not cubic:
            if path == "rotation":
                out = slerp(key(k), key(k + 1), u)
            else:
                out = [x + (y - x) * u for x, y in zip(key(k), key(k + 1))]
        else:
            u2, u3 = u * u, u * u * u
            h00, h10, h01, h11 = 2 * u3 - 3 * u2 + 1, u3 - 2 * u2 + u, -2 * u3 + 3 * u2, u3 - u2
            out = [h00 * p0 + h10 * dt * m0 + h01 * p1 + h11 * dt * m1
                   for p0, m0, p1, m1 in zip(key(k), key(k, 2), key(k + 1), key(k + 1, 0))]
    if path == "rotation":
        n = math.sqrt(sum(x * x for x in out))
        out = [x / n for x in out]
    return out


def evaluate(doc, buffers, anim, t):
    nodes = doc["nodes"]
    pose = []
    for n in nodes:
        if "matrix" in n:
            m = n["matrix"]
            pose.append(("m", [[m[4 * c + r] for c in range(4)] for r in range(4)]))
        else:
            pose.append(("trs", {"translation": list(n.get("translation", [0, 0, 0])),
                                 "rotation": list(n.get("rotation", [0, 0, 0, 1])),
                                 "scale": list(n.get("scale", [1, 1, 1]))}))
    if anim is not None:
        for ch in anim["channels"]:
            path = ch["target"]["path"]
            if path == "weights":
                continue
            s = anim["samplers"][ch["sampler"]]
            times = [x[0] for x in accessor(doc, buffers, s["input"])]
            values = accessor(doc, buffers, s["output"])
            pose[ch["target"]["node"]][1][path] = sample(times, values, s.get("interpolation", "LINEAR"), path, t)
    local = [p[1] if p[0] == "m" else trs(p[1]["translation"], p[1]["rotation"], p[1]["scale"]) for p in pose]
    parent = {}
    for i, n in enumerate(nodes):
        for c in n.get("children", []):
            parent[c] = i
    world = {}

    def world_of(i):
        if i not in world:
            world[i] = local[i] if i not in parent else mul(world_of(parent[i]), local[i])
        return world[i]
    return world_of


def duration(doc, buffers, anim):
    return max(accessor(doc, buffers, s["input"])[-1][0] for s in anim["samplers"])


def main(paths):
    for path in paths:
        with open(path) as f:
            doc = json.load(f)
        buffers = read_buffers(path, doc)
        name = os.path.basename(path)
        joints = doc["skins"][0]["joints"]
        runs = [("-", None, [0])]
        for a, anim in enumerate(doc.get("animations", [])):
            end = duration(doc, buffers, anim)
            runs.append((anim.get("name") or "animation_%d" % a, anim,
                         [k for k in TIMES if k / 30.0 <= end + 1e-9]))
        for label, anim, frames in runs:
            for k in frames:
                t = k / 30.0
                world_of = evaluate(doc, buffers, anim, t)
                for j in joints:
                    m = world_of(j)
                    jname = doc["nodes"][j].get("name") or "node_%d" % j
                    print("%s %s %d %s %.9f %.9f %.9f" % (name, label, k, jname, m[0][3], m[1][3], m[2][3]))


if __name__ == "__main__":
    main(sys.argv[1:])
