#!/usr/bin/env python3
"""The level editor's figures, measured in headless Chromium against a running engine
(llvmpipe renders the frames). Prints JSON lines like every benchmark, then a table.

  editor.edit_to_frame_ms   an inspector change to the engine frame that shows it on the page
                            (the page's clock: send -> the pixels of the first frame whose "ops"
                            is at least the edit's "seq" drawn: a frame that was being drawn when
                            the edit came does not count), p99 of 100
  editor.sync_ms            an edit in one page to its display in another (both pages in one
                            browser, one clock), p99 of 200
  editor.open_10k_ms        open a level of 10,000 entities: page navigation to the outline
                            listing all of them and the first frame shown

Usage: bench_editor [--modules BUILD/modules]   (the engine and compiler are found beside it)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.realpath(__file__))


def find_source_root():
    d = HERE
    while d != "/":
        if os.path.isfile(os.path.join(d, "tests/editor/cdp.py")):
            return d
        d = os.path.dirname(d)
    return os.environ.get("CUTTLE_SOURCE_DIR", "")


SRC = find_source_root()
sys.path.insert(0, os.path.join(SRC, "tests/editor"))
import cdp  # noqa: E402
from editor_fixture import make_project, start_engine, stop_engine  # noqa: E402

figures = []


def figure(name, value, unit, what):
    figures.append((name, value, unit, what))
    print(json.dumps({"name": name, "value": round(value, 4), "unit": unit}), flush=True)


def p99(xs):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * 0.99))]


def compile_project(build, proj):
    subprocess.run([os.path.join(build, "tools/cuttle-compile/cuttle-compile"), "--project", proj,
                    "--modules", os.path.join(build, "modules")], check=True, capture_output=True)


def main():
    # The last --modules given wins (the wrapper passes its build's, bench.sh may pass another).
    modules = [sys.argv[i + 1] for i, a in enumerate(sys.argv[:-1]) if a == "--modules"]
    build = os.path.dirname(os.path.abspath(modules[-1])) if modules else os.getcwd()
    if not cdp.find_chromium():
        print("bench_editor: no chromium; skipped")
        return
    tmp = tempfile.mkdtemp(prefix="cuttle-bench-editor-")
    proc = None
    try:
        proj = make_project(SRC, tmp)
        compile_project(build, proj)
        proc, port, _ = start_engine(build, proj)
        url = "http://127.0.0.1:%d/" % port
        with cdp.Browser() as b:
            a = b.new_page(url + "?user=a")
            a.wait("editor.connected && editor.shown > 0")
            p = b.new_page(url + "?user=b")
            p.wait("editor.connected && editor.shown > 0")
            crate = a.eval("[...editor.objects.keys()].find((id) => nameOf(id) === 'crate')")
            # A page in a background tab has its timers slowed to one a second: measure in front.
            a.call("Page.bringToFront")
            # Edit to frame: one inspector change at a time, waiting for the first frame that shows
            # it: the engine numbers its "ops" messages (seq) and says in each frame message the
            # last one the frame shows (ops).
            times = a.eval("""(async () => {
                const out = [];
                for (let i = 0; i < 100; i++) {
                  const t0 = performance.now();
                  let mine = null;
                  const shown = new Promise((r) => {
                    editor.onOps = (m) => { if (mine === null && m.by === editor.user) mine = m.seq; };
                    editor.onShown = () => { if (mine !== null && editor.shownOps >= mine) r(); };
                  });
                  editor.setProp(%s, 'components.transform.position', {vec3: [1 + i %% 7, 0.5, 0]}, true);
                  await shown;
                  out.push(performance.now() - t0);
                }
                editor.onOps = editor.onShown = null;
                return out; })()""" % json.dumps(crate), timeout=300)
            figure("editor.edit_to_frame_ms", p99(times), "ms",
                   "inspector change -> engine frame on the page, p99 of %d (median %.1f)" % (len(times), sorted(times)[50]))
            # Sync: page a edits, page b shows it; both read the same wall clock.
            # The page's own handler (which updates outline and inspector) runs first; this one
            # notes the time right after it.
            # Page b first takes every edit of the part above (a page in the background may lag).
            p.wait("editor.opsSeq === %d" % a.eval("editor.opsSeq"), timeout=60)
            p.eval("window.seen = []; editor.onOps = () => window.seen.push(performance.timeOrigin + performance.now())")
            sent = []
            p.call("Page.bringToFront")
            for i in range(200):
                sent.append(a.eval("(() => { const t = performance.timeOrigin + performance.now(); "
                                   "editor.setProp(%s, 'components.transform.position', {vec3: [%d, 0.5, 1]}, true); return t; })()"
                                   % (json.dumps(crate), i % 9)))
                try:
                    p.wait("window.seen.length === %d" % (i + 1), timeout=30)
                except cdp.Error:
                    print("a:", a.eval("[editor.connected, editor.errors, editor.ws.readyState]"),
                          "p:", p.eval("[editor.connected, editor.errors, window.seen.length, !!editor.onOps]"))
                    print(open(os.path.join(proj, "engine.log")).read()[-2000:])
                    raise
            seen = p.eval("window.seen")
            sync = [s - t for s, t in zip(seen, sent)]
            figure("editor.sync_ms", p99(sync), "ms",
                   "an edit in page A shown in page B, p99 of %d (median %.1f)" % (len(sync), sorted(sync)[100]))
        stop_engine(proc)
        proc = None

        # A level of 10,000 distinct entities (no repeat): open it.
        lines = ["// 10,000 entities for bench_editor", "entities = ["]
        for i in range(10000):
            lines.append('  { name = "e%d" components = { transform = { position = [%d 0 %d] } '
                         'mesh = { mesh = "meshes/marker" material = "materials/marker" } } }' % (i, i % 100 - 50, i // 100 - 50))
        lines.append("]")
        with open(os.path.join(proj, "levels/yard.level"), "w") as f:
            f.write("\n".join(lines) + "\n")
        compile_project(build, proj)
        t0 = time.time()
        proc, port, _ = start_engine(build, proj)
        engine_ready = time.time() - t0
        with cdp.Browser() as b:
            pg = b.new_page("about:blank")
            t0 = time.time()
            pg.call("Page.navigate", {"url": "http://127.0.0.1:%d/?user=c" % port})
            # The outline is virtual: all 10,000 rows listed, those in view drawn.
            pg.wait("window.editor && editor.shown > 0 && editor.outlineRows && editor.outlineRows.length === 10000 "
                    "&& document.querySelectorAll('#outline .row').length > 0", timeout=300)
            open_ms = (time.time() - t0) * 1000
            welcomed = pg.eval("editor.welcomedAt")
            t = pg.eval("editor.timing")
        figure("editor.open_10k_ms", open_ms, "ms",
               "page open -> outline of 10,000 and first frame (on the page's clock: socket open %.0f ms, "
               "welcome in %.0f, parsed %.0f, shown %.0f; engine start %.0f ms before)"
               % (t.get("open", 0), t.get("welcome", 0), t.get("parsed", 0), welcomed, engine_ready * 1000))
        stop_engine(proc)
        proc = None
    finally:
        if proc:
            stop_engine(proc)
        shutil.rmtree(tmp, ignore_errors=True)
    print("\n%-28s %10s  %-4s %s" % ("figure", "value", "unit", "what"))
    for name, value, unit, what in figures:
        print("%-28s %10.2f  %-4s %s" % (name, value, unit, what))


if __name__ == "__main__":
    main()
