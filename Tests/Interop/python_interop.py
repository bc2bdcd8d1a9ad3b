#!/usr/bin/env python3
"""Interop check: Python `websockets` against herald-server /echo and /sync, over ws:// and wss://.

Usage: python_interop.py '<json config>' with {"bases": [...], "alice": TOKEN, "bob": TOKEN, "compression": bool, "ca": "cert.pem"}
permessage-deflate is always offered; `compression` says whether the server is expected to accept it.
Exit status: 0 when every check passes, 1 on a failed check, 77 when `websockets` is not installed (skip).
"""
import asyncio
import json
import os
import ssl
import sys

try:
    from websockets.asyncio.client import connect
except ImportError:
    print("SKIP: python module websockets is not installed (pip install websockets)")
    sys.exit(77)


def tls_context(base, config):
    if not base.startswith("wss://"):
        return None
    context = ssl.create_default_context(cafile=config["ca"])  # verifies the test certificate and 127.0.0.1
    return context


def negotiated(ws):
    return "permessage-deflate" in (ws.response.headers.get("Sec-WebSocket-Extensions") or "")


async def next_matching(ws, accept, what):
    async def loop():
        while True:
            frame = await ws.recv()
            if accept(frame):
                return frame
    try:
        return await asyncio.wait_for(loop(), timeout=10)
    except asyncio.TimeoutError:
        raise AssertionError(f"timed out waiting for {what}")


async def request(ws, body):
    await ws.send(json.dumps(body))
    text = await next_matching(ws, lambda frame: json.loads(frame).get("id") == body["id"], f"response {body['id']}")
    response = json.loads(text)
    assert response["ok"], f"{body['type']} failed: {text}"
    return response


async def check(base, config):
    options = dict(ssl=tls_context(base, config), compression="deflate", max_size=1 << 20)
    async with connect(f"{base}/echo", **options) as ws:
        assert negotiated(ws) == config["compression"], f"{base}: deflate negotiated={negotiated(ws)}"
        text = f"hello from python ✓ {base}"
        await ws.send(text)
        assert await ws.recv() == text, "text echo mismatch"
        payload = os.urandom(1000)
        await ws.send(payload)
        assert await ws.recv() == payload, "binary echo mismatch"
        big = "chat message " * 5042
        await ws.send(big)
        assert await ws.recv() == big, "64 KiB echo mismatch"
    print(f"ok echo {base} compression={str(negotiated(ws)).lower()}")

    sync = dict(options, subprotocols=["herald.v1"])
    async with connect(f"{base}/sync?token={config['bob']}", **sync) as bob, \
            connect(f"{base}/sync?token={config['alice']}", **sync) as alice:
        assert bob.subprotocol == "herald.v1", f"subprotocol {bob.subprotocol}"
        await request(bob, {"type": "sync", "id": 1})
        await request(alice, {"type": "sync", "id": 1})
        dm = await request(alice, {"type": "dm", "id": 2, "user": "bob"})
        conversation = dm["conversation"]["id"] if isinstance(dm["conversation"], dict) else dm["conversation"]
        message = f"hi bob, python here over {base}"
        await request(alice, {"type": "send", "id": 3, "conversation": conversation,
                              "clientMessageId": f"python-{os.urandom(6).hex()}", "text": message})

        def is_message(frame):
            event = json.loads(frame)
            return event.get("type") == "event" and event.get("event") == "message" and event["message"]["text"] == message
        await next_matching(bob, is_message, "bob's message event")
    print(f"ok sync {base} compression={str(negotiated(bob)).lower()}")


async def main(config):
    for base in config["bases"]:
        await check(base, config)


if __name__ == "__main__":
    try:
        asyncio.run(main(json.loads(sys.argv[1])))
    except AssertionError as error:
        print(f"FAIL: {error}")
        sys.exit(1)
