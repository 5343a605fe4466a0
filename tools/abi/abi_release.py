#!/usr/bin/env python3
"""Publishes the SDK's ABI: writes tests/abi/releases/<version>.txt (the version from
api/ct_version.h) and refreshes tests/abi/abi_manifest.txt. Refuses a version already published
(a release is never rewritten: bump api/ct_version.h and meson.build's version instead) and
headers with enum or bool fields.

usage: abi_release.py ABI_DUMP RELEASES_DIR MANIFEST   (ninja -C build abi-release)
"""
import pathlib
import subprocess
import sys


def main():
    dump, releases, manifest = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
    current = subprocess.run([dump], check=True, capture_output=True, text=True).stdout
    version = current.splitlines()[0].split(" ")[1]
    if "FORBIDDEN(" in current:
        print("abi-release: frozen structs hold enum or bool fields; see the abi test")
        return 1
    release = releases / f"{version}.txt"
    if release.exists():
        print(f"abi-release: {release} is already published and never changes; "
              "bump the version in api/ct_version.h and meson.build first")
        return 1
    releases.mkdir(parents=True, exist_ok=True)
    release.write_text(current)
    manifest.write_text(current)
    print(f"abi-release: wrote {release} and {manifest}; commit both")
    return 0


if __name__ == "__main__":
    sys.exit(main())
