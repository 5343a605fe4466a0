#!/usr/bin/env python3
"""The level editor on every shape a body source takes, in headless Chromium against a running
engine: the yard becomes a floor, a hull rock (its points written with a comment), a compound
table, a capsule pill and a box crate. The outline lists them, the inspector lists the table's and
the rock's fields (the shape's type, its parts, its points) without a script error, and an edit of
the table's mass through the inspector reaches the engine's world (the body is compiled again:
still a compound, now of the new mass).

The shape picker offers every shape and shows the body's own: the pill is a capsule (before, the
picker knew only box and sphere and showed the capsule as a box), with its radius and half height;
a radius typed in reaches the engine (a ray finds the pill's top 5 cm higher); bad numbers (NaN,
negative, huge) are refused at the page and, sent past it, by the engine's editor. The crate,
picked as a sphere then a hull, becomes one in the engine, its hull's points listed to edit; the
table's parts are listed and one moved. The rock's points, which have a comment, and a shape
spelling the editor does not know are shown as written and left alone. The saved file keeps every
shape, and an engine started again on it gives the same shapes (the capsule kept). Screenshots go
to OUT_DIR (editor-shapes-*.png).

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
        [-0.7 0 -0.5] [0.7 0 -0.5] [0.7 0 0.5] [-0.7 0 0.5] // the base, then the top

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
  {
    name = "pill"
    components = {
      transform = { position = [4 1 0] }
      body = { kind = "static" shape = "capsule" radius = 0.25 half_height = 0.5 }
    }
  }
  {
    name = "crate"
    components = {
      transform = { position = [-4 0.5 0] }
      body = { kind = "static" shape = "box" half_extents = [0.5 0.5 0.5] }
      mesh = { mesh = "meshes/crate" material = "materials/wood" }
    }
  }
]
"""


def shape_of(con, guid):
    return con.lua('local w = Editor.world(); local e = Editor.entity("%s"); '
                   'if not e then return "none" end; return Actor.shape(w, e)' % guid)[0]


def top_of(con, x, z):
    """Where a ray straight down from 10 m first meets a body at (x, z): its height, or None."""
    r = con.lua("local w = Editor.world(); local e, d = Physics.raycast(w, %g, 10, %g, 0, -1, 0, 20); "
                "return d" % (x, z))
    return 10 - r[0] if r and r[0] is not None else None


def inspect(page, guid, name):
    page.eval("select(%s)" % json.dumps(guid))
    page.wait("document.querySelector('#inspector h2') && document.querySelector('#inspector h2').textContent === %s"
              % json.dumps(name), what="%s in the inspector" % name)


def type_into(page, selector, text):
    """Types text into the input the selector finds (its old text selected first), then Enter."""
    page.eval("(() => { const i = document.querySelector(%s); i.focus(); i.select(); })()" % json.dumps(selector))
    page.type_text(text)
    page.key("Enter", "Enter", 13)


def pick_shape(page, kind):
    page.eval("(() => { const s = document.querySelector('#inspector select.shape'); s.value = %s;"
              " s.dispatchEvent(new Event('change')); })()" % json.dumps(kind))


def shape_shown(page):
    """The shape the inspector shows: its picker's value (the row of components.body.shape, or of
    .shape.type for an object shape)."""
    return page.eval("(document.querySelector('#inspector .field[data-key^=\"components.body.shape\"] select')"
                     " || {}).value")


def field_error(page, key):
    return page.eval("document.querySelector('#inspector [data-key=\"%s\"] .err').textContent" % key)


