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
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402
from editor_fixture import ENGINE_LOG, Console, Yard, check, compile_project, skip_without_chromium  # noqa: E402


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


# A hash of what the page's viewport canvas shows (FNV-1a over its rgba bytes).
CANVAS_HASH = """(() => { const c = document.getElementById('frame');
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let h = 2166136261; for (let i = 0; i < d.length; i++) h = Math.imul(h ^ d[i], 16777619) >>> 0;
  return h; })()"""


def show_page(page):
    """Brings a page's tab to the front and waits until it shows the newest frame announced."""
    page.call("Page.bringToFront")
    page.wait("!document.hidden && editor.shown === editor.frame", what="the page's newest frame once shown")


def check_frames_to_hidden_and_shown_pages(a, b, crate):
    """A hidden page (a tab behind another) is sent no pixels; shown, it gets the newest frame
    whole; a page that has the frame before is sent only the rectangle that changed; and what a
    patched canvas shows is the frame a page sent it whole shows."""
    set_pos = "editor.setProp(%s, 'components.transform.position', {vec3: [%%s, 0.5, %%s]}, true)" % json.dumps(crate)
    check(a.eval("document.hidden") and not b.eval("document.hidden"), "bob's tab is in front of alice's")
    before = a.eval("[editor.shown, {...editor.pixelMessages}]")
    seq = b.eval("editor.opsSeq")
    b.eval(set_pos % (2, 2))
    b.wait("editor.opsSeq > %d && editor.shownOps >= editor.opsSeq" % seq, what="bob's frame of his edit")
    newest = b.eval("editor.shown")
    a.wait("editor.frame === %d" % newest, what="the frame's announcement on alice's hidden page")
    check(a.eval("[editor.shown, editor.pixelMessages]") == before,
          "alice's hidden page was sent no pixels (it shows frame %d, the newest is %d)" % (before[0], newest))
    show_page(a)
    got = a.eval("editor.pixelMessages")
    check(a.eval("editor.shown") == newest and got["whole"] == before[1]["whole"] + 1 and got["change"] == before[1]["change"],
          "shown again, alice's page got the newest frame (%d) whole: %s" % (newest, got))
    for i, (x, z) in enumerate(((-2, 1), (3, -1))):
        seq = a.eval("editor.opsSeq")
        a.eval(set_pos % (x, z))
        a.wait("editor.opsSeq > %d && editor.shownOps >= editor.opsSeq" % seq, what="alice's frame of her edit")
        newest = a.eval("editor.shown")
        now = a.eval("editor.pixelMessages")
        check(now["change"] == got["change"] + 1 and now["whole"] == got["whole"],
              "edit %d: alice's page had the frame before, so it was sent the rectangle that changed: %s" % (i + 1, now))
        got = now
    b_before = b.eval("editor.pixelMessages")
    check(b.eval("editor.shown") < newest, "bob's page, hidden now, was sent none of alice's frames")
    show_page(b)
    check(b.eval("editor.shown") == newest and b.eval("editor.pixelMessages")["whole"] == b_before["whole"] + 1,
          "bob's page, shown again, got frame %d whole" % newest)
    ha, hb = a.eval(CANVAS_HASH), b.eval(CANVAS_HASH)
    check(ha == hb and a.eval("editor.shown") == b.eval("editor.shown"),
          "alice's canvas, patched with rectangles, shows what bob's got whole (hash %08x, %08x)" % (ha, hb))
    show_page(a)


def golden_euler(src):
    """The intrinsic rows of tests/math/golden_euler.inc (from tests/math/golden_euler.py, an
    implementation independent of api/ct_math.h and of the page): (table, order, angles, quat)."""
    rows = []
    table = None
    for line in open(os.path.join(src, "tests/math/golden_euler.inc")):
        if "golden_from_euler[]" in line:
            table = "from"
        elif "golden_to_euler[]" in line:
            table = "to"
        m = re.match(r"\s*\{(\d+), (\d+), \{([^}]*)\}, \{([^}]*)\}, (\d)\},", line)
        if m and m.group(2) == "0":
            rows.append({"table": table, "order": int(m.group(1)), "locked": m.group(5) == "1",
                         "angles": [float(x) for x in m.group(3).split(",")],
                         "quat": [float(x) for x in m.group(4).split(",")]})
    return rows


