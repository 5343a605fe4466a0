#!/usr/bin/env python3
# Issue 28: the console, the file server and the engine's file-writing APIs attacked from outside,
# each case against the real `cuttle` (tests/hardening/outsiders.py runs and speaks to it). Every
# case counts as one hostile input, tried and (when the engine holds) handled.
import os
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


CASES = [sigpipe, file_server_links, output_paths]

if __name__ == "__main__":
    only = sys.argv[1:]
    for case in CASES:
        if not only or case.__name__ in only:
            case()
    T.finish()
