#!/usr/bin/env python3
"""Checks that a server's echo endpoint echoes, before wsbench's echo test is trusted.

    echo_probe.py PORT [PATH]      (PATH defaults to /echo; exit 0 = it echoes, 1 = it does not, with the reason)

wsbench's echo test counts every text frame a connection receives while it waits as the reply to its request. A
server that answers on /echo with something else (a broadcast to the other connections, say) then shows a round-trip
rate that is no round trip at all. This probe opens ONE connection, sends three different masked text frames one at
a time and requires each to come back unchanged, alone, within two seconds. Standard library only (RFC 6455 framing).
"""
import base64
import os
import socket
import sys
import time


def handshake(sock, path):
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(4096)
        if not chunk:
            raise RuntimeError("closed during the handshake")
        head += chunk
    status, rest = head.split(b"\r\n", 1)[0], head.split(b"\r\n\r\n", 1)[1]
    if b" 101 " not in status + b" ":
        raise RuntimeError(f"handshake answered {status.decode(errors='replace')!r}")
    return rest


def masked_text(payload):
    mask = os.urandom(4)
    assert len(payload) < 126
    return bytes([0x81, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def read_frame(sock, buffer, deadline):
    """One unmasked server frame: (opcode, payload, rest of buffer), or None when nothing came by the deadline."""
    while True:
        if len(buffer) >= 2:
            length, offset = buffer[1] & 0x7F, 2
            if length == 126:
                length, offset = int.from_bytes(buffer[2:4], "big"), 4
            elif length == 127:
                length, offset = int.from_bytes(buffer[2:10], "big"), 10
            if len(buffer) >= offset + length:
                return buffer[0] & 0x0F, buffer[offset:offset + length], buffer[offset + length:]
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        sock.settimeout(left)
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            return None
        if not chunk:
            raise RuntimeError("closed by the server")
        buffer += chunk


def main():
    port, path = int(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else "/echo"
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        buffer = handshake(sock, path)
        for n in range(3):
            payload = f"echo-probe {n} {os.urandom(6).hex()}".encode()
            sock.sendall(masked_text(payload))
            got = read_frame(sock, buffer, time.monotonic() + 2)
            if got is None:
                raise RuntimeError(f"message {n} was not echoed within 2 s")
            opcode, body, buffer = got
            if opcode != 0x1 or body != payload:
                raise RuntimeError(f"message {n} came back as opcode {opcode} {body[:40]!r}, not {payload!r}")
        extra = read_frame(sock, buffer, time.monotonic() + 0.2)
        if extra is not None:
            raise RuntimeError(f"an extra frame arrived after the echoes: {extra[1][:40]!r}")
    except (OSError, RuntimeError) as error:
        print(f"no echo on 127.0.0.1:{port}{path}: {error}")
        return 1
    print(f"echo verified on 127.0.0.1:{port}{path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
