#!/usr/bin/env python3
"""Lists what an SDK release adds to the ABI of the one before: every API table version
(ct_x_api_vN), struct and enum its manifest has and the older release's has not, per header, as
Markdown for CHANGELOG.md. Published structs never change, so added names are the whole ABI story.

usage: changelog.py OLD_RELEASE.txt NEW_RELEASE.txt
   e.g. tools/abi/changelog.py tests/abi/releases/0.1.0.txt tests/abi/releases/0.2.0.txt
"""
import sys


def types_of(path):
    """{header: {type name: 'api' | 'struct' | 'enum'}} of a manifest or release file."""
    types = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            words = line.split()
            if len(words) < 4 or words[0] == "sdk":
                continue
            header = words[0]
            if words[1] == "enum":
                name, kind = words[2], "enum"
            else:
                name, kind = words[1], "struct"
            if "." in name or name == "(anonymous)":
                continue  # a field or an enumerator, not a type
            if kind == "struct" and "_api_v" in name:
                kind = "api"
            types.setdefault(header, {})[name] = kind
    return types


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[-2].strip(), file=sys.stderr)
        return 2
    old, new = types_of(sys.argv[1]), types_of(sys.argv[2])
    for header in sorted(new):
        added = {n: k for n, k in new[header].items() if n not in old.get(header, {})}
        if not added:
            continue
        print(f"- `api/{header}`:")
        for kind, label in (("api", "API table"), ("struct", "struct"), ("enum", "enum")):
            names = sorted(n for n, k in added.items() if k == kind)
            if names:
                print(f"  - {label}{'s' if len(names) > 1 else ''}: " +
                      ", ".join(f"`{n}`" for n in names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
