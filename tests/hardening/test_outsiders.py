#!/usr/bin/env python3
# Issue 28: the console, the file server and the engine's file-writing APIs attacked from outside,
# each case against the real `cuttle` (tests/hardening/outsiders.py runs and speaks to it). Every
# case counts as one hostile input, tried and (when the engine holds) handled.
import os
import shutil
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import outsiders as o  # noqa: E402

T = o.Tally()
CONSOLE = ["--console", "0", "-e", "x = 1", "--frames", "100000000", "--fps", "60"]


def burst_then_reset(e, frame, rounds):
    """Frames the server answers, sent faster than it writes, then a reset: its next reply write
    meets a dead socket (EPIPE). Returns whether the server outlived every round."""
    burst = frame * 20000
    for _ in range(rounds):
        c = o.Client(e.port)
        c.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        try:
            c.s.sendall(burst)
        except OSError:
            pass
        c.reset()
        time.sleep(0.05)
        if not e.alive():
            return False
    return True


def still_answers(e):
    try:
        c = o.Client(e.port)
        if e._ready.startswith("file server"):
            c.recv()  # the hello
            c.send({"type": "file", "path": "boot.lua", "id": 1})
            ok = c.recv()[0].get("ok") is True
        else:
            ok = c.script("return 6 * 7")["results"] == [42]
        c.close()
        return ok
    except (OSError, EOFError, ValueError, KeyError) as x:
        print("no answer:", x)
        return False


def sigpipe():
    """Item 1: no process of ours dies of SIGPIPE."""
    project = os.path.join(o.HARDENING_DIR, "..", "console", "project")
    e = o.Engine(CONSOLE)
    T.check("console", burst_then_reset(e, o.frame(b"{not json"), 20) and still_answers(e),
            f"malformed frames then a reset: engine exit {e.p.returncode}")
    e.stop()
    e = o.Engine(["--serve-project", project, "--port", "0"], ready="file server: serving")
    T.check("file server", burst_then_reset(e, o.frame({"type": "file", "path": "boot.lua"}), 20)
            and still_answers(e), f"file requests then a reset: server exit {e.p.returncode}")
    e.stop()


def file_server_links():
    """Item 6: compiled blobs get the containment check scripts get (links, a linked folder), and
    a FIFO named like a blob does not hang the server."""
    top = o.scratch()
    secret = os.path.join(top, "secret.txt")
    with open(secret, "w") as f:
        f.write("the operator's secret\n")
    proj = os.path.join(top, "proj")
    os.makedirs(os.path.join(proj, "compiled", "unit"))
    os.makedirs(os.path.join(top, "elsewhere"))
    with open(os.path.join(proj, "project.sjson"), "w") as f:
        f.write("frames = 0\n")
    with open(os.path.join(proj, "compiled", "unit", "real.bin"), "wb") as f:
        f.write(b"CTRB" + bytes(60))
    os.symlink(secret, os.path.join(proj, "compiled", "unit", "leak.bin"))
    os.symlink(secret, os.path.join(top, "elsewhere", "x.bin"))
    os.symlink(os.path.join(top, "elsewhere"), os.path.join(proj, "compiled", "level"))
    os.mkfifo(os.path.join(proj, "compiled", "unit", "pipe.bin"))
    e = o.Engine(["--serve-project", proj, "--port", "0"], ready="file server: serving")
    c = o.Client(e.port, timeout=10)
    c.recv()  # hello
    for i, (res, name) in enumerate([("unit", "leak"), ("level", "x"), ("unit", "pipe")]):
        try:
            c.send({"type": "file", "resource": res, "name": name, "id": i + 1})
            r = c.recv()
            meta, body = r if isinstance(r, tuple) else (r, b"")
            ok = (meta.get("type") == "error" or meta.get("ok") is False) and b"secret" not in body
        except (OSError, EOFError) as x:
            ok, meta = False, {"error": str(x)}
        T.check("file server", ok, f"blob {res}/{name} through a link or FIFO: {meta}")
    try:
        c.send({"type": "file", "resource": "unit", "name": "real", "id": 9})
        r = c.recv()
    except (OSError, EOFError) as x:
        r = str(x)
    T.check("file server", isinstance(r, tuple) and r[0].get("ok") is True and r[1][:4] == b"CTRB",
            f"a real blob is still served: {r}")
    e.stop()


