#!/usr/bin/env python3
"""The ABI check: runs abi_dump (the headers as the compiler reads them) and fails when
  - a struct field is an enum or bool (their size is the compiler's choice: use fixed-width ints),
  - api/ct_version.h and meson.build disagree on the SDK version,
  - the dump differs from tests/abi/abi_manifest.txt (regenerate it: ninja -C build abi-manifest),
  - any struct or enum of any published release (tests/abi/releases/*.txt) differs in the
    current headers: size, alignment, and each field's offset, size and type; enum sizes and
    enumerator values. Field names may change (not an ABI change); new structs only add.
The release check reads the live headers, never the current manifest, so regenerating the
manifest cannot make a published struct's change pass.

usage: check_abi.py ABI_DUMP MANIFEST RELEASES_DIR MESON_VERSION
"""
import difflib
import pathlib
import subprocess
import sys


def parse(text):
    """Returns (version, structs, enums, values): structs name -> (layout, fields), fields a list
    of (name, offset size type); enums name -> size line; values 'enum.X' -> value."""
    version, structs, enums, values = None, {}, {}, {}
    for line in text.splitlines():
        words = line.split(" ")
        if words[0] == "sdk":
            version = words[1]
        elif words[1] == "enum" and words[3] == "size":
            enums[words[2]] = words[4]
        elif words[1] == "enum":
            values[words[2]] = words[4]
        elif words[2] == "size":
            structs[words[1]] = (" ".join(words[2:]), [])
        else:
            owner, field = words[1].split(".", 1)
            structs[owner][1].append((field, " ".join(words[2:])))
    return version, structs, enums, values


def release_problems(release, current):
    _, r_structs, r_enums, r_values = parse(release)
    _, c_structs, c_enums, c_values = parse(current)
    for name, (layout, fields) in r_structs.items():
        if name not in c_structs:
            yield f"struct {name} is gone"
            continue
        c_layout, c_fields = c_structs[name]
        if layout != c_layout:
            yield f"struct {name}: was '{layout}', now '{c_layout}'"
        for i, (field, shape) in enumerate(fields):
            now = c_fields[i] if i < len(c_fields) else None
            if now is None:
                yield f"struct {name}: field {field} ({shape}) is gone"
            elif now[1] != shape:
                yield f"struct {name}: field {field} was '{shape}', now {now[0]} '{now[1]}'"
        for field, shape in c_fields[len(fields):]:
            yield f"struct {name}: field {field} ({shape}) was added to a published struct"
    for name, size in r_enums.items():
        if c_enums.get(name) != size:
            yield f"enum {name}: size was {size}, now {c_enums.get(name, 'gone')}"
    for name, value in r_values.items():
        if c_values.get(name) != value:
            yield f"enum {name}: value was {value}, now {c_values.get(name, 'gone')}"


def main():
    dump, manifest, releases, meson_version = sys.argv[1:5]
    current = subprocess.run([dump], check=True, capture_output=True, text=True).stdout
    failed = False
    forbidden = [l for l in current.splitlines() if l.endswith("FORBIDDEN(enum or bool)")]
    if forbidden:
        failed = True
        print("abi: enum or bool fields in frozen structs (use uint32_t/int32_t or uint8_t):")
        print("\n".join("  " + l for l in forbidden))
    version = parse(current)[0]
    if version != meson_version:
        failed = True
        print(f"abi: api/ct_version.h says {version}, meson.build says {meson_version}")
    published = pathlib.Path(manifest).read_text()
    if published != current:
        failed = True
        print("abi: the headers differ from tests/abi/abi_manifest.txt (- manifest, + headers).")
        print("     A published struct must not change: add ct_x_api_vN+1 instead. After adding,")
        print("     regenerate with `ninja -C build abi-manifest`; its diff must only add lines.")
        sys.stdout.writelines(difflib.unified_diff(published.splitlines(True),
                                                   current.splitlines(True), "manifest", "headers"))
    checked = 0
    for path in sorted(pathlib.Path(releases).glob("*.txt")):
        problems = list(release_problems(path.read_text(), current))
        checked += 1
        if problems:
            failed = True
            print(f"abi: release {path.stem} is broken by the current headers:")
            print("\n".join("  " + p for p in problems))
    if failed:
        return 1
    n = len(parse(current)[1])
    print(f"abi: {n} structs match the manifest; {checked} published release(s) intact"
          + ("" if checked else " (none published yet: tests/abi/releases/ is empty)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
