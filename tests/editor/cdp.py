"""A small driver for headless Chromium over the DevTools protocol, on a pipe (--remote-debugging-
pipe: JSON messages ending in NUL on file descriptors 3 and 4), so it needs nothing but Python's
standard library and Debian's chromium: no driver download, no WebSocket client.

    with Browser() as b:
        page = b.new_page("http://127.0.0.1:8080/")
        page.wait("window.editor && editor.connected")
        page.click(100, 200)
        page.screenshot("out.png")
"""
import base64
import json
import os
import shutil
import subprocess
import tempfile
import time


class Error(Exception):
    pass


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    def __init__(self, width=1280, height=760):
        exe = find_chromium()
        if not exe:
            raise Error("no chromium (scripts/setup.sh installs it: CUTTLE_TEST_PACKAGES)")
        self.profile = tempfile.mkdtemp(prefix="cuttle-chromium-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def fds():
            # The protocol's pipe: the browser reads commands on 3 and writes replies on 4. Moved
            # out of the way first (a pipe may already be 3 or 4, and dup2 onto itself would keep
            # its close-on-exec flag).
            r, w = os.dup(to_child_r), os.dup(from_child_w)
            os.dup2(r, 3)
            os.dup2(w, 4)

        args = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
                "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-extensions", "--user-data-dir=" + self.profile,
                "--window-size=%d,%d" % (width, height), "about:blank"]
        # close_fds would run after preexec_fn and close 3 and 4 again.
        self.proc = subprocess.Popen(args, preexec_fn=fds, close_fds=False,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_child_r)
        os.close(from_child_w)
        self._buf = b""
        self._next = 1
        self.events = []
        self.width, self.height = width, height
        self._pages = set()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        try:
            self.call("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        for fd in (self._to_child, self._from_child):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)

    def _read_message(self, deadline):
        import select
        while b"\0" not in self._buf:
            left = deadline - time.time()
            if left <= 0:
                raise Error("chromium did not answer in time")
            ready, _, _ = select.select([self._from_child], [], [], left)
            if ready:
                chunk = os.read(self._from_child, 1 << 20)
                if not chunk:
                    raise Error("chromium closed its pipe (it crashed or exited)")
                self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None, timeout=30):
        mid = self._next
        self._next += 1
        msg = {"id": mid, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._to_child, json.dumps(msg).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            m = self._read_message(deadline)
            if m.get("id") == mid:
                if "error" in m:
                    raise Error("%s: %s" % (method, m["error"].get("message")))
                return m.get("result", {})
            self.events.append(m)

    def _close_idle_targets(self):
        # Headless Chromium keeps its first tab (about:blank) and its omnibox popup's WebUI alive;
        # that renderer repainted for every frame the editor's page drew (3 ms of CPU a frame in
        # bench_editor on 2 cores, taken from the engine's). Closed once a page of ours exists.
        for t in self.call("Target.getTargets")["targetInfos"]:
            if t["targetId"] not in self._pages and (
                    t["type"] == "browser_ui" or (t["type"] == "page" and t["url"] == "about:blank")):
                try:
                    self.call("Target.closeTarget", {"targetId": t["targetId"]})
                except Error:
                    pass

    def new_page(self, url):
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        if not self._pages:
            self._pages.add(target)
            self._close_idle_targets()
        self._pages.add(target)
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        page = Page(self, session, target)
        page.call("Page.enable")
        page.call("Runtime.enable")
        page.call("Emulation.setDeviceMetricsOverride",
                  {"width": self.width, "height": self.height, "deviceScaleFactor": 1, "mobile": False})
        if url.startswith("http"):
            # The system clipboard, as a designer's browser would allow it after a prompt.
            origin = url.split("/", 3)
            self.call("Browser.grantPermissions",
                      {"origin": origin[0] + "//" + origin[2],
                       "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
        page.call("Page.navigate", {"url": url})
        return page


class Page:
    def __init__(self, browser, session, target):
        self.b, self.session, self.target = browser, session, target

    def call(self, method, params=None, timeout=30):
        return self.b.call(method, params, self.session, timeout)

    def eval(self, expr, timeout=30):
        """The value of a JavaScript expression (promises awaited); a thrown error raises."""
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                           "awaitPromise": True, "userGesture": True}, timeout)
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            raise Error("page: %s" % (d.get("exception", {}).get("description") or d.get("text")))
        return r.get("result", {}).get("value")

    def wait(self, expr, timeout=20, what=None):
        deadline = time.time() + timeout
        while True:
            try:
                v = self.eval(expr)
            except Error:
                v = None
            if v:
                return v
            if time.time() > deadline:
                raise Error("timed out waiting for %s" % (what or expr))
            time.sleep(0.05)

    def mouse(self, kind, x, y, button="left", buttons=1, modifiers=0, count=1):
        self.call("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": button,
                                               "buttons": buttons, "clickCount": count,
                                               "modifiers": modifiers})

    def click(self, x, y, modifiers=0):
        self.mouse("mouseMoved", x, y, button="none", buttons=0)
        self.mouse("mousePressed", x, y, modifiers=modifiers)
        self.mouse("mouseReleased", x, y, buttons=0, modifiers=modifiers)

    def drag(self, x0, y0, x1, y1, steps=8):
        self.mouse("mouseMoved", x0, y0, button="none", buttons=0)
        self.mouse("mousePressed", x0, y0)
        for i in range(1, steps + 1):
            self.mouse("mouseMoved", x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps)
        self.mouse("mouseReleased", x1, y1, buttons=0)

    def key(self, key, code, vk, modifiers=0, commands=None):
        """A key press; modifiers: 2 Ctrl, 8 Shift (add them)."""
        down = {"type": "rawKeyDown", "key": key, "code": code, "windowsVirtualKeyCode": vk,
                "modifiers": modifiers}
        if commands:
            down["commands"] = commands
        self.call("Input.dispatchKeyEvent", down)
        self.call("Input.dispatchKeyEvent", {"type": "keyUp", "key": key, "code": code,
                                             "windowsVirtualKeyCode": vk, "modifiers": modifiers})

    def type_text(self, text):
        self.call("Input.insertText", {"text": text})

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", {"format": "png"})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
        return path

    def close(self):
        self.b.call("Target.closeTarget", {"targetId": self.target})
