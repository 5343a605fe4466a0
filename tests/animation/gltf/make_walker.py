#!/usr/bin/env python3
"""Writes walker.gltf: a small skinned character laid out the way Blender exports one.

The joints sit under an "Armature" node that is offset, turned (-90 degrees about X: Blender's
Z-up made Y-up) and scaled by 0.01 (joint offsets in centimetres), as Mixamo-style rigs come out
of Blender. A group node that is not a joint ("HeadSocket", offset, turned and scaled 1.5) sits
between two joints. The body is a box per bone, skinned (JOINTS_0/WEIGHTS_0), with texture
coordinates and a textured material (checker.png beside it). Two clips: "Walk" (1 s: legs, arms,
a spine with CUBICSPLINE keys, a bobbing hip, and the armature node itself moving forward) and
"Idle" (2 s, STEP keys on the head).

Run from this folder: python3 make_walker.py (writes walker.gltf and checker.png). The file is
checked in; this script says how it was made.
"""
import base64
import json
import math
import struct
import zlib

# name, parent (index into this list, or -1 = the Armature node), translation (cm, Z up), via
JOINTS = [
    ("Hips", -1, [0, 0, 95]),
    ("Spine", 0, [0, 0, 20]),
    ("Head", 1, [0, 0, 10]),  # under HeadSocket, see below
    ("UpperLeg.L", 0, [10, 0, -5]),
    ("LowerLeg.L", 3, [0, 0, -45]),
    ("UpperLeg.R", 0, [-10, 0, -5]),
    ("LowerLeg.R", 5, [0, 0, -45]),
    ("UpperArm.L", 1, [18, 0, 25]),
    ("UpperArm.R", 1, [-18, 0, 25]),
]
# Half sizes (cm) of each bone's box; limbs hang below their joint, the rest stand above it.
HALF = [(12, 8, 10), (14, 8, 13), (8, 8, 10), (5, 5, 22), (4, 4, 22), (5, 5, 22), (4, 4, 22),
        (4, 4, 14), (4, 4, 14)]


def quat_axis(axis, degrees):
    h = math.radians(degrees) / 2
    return [axis[0] * math.sin(h), axis[1] * math.sin(h), axis[2] * math.sin(h), math.cos(h)]


def mat_trs(t, q, s):
    x, y, z, w = q
    r = [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
         [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
         [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]
    return [[r[i][0] * s[0], r[i][1] * s[1], r[i][2] * s[2], t[i]] for i in range(3)] + [[0, 0, 0, 1]]


def mat_mul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(4)) for j in range(4)] for i in range(4)]


def mat_inv_affine(m):
    # Inverse of [A t; 0 1] through the adjugate of A.
    a = [row[:3] for row in m[:3]]
    det = (a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
           + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]))
    inv = [[0.0] * 3 for _ in range(3)]
    for i in range(3):
        for j in range(3):
            r = [k for k in range(3) if k != j]
            c = [k for k in range(3) if k != i]
            minor = a[r[0]][c[0]] * a[r[1]][c[1]] - a[r[0]][c[1]] * a[r[1]][c[0]]
            inv[i][j] = (-1) ** (i + j) * minor / det
    t = [-sum(inv[i][k] * m[k][3] for k in range(3)) for i in range(3)]
    return [inv[i] + [t[i]] for i in range(3)] + [[0, 0, 0, 1]]