def run(args, cwd, timeout=30):
    """Runs `cuttle` to its end; a hang is a failure (exit None)."""
    try:
        r = o.subprocess.run([o.CUTTLE, "--modules", o.MODULES] + args, cwd=cwd, timeout=timeout,
                             stdout=o.subprocess.PIPE, stderr=o.subprocess.STDOUT)
    except o.subprocess.TimeoutExpired:
        return None, "timed out"
    return r.returncode, r.stdout.decode("utf-8", "replace")


def output_paths():
    """Item 2: a path an engine API writes follows the output rules, for sandboxed code too:
    absolute, '..', a link (to a folder or a file) and a FIFO are refused, nothing outside is
    created or truncated; a plain relative name still works."""
    top = o.scratch()
    work = os.path.join(top, "work")
    proj = os.path.join(work, "proj")
    outside = os.path.join(top, "outside")
    os.makedirs(proj)
    os.makedirs(outside)
    victim = os.path.join(outside, "victim.txt")
    with open(victim, "w") as f:
        f.write("keep me\n")
    with open(os.path.join(proj, "project.sjson"), "w") as f:
        f.write('sandbox = true\nframes = 1\nmodules = ["ct.entities" "ct.transforms" '
                '"ct.networking" "ct.rendering"]\n')
    os.symlink(outside, os.path.join(work, "linked"))
    os.symlink(victim, os.path.join(work, "victim.log"))
    os.mkfifo(os.path.join(work, "pipe.log"))
    start = "Network.start{port = 0, host = true, traffic_log = %r}"
    for name in [victim, "../outside/new.log", "linked/new.log", "victim.log", "pipe.log",
                 "a//b.log", "./a.log", "A.LOG"]:
        code = "assert(not pcall(function() %s end))" % (start % name)
        rc, out = run(["--project", proj, "-e", code], work)
        with open(victim, "rb") as f:
            kept = f.read() == b"keep me\n"
        T.check("output paths", rc == 0 and kept and not os.path.exists(
            os.path.join(outside, "new.log")), f"traffic_log {name!r}: exit {rc}\n{out[-600:]}")
    for fn in ["screenshot", "capture"]:
        # Refused for the path itself (before "no frame yet" could refuse it for another reason).
        code = ("local ok, e = pcall(Render.%s, 'linked/new.png') "
                "assert(not ok and e:find('not a folder'), e)") % fn
        rc, out = run(["--project", proj, "-e", code], work)
        T.check("output paths", rc == 0 and not os.path.exists(os.path.join(outside, "new.png")),
                f"Render.{fn} through a linked folder: exit {rc}\n{out[-600:]}")
    rc, out = run(["--project", proj, "-e", (start % "logs/net.log") + " Network.stop()"], work)
    T.check("output paths", rc == 0 and os.path.getsize(os.path.join(work, "logs", "net.log")) >= 8,
            f"a plain relative traffic_log is still written: exit {rc}\n{out[-600:]}")


def big_blob():
    """Item 18: a blob over 5 MiB (the documented limit is 256 MiB) is served, and the next one
    still is: replies over 5 MiB were refused as "not reading" and cost the node its server."""
    top = o.scratch()
    proj = os.path.join(top, "proj")
    os.makedirs(os.path.join(proj, "compiled", "unit"))
    with open(os.path.join(proj, "project.sjson"), "w") as f:
        f.write("frames = 0\n")
    big = b"CTRB" + bytes(range(256)) * (6 * 4096)
    with open(os.path.join(proj, "compiled", "unit", "big.bin"), "wb") as f:
        f.write(big)
    with open(os.path.join(proj, "compiled", "unit", "small.bin"), "wb") as f:
        f.write(b"CTRB" + bytes(60))
    e = o.Engine(["--serve-project", proj, "--port", "0"], ready="file server: serving")
    c = o.Client(e.port, timeout=20)
    c.recv()  # hello
    got = []
    try:
        for i, name in enumerate(["big", "small"]):
            c.send({"type": "file", "resource": "unit", "name": name, "id": i + 1})
            got.append(c.recv())
    except (OSError, EOFError) as x:
        got.append(str(x))
    ok = len(got) == 2 and isinstance(got[0], tuple) and got[0][1] == big
    T.check("file server", ok, f"a 6 MiB blob: {str(got[0])[:200] if got else None}")
    T.check("file server", ok and isinstance(got[1], tuple) and got[1][0].get("ok") is True,
            "the next blob after it")
    e.stop()


