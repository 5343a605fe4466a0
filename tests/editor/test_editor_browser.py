#!/usr/bin/env python3
"""A level designer's session in real headless Chromium against a running engine
(`cuttle --editor 0 levels/yard --console 0`), checked through the engine's console:

  open the page; pick the crate by clicking the viewport; type a new position in the inspector
  and see the engine's world move it; Ctrl+Z and Ctrl+Shift+Z; copy and paste through the system
  clipboard; save and compare the file; place a unit; a second page that sees the first page's
  edits live; a conflict (a page whose view lags edits the same field); per-person undo; a page
  that disconnects and comes back to its own session; bad input answered without harm to others.

Screenshots go to OUT_DIR (editor-*.png). Usage:
  test_editor_browser.py SOURCE_DIR BUILD_DIR OUT_DIR
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402


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


def world_position(con, guid):
    r = con.lua('local w = Editor.world(); local e = Editor.entity("%s"); '
                'if not e then return "none" end; return Transform.local_position(w, e)' % guid)
    return r


def entity_count(con):
    return con.lua("return Editor.entity_count()")[0]


def object_by_name(page, name):
    return page.eval("[...editor.objects.keys()].find((id) => editor.objects.get(id).props.has('@order') "
                     "&& nameOf(id) === %s)" % json.dumps(name))


def frame_after(page, n):
    page.wait("editor.shown > %d" % n, what="a frame after %d" % n)


def main():
    src, build, out = sys.argv[1:4]
    if not cdp.find_chromium():
        print("SKIP: no chromium (scripts/setup.sh installs it: CUTTLE_TEST_PACKAGES)")
        sys.exit(77)
    os.makedirs(out, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="cuttle-editor-test-")
    proc = None
    try:
        proj = make_project(src, tmp)
        r = subprocess.run([os.path.join(build, "tools/cuttle-compile/cuttle-compile"), "--project", proj,
                            "--modules", os.path.join(build, "modules")], capture_output=True, text=True)
        check(r.returncode == 0, "the yard compiles (%s)" % r.stderr.strip()[-200:])
        original = open(os.path.join(proj, "levels/yard.level")).read()
        proc, port, console_port = start_engine(build, proj)
        con = Console(console_port)
        url = "http://127.0.0.1:%d/" % port
        with cdp.Browser() as browser:
            a = browser.new_page(url + "?user=alice")
            a.wait("editor.connected && editor.shown > 0", what="page A's welcome and first frame")
            names = a.eval("[...document.querySelectorAll('#outline .row')].map((r) => r.firstChild.textContent)")
            check(names == ["floor", "crate", "tall crate", "markers"], "the outline lists the level: %s" % names)
            check(entity_count(con) == 8, "the engine spawned 8 entities (markers repeat 5 times)")
            crate = object_by_name(a, "crate")

            # Pick the crate by clicking where the viewport shows it.
            xy = a.eval("""(() => { const c = editor.camera, v = editor.viewRect(); const p = [0, 0.5, 0];
                const d = [p[0]-c.eye[0], p[1]-c.eye[1], p[2]-c.eye[2]];
                const dot = (a) => a[0]*d[0]+a[1]*d[1]+a[2]*d[2]; const z = -dot(c.back);
                const t = Math.tan(c.fov*Math.PI/360);
                return [v.left + (dot(c.right)/(z*t*v.aspect)+1)/2*v.width,
                        v.top + (1-dot(c.up)/(z*t))/2*v.height]; })()""")
            a.click(xy[0], xy[1])
            a.wait("editor.selection[0] === %s" % json.dumps(crate), what="the crate picked")
            check(True, "clicking the viewport at (%.0f, %.0f) picked the crate" % tuple(xy))
            a.screenshot(os.path.join(out, "editor-picked.png"))

            # Type a new x into the inspector; the engine's world moves the crate.
            shown = a.eval("editor.shown")
            a.eval("(() => { const i = document.querySelector('[data-key=\"components.transform.position\"] input[data-axis=x]');"
                   " i.focus(); i.select(); })()")
            a.type_text("2.5")
            a.key("Enter", "Enter", 13)
            a.wait("editor.lastOps && editor.lastOps.ops.some((o) => o.key === 'components.transform.position')",
                   what="the engine's answer")
            check(world_position(con, crate) == [2.5, 0.5, 0], "the engine's world has the crate at x 2.5")
            frame_after(a, shown)
            a.screenshot(os.path.join(out, "editor-moved.png"))

            # Undo and redo with the keyboard.
            a.key("z", "KeyZ", 90, modifiers=2)
            a.wait("editor.canRedo", what="undo")
            a.wait("prop(%s, 'components.transform.position').vec3[0] === 0" % json.dumps(crate))
            check(world_position(con, crate) == [0, 0.5, 0], "Ctrl+Z put the crate back in the engine")
            a.key("Z", "KeyZ", 90, modifiers=2 | 8)
            a.wait("prop(%s, 'components.transform.position').vec3[0] === 2.5" % json.dumps(crate))
            check(world_position(con, crate) == [2.5, 0.5, 0], "Ctrl+Shift+Z moved it again")

            # A drag of the label scrubs many values and is one undo item.
            label = a.eval("(() => { const r = document.querySelector('[data-key=\"components.transform.position\"] label')"
                           ".getBoundingClientRect(); return [r.left + 10, r.top + r.height / 2]; })()")
            a.drag(label[0], label[1], label[0] + 50, label[1], steps=10)
            a.wait("Math.abs(prop(%s, 'components.transform.position').vec3[0] - 3.5) < 1e-9" % json.dumps(crate),
                   what="the drag's last value (2.5 + 50 * 0.02)")
            a.key("z", "KeyZ", 90, modifiers=2)
            a.wait("prop(%s, 'components.transform.position').vec3[0] === 2.5" % json.dumps(crate),
                   what="one undo for the whole drag")
            check(True, "a drag of 10 steps was undone by one Ctrl+Z")

            # Copy and paste through the system clipboard.
            a.key("c", "KeyC", 67, modifiers=2)
            a.wait("editor.clipboard", what="the copy")
            clip = a.eval("navigator.clipboard.readText()")
            check(clip and "crate" in clip, "Ctrl+C put the data model's text on the system clipboard")
            before = entity_count(con)
            a.key("v", "KeyV", 86, modifiers=2, commands=["paste"])
            a.wait("document.querySelectorAll('#outline .row').length === 5", what="the pasted crate")
            after = entity_count(con)
            check(after == before + 1, "Ctrl+V pasted a crate into the engine's world (%d -> %d entities)" % (before, after))
            pasted = a.eval("editor.selection[0]")
            check(pasted != crate and world_position(con, pasted) == [2.5, 0.5, 0],
                  "the paste is a new object where the copy was")

            # Place a unit from the project.
            a.eval("send({type: 'place', unit: 'units/lamp', position: [3, 0, 3]})")
            a.wait("document.querySelectorAll('#outline .row').length === 6", what="the lamp")
            lamp = object_by_name(a, "lamp")
            check(world_position(con, lamp) == [3, 0, 3], "a placed unit stands where it was put")

            # A second person sees the edits live.
            b = browser.new_page(url + "?user=bob")
            b.wait("editor.connected && editor.shown > 0", what="page B's welcome")
            check(b.eval("document.querySelectorAll('#outline .row').length") == 6, "page B shows the same level")
            a.eval("editor.setProp(%s, 'components.transform.position', {vec3: [1, 0.5, 1]}, true)" % json.dumps(crate))
            b.wait("prop(%s, 'components.transform.position').vec3[0] === 1" % json.dumps(crate),
                   what="alice's edit on bob's page")
            check(True, "bob's page shows alice's edit")

            # A conflict: bob's view lags (his page holds updates) while both edit the same field.
            b.eval("editor.hold = true")
            a.eval("editor.setProp(%s, 'components.transform.position', {vec3: [4, 0.5, 1]}, true)" % json.dumps(crate))
            a.wait("prop(%s, 'components.transform.position').vec3[0] === 4" % json.dumps(crate))
            b.eval("editor.setProp(%s, 'components.transform.position', {vec3: [1, 0.5, -2]}, true)" % json.dumps(crate))
            b.eval("editor.release()")
            a.wait("editor.conflicts.length > 0", what="the conflict on alice's page")
            b.wait("editor.conflicts.length > 0", what="the conflict on bob's page")
            c = a.eval("editor.conflicts[0]")
            check(c["winner"]["by"] == "bob" and c["loser"]["by"] == "alice" and
                  c["loser"]["value"]["vec3"] == [4, 0.5, 1] and c["winner"]["value"]["vec3"] == [1, 0.5, -2],
                  "the conflict shows both values and who set them: %s" % json.dumps(c))
            check(world_position(con, crate) == [1, 0.5, -2], "the later edit (bob's) is in the engine")
            a.eval("select(%s)" % json.dumps(crate))
            b.eval("select(%s)" % json.dumps(crate))
            a.wait("!!document.querySelector('.field .conflict')", what="the conflict in alice's inspector")
            b.wait("!!document.querySelector('.field .conflict')", what="the conflict in bob's inspector")
            check("bob: [1 0.5 -2] replaced alice: [4 0.5 1]" in a.eval("document.querySelector('.field .conflict').textContent"),
                  "the inspector shows the conflict beside the field")
            b.screenshot(os.path.join(out, "editor-conflict.png"))

            # Per-person undo: alice's undo keeps bob's later value and says so.
            a.key("z", "KeyZ", 90, modifiers=2)
            a.wait("[...document.querySelectorAll('#log li.conflict')].some((l) => l.textContent.includes('undo kept bob'))",
                   what="alice's undo report")
            check(world_position(con, crate) == [1, 0.5, -2], "alice's undo did not undo bob's change")
            b.key("z", "KeyZ", 90, modifiers=2)
            b.wait("prop(%s, 'components.transform.position').vec3[2] !== -2" % json.dumps(crate), what="bob's undo")
            check(world_position(con, crate) != [1, 0.5, -2], "bob's undo undid bob's change")
            b.key("Z", "KeyZ", 90, modifiers=2 | 8)
            b.wait("prop(%s, 'components.transform.position').vec3[2] === -2" % json.dumps(crate))

            # Bob's page drops its connection and comes back to his session (his undo still works).
            session = b.eval("editor.session")
            b.eval("editor.ws.close()")
            b.wait("!editor.connected", what="the drop")
            a.eval("editor.setProp(%s, 'components.transform.position', {vec3: [0, 3, 0]}, true)" % json.dumps(lamp))
            b.wait("editor.connected && editor.session === %s" % json.dumps(session), what="bob's page back")
            check(b.eval("prop(%s, 'components.transform.position').vec3[1]" % json.dumps(lamp)) == 3,
                  "the page that came back shows what changed while it was away")
            b.key("z", "KeyZ", 90, modifiers=2)
            b.wait("prop(%s, 'components.transform.position').vec3[2] !== -2" % json.dumps(crate),
                   what="bob's undo after the reconnect")
            check(True, "bob's session (his undo) survived the reconnect")

            # Bad input from one page: an error to it, nothing lost for the other.
            a.eval("editor.ws.send('{\"type\":\"ops\",\"ops\":[{\"op\":\"frobnicate\"}]}')")
            a.eval("editor.setProp(%s, 'components.transform.scale', {vec3: [0, 1, 1]}, true)" % json.dumps(crate))
            a.wait("editor.errors.length >= 2", what="the errors")
            errs = a.eval("editor.errors")
            check(any("frobnicate" in e for e in errs) and any("scale" in e and "range" in e for e in errs),
                  "an unknown operation and a scale of 0 are refused with a reason: %s" % errs)
            check(b.eval("editor.errors.length") == 0 and b.eval("editor.connected"), "bob saw no error")

            # Save, and compare the file: only the changed lines and the ids a tool writes differ.
            a.eval("send({type: 'save'})")
            a.wait("[...document.querySelectorAll('#log li')].some((l) => l.textContent.includes('saved'))")
            saved = open(os.path.join(proj, "levels/yard.level")).read()
            old_lines, new_lines = original.splitlines(), saved.splitlines()
            check("// The editor tests' yard" in saved and "materials/floor" in saved,
                  "the saved file keeps its comment and untouched entities")
            removed = [l for l in old_lines if l not in new_lines]
            check(all("position" in l for l in removed), "only position lines changed: %s" % removed)
            a.screenshot(os.path.join(out, "editor-session.png"))
            print("screenshots: " + ", ".join(sorted(f for f in os.listdir(out) if f.startswith("editor-"))))
        stop_engine(proc)
        proc = None
        print("PASS")
    finally:
        if proc:
            stop_engine(proc)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