def check_capsule_and_crate(a, con, pill, crate, out):
    """The pill shown as the capsule it is, its radius edited; bad numbers refused; the crate made
    a sphere then a hull."""
    inspect(a, pill, "pill")
    check(shape_shown(a) == "capsule", "the inspector shows the pill's shape as capsule (%r)" % shape_shown(a))
    keys = fields_of(a)
    check("components.body.radius" in keys and "components.body.half_height" in keys
          and "components.body.half_extents" not in keys, "the capsule's own fields are listed: %s" % keys)
    top = top_of(con, 4, 0)
    check(top is not None and abs(top - 1.75) < 1e-3, "the engine's capsule top is at 1.75 m (%s)" % top)
    type_into(a, '[data-key="components.body.radius"] input', "0.3")
    a.wait("editor.lastOps && editor.lastOps.ops.some((o) => o.key === 'components.body.radius' && o.value === 0.3)",
           what="the engine's answer to the radius")
    top = top_of(con, 4, 0)
    check(top is not None and abs(top - 1.8) < 1e-3, "after the edit the engine's capsule top is at 1.8 m (%s)" % top)
    check(shape_of(con, pill) == "capsule", "the pill is still a capsule in the engine")
    a.screenshot(os.path.join(out, "editor-shapes-pill.png"))

    # Bad numbers typed in: refused at the page, nothing sent, the engine's capsule as it was.
    for text, why in (("-1", "outside"), ("1e9", "outside"), ("abc", "not a number")):
        seq = a.eval("editor.opsSeq")
        type_into(a, '[data-key="components.body.radius"] input', text)
        err = field_error(a, "components.body.radius")
        check(why in err, "radius %s is refused at the page: %r" % (text, err))
        check(a.eval("editor.opsSeq") == seq, "radius %s: nothing was sent" % text)
    inspect(a, crate, "crate")
    type_into(a, '[data-key="components.body.half_extents"] input[data-axis="x"]', "1e9")
    check("outside" in field_error(a, "components.body.half_extents"), "a half extent of 1e9 is refused at the page")
    # Sent past the page (an old or hostile page), the engine's editor refuses them too.
    errors = len(a.eval("editor.errors"))
    for key, value in (("components.body.radius", -1), ("components.body.half_height", 1e9),
                       ("components.body.linear_damping", -2)):
        a.eval("send({type: 'ops', commit: true, ops: [{op: 'set', object: %s, key: %s, value: %s}]})"
               % (json.dumps(pill), json.dumps(key), json.dumps(value)))
        errors += 1
        a.wait("editor.errors.length >= %d" % errors, what="the engine's refusal of %s = %s" % (key, value))
        last = a.eval("editor.errors[editor.errors.length - 1]")
        check("outside its range" in last and "nothing applied" in last, "the engine refuses %s = %s: %s" % (key, value, last))
    top = top_of(con, 4, 0)
    check(top is not None and abs(top - 1.8) < 1e-3, "the engine's capsule is as it was (%s)" % top)

    # A shape the editor does not know (sent past the page): shown as it is, and an edit of
    # another field leaves it alone. Both edits are undone after.
    inspect(a, pill, "pill")
    a.eval("send({type: 'ops', commit: true, ops: [{op: 'set', object: %s, key: 'components.body.shape',"
           " value: {string: 'cylinder'}}]})" % json.dumps(pill))
    a.wait("editor.shapeOf(%s).kind === 'cylinder' && document.querySelector('#inspector select.shape')"
           " && document.querySelector('#inspector select.shape').selectedOptions[0].text === 'cylinder (unknown)'"
           % json.dumps(pill), what="the unknown shape shown")
    type_into(a, '[data-key="components.body.half_height"] input', "0.6")
    a.wait("editor.lastOps && editor.lastOps.ops.some((o) => o.key === 'components.body.half_height')",
           what="the engine's answer to the half height")
    check(a.eval("editor.shapeOf(%s).kind" % json.dumps(pill)) == "cylinder",
          "an edit beside an unknown shape leaves the shape as written")
    for _ in range(2):
        a.eval("send({type: 'undo'})")
    a.wait("editor.shapeOf(%s).kind === 'capsule'" % json.dumps(pill), what="the undo back to the capsule")
    a.wait("editor.objects.get(%s).props.get('components.body.half_height').value === 0.5" % json.dumps(pill),
           what="the half height undone")

    # The crate picked as a sphere (its radius from the box), then as a hull (the box's corners).
    inspect(a, crate, "crate")
    pick_shape(a, "sphere")
    a.wait("editor.shapeOf(%s).kind === 'sphere'" % json.dumps(crate), what="the crate's new shape")
    a.wait("document.querySelector('#inspector select.shape') && "
           "document.querySelector('#inspector select.shape').value === 'sphere'", what="the sphere shown")
    check(shape_of(con, crate) == "sphere", "the engine's crate is a sphere")
    keys = fields_of(a)
    check("components.body.radius" in keys and "components.body.half_extents" not in keys,
          "the sphere's fields: %s" % keys)
    pick_shape(a, "hull")
    a.wait("document.querySelectorAll('#inspector .point').length === 8", what="the crate's hull points")
    check(shape_of(con, crate) == "hull", "the engine's crate is a hull")
    keys = fields_of(a)
    check("components.body.radius" not in keys, "a hull body has no radius on it: %s" % keys)
    top = top_of(con, -4, 0.25)
    check(top is not None and abs(top - 1.0) < 1e-3, "the crate's hull top is at 1 m (%s)" % top)
    # The point at +x +y +z raised 10 cm: the hull's top corner (the ray lands on its slant).
    type_into(a, '#inspector .point input[data-point="7"][data-axis="y"]', "0.6")
    a.wait("editor.lastOps && editor.lastOps.ops.some((o) => o.key === 'components.body.shape.points')",
           what="the engine's answer to the point")
    check(shape_of(con, crate) == "hull", "after the point's edit the crate is still a hull")
    top = top_of(con, -3.55, 0.45)
    check(top is not None and 1.05 < top < 1.1, "near the raised corner the hull's top is above 1.05 m (%s)" % top)
    a.screenshot(os.path.join(out, "editor-shapes-crate.png"))


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
            check(names == ["floor", "rock", "table", "pill", "crate"], "the outline lists the level: %s" % names)
            check(entity_count(con) == 5, "the engine spawned the 5 entities")
            rock, table = object_by_name(a, "rock"), object_by_name(a, "table")
            pill, crate = object_by_name(a, "pill"), object_by_name(a, "crate")
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
            type_into(a, '[data-key="components.body.mass"] input', "-5")
            check("outside" in field_error(a, "components.body.mass"), "a negative mass is refused at the page")
            # The table's five parts, listed; the top moved up 5 cm.
            parts = a.eval("document.querySelectorAll('#inspector [data-key=\"components.body.shape.children\"] .part').length")
            check(parts == 5, "the inspector lists the table's 5 parts (%s)" % parts)
            type_into(a, '#inspector .part[data-part="0"] [data-field="position"] input[data-axis="y"]', "0.8")
            a.wait("editor.lastOps && editor.lastOps.ops.some((o) => o.key === 'components.body.shape.children')",
                   what="the engine's answer to the part")
            check(shape_of(con, table) == "compound", "after the part's edit the table is still a compound")

            a.eval("select(%s)" % json.dumps(rock))
            a.wait("document.querySelector('#inspector h2').textContent === 'rock'", what="the rock in the inspector")
            keys = fields_of(a)
            check("components.body.shape.points" in keys, "the inspector lists the rock's points (%s)" % keys)
            text = a.eval("document.querySelector('#inspector [data-key=\"components.body.shape.points\"] pre').textContent")
            check("// the base" in text, "the rock's points, written with a comment, are shown as text: %r" % text[:60])
            a.screenshot(os.path.join(out, "editor-shapes-rock.png"))
            check_capsule_and_crate(a, con, pill, crate, out)
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
            check('shape = "capsule"' in saved and "radius = 0.3" in saved and "// the base" in saved
                  and "position = [0 0.8 0]" in saved and "0.6" in saved,
                  "the saved file keeps the capsule, its radius, the rock's comment, the moved part and point")
        yard.stop()
        # An engine started again on the saved file: the same shapes.
        port, console_port = yard.start()
        con = Console(console_port)
        with cdp.Browser() as browser:
            a = browser.new_page("http://127.0.0.1:%d/?user=alice" % port)
            a.wait("editor.connected && editor.shown > 0", what="the page after the restart")
            pill, crate = object_by_name(a, "pill"), object_by_name(a, "crate")
            inspect(a, pill, "pill")
            check(shape_shown(a) == "capsule", "after the restart the pill is shown as a capsule")
            check(a.eval("+document.querySelector('[data-key=\"components.body.radius\"] input').value") == 0.3,
                  "after the restart its radius is 0.3")
            check(shape_of(con, pill) == "capsule" and shape_of(con, crate) == "hull",
                  "after the restart the engine's pill is a capsule and its crate a hull")
            top = top_of(con, 4, 0)
            check(top is not None and abs(top - 1.8) < 1e-3, "after the restart the capsule's top is at 1.8 m (%s)" % top)
            a.screenshot(os.path.join(out, "editor-shapes-reloaded.png"))
        yard.stop()
        print("PASS")


if __name__ == "__main__":
    main()
