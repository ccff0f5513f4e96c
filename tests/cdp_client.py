"""A headless chromium driven over the DevTools protocol, standard library only: the browser is
started with --remote-debugging-port=0, its websocket URL read from stderr, and spoken to by a
minimal websocket client (RFC 6455: the handshake, masked text frames out, unmasked frames in).

    with Browser(exe, scratch) as b:
        page = b.new_page()              # a tab id
        b.call("Page.navigate", {"url": "file:///..."}, page)
        b.wait_event("Page.loadEventFired", page)
"""
import base64
import hashlib
import json
import os
import queue
import shutil
import socket
import struct
import subprocess
import threading
import time
import urllib.parse

WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"  # RFC 6455 section 1.3
CHROMIUM_PACKAGE = "chromium"  # Debian's: apt-get install chromium


def find_chromium():
    """The chromium executable on PATH (chromium, chromium-browser, google-chrome), or None."""
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        exe = shutil.which(name)
        if exe:
            return exe
    return None


class WebSocket:
    """A client websocket over a plain TCP socket (ws:// only), text messages."""

    def __init__(self, url, timeout=30):
        u = urllib.parse.urlparse(url)
        self.sock = socket.create_connection((u.hostname, u.port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {u.path} HTTP/1.1\r\nHost: {u.hostname}:{u.port}\r\n"
                           "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                           f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("websocket handshake: connection closed")
            data += chunk
        head, self.buf = data.split(b"\r\n\r\n", 1)
        accept = base64.b64encode(hashlib.sha1((key + WS_GUID).encode()).digest()).decode()
        if b" 101 " not in head.split(b"\r\n", 1)[0] or accept.encode() not in head:
            raise ConnectionError(f"websocket handshake refused: {head[:200]!r}")

    def _frame(self, opcode, payload):
        """One final frame, masked as a client must."""
        n = len(payload)
        header = bytes([0x80 | opcode])
        if n < 126:
            header += bytes([0x80 | n])
        elif n < 1 << 16:
            header += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        repeated = (mask * (n // 4 + 1))[:n]
        masked = (int.from_bytes(payload, "big") ^ int.from_bytes(repeated, "big")).to_bytes(n, "big")
        self.sock.sendall(header + mask + masked)

    def send(self, text):
        """A text message."""
        self._frame(0x1, text.encode("utf-8"))

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise ConnectionError("websocket closed by the browser")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def recv(self):
        """The next text message (fragments joined; pings answered)."""
        parts = []
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            mask = self._read(4) if b1 & 0x80 else None
            payload = self._read(n)
            if mask:
                payload = bytes(c ^ mask[i % 4] for i, c in enumerate(payload))
            opcode = b0 & 0x0F
            if opcode == 0x9:
                self._frame(0xA, payload)
                continue
            if opcode == 0x8:
                raise ConnectionError("websocket closed by the browser")
            if opcode in (0x0, 0x1, 0x2):
                parts.append(payload)
                if b0 & 0x80:
                    return b"".join(parts).decode("utf-8")

    def close(self):
        try:
            self._frame(0x8, b"")
        except OSError:
            pass
        self.sock.close()


class Browser:
    """chromium --headless with a fresh --user-data-dir under scratch; call() sends a DevTools
    command and returns its result, keeping every event in `events` [(tab, method, params)]."""

    def __init__(self, exe, scratch, timeout=30):
        self.timeout = timeout
        cmd = [exe, "--headless", "--disable-gpu", "--remote-debugging-port=0", "--no-first-run",
               "--no-default-browser-check", "--window-size=1280,900",
               f"--user-data-dir={os.path.join(scratch, 'chromium-profile')}", "about:blank"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            cmd.insert(1, "--no-sandbox")  # chromium refuses to run as root with its sandbox
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True)
        self.stderr = []
        lines = queue.Queue()

        def drain():
            for line in self.proc.stderr:
                self.stderr.append(line)
                lines.put(line)
            lines.put(None)
        threading.Thread(target=drain, daemon=True).start()
        url, t0 = None, time.time()
        while url is None and time.time() - t0 < timeout:
            try:
                line = lines.get(timeout=max(0.1, timeout - (time.time() - t0)))
            except queue.Empty:
                break
            if line is None:
                break
            if "DevTools listening on " in line:
                url = line.split("DevTools listening on ", 1)[1].strip()
        if url is None:
            self.close()
            raise RuntimeError("chromium printed no DevTools websocket URL: "
                               + "".join(self.stderr)[-1500:])
        self.ws = WebSocket(url, timeout)
        self.next_id = 0
        self.events = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _message(self):
        return json.loads(self.ws.recv())

    def call(self, method, params=None, tab=None):
        """The result of one DevTools command (in `tab`, a page, or the browser)."""
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if tab:
            msg["sessionId"] = tab
        self.ws.send(json.dumps(msg))
        while True:
            m = self._message()
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            if "method" in m:
                self.events.append((m.get("sessionId"), m["method"], m.get("params", {})))

    def wait_event(self, method, tab=None, timeout=None):
        """The params of the first event `method` (of `tab`) seen so far or arriving."""
        deadline = time.time() + (timeout or self.timeout)
        seen = 0
        while True:
            for s, name, params in self.events[seen:]:
                if name == method and (tab is None or s == tab):
                    return params
            seen = len(self.events)
            if time.time() > deadline:
                raise TimeoutError(f"no {method} event")
            m = self._message()
            if "method" in m:
                self.events.append((m.get("sessionId"), m["method"], m.get("params", {})))

    def new_page(self):
        """A new blank tab, attached (flat tabs): its tab id."""
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        return self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]

    def evaluate(self, expression, tab):
        """The value of a JavaScript expression in the page (returned by value)."""
        r = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True}, tab)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expression[:80]}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def click(self, x, y, tab):
        """A real left click at viewport coordinates (x, y): move, press, release."""
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            params = {"type": kind, "x": x, "y": y}
            if kind != "mouseMoved":
                params.update(button="left", clickCount=1)
            self.call("Input.dispatchMouseEvent", params, tab)

    def close(self):
        """The browser ended (its websocket closed, the process terminated, then killed)."""
        ws = getattr(self, "ws", None)
        if ws:
            ws.close()
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