def check_euler(page, src):
    """The page's Euler conversions in all twelve orders against the golden vectors, and its Euler
    filter on fixed values."""
    rows = golden_euler(src)
    check(len(rows) > 12 * 40, "golden Euler rows read (%d, intrinsic)" % len(rows))
    r = page.eval("""((rows) => {
        const wrap = (a) => ((a + 180) %% 360 + 360) %% 360 - 180;
        const out = { to: 0, from: 0, trip: 0, n: 0 };
        for (const g of rows) {
          const order = %s[g.order];
          const deg = g.angles.map((a) => a * 180 / Math.PI);
          if (g.table === 'to') {
            const e = editor.eulerFromQuat(g.quat, order);
            for (let i = 0; i < 3; i++) out.to = Math.max(out.to, Math.abs(wrap(e[i] - deg[i])));
          } else {
            const q = editor.quatFromEuler(deg, order), s = Math.sign(q[3] * g.quat[3] + q[0] * g.quat[0]
              + q[1] * g.quat[1] + q[2] * g.quat[2]) || 1;
            for (let i = 0; i < 4; i++) out.from = Math.max(out.from, Math.abs(s * q[i] - g.quat[i]));
            // Back through the page's angles: the same rotation, locked or not.
            const back = editor.quatFromEuler(editor.eulerFromQuat(g.quat, order), order);
            const t = Math.sign(back[3] * g.quat[3] + back[0] * g.quat[0] + back[1] * g.quat[1] + back[2] * g.quat[2]) || 1;
            for (let i = 0; i < 4; i++) out.trip = Math.max(out.trip, Math.abs(t * back[i] - g.quat[i]));
          }
          out.n++;
        }
        return out; })(%s)""" % (json.dumps(EULER_ORDERS), json.dumps(rows)))
    check(r["n"] == len(rows) and r["to"] < 1e-6 and r["from"] < 1e-9 and r["trip"] < 1e-7,
          "the page's Euler angles match the golden vectors in all 12 orders (worst: to-angles %.2g deg, "
          "to-quaternion %.2g, round trip %.2g)" % (r["to"], r["from"], r["trip"]))
    # The Euler filter: whole turns, and the other solution (first/third + 180, middle mirrored).
    f = page.eval("[editor.eulerFilter([170, 10, -170], 'XYZ', [-185, 12, 185]),"
                  " editor.eulerFilter([10, 80, 20], 'XYZ', [-170, 100, 200]),"
                  " editor.eulerFilter([30, 40, 50], 'ZXZ', [-150, -40, -130]),"
                  " editor.eulerFilter([30, 40, 50], 'ZXZ', null)]")
    want = [[-190, 10, 190], [-170, 100, 200], [-150, -40, -130], [30, 40, 50]]
    check(all(abs(x - y) < 1e-9 for got, exp in zip(f, want) for x, y in zip(got, exp)),
          "the Euler filter keeps angles continuous: %s" % f)


EULER_ORDERS = ["XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX", "XYX", "XZX", "YXY", "YZY", "ZXZ", "ZYZ"]


def compiled_yard(proj):
    """The compiled files of the yard level (path -> bytes), the reference index left out."""
    found = {}
    for root, _, files in os.walk(os.path.join(proj, "compiled")):
        for f in files:
            if f.startswith("yard") and "references" not in root:
                with open(os.path.join(root, f), "rb") as fh:
                    found[os.path.join(root, f)] = fh.read()
    return found


