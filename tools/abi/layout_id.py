#!/usr/bin/env python3
"""Writes a module's layout identity: the number a hot reload compares (ct_reload.h) before the
new code adopts the old code's state, made from the layouts of the module's roots (its state
block and the per-world managers the worlds keep across a reload) and every struct they reach.

Why: the state block's size does not change when a struct it points to does, so a hand-bumped
number let a forgotten bump through as silent heap corruption under --watch. Here the number
follows the code: a field added, removed, moved, retyped or resized anywhere in what the roots
reach changes it, and the new code refuses the old state.

How: the module's headers are read as text (as abi_manifest.py reads api/); from each root, every
identifier in a field's declaration that names a struct defined in those headers is followed. The
output is a header defining LAYOUT_MACRO as a C integer constant expression the module compiles
itself: a hash of the reached declarations' text, plus each struct's sizeof and alignment and each
named field's offsetof and sizeof, each times its own odd constant (mod 2^32). So the compiler
measures every struct with the module's own flags and macros (an array sized by a macro counts),
and the number needs no program to run at build time. A struct reached only by a pointer to a tag
no header defines is named in the header's comment as not measured.

usage: layout_id.py OUT.h DEPFILE LAYOUT_MACRO HEADER_DIR ROOT_TYPE...
"""
import hashlib
import pathlib
import re
import sys
import textwrap

COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
IDENT = re.compile(r"\b[A-Za-z_]\w*\b")
STRUCT_START = re.compile(r"\b(typedef\s+)?struct\s+(\w*)\s*\{")


def strip(text):
    text = COMMENT.sub(" ", text)
    return "\n".join(l for l in text.splitlines() if not l.lstrip().startswith("#"))


def closing(text, i):
    """Index of the brace that closes the one at text[i]."""
    depth = 0
    for j in range(i, len(text)):
        depth += {"{": 1, "}": -1}.get(text[j], 0)
        if depth == 0:
            return j
    raise ValueError("unbalanced braces")


def top_level(body):
    """The declarations of a struct body, split at the semicolons outside nested braces."""
    decls, depth, start = [], 0, 0
    for i, ch in enumerate(body):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if ch == ";" and depth == 0:
            decls.append(" ".join(body[start:i].split()))
            start = i + 1
    return [d for d in decls if d]


def member_name(decl):
    """The member a declaration names (None: anonymous or a bit-field, which offsetof refuses)."""
    if ":" in decl.split("}")[-1]:
        return None
    m = re.search(r"\(\s*\*\s*(\w+)\s*\)", decl)  # a function pointer
    if m and "{" not in decl:
        return m.group(1)
    tail = decl.split("}")[-1] if "{" in decl else decl
    tail = re.sub(r"\[.*?\]", "", tail).split(",")[0].strip().lstrip("*").strip()
    if "{" in decl:
        return tail or None
    words = tail.replace("*", " ").split()
    return words[-1] if len(words) >= 2 else None


def structs_of(headers):
    """{name: (typedef name or 'struct tag', [declarations])} of every struct in the headers,
    under both its tag and its typedef name."""
    found = {}
    for header in headers:
        text = strip(header.read_text())
        for m in STRUCT_START.finditer(text):
            end = closing(text, m.end() - 1)
            body = text[m.end():end]
            after = re.match(r"\s*(\w*)", text[end + 1:]).group(1)
            c_name = after if m.group(1) and after else "struct " + m.group(2)
            entry = (c_name, top_level(body))
            if m.group(2):
                found.setdefault(m.group(2), entry)
            if m.group(1) and after:
                found[after] = entry
    return found


def reach(structs, roots):
    order, seen, opaque, todo = [], set(), set(), list(roots)
    while todo:
        name = todo.pop(0)
        if name not in structs:
            raise SystemExit("layout_id.py: no struct %s in the headers given" % name)
        c_name, decls = structs[name]
        if c_name in seen:
            continue
        seen.add(c_name)
        order.append((c_name, decls))
        for decl in decls:
            for m in re.finditer(r"\bstruct\s+(\w+)", decl):
                if m.group(1) not in structs:
                    opaque.add(m.group(1))
            for ident in IDENT.findall(decl):
                if ident in structs and structs[ident][0] not in seen:
                    todo.append(ident)
    return order, sorted(opaque)


def multipliers(seed):
    """Odd 32-bit constants, one per measured value, the same on every build."""
    i = 0
    while True:
        digest = hashlib.sha256(("%s/%d" % (seed, i)).encode()).digest()
        yield int.from_bytes(digest[:4], "little") | 1
        i += 1


def expression(order, macro):
    text = "\n".join(c + "{" + ";".join(d) + "}" for c, d in order)
    base = int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "little")
    terms, k = [], multipliers(macro)
    for c_name, decls in order:
        terms.append("%#010xu * (uint32_t)sizeof(%s)" % (next(k), c_name))
        terms.append("%#010xu * (uint32_t)_Alignof(%s)" % (next(k), c_name))
        for decl in decls:
            member = member_name(decl)
            if member:
                terms.append("%#010xu * (uint32_t)offsetof(%s, %s)" % (next(k), c_name, member))
                if not re.search(r"\[\s*\]$", decl):  # a flexible array has no size
                    terms.append("%#010xu * (uint32_t)sizeof(((%s *)0)->%s)"
                                 % (next(k), c_name, member))
    return "((uint32_t)(%#010xu + \\\n    " % base + " + \\\n    ".join(terms) + "))"


def main(out, depfile, macro, header_dir, *roots):
    # A root may be private to a .c file (the entry file then includes the layout header after
    # it); what the roots reach is followed through the headers only, which every file sees.
    folder = pathlib.Path(header_dir)
    headers, sources = sorted(folder.glob("*.h")), sorted(folder.glob("*.c"))
    structs = structs_of(headers)
    private = structs_of(sources)
    structs.update({r: private[r] for r in roots if r not in structs and r in private})
    order, opaque = reach(structs, roots)
    headers += sources
    guard = re.sub(r"\W", "_", pathlib.Path(out).name).upper()
    measured = ", ".join(c for c, _ in order)
    text = ("Made by tools/abi/layout_id.py from the headers of modules/%s at build time: do not "
            "edit. %s is the layout identity of %s and every struct they reach: %s."
            % (pathlib.Path(header_dir).name, macro, ", ".join(roots), measured))
    if opaque:
        text += " Not measured (no header here defines them): struct %s." % ", struct ".join(opaque)
    lines = textwrap.wrap(text, 96, initial_indent="/* ", subsequent_indent=" * ")
    lines += [" * Include it after the headers that define them. */",
              "#ifndef %s" % guard, "#define %s" % guard, "", "#include <stddef.h>",
              "#include <stdint.h>", "",
              "/* A test may build the module with another value. */",
              "#ifndef %s" % macro, "#define %s %s" % (macro, expression(order, macro)),
              "#endif", "", "#endif", ""]
    pathlib.Path(out).write_text("\n".join(lines))
    pathlib.Path(depfile).write_text("%s: %s\n" % (out, " ".join(str(h) for h in headers)))


if __name__ == "__main__":
    if len(sys.argv) < 6:
        raise SystemExit(__doc__)
    main(*sys.argv[1:])