def remote_engine():
    """An engine whose console wants a token; CUTTLE_TEST_CONSOLE_REMOTE=1 makes its clients
    remote (sandboxed), as a test machine may have no address but loopback."""
    top = o.scratch()
    proj = os.path.join(top, "proj")
    os.makedirs(proj)
    with open(os.path.join(proj, "project.sjson"), "w") as f:
        f.write('boot_script = "boot.lua"\nmodules = ["ct.entities" "ct.transforms" "ct.networking"]\n')
    with open(os.path.join(proj, "boot.lua"), "w") as f:
        f.write("function update(dt) end\n")
    return o.Engine(["--modules", o.MODULES, "--project", proj, "--console", "0",
                     "--console-token", "s3cret", "--fps", "60"],
                    env={"CUTTLE_TEST_CONSOLE_REMOTE": "1"})


def authed(e, timeout=15):
    c = o.Client(e.port, timeout=timeout)
    c.recv()  # hello
    c.send({"type": "auth", "token": "s3cret"})
    c.recv()
    return c


def raw_script(c, code, ident=1):
    """The reply's bytes as sent (so a test can see whether they are valid JSON)."""
    c.send({"type": "script", "script": code, "id": ident})
    while True:
        kind, n = o.struct.unpack(">II", c.recv_exact(8))
        body = c.recv_exact(n)
        if b'"type":"script"' in body:
            return body


def remote_scripts():
    """Items 7, 8, 9, 10, 30: what a remote client's scripts could do to the engine."""
    e = remote_engine()
    c = authed(e)

    def answer(code, ident):
        try:
            body = raw_script(c, code, ident)
            return o.json.loads(body.decode("utf-8")), len(body)
        except (OSError, EOFError, ValueError, UnicodeDecodeError) as x:
            return {"error": repr(x)}, 0

    # 7: a pattern that backtracks for good, in C where the watchdog cannot stop it.
    r, _ = answer('return ("a"):rep(40):find(("a*"):rep(40) .. "b")', 1)
    T.check("console", r.get("ok") is False and "too costly" in str(r.get("error")), f"catastrophic pattern: {r}")
    r, _ = answer('local s = ("a"):rep(40) return s:match(("a*"):rep(40) .. "b")', 2)
    T.check("console", r.get("ok") is False, f"catastrophic pattern as a method: {r}")
    r, _ = answer('return ("key = value"):match("^(%w+)%s*=%s*(.-)$")', 3)
    T.check("console", r.get("results") == ["key", "value"], f"an ordinary pattern still works: {r}")
    # 8: a table that holds itself.
    r, size = answer("local t = {} for i = 1, 300 do t[i] = t end t.t = t return t", 4)
    T.check("console", r.get("ok") is True and 0 < size < 2 << 20, f"self-referencing table: {size} bytes")
    # 30: NUL bytes and bytes that are not UTF-8.
    r, _ = answer('return "a\\0b", "\\255\\254x", "caf\\195\\169"', 5)
    T.check("console", r.get("results") == ["a\x00b", "\ufffd\ufffdx", "caf\u00e9"],
            f"NUL and invalid UTF-8: {r}")
    # 10: the engine's tables, for the game and every other client.
    for k, code in enumerate(["World.create = nil", "Network.__handlers.x = function() end",
                              "rawset(World, 'create', nil)", "getmetatable('').__index = nil",
                              "Entity.create = print"]):
        answer(code, 10 + k)
    c2 = authed(e)
    c, saved = c2, c
    r, _ = answer("return type(World.create), Network.__handlers.x == nil, type(Entity.create), ('x'):upper()", 20)
    T.check("console", r.get("results") == ["function", True, "function", "X"],
            f"the engine's tables after a client tried to replace them: {r}")
    c = saved
    # 9: memory, per run and kept across runs.
    r, _ = answer("return collectgarbage('count')", 30)
    before = (r.get("results") or [0])[0]
    r, _ = answer("huge = ('x'):rep(2^30) return #huge", 31)
    T.check("console", r.get("ok") is False and "memory" in str(r.get("error")), f"1 GiB in one run: {r}")
    for k in range(5):
        answer("keep%d = ('%d'):rep(30 * 2^20) return #keep%d" % (k, k, k), 40 + k)
    r, _ = answer("collectgarbage('count') return collectgarbage('count')", 50)
    after = (r.get("results") or [0])[0]
    print(f"  heap grew {(after - before) / 1024:.0f} MiB over five runs keeping 30 MiB each")
    T.check("console", e.alive() and after - before < 100 * 1024,
            f"five runs keeping 30 MiB each: the heap grew {(after - before) / 1024:.0f} MiB")
    T.check("console", e.alive(), f"the engine lives: exit {e.p.returncode}")
    e.stop()


