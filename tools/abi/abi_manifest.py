#!/usr/bin/env python3
"""Finds every struct and enum in api/*.h and writes a C++ program that prints the ABI manifest:
the SDK version, then per struct its size and alignment and, per field, its offset, size and
full type as the compiler sees it (typedefs resolved, so a function pointer's line is its whole
signature: return type and every parameter type); per enum its size and the value of every
enumerator written out. Fields whose type is an enum or bool are marked FORBIDDEN: their size
is the compiler's choice, so frozen structs use fixed-width integers.

C++ because it alone can name a type: the dump asks typeid for each field's type and demangles
it, which is the compiler's own reading of the header, not this script's. Checked in as
tests/abi/abi_manifest.txt (the current state) and tests/abi/releases/<version>.txt (published).

usage: abi_manifest.py API_DIR OUT.cpp [CC...]
  CC: a C compiler command; with it, enumerators written through an X-macro list (ct_error) are
  read from the preprocessed header too.
"""
import pathlib
import re
import subprocess
import sys

STRUCT = re.compile(r"typedef\s+struct\s+(\w+)\s*\{(.*?)\}\s*(\w+)\s*;", re.S)
ENUM = re.compile(r"(?:typedef\s+)?enum\s*(\w*)\s*\{(.*?)\}\s*(\w*)\s*;", re.S)
ENUMERATOR = re.compile(r"^\s*([A-Z][A-Z0-9_]*)\s*(?:=[^,]*)?,?\s*$")
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
FUNC_PTR = re.compile(r"\(\s*\*\s*(\w+)\s*\)")
ATTRIBUTE = re.compile(r"__attribute__\s*\(\(.*?\)\)", re.S)


def fields(body):
    body = COMMENT.sub("", body)
    # Preprocessor lines inside a struct only wrap attributes; drop them with the attributes.
    body = "\n".join(l for l in body.splitlines() if not l.strip().startswith("#"))
    body = ATTRIBUTE.sub("", body)
    # An anonymous union gives one place two names (a field renamed for C++20, its old name kept
    # for C): the first member is the field, the others are C-only aliases. The C++ branch of the
    # header repeats the first name; each is listed once.
    body = re.sub(r"\bunion\s*\{\s*([^;]*;)[^}]*\}", r"\1", body)
    seen = set()
    for name in declared(body):
        if name not in seen:
            seen.add(name)
            yield name


def declared(body):
    for decl in body.split(";"):
        decl = " ".join(decl.split())
        if not decl:
            continue
        m = FUNC_PTR.search(decl)
        if m:
            yield m.group(1)
            continue
        # "uint16_t major, minor" or "float position[3]": the names follow the type.
        first, *rest = decl.split(",")
        yield re.sub(r"\[.*?\]", "", first).split()[-1].lstrip("*")
        for name in rest:
            yield re.sub(r"\[.*?\]", "", name).strip().lstrip("*")


def enumerators(body):
    """Enumerators written out, one or several to a line (comments are gone already); an X-macro
    list yields none here (see expanded_enumerators)."""
    for line in body.splitlines():
        for piece in line.split(","):
            m = ENUMERATOR.match(piece)
            if m:
                yield m.group(1)


def expanded_enumerators(cc, header, name):
    """The enumerators of enum `name` after the preprocessor expanded the header's macros."""
    if not cc or not name:
        return []
    text = subprocess.run(cc + ["-E", "-P", "-x", "c", str(header)], check=True,
                          capture_output=True, text=True).stdout
    m = re.search(r"enum\s+" + name + r"\s*\{(.*?)\}", text, re.S)
    return re.findall(r"\b(CT_[A-Z0-9_]+)\s*=", m.group(1)) if m else []


PRELUDE = r"""
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cxxabi.h>
#include <type_traits>
#include <typeinfo>

static void type_name(const std::type_info &t, char *out, size_t size)
{
    int status = 0;
    char *readable = abi::__cxa_demangle(t.name(), nullptr, nullptr, &status);
    std::snprintf(out, size, "%s", status == 0 && readable ? readable : t.name());
    std::free(readable);
}

template <typename S>
static void record(const char *header, const char *name)
{
    std::printf("%s %s size %zu align %zu\n", header, name, sizeof(S), alignof(S));
}

template <typename F>
static void field(const char *header, const char *owner, const char *name, size_t offset)
{
    typedef typename std::remove_all_extents<F>::type element;
    char type[1024];
    type_name(typeid(F), type, sizeof type);
    const bool forbidden = std::is_enum<element>::value || std::is_same<element, bool>::value;
    std::printf("%s %s.%s offset %zu size %zu type %s%s\n", header, owner, name, offset,
                sizeof(F), type, forbidden ? " FORBIDDEN(enum or bool)" : "");
}

#define FIELD(header, S, f) field<decltype(S::f)>(header, #S, #f, offsetof(S, f))
#define ENUM_SIZE(header, E) std::printf("%s enum %s size %zu\n", header, #E, sizeof(E))
#define ENUM_VALUE(header, E, value) \
    std::printf("%s enum %s.%s = %lld\n", header, E, #value, (long long)(value))
"""


def main():
    api_dir, out, cc = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3:]
    headers = sorted(p.name for p in api_dir.glob("*.h"))
    lines = ["/* Generated by tools/abi/abi_manifest.py: do not edit. */"]
    lines += [f'#include "{h}"' for h in headers]
    lines += [PRELUDE, "int main()", "{"]
    lines.append('    std::printf("sdk %s\\n", CT_SDK_VERSION_STRING);')
    for h in headers:
        text = COMMENT.sub("", (api_dir / h).read_text())
        for m in STRUCT.finditer(text):
            name = m.group(3)
            lines.append(f'    record<{name}>("{h}", "{name}");')
            for f in fields(m.group(2)):
                lines.append(f'    FIELD("{h}", {name}, {f});')
        for m in ENUM.finditer(text):
            name = m.group(3) or m.group(1)
            if name:
                lines.append(f'    ENUM_SIZE("{h}", {name});')
            label = name or "(anonymous)"
            listed = list(enumerators(m.group(2)))
            for e in listed or expanded_enumerators(cc, api_dir / h, m.group(1) or name):
                lines.append(f'    ENUM_VALUE("{h}", "{label}", {e});')
    lines += ["    return 0;", "}"]
    out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
