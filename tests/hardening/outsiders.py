# Shared by the round-3 hardening tests (issue 28): run the real `cuttle` as a console or file
# server, speak its wire format ([u32 type][u32 length] + payload, console_frame.h) as an outsider
# would, and count what was tried and what was handled. Every wait is bounded.
import atexit
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

CUTTLE = os.environ.get("CUTTLE", "cuttle")
MODULES = os.environ.get("CUTTLE_MODULES", "")
COMPILE = os.environ.get("CUTTLE_COMPILE", "")
HARDENING_DIR = os.environ.get("HARDENING_DIR", os.path.dirname(os.path.abspath(__file__)))


class Tally:
    """Hostile inputs tried and handled, per category; a case that is not handled is a failure."""

    def __init__(self):
        self.tried = {}
        self.handled = {}
        self.failures = []

    def check(self, category, ok, what):
        self.tried[category] = self.tried.get(category, 0) + 1
        if ok:
            self.handled[category] = self.handled.get(category, 0) + 1
        else:
            self.failures.append(f"{category}: {what}")
            print(f"FAIL [{category}] {what}", flush=True)

    def finish(self):
        for c in sorted(self.tried):
            print(f"{c}: {self.handled.get(c, 0)} of {self.tried[c]} hostile inputs handled")
        total = sum(self.tried.values())
        print(f"{total} cases, {len(self.failures)} failed")
        sys.exit(1 if self.failures or not total else 0)


class Engine:
    """A `cuttle` process; its output is collected by a thread so it never blocks on a pipe."""

    def __init__(self, args, env=None, ready=r"console: listening on", cwd=None):
        e = dict(os.environ)
        e.update(env or {})
        self.p = subprocess.Popen([CUTTLE] + args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  env=e, cwd=cwd)
        self.lines = []
        self.port = None
        self._ready = ready
        self._seen = threading.Event()
        threading.Thread(target=self._drain, daemon=True).start()
        self._seen.wait(60)

    def _drain(self):
        for raw in self.p.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            self.lines.append(line)
            if self.port is None and self._ready in line:
                self.port = int(line.rsplit(":", 1)[1].split()[0])
                self._seen.set()
        self._seen.set()

    def output(self):
        return "\n".join(self.lines)

    def alive(self):
        return self.p.poll() is None

    def stop(self):
        if self.alive():
            self.p.terminate()
            try:
                self.p.wait(10)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait(10)
        return self.p.returncode


def frame(obj, kind=0):
    payload = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
    return struct.pack(">II", kind, len(payload)) + payload


class Client:
    def __init__(self, port, timeout=15):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=timeout)

    def send(self, obj, kind=0):
        self.s.sendall(frame(obj, kind))

    def recv_exact(self, n):
        out = b""
        while len(out) < n:
            got = self.s.recv(n - len(out))
            if not got:
                raise EOFError("closed")
            out += got
        return out

    def recv(self):
        kind, n = struct.unpack(">II", self.recv_exact(8))
        payload = self.recv_exact(n)
        if kind == 1:
            jl = struct.unpack(">I", payload[:4])[0]
            return json.loads(payload[4:4 + jl]), payload[4 + jl:]
        return json.loads(payload)

    def recv_type(self, want):
        """The next reply of type `want` (log lines and other streams skipped)."""
        while True:
            r = self.recv()
            if isinstance(r, dict) and r.get("type") == want:
                return r

    def script(self, code, ident=1):
        self.send({"type": "script", "script": code, "id": ident})
        return self.recv_type("script")

    def reset(self):
        """Closes with a TCP reset (SO_LINGER 0), as a crashing or hostile client does."""
        self.s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.s.close()

    def close(self):
        self.s.close()


_scratch = []


def scratch():
    """A folder removed when the test ends."""
    _scratch.append(tempfile.mkdtemp(prefix="cuttle-outsiders-"))
    return _scratch[-1]


atexit.register(lambda: [shutil.rmtree(d, ignore_errors=True) for d in _scratch])
