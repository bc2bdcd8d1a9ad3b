#!/usr/bin/env python3
"""A fixed number of WebSocket operations against a server on loopback, for instruction counts.

    ws_load.py echo      PORT ROUND_TRIPS [--conns C] [--size B]
    ws_load.py broadcast PORT MESSAGES    [--subs S] [--inflight W] [--size B]

Unlike wsbench (bounded by time), every run does exactly the operations asked for, so the server's instruction count
for a run is a function of the load, not of the machine's speed: .bench/instructions.sh takes the difference between
two such runs of different sizes (the marginal cost) and CI compares it with a committed baseline.

echo: C connections to /echo, each with one message of B bytes in flight until ROUND_TRIPS replies came back in all.
broadcast: S subscribers and one publisher on /ws?user=i (peers' semantics: a text starting with "hello" is answered
"ready" and not broadcast, any other text goes to every other connection); the publisher keeps W messages in flight
(sent, not yet delivered to every subscriber) until MESSAGES were sent and all S x MESSAGES deliveries arrived.
Prints one line: RESULT {"mode":..., "ops":N}, N = round trips or deliveries. Exits non-zero on any error or timeout.
"""
import base64
import json
import os
import selectors
import socket
import struct
import sys
import time

DEADLINE_S = 600


class Conn:
    def __init__(self, port, path):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=120)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                           f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise RuntimeError(f"{path}: closed during the handshake")
            head += chunk
        status, _, rest = head.partition(b"\r\n\r\n")
        first = status.split(b"\r\n")[0]
        if b" 101 " not in first:
            raise RuntimeError(f"{path}: handshake answered {first!r}")
        self.buf = bytearray(rest)
        self.sock.setblocking(False)
        self.waiting = 0

    def send_text(self, payload: bytes):
        mask = os.urandom(4)
        n = len(payload)
        if n < 126:
            head = struct.pack("!BB", 0x81, 0x80 | n)
        else:
            head = struct.pack("!BBH", 0x81, 0x80 | 126, n)
        masked = bytes(b ^ mask[i & 3] for i, b in enumerate(payload))
        data = head + mask + masked
        self.sock.setblocking(True)
        self.sock.sendall(data)
        self.sock.setblocking(False)

    def read_messages(self):
        """Reads what is there; returns the complete text messages' payloads."""
        try:
            chunk = self.sock.recv(1 << 16)
        except BlockingIOError:
            return []
        if not chunk:
            raise RuntimeError("the server closed a connection")
        self.buf += chunk
        out = []
        while len(self.buf) >= 2:
            b0, b1 = self.buf[0], self.buf[1]
            n, at = b1 & 0x7F, 2
            if n == 126:
                if len(self.buf) < 4:
                    break
                n, at = struct.unpack_from("!H", self.buf, 2)[0], 4
            elif n == 127:
                if len(self.buf) < 10:
                    break
                n, at = struct.unpack_from("!Q", self.buf, 2)[0], 10
            if len(self.buf) < at + n:
                break
            payload = bytes(self.buf[at:at + n])
            del self.buf[:at + n]
            opcode = b0 & 0x0F
            if opcode == 0x8:
                raise RuntimeError("the server sent a close frame")
            if opcode == 0x1:
                out.append(payload)
        return out


def wait_for(sel, until, deadline):
    while not until():
        if time.monotonic() > deadline:
            raise RuntimeError("timed out")
        for key, _ in sel.select(timeout=1):
            yield key.data


def echo(port, total, conns, size):
    sel = selectors.DefaultSelector()
    cs = [Conn(port, "/echo") for _ in range(conns)]
    for c in cs:
        sel.register(c.sock, selectors.EVENT_READ, c)
    payload = b"e" * size
    sent = done = 0
    for c in cs:
        if sent < total:
            c.send_text(payload); c.waiting = 1; sent += 1
    deadline = time.monotonic() + DEADLINE_S
    for c in wait_for(sel, lambda: done >= total, deadline):
        for msg in c.read_messages():
            if msg != payload:
                raise RuntimeError("an echo differs from what was sent")
            done += 1
            c.waiting = 0
            if sent < total:
                c.send_text(payload); c.waiting = 1; sent += 1
    return done


def broadcast(port, messages, subs, inflight, size):
    sel = selectors.DefaultSelector()
    all_conns = []
    for i in range(subs + 1):
        c = Conn(port, f"/ws?user={i}")
        c.send_text(f"hello {i}".encode())
        all_conns.append(c)
    deadline = time.monotonic() + DEADLINE_S
    ready = 0
    for c in all_conns:
        sel.register(c.sock, selectors.EVENT_READ, c)
    pending_ready = set(range(len(all_conns)))
    index = {id(c): i for i, c in enumerate(all_conns)}
    for c in wait_for(sel, lambda: not pending_ready, deadline):
        if any(m.startswith(b"ready") for m in c.read_messages()):
            pending_ready.discard(index[id(c)])
    publisher, receivers = all_conns[-1], all_conns[:-1]
    sel.unregister(publisher.sock)
    payload = (b"m" * size)
    delivered = sent = 0
    expected = messages * subs

    def top_up():
        nonlocal sent
        while sent < messages and sent - delivered // subs < inflight:
            publisher.send_text(payload); sent += 1

    top_up()
    for c in wait_for(sel, lambda: delivered >= expected, deadline):
        delivered += len(c.read_messages())
        top_up()
    return delivered


def main():
    args = sys.argv[1:]
    if len(args) < 3 or args[0] not in ("echo", "broadcast"):
        sys.exit(__doc__)
    mode, port, count = args[0], int(args[1]), int(args[2])
    opts = dict(zip(args[3::2], args[4::2]))
    size = int(opts.get("--size", 64 if mode == "echo" else 100))
    if mode == "echo":
        ops = echo(port, count, int(opts.get("--conns", 50)), size)
    else:
        ops = broadcast(port, count, int(opts.get("--subs", 200)), int(opts.get("--inflight", 8)), size)
    print("RESULT " + json.dumps({"mode": mode, "ops": ops}))


if __name__ == "__main__":
    try:
        main()
    except (OSError, RuntimeError) as error:
        sys.exit(f"ws_load: {error}")