def checker_png(size=16):
    rows = b""
    for y in range(size):
        rows += b"\x00" + b"".join(
            bytes((200, 60, 40) if (x // 4 + y // 4) % 2 else (240, 220, 180)) for x in range(size))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def main():
    armature = {"name": "Armature", "translation": [0.5, 0.0, -1.0], "rotation": quat_axis([1, 0, 0], -90),
                "scale": [0.01, 0.01, 0.01]}
    socket = {"name": "HeadSocket", "translation": [0, 2, 12], "rotation": quat_axis([0, 0, 1], 30),
              "scale": [1.5, 1.5, 1.5]}
    # Node order: 0 Armature, 1 Body (mesh), 2.. joints, last HeadSocket.
    nodes = [armature, {"name": "Body", "mesh": 0, "skin": 0}]
    first_joint = len(nodes)
    for name, parent, t in JOINTS:
        nodes.append({"name": name, "translation": t})
    socket_index = len(nodes)
    nodes.append(socket)
    children = {i: [] for i in range(len(nodes))}
    children[0] = [1]
    for j, (name, parent, t) in enumerate(JOINTS):
        if name == "Head":
            children[socket_index].append(first_joint + j)
        elif parent < 0:
            children[0].append(first_joint + j)
        else:
            children[first_joint + parent].append(first_joint + j)
    children[first_joint + 1].append(socket_index)  # Spine -> HeadSocket -> Head
    for i, c in children.items():
        if c:
            nodes[i]["children"] = c

    # Bind pose: each joint's matrix in the Armature's space (where the Body mesh is).
    def local(i):
        n = nodes[i]
        return mat_trs(n.get("translation", [0, 0, 0]), n.get("rotation", [0, 0, 0, 1]), n.get("scale", [1, 1, 1]))
    parent_of = {c: p for p, cs in children.items() for c in cs}

    def in_armature(i):
        m = local(i)
        p = parent_of.get(i)
        while p is not None and p != 0:
            m = mat_mul(local(p), m)
            p = parent_of.get(p)
        return m
    bind = [in_armature(first_joint + j) for j in range(len(JOINTS))]
    # The mesh's vertices are in the armature's space (the Body node sits under it), so each inverse
    # bind matrix takes that space to the joint's: the inverse of the joint in the armature.
    ibm = [mat_inv_affine(b) for b in bind]

    blob = bytearray()
    views, accessors = [], []

    def add(data, fmt, count, kind, ctype, target=None, minmax=None):
        while len(blob) % 4:
            blob.append(0)
        view = {"buffer": 0, "byteOffset": len(blob), "byteLength": len(data)}
        if target:
            view["target"] = target
        blob.extend(data)
        views.append(view)
        acc = {"bufferView": len(views) - 1, "componentType": ctype, "count": count, "type": kind}
        if minmax:
            acc["min"], acc["max"] = minmax
        accessors.append(acc)
        return len(accessors) - 1

    # A box per bone, in the armature's space, weighted fully to its bone.
    pos, nrm, uv, jnt, wgt, idx = [], [], [], [], [], []
    faces = [((1, 0, 0), (0, 1, 0)), ((-1, 0, 0), (0, -1, 0)), ((0, 1, 0), (0, 0, 1)), ((0, -1, 0), (0, 0, -1)),
             ((0, 0, 1), (1, 0, 0)), ((0, 0, -1), (-1, 0, 0))]
    for j, (name, parent, t) in enumerate(JOINTS):
        c = [bind[j][i][3] for i in range(3)]
        hx, hy, hz = HALF[j]
        centre = [c[0], c[1], c[2] - hz if name.startswith(("Upper", "Lower")) else c[2] + hz]
        for n, u in faces:
            v = [n[1] * u[2] - n[2] * u[1], n[2] * u[0] - n[0] * u[2], n[0] * u[1] - n[1] * u[0]]
            base = len(pos)
            for su, sv in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
                p = [centre[k] + (n[k] + su * u[k] + sv * v[k]) * (hx, hy, hz)[k] for k in range(3)]
                pos.append(p)
                nrm.append(list(n))
                uv.append([(su + 1) / 2, (sv + 1) / 2])
                jnt.append([j, 0, 0, 0])
                wgt.append([1.0, 0.0, 0.0, 0.0])
            idx += [base, base + 1, base + 2, base, base + 2, base + 3]
    lo = [min(p[k] for p in pos) for k in range(3)]
    hi = [max(p[k] for p in pos) for k in range(3)]
    a_pos = add(b"".join(struct.pack("<3f", *p) for p in pos), None, len(pos), "VEC3", 5126, 34962, (lo, hi))
    a_nrm = add(b"".join(struct.pack("<3f", *p) for p in nrm), None, len(nrm), "VEC3", 5126, 34962)
    a_uv = add(b"".join(struct.pack("<2f", *p) for p in uv), None, len(uv), "VEC2", 5126, 34962)
    a_jnt = add(b"".join(struct.pack("<4B", *p) for p in jnt), None, len(jnt), "VEC4", 5121, 34962)
    a_wgt = add(b"".join(struct.pack("<4f", *p) for p in wgt), None, len(wgt), "VEC4", 5126, 34962)
    a_idx = add(b"".join(struct.pack("<H", i) for i in idx), None, len(idx), "SCALAR", 5123, 34963)
    a_ibm = add(b"".join(struct.pack("<16f", *[m[r][c] for c in range(4) for r in range(4)]) for m in ibm),
                None, len(ibm), "MAT4", 5126)

    def keys(times):
        return add(b"".join(struct.pack("<f", t) for t in times), None, len(times), "SCALAR", 5126,
                   minmax=([min(times)], [max(times)]))

    def values(vals, kind):
        n = len(vals[0])
        return add(b"".join(struct.pack("<%df" % n, *v) for v in vals), None, len(vals), kind, 5126)

    animations = []

    def channel(anim, node, path, times, vals, interpolation="LINEAR"):
        kind = "VEC4" if path == "rotation" else "VEC3"
        anim["samplers"].append({"input": keys(times), "output": values(vals, kind), "interpolation": interpolation})
        anim["channels"].append({"sampler": len(anim["samplers"]) - 1, "target": {"node": node, "path": path}})

    walk = {"name": "Walk", "samplers": [], "channels": []}
    t5 = [0, 0.25, 0.5, 0.75, 1.0]
    swing = [0, 30, 0, -30, 0]
    jid = {name: first_joint + j for j, (name, _, _) in enumerate(JOINTS)}
    channel(walk, jid["UpperLeg.L"], "rotation", t5, [quat_axis([1, 0, 0], a) for a in swing])
    channel(walk, jid["UpperLeg.R"], "rotation", t5, [quat_axis([1, 0, 0], -a) for a in swing])
    channel(walk, jid["LowerLeg.L"], "rotation", t5, [quat_axis([1, 0, 0], -abs(a)) for a in swing])
    channel(walk, jid["LowerLeg.R"], "rotation", t5, [quat_axis([1, 0, 0], -abs(a)) for a in swing])
    channel(walk, jid["UpperArm.L"], "rotation", t5, [quat_axis([1, 0, 0], -a * 0.7) for a in swing])
    channel(walk, jid["UpperArm.R"], "rotation", t5, [quat_axis([1, 0, 0], a * 0.7) for a in swing])
    channel(walk, jid["Hips"], "translation", t5, [[0, 0, 95 + 3 * math.cos(4 * math.pi * t)] for t in t5])
    # CUBICSPLINE: in-tangent, value, out-tangent per key.
    spine = []
    for t in [0, 0.5, 1.0]:
        q = quat_axis([0, 0, 1], 10 * math.cos(2 * math.pi * t))
        spine += [[0, 0, 0.2, 0], q, [0, 0, -0.1, 0]]
    channel(walk, jid["Spine"], "rotation", [0, 0.5, 1.0], spine, "CUBICSPLINE")
    # The armature object itself moves forward (root motion on the Blender object).
    channel(walk, 0, "translation", [0, 1.0], [[0.5, 0.0, -1.0], [0.5, 0.0, -0.2]])
    animations.append(walk)

    idle = {"name": "Idle", "samplers": [], "channels": []}
    channel(idle, jid["Head"], "rotation", [0, 0.5, 1.0, 1.5, 2.0],
            [quat_axis([0, 0, 1], a) for a in (0, 20, 0, -20, 0)], "STEP")
    channel(idle, jid["Spine"], "rotation", [0, 1.0, 2.0], [quat_axis([1, 0, 0], a) for a in (0, 5, 0)])
    animations.append(idle)

    doc = {
        "asset": {"version": "2.0", "generator": "tests/animation/gltf/make_walker.py (Blender-style layout)"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": nodes,
        "meshes": [{"name": "Body", "primitives": [{
            "attributes": {"POSITION": a_pos, "NORMAL": a_nrm, "TEXCOORD_0": a_uv, "JOINTS_0": a_jnt,
                           "WEIGHTS_0": a_wgt},
            "indices": a_idx, "material": 0}]}],
        "materials": [{"name": "Skin", "pbrMetallicRoughness": {
            "baseColorTexture": {"index": 0}, "baseColorFactor": [1, 1, 1, 1], "metallicFactor": 0.0,
            "roughnessFactor": 0.8}}],
        "textures": [{"source": 0, "sampler": 0}],
        "samplers": [{"magFilter": 9729, "minFilter": 9987, "wrapS": 10497, "wrapT": 10497}],
        "images": [{"uri": "checker.png"}],
        "skins": [{"name": "Armature", "joints": [first_joint + j for j in range(len(JOINTS))],
                   "inverseBindMatrices": a_ibm}],
        "animations": animations,
        "accessors": accessors,
        "bufferViews": views,
        "buffers": [{"byteLength": len(blob),
                     "uri": "data:application/octet-stream;base64," + base64.b64encode(bytes(blob)).decode()}],
    }
    with open("walker.gltf", "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    with open("checker.png", "wb") as f:
        f.write(checker_png())


if __name__ == "__main__":
    main()
