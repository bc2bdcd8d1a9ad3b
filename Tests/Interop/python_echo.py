#!/usr/bin/env python3
"""Interop check: the third-party Python `websockets` client talks to herald-server's /echo endpoint.

Usage: python_echo.py ws://127.0.0.1:PORT/echo
Exit status: 0 when every check passes, 1 on a failed check, 77 when `websockets` is not installed (skip).
Prints one line per check so the Swift test can show what happened.
"""
import asyncio
import os
import sys

try:
    import websockets
    from websockets.asyncio.client import connect
except ImportError:
    print("SKIP: python module websockets is not installed (pip install websockets)")
    sys.exit(77)


async def main(url: str) -> None:
    async with connect(url, max_size=1 << 20, compression=None) as ws:
        await ws.send("hello, herald ✓")
        reply = await ws.recv()
        assert reply == "hello, herald ✓", f"text echo mismatch: {reply!r}"
        print("ok text")

        payload = os.urandom(1000)
        await ws.send(payload)
        reply = await ws.recv()
        assert isinstance(reply, bytes) and reply == payload, "binary echo mismatch"
        print("ok binary")

        big = os.urandom(64 * 1024)
        await ws.send(big)
        reply = await ws.recv()
        assert reply == big, f"64 KiB echo mismatch (got {len(reply)} bytes)"
        print("ok 64KiB")

        pong = await ws.ping(b"interop-ping")
        latency = await asyncio.wait_for(pong, timeout=5)
        print(f"ok ping ({latency * 1000:.1f} ms)")

        fragments = ["frag-1 ", "frag-2 ", "frag-3"]
        await ws.send(iter(fragments))
        reply = await ws.recv()
        assert reply == "".join(fragments), f"fragmented echo mismatch: {reply!r}"
        print("ok fragmented")

    assert ws.close_code == 1000, f"close code {ws.close_code}"
    print(f"ok close {ws.close_code} (websockets {websockets.__version__})")


if __name__ == "__main__":
    try:
        asyncio.run(asyncio.wait_for(main(sys.argv[1]), timeout=20))
    except AssertionError as error:
        print(f"FAIL: {error}")
        sys.exit(1)
