#!/usr/bin/env python3
"""The editor's server under load and bad input, from raw sockets (no browser):

  100 pages at once all get their welcome and every edit; a page that stops reading is dropped
  (logged with its address) while the others carry on; malformed WebSocket frames, bad HTTP and a
  foreign Origin are refused with a clear reason to that client only; a token guards another
  bind address (and a page without it gets 401); a path outside the page's folder is refused.

Usage: test_editor_server.py SOURCE_DIR BUILD_DIR
"""
import base64
import json
import os
import re
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from editor_fixture import Console, Yard, check, compile_project, fail  # noqa: E402


class Page:
    """A WebSocket client speaking the editor's protocol, as a page would."""

    def __init__(self, port, user=None, headers=""):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        self.s.sendall(("GET /ws HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\n"
                        "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n%s\r\n"
                        % (port, key, headers)).encode())
        self.buf = b""
        while b"\r\n\r\n" not in self.buf:
            chunk = self.s.recv(4096)
            if not chunk:
                break
            self.buf += chunk
        head, _, self.buf = self.buf.partition(b"\r\n\r\n")
        self.status = int(head.split(b" ")[1]) if head else 0
        if user and self.status == 101:
            self.send({"type": "hello", "user": user})

    def send_raw(self, data):
        self.s.sendall(data)

    def frame(self, opcode, payload, mask=True, fin=True):
        b0 = (0x80 if fin else 0) | opcode
        n = len(payload)
        head = bytes([b0]) + (bytes([(0x80 if mask else 0) | n]) if n < 126 else
                              bytes([(0x80 if mask else 0) | 126]) + struct.pack(">H", n) if n < 65536 else
                              bytes([(0x80 if mask else 0) | 127]) + struct.pack(">Q", n))
        if not mask:
            return head + payload
        m = os.urandom(4)
        return head + m + bytes(c ^ m[i & 3] for i, c in enumerate(payload))

    def send(self, msg):
        self.send_raw(self.frame(1, json.dumps(msg).encode()))

    def read(self, timeout=30):
        """The next message: ('text', dict) or ('close', code, reason)."""
        self.s.settimeout(timeout)
        while True:
            if len(self.buf) >= 2:
                n = self.buf[1] & 0x7f
                h = 2 + (2 if n == 126 else 8 if n == 127 else 0)
                if len(self.buf) >= h:
                    if n == 126:
                        n = struct.unpack(">H", self.buf[2:4])[0]
                    elif n == 127:
                        n = struct.unpack(">Q", self.buf[2:10])[0]
                    if len(self.buf) >= h + n:
                        op, payload, self.buf = self.buf[0] & 0x0f, self.buf[h:h + n], self.buf[h + n:]
                        if op == 1:
                            return ("text", json.loads(payload))
                        if op == 8:
                            code = struct.unpack(">H", payload[:2])[0] if len(payload) >= 2 else 0
                            return ("close", code, payload[2:].decode())
                        continue
            chunk = self.s.recv(65536)
            if not chunk:
                return ("eof",)
            self.buf += chunk

    def until(self, kind, timeout=30):
        deadline = time.time() + timeout
        while time.time() < deadline:
            m = self.read(timeout)
            if m[0] != "text":
                return m
            if m[1].get("type") == kind:
                return m[1]
        fail("no '%s' message in time" % kind)


def http(port, request):
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    s.sendall(request.encode())
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
        if b"\r\n\r\n" in data:
            head = data.split(b"\r\n\r\n")[0]
            m = re.search(rb"Content-Length: (\d+)", head)
            if m and len(data) >= len(head) + 4 + int(m.group(1)):
                break
    s.close()
    return int(data.split(b" ")[1]) if data else 0, data