def idle_strangers():
    """Item 11: 32 idle connections without the token do not lock the operators out."""
    e = remote_engine()
    idle = [o.Client(e.port) for _ in range(32)]
    time.sleep(0.3)
    try:
        c = authed(e)
        r = c.script("return 6 * 7")
        ok = r.get("results") == [42]
    except (OSError, EOFError, ValueError) as x:
        ok, r = False, repr(x)
    T.check("console", ok, f"an operator after 32 idle strangers: {r}")
    for i in idle:
        i.close()
    e.stop()


def truncated_plugin():
    """Item 14: a plugin file cut short (its ELF header whole) is refused, at load and when
    --watch reloads it, instead of killing the engine with SIGBUS."""
    good = os.path.join(o.MODULES, "..", "sample_plugins", "seed_adder.so")
    data = open(good, "rb").read()
    top = o.scratch()
    for cut in [64, 2000, len(data) // 2, len(data) * 3 // 4]:
        path = os.path.join(top, "cut%d.so" % cut)
        with open(path, "wb") as f:
            f.write(data[:cut])
        rc, out = run(["--plugin", path, "-e", "print('still here')"], top)
        T.check("plugins", rc == 0 and "still here" in out, f"plugin cut to {cut} bytes: exit {rc}")
    # A module with reload hooks, cut inside its code while --watch runs it.
    mods, proj = os.path.join(top, "mods"), os.path.join(top, "proj")
    os.makedirs(mods)
    os.makedirs(proj)
    for name in ["entities", "transforms", "networking"]:
        shutil.copy(os.path.join(o.MODULES, name, "ct_%s.so" % name), mods)
    with open(os.path.join(proj, "project.sjson"), "w") as f:
        f.write('modules = ["ct.entities" "ct.transforms" "ct.networking"]\n')
    e = o.Engine(["--modules", mods, "--project", proj, "--watch", "--frames", "100000",
                  "--console", "0"])
    time.sleep(1.0)
    with open(os.path.join(mods, "ct_networking.so"), "r+b") as f:
        f.truncate(16384)  # inside the code segment
    time.sleep(2.5)
    alive = e.alive()
    code = e.stop()
    T.check("plugins", alive, f"--watch reload of a module cut short: exit {code}\n{e.output()[-800:]}")


def compile_run(proj, env, timeout=30):
    mods = os.path.dirname(os.environ.get("HOSTILE_PLUGIN", ""))
    try:
        r = o.subprocess.run([o.COMPILE, "--project", proj, "--modules", mods], timeout=timeout,
                             stdout=o.subprocess.PIPE, stderr=o.subprocess.STDOUT,
                             env=dict(os.environ, **env))
    except o.subprocess.TimeoutExpired:
        return None, "timed out"
    return r.returncode, r.stdout.decode("utf-8", "replace")


def compile_races():
    """Items 15 and 20: a file a source names that changes or goes away while the source
    compiles, or that is a FIFO."""
    top = o.scratch()
    proj = os.path.join(top, "proj")
    os.makedirs(proj)
    with open(os.path.join(proj, "project.sjson"), "w") as f:
        f.write('modules = ["hostile"]\n')
    with open(os.path.join(proj, "thing.racing"), "w") as f:
        f.write('file = "dep.txt"\n')
    dep = os.path.join(proj, "dep.txt")
    for tamper in ["change", "delete"]:
        with open(dep, "w") as f:
            f.write("version 1\n")
        shutil.rmtree(os.path.join(proj, "compiled"), ignore_errors=True)
        rc1, out1 = compile_run(proj, {"HOSTILE": "dependency", "HOSTILE_TAMPER": tamper})
        rc2, out2 = compile_run(proj, {"HOSTILE": "dependency", "HOSTILE_TAMPER": ""})
        if tamper == "change":
            ok = rc1 == 0 and rc2 == 0 and "compiled 1," in out2
        else:
            ok = rc1 == 0 and rc2 == 1 and "dep.txt" in out2
        T.check("compile", ok, f"a dependency that {tamper}s while compiling: runs exit {rc1}, {rc2}\n{out2[-500:]}")
    if os.path.exists(dep):
        os.remove(dep)
    os.mkfifo(dep)
    rc, out = compile_run(proj, {"HOSTILE": "dependency"}, timeout=20)
    T.check("compile", rc == 1 and "not a regular file" in out,
            f"a FIFO named by a source: exit {rc}\n{out[-300:]}")


CASES = [sigpipe, file_server_links, output_paths, big_blob, remote_scripts, idle_strangers,
         truncated_plugin, compile_races]

if __name__ == "__main__":
    only = sys.argv[1:]
    for case in CASES:
        if not only or case.__name__ in only:
            case()
    T.finish()
