#!/usr/bin/env python3
"""Copies a module's sources with one field added to one of its structs, and makes the copy's
layout header (tools/abi/layout_id.py) as the module's build does: the change a newcomer makes
who adds a field to a per-world manager and bumps nothing. A reload test loads the copy over the
real module and expects the reload refused.

usage: module_with_field.py SRC_DIR OUT_DIR STRUCT FIELD_DECLARATION LAYOUT_HEADER LAYOUT_MACRO
                            ROOT_TYPE... -- FILE...
"""
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools" / "abi"))
import layout_id  # noqa: E402


def main(argv):
    split = argv.index("--")
    src, out, struct, field, header, macro, *roots = argv[:split]
    src, out = pathlib.Path(src), pathlib.Path(out)
    added = 0
    for name in argv[split + 1:]:
        text = (src / name).read_text()
        text, n = re.subn(r"(typedef struct %s \{\n)" % re.escape(struct),
                          lambda m: m.group(1) + "    " + field + "\n", text)
        added += n
        (out / name).write_text(text)
    if added != 1:
        raise SystemExit("module_with_field.py: struct %s defined %d times in %s" % (struct, added,
                                                                                     src))
    layout_id.main(str(out / header), str(out / (header + ".d")), macro, str(out), *roots)


if __name__ == "__main__":
    main(sys.argv[1:])