def main():
    src, build = sys.argv[1:3]
    with Yard(src, build, "cuttle-editor-server-") as yard:
        proj = yard.proj
        r = compile_project(build, proj)
        check(r.returncode == 0, "the yard compiles")
        port, console_port = yard.start()
        log = os.path.join(proj, "engine.log")
        con = Console(console_port)

        status, body = http(port, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        check(status == 200 and b"Cuttle editor" in body, "the page is served")
        status, body = http(port, "GET /frame.png HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        check(status == 200 and b"\x89PNG" in body, "the engine's frame is served as PNG")
        for req, want in (("GET /../project.sjson HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 400),
                          ("GET /nothing.js HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 404),
                          ("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n", 405),
                          ("GET / HTTP/1.1\r\nHost: evil.example\r\n\r\n", 403)):
            status, body = http(port, req)
            check(status == want, "%s -> %d (%s)" % (req.split("\r\n")[0], status,
                                                     body.split(b"\r\n\r\n")[-1].strip().decode()))
        foreign = Page(port, headers="Origin: http://evil.example\r\n")
        check(foreign.status == 403, "a WebSocket from another origin is refused (403)")

        # 100 pages at once.
        pages = [Page(port, "p%d" % i) for i in range(100)]
        welcomes = [p.until("welcome") for p in pages]
        check(all(len(w["objects"]) >= 5 for w in welcomes), "100 pages got their welcome")
        crate = next(o["id"] for o in welcomes[0]["objects"] if o["props"].get("name", [{}])[0] == {"string": "crate"})

        # A page that stops reading: ask for frames on its connection and never read them.
        slow = socket.create_connection(("127.0.0.1", port), timeout=30)
        slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        req = b"GET /frame.png HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        try:
            for _ in range(400):
                slow.sendall(req)
        except OSError:
            pass  # the server may hang up while we still write: that is the point

        # Malformed frames from three pages: each told why and closed; nobody else hurt.
        bad = [pages[97], pages[98], pages[99]]
        bad[0].send_raw(bad[0].frame(1, b'{"type":"undo"}', mask=False))
        bad[1].send_raw(b"\x81\xff" + struct.pack(">Q", 1 << 40) + b"mask")
        bad[2].send_raw(bad[2].frame(1, b"\xc0\xaf"))
        codes = [p.until("never") for p in bad]
        check([c[1] for c in codes] == [1002, 1009, 1007],
              "malformed frames closed with 1002, 1009, 1007: %s" % [c[2] for c in codes])
        pages[0].send({"type": "undo", "extra": 1})
        e = pages[0].until("error")
        check("'extra' is unknown" in e["error"], "a bad message is an error to its page: %s" % e["error"])

        # An edit from one page reaches the 96 others still open.
        pages[0].send({"type": "ops", "commit": True, "ops": [
            {"op": "set", "object": crate, "key": "components.transform.position", "value": {"vec3": [1, 2, 3]}}]})
        got = 0
        for p in pages[1:97]:
            m = p.until("ops")
            got += m["ops"][0]["value"] == {"vec3": [1, 2, 3]}
        check(got == 96, "the edit reached all 96 other pages")
        time.sleep(0.5)
        text = open(log).read()
        check(re.search(r"editor: client \d+ \(127\.0\.0\.1:\d+\): not reading: \d+ bytes queued", text) is not None,
              "the page that stopped reading was dropped, logged with its address")
        check(re.search(r"editor: client \d+ \(127\.0\.0\.1:\d+\): WebSocket closed \(1002\): an unmasked frame", text)
              is not None, "the malformed frame is logged with the page's address")
        slow.close()
        for p in pages[1:]:
            p.s.close()

        # Structure: duplicate, reparent, delete and its undo, a component added; play and stop.
        a = pages[0]
        count = lambda: con.lua("return Editor.entity_count()")[0]
        pos = lambda g: con.lua('return Transform.local_position(Editor.world(), Editor.entity("%s"))' % g)
        n0 = count()
        a.send({"type": "duplicate", "objects": [crate]})
        dup = a.until("pasted")["objects"][0]
        a.until("history")  # the paste's own, which follows "pasted"
        check(count() == n0 + 1 and pos(dup) == [1, 2, 3], "duplicate made a second crate where the first is")
        a.send({"type": "reparent", "object": dup, "parent": crate})
        a.until("history")
        wp = con.lua('return Transform.world_position(Editor.world(), Editor.entity("%s"))' % dup)
        check(wp == [2, 4, 6], "reparented under the crate, its position is relative to it: %s" % wp)
        a.send({"type": "reparent", "object": crate, "parent": dup})
        e = a.until("error")
        check("below itself" in e["error"], "an entity cannot go below itself: %s" % e["error"])
        a.send({"type": "delete", "objects": [crate]})
        a.until("history")
        check(count() == n0 - 1, "deleting the crate deleted its child too")
        a.send({"type": "undo"})
        a.until("undone")
        a.until("ops")
        check(count() == n0 + 1 and pos(dup) == [1, 2, 3], "undo brought both back")
        tall = next(o["id"] for o in welcomes[0]["objects"] if o["props"].get("name", [{}])[0] == {"string": "tall crate"})
        ray = 'local e = Physics.raycast(Editor.world(), -3, 10, -1, 0, -1, 0, 100); return e == Editor.entity("%s")' % tall
        check(con.lua(ray) == [False], "the tall crate has no body yet: a ray down through it hits the floor")
        a.send({"type": "ops", "commit": True, "ops": [
            {"op": "set", "object": tall, "key": "components.body.kind", "value": {"string": "static"}},
            {"op": "set", "object": tall, "key": "components.body.shape", "value": {"string": "box"}},
            {"op": "set", "object": tall, "key": "components.body.half_extents", "value": {"vec3": [0.5, 1, 0.5]}}]})
        a.until("history")
        check(con.lua(ray) == [True], "a body added in the page is in the engine's world (the ray hits it)")
        a.send({"type": "ops", "commit": True, "ops": [
            {"op": "set", "object": crate, "key": "components.transform.position", "value": {"vec3": [0, 4, 0]}}]})
        a.until("history")
        a.send({"type": "play"})
        a.until("play")
        # Frames come as fast as a loaded machine gives them: wait for the fall (bounded).
        deadline = time.time() + 30
        y = pos(crate)[1]
        while y >= 3.9 and time.time() < deadline:
            time.sleep(0.1)
            y = pos(crate)[1]
        check(y < 3.9, "play runs the level's physics: the crate fell from 4 to %.2f" % y)
        a.send({"type": "stop"})
        a.until("play")
        check(pos(crate) == [0, 4, 0], "stop returns to the edited state")

        # A crash loses no unsaved edit: the change log is replayed at the next start.
        a.send({"type": "ops", "commit": True, "ops": [
            {"op": "set", "object": tall, "key": "components.transform.position", "value": {"vec3": [7, 1, 7]}}]})
        a.until("history")
        a.s.close()
        yard.proc.kill()
        yard.proc.wait()
        port, console_port = yard.start()
        con = Console(console_port)
        alice = Page(port, "alice")
        w = alice.until("welcome")
        check(w["recovered"] > 0, "the restarted engine replayed %d unsaved operations" % w["recovered"])
        check(pos(tall) == [7, 1, 7], "the last unsaved edit before the crash is in the world again")
        check("replayed" in open(log).read(), "the engine's log says it replayed the change log")

        # A git merge changed the file under the editor: reload brings in what came (as changes).
        path = os.path.join(proj, "levels/yard.level")
        text = open(path).read()
        open(path, "w").write(text.replace("friction = 0.6", "friction = 0.9"))
        alice.send({"type": "reload"})
        ops = alice.until("ops")
        came = [(o["key"], o["value"]) for o in ops["ops"] if o["op"] == "set"]
        r = alice.until("reloaded")
        check(came == [("components.body.friction", 0.9)] and r["changes"] == 1,
              "reload brought in the one change the merge made: %s" % came)
        yard.stop()

        # A token: without it, 401; another bind address without one refuses to start.
        port, _ = yard.start({"CUTTLE_EDITOR_TOKEN": "s3cret"})
        status, _ = http(port, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        check(status == 401, "with a token, a page without it gets 401")
        status, _ = http(port, "GET /?token=s3cret HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        check(status == 200, "with the token, the page is served")
        yard.stop()
        r = subprocess.run([os.path.join(build, "kernel/cuttle"), "--project", proj, "--modules",
                            os.path.join(build, "modules"), "--editor", "0", "--editor-bind", "0.0.0.0",
                            "levels/yard"], capture_output=True, text=True, timeout=60,
                           env=dict(os.environ, CUTTLE_EDITOR_TOKEN=""))
        check(r.returncode == 1 and "needs a token (--editor-token" in r.stderr,
              "binding 0.0.0.0 without a token is refused: %s" % r.stderr.strip().splitlines()[-1:])
        print("PASS")


if __name__ == "__main__":
    main()