def main():
    src, build, out = sys.argv[1:4]
    skip_without_chromium()
    os.makedirs(out, exist_ok=True)
    with Yard(src, build, "cuttle-editor-test-") as yard:
        proj = yard.proj
        r = compile_project(build, proj)
        check(r.returncode == 0, "the yard compiles (%s)" % r.stderr.strip()[-200:])
        original = open(os.path.join(proj, "levels/yard.level")).read()
        port, console_port = yard.start()
        con = Console(console_port)
        url = "http://127.0.0.1:%d/" % port
        with cdp.Browser() as browser:
            a = browser.new_page(url + "?user=alice")
            a.wait("editor.connected && editor.shown > 0", what="page A's welcome and first frame")
            # Every frame alice's page shows, with the last edit it shows: checked at the end.
            a.eval("window.shownLog = []; editor.onShown = (n) => shownLog.push([n, editor.shownOps])")
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

            # Rotations as Euler angles in every order of "What is gimbal lock" (all 12 offered).
            check_euler(a, src)
            a.eval("editor.setProp(%s, 'components.transform.rotation', {quat: [0, 0, 0, 1]}, true)" % json.dumps(crate))
            a.wait("!!document.querySelector('[data-key=\"components.transform.rotation\"] select')", what="the rotation field")
            offered = a.eval("[...document.querySelector('[data-key=\"components.transform.rotation\"] select').options].map((o) => o.value)")
            check(offered == EULER_ORDERS, "the rotation offers all 12 Euler orders: %s" % offered)
            a.eval("(() => { const s = document.querySelector('[data-key=\"components.transform.rotation\"] select');"
                   " s.value = 'ZXZ'; s.dispatchEvent(new Event('change')); })()")
            for n, angle in enumerate((30, 40, 50)):
                a.eval("(() => { const i = document.querySelectorAll('[data-key=\"components.transform.rotation\"] input')[%d];"
                       " i.focus(); i.select(); })()" % n)
                a.type_text(str(angle))
                a.key("Enter", "Enter", 13)
                a.wait("Math.abs(editor.eulerFromQuat(prop(%s, 'components.transform.rotation').quat, 'ZXZ')[%d] - %d) < 1e-6"
                       % (json.dumps(crate), n, angle), what="ZXZ angle %d = %d" % (n, angle))
            sys.path.insert(0, os.path.join(src, "tests/math"))
            import golden_euler as gold  # the independent implementation of tests/math
            rad = [math.radians(x) for x in (30, 40, 50)]
            want = gold.quat_of_matrix(gold.matrix_of("ZXZ", 0, rad))
            got = con.lua('return Transform.local_rotation(Editor.world(), Editor.entity("%s"))' % crate)
            sign = 1 if sum(x * y for x, y in zip(got, want)) >= 0 else -1
            check(all(abs(sign * x - y) < 1e-6 for x, y in zip(got, want)),
                  "ZXZ (30, 40, 50) typed in the inspector turned the engine's crate to %s (want %s)" % (got, want))
            shown = a.eval("[...document.querySelectorAll('[data-key=\"components.transform.rotation\"] input')].map((i) => +i.value)")
            check(shown == [30, 40, 50], "the inspector shows ZXZ 30 40 50: %s" % shown)
            a.screenshot(os.path.join(out, "editor-euler.png"))
            a.eval("(() => { const s = document.querySelector('[data-key=\"components.transform.rotation\"] select');"
                   " s.value = 'XYZ'; s.dispatchEvent(new Event('change')); })()")
            xyz = [math.degrees(x) for x in gold.angles_of("XYZ", 0, gold.matrix_of("ZXZ", 0, rad))[0]]
            shown = a.eval("[...document.querySelectorAll('[data-key=\"components.transform.rotation\"] input')].map((i) => +i.value)")
            check(all(abs(x - y) < 1e-3 for x, y in zip(shown, xyz)),
                  "the same rotation in XYZ shows %s (want %s)" % (shown, [round(x, 4) for x in xyz]))
            for _ in range(4):  # the three angles and the rotation itself
                a.eval("document.activeElement.blur(); send({type: 'undo'})")
            a.wait("prop(%s, 'components.transform.rotation') === undefined" % json.dumps(crate), what="the rotation undone")

            # Multiple selection: an edit applies to every selected entity, as one undo item.
            tall = object_by_name(a, "tall crate")
            for who, mods in ((crate, 0), (tall, 2)):
                xy = a.eval("(() => { const r = document.querySelector('#outline .row[data-id=\"%s\"]').getBoundingClientRect();"
                            " return [r.left + 20, r.top + r.height / 2]; })()" % who)
                a.click(xy[0], xy[1], modifiers=mods)
            a.wait("editor.selection.length === 2", what="two selected")
            check(a.eval("document.querySelectorAll('#outline .row.selected').length") == 2,
                  "Ctrl+click in the outline selected the crate and the tall crate")
            a.eval("(() => { const i = document.querySelector('[data-key=\"components.transform.position\"] input[data-axis=x]');"
                   " i.focus(); i.select(); })()")
            a.type_text("7")
            a.key("Enter", "Enter", 13)
            a.wait("prop(%s, 'components.transform.position').vec3[0] === 7 && prop(%s, 'components.transform.position').vec3[0] === 7"
                   % (json.dumps(crate), json.dumps(tall)), what="x = 7 on both")
            check(world_position(con, crate) == [7, 0.5, 0] and world_position(con, tall) == [7, 1, -1],
                  "typing x = 7 moved both selected entities in the engine, each keeping its y and z")
            a.screenshot(os.path.join(out, "editor-multi.png"))
            a.eval("document.activeElement.blur()")
            a.key("z", "KeyZ", 90, modifiers=2)
            a.wait("prop(%s, 'components.transform.position').vec3[0] === -3" % json.dumps(tall), what="one undo for both")
            check(world_position(con, crate) == [2.5, 0.5, 0] and world_position(con, tall) == [-3, 1, -1],
                  "one Ctrl+Z put both back")
            label = a.eval("(() => { const r = document.querySelector('[data-key=\"components.transform.position\"] label')"
                           ".getBoundingClientRect(); return [r.left + 10, r.top + r.height / 2]; })()")
            a.drag(label[0], label[1], label[0] + 50, label[1], steps=10)
            a.wait("Math.abs(prop(%s, 'components.transform.position').vec3[0] + 2) < 1e-9" % json.dumps(tall),
                   what="the drag moved the tall crate by 1 too")
            check(abs(a.eval("prop(%s, 'components.transform.position').vec3[0]" % json.dumps(crate)) - 3.5) < 1e-9,
                  "a drag of the label moved both selected entities by the same amount")
            a.key("z", "KeyZ", 90, modifiers=2)
            a.wait("prop(%s, 'components.transform.position').vec3[0] === -3 && prop(%s, 'components.transform.position').vec3[0] === 2.5"
                   % (json.dumps(tall), json.dumps(crate)), what="one undo for the drag of both")
            check(True, "one Ctrl+Z undid the drag of both")
            a.eval("select(%s)" % json.dumps(crate))

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
            # The pasted rows come with the edit's "ops"; the selection with the paste's answer after it.
            a.wait("editor.selection.length === 1 && editor.selection[0] !== %s" % json.dumps(crate),
                   what="the paste selected")
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
            check_frames_to_hidden_and_shown_pages(a, b, crate)
            show_page(b)

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
            show_page(b)
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
            before = compiled_yard(proj)
            check(before, "the yard has a compiled level")
            a.eval("send({type: 'save'})")
            a.wait("[...document.querySelectorAll('#log li')].some((l) => l.textContent.includes('saved'))")
            # The save compiles the saved file alone (cuttle-compile --changed): the compiled
            # level now holds the moved entities.
            a.wait("[...document.querySelectorAll('#log li')].some((l) => "
                   "/compiled the project|compile failed/.test(l.textContent))", what="the compile after the save")
            check(a.eval("[...document.querySelectorAll('#log li')].some((l) => "
                         "l.textContent.includes('compiled the project'))"), "the compile after the save succeeded")
            after = compiled_yard(proj)
            check(sorted(after) == sorted(before) and any(after[k] != before[k] for k in before),
                  "the save updated the compiled level")
            engine_log = open(ENGINE_LOG[0]).read()
            check("cuttle-compile --changed updated the compiled level" in engine_log,
                  "the compile after the save was told the saved file (--changed)")
            saved = open(os.path.join(proj, "levels/yard.level")).read()
            old_lines, new_lines = original.splitlines(), saved.splitlines()
            check("// The editor tests' yard" in saved and "materials/floor" in saved,
                  "the saved file keeps its comment and untouched entities")
            removed = [l for l in old_lines if l not in new_lines]
            check(all("position" in l for l in removed), "only position lines changed: %s" % removed)
            show_page(a)
            log = a.eval("shownLog")
            check(len(log) >= 20 and all(p[0] < q[0] and p[1] <= q[1] for p, q in zip(log, log[1:])),
                  "alice's page showed %d frames in order, none showing fewer edits than one before it "
                  "(the last shows edit %d)" % (len(log), log[-1][1] if log else -1))
            a.screenshot(os.path.join(out, "editor-session.png"))
            print("screenshots: " + ", ".join(sorted(f for f in os.listdir(out) if f.startswith("editor-"))))
        yard.stop()
        print("PASS")


if __name__ == "__main__":
    main()
