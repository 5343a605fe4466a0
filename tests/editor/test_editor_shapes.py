#!/usr/bin/env python3
"""The level editor on bodies whose shape is a hull or a compound (body sources of format 4), in
headless Chromium against a running engine: the yard becomes a floor, a hull rock and a compound
table; the outline lists them, the inspector lists the table's and the rock's fields (the shape's
type, its children, its points) without a script error, an edit of the table's mass through the
inspector reaches the engine's world (the body is compiled again: still a compound, now of the new
mass), and the saved file keeps the shapes. Screenshots go to OUT_DIR (editor-shapes-*.png).

Usage: test_editor_shapes.py SOURCE_DIR BUILD_DIR OUT_DIR
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402
from editor_fixture import Console, Yard, check, compile_project, skip_without_chromium  # noqa: E402
from test_editor_browser import entity_count, object_by_name  # noqa: E402

SHAPES_LEVEL = """// The editor's shapes test: a floor, a hull rock and a compound table.
entities = [
  {
    name = "floor"
    components = {
      transform = { position = [0 -0.5 0] }
      body = { kind = "static" shape = "box" half_extents = [50 0.5 50] friction = 0.6 }
      mesh = { mesh = "meshes/floor" material = "materials/floor" }
    }
  }
  {
    name = "rock"
    components = {
      transform = { position = [2 0.3142857 0] }
      body = { kind = "static" shape = { type = "hull" points = [
        [-0.7 0 -0.5] [0.7 0 -0.5] [0.7 0 0.5] [-0.7 0 0.5]
        [-0.35 0.8 -0.25] [0.35 0.8 -0.25] [0.35 0.8 0.25] [-0.35 0.8 0.25] ] } }
      mesh = { mesh = "meshes/crate" material = "materials/wood" }
    }
  }
  {
    name = "table"
    components = {
      transform = { position = [-1 0.7 0] }
      body = { mass = 20 rotates = true shape = { type = "compound" children = [
        { shape = { type = "box" half_extents = [0.8 0.05 0.5] } position = [0 0.75 0] }
        { shape = { type = "box" half_extents = [0.05 0.35 0.05] } position = [-0.7 0.35 -0.4] }
        { shape = { type = "box" half_extents = [0.05 0.35 0.05] } position = [0.7 0.35 -0.4] }
        { shape = { type = "box" half_extents = [0.05 0.35 0.05] } position = [0.7 0.35 0.4] }
        { shape = { type = "hull" points = [[0 0 0] [0.1 0 0] [0 0.7 0] [0 0 0.1] [0.1 0.7 0.1]] }
          position = [-0.75 0 0.35] }
      ] } }
      mesh = { mesh = "meshes/crate" material = "materials/wood" }
    }
  }
]
"""


def shape_of(con, guid):
    return con.lua('local w = Editor.world(); local e = Editor.entity("%s"); '
                   'if not e then return "none" end; return Actor.shape(w, e)' % guid)[0]


def fields_of(page):
    return page.eval("[...document.querySelectorAll('#inspector .field')].map((r) => r.dataset.key)")


def main():
    src, build, out = sys.argv[1:4]
    skip_without_chromium()
    os.makedirs(out, exist_ok=True)
    with Yard(src, build, "cuttle-editor-shapes-") as yard:
        proj = yard.proj
        with open(os.path.join(proj, "levels/yard.level"), "w") as f:
            f.write(SHAPES_LEVEL)
        r = compile_project(build, proj)
        check(r.returncode == 0, "the level of a hull and a compound compiles (%s)" % r.stderr.strip()[-300:])
        port, console_port = yard.start()
        con = Console(console_port)
        with cdp.Browser() as browser:
            a = browser.new_page("http://127.0.0.1:%d/?user=alice" % port)
            a.eval("window.scriptErrors = []; window.addEventListener('error', (e) => scriptErrors.push(String(e.message)))")
            a.wait("editor.connected && editor.shown > 0", what="the page's welcome and first frame")
            names = a.eval("[...document.querySelectorAll('#outline .row')].map((r) => r.firstChild.textContent)")
            check(names == ["floor", "rock", "table"], "the outline lists the level: %s" % names)
            check(entity_count(con) == 3, "the engine spawned the 3 entities")
            rock, table = object_by_name(a, "rock"), object_by_name(a, "table")
            check(shape_of(con, rock) == "hull" and shape_of(con, table) == "compound",
                  "the engine's bodies are a hull and a compound")

            a.eval("select(%s)" % json.dumps(table))
            a.wait("document.querySelector('#inspector h2') && document.querySelector('#inspector h2').textContent === 'table'",
                   what="the table in the inspector")
            keys = fields_of(a)
            for want in ("components.body.mass", "components.body.shape.type", "components.body.shape.children"):
                check(want in keys, "the inspector lists %s (of %d fields)" % (want, len(keys)))
            a.screenshot(os.path.join(out, "editor-shapes-table.png"))

            # The mass typed into the inspector: the body is compiled again from the edited source.
            a.eval("(() => { const i = document.querySelector('[data-key=\"components.body.mass\"] input');"
                   " i.focus(); i.select(); })()")
            a.type_text("35")
            a.key("Enter", "Enter", 13)
            a.wait("editor.lastOps && editor.lastOps.ops.some((o) => o.key === 'components.body.mass')",
                   what="the engine's answer to the mass")
            check(shape_of(con, table) == "compound", "after the edit the table is still a compound")

            a.eval("select(%s)" % json.dumps(rock))
            a.wait("document.querySelector('#inspector h2').textContent === 'rock'", what="the rock in the inspector")
            keys = fields_of(a)
            check("components.body.shape.points" in keys, "the inspector lists the rock's points (%s)" % keys)
            a.screenshot(os.path.join(out, "editor-shapes-rock.png"))
            errors = a.eval("scriptErrors")
            check(errors == [], "no script error on the page: %s" % errors)

            # Saved, the file keeps both shapes and the new mass.
            a.eval("send({type: 'save'})")
            a.wait("[...document.querySelectorAll('#log li')].some((l) => l.textContent.includes('saved'))",
                   what="the save")
            a.wait("[...document.querySelectorAll('#log li')].some((l) => "
                   "/compiled the project|compile failed/.test(l.textContent))", what="the compile after the save")
            check(a.eval("[...document.querySelectorAll('#log li')].some((l) => "
                         "l.textContent.includes('compiled the project'))"), "the saved level compiles again")
            saved = open(os.path.join(proj, "levels/yard.level")).read()
            check('type = "hull"' in saved and 'type = "compound"' in saved and "mass = 35" in saved,
                  "the saved file keeps the hull, the compound and the new mass")
        yard.stop()
        print("PASS")


if __name__ == "__main__":
    main()
