"""What the editor's tests that run an engine share: checks that show the engine's log when they
fail, the engine's console, and the Yard: a copy of the tests' project (tests/editor/project, with
the demo's meshes) in a temporary folder with the engine running on it.

    with Yard(src, build, "cuttle-editor-x-") as yard:
        check(compile_project(build, yard.proj).returncode == 0, "the yard compiles")
        port, console_port = yard.start()
        ...
        yard.stop()
        print("PASS")

Leaving the block stops the engine if it still runs and removes the folder.
"""
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

import cdp


ENGINE_LOG = []  # the running engine's log, shown when a check fails


def fail(msg):
    print("FAIL: " + msg)
    for path in ENGINE_LOG:
        if os.path.exists(path):
            print("---- the engine's log (last 40 lines) ----")
            print("\n".join(open(path).read().splitlines()[-40:]))
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)
    print("ok: " + msg)


class Console:
    """The engine's console: [type u32 BE][length u32 BE][JSON] frames (kernel/console)."""

    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=20)
        self.read()  # hello

    def read(self):
        head = self._exact(8)
        _, n = struct.unpack(">II", head)
        return json.loads(self._exact(n))

    def _exact(self, n):
        buf = b""
        while len(buf) < n:
            chunk = self.s.recv(n - len(buf))
            if not chunk:
                raise RuntimeError("the console closed")
            buf += chunk
        return buf

    def lua(self, code):
        body = json.dumps({"type": "script", "script": code}).encode()
        self.s.sendall(struct.pack(">II", 0, len(body)) + body)
        while True:
            m = self.read()
            if m.get("type") == "script":
                if not m.get("ok", True) or "error" in m:
                    fail("console script failed: %s" % m.get("error"))
                return m.get("results", [])


def make_project(src, tmp):
    proj = os.path.join(tmp, "yard")
    shutil.copytree(os.path.join(src, "tests/editor/project"), proj)
    demo = os.path.join(src, "projects/demo")
    # Only what the yard draws: the demo's crate, floor and marker meshes and materials.
    for sub, names in (("meshes", ("crate.mesh", "crate.obj", "floor.mesh", "floor.obj", "marker.mesh",
                                   "marker.obj")),
                       ("materials", ("wood.material", "floor.material", "marker.material"))):
        os.makedirs(os.path.join(proj, sub))
        for name in names:
            shutil.copy(os.path.join(demo, sub, name), os.path.join(proj, sub))
    shutil.copy(os.path.join(demo, "default.render_config"), proj)
    return proj


def start_engine(build, proj, extra_env=None):
    env = dict(os.environ, CUTTLE_LOG="info", **(extra_env or {}))
    log = open(os.path.join(proj, "engine.log"), "w")
    ENGINE_LOG[:] = [log.name]
    proc = subprocess.Popen([os.path.join(build, "kernel/cuttle"), "--project", proj, "--modules",
                             os.path.join(build, "modules"), "--console", "0",
                             "--editor", "0", "levels/yard"],
                            stdout=subprocess.PIPE, stderr=log, text=True, env=env)
    editor_port = console_port = None
    deadline = time.time() + 60
    while time.time() < deadline and not (editor_port and console_port):
        line = proc.stdout.readline()
        if not line:
            break
        m = re.search(r"editor: http://127\.0\.0\.1:(\d+)/", line)
        if m:
            editor_port = int(m.group(1))
        m = re.search(r"console: listening on 127\.0\.0\.1:(\d+)", line)
        if m:
            console_port = int(m.group(1))
    if not (editor_port and console_port):
        proc.kill()
        log.close()
        fail("the engine did not start its editor and console:\n" + open(log.name).read()[-3000:])
    return proc, editor_port, console_port


def stop_engine(proc):
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def compile_project(build, proj):
    """cuttle-compile over the project; its CompletedProcess (output captured as text)."""
    return subprocess.run([os.path.join(build, "tools/cuttle-compile/cuttle-compile"), "--project", proj,
                           "--modules", os.path.join(build, "modules")], capture_output=True, text=True)


def skip_without_chromium():
    """Exits as skipped (77) when there is no chromium to drive."""
    if not cdp.find_chromium():
        print("SKIP: no chromium (scripts/setup.sh installs it: CUTTLE_TEST_PACKAGES)")
        sys.exit(77)


class Yard:
    """The tests' project copied into a temporary folder (proj), and the engine on it (proc, while
    it runs)."""

    def __init__(self, src, build, prefix):
        self.build = build
        self.tmp = tempfile.mkdtemp(prefix=prefix)
        self.proc = None
        try:
            self.proj = make_project(src, self.tmp)
        except BaseException:
            shutil.rmtree(self.tmp, ignore_errors=True)
            raise

    def start(self, extra_env=None):
        """Starts the engine on the yard level; its editor's and console's ports."""
        self.proc, port, console_port = start_engine(self.build, self.proj, extra_env)
        return port, console_port

    def stop(self):
        stop_engine(self.proc)
        self.proc = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.proc:
            stop_engine(self.proc)
            self.proc = None
        shutil.rmtree(self.tmp, ignore_errors=True)
