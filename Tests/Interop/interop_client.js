// Interop checks shared by the Node.js `ws` runner and the Chromium page: /echo round trips and a /sync
// conversation (alice sends a dm, bob receives the `message` event) on every base URL in the config.
// `open(url, protocol)` returns a browser-style WebSocket (onopen/onmessage/onclose, .extensions, .protocol).
"use strict";

function peer(socket) {
  const frames = [];
  const waiters = [];
  socket.binaryType = "arraybuffer";
  socket.onmessage = (event) => {
    frames.push(event.data);
    for (const waiter of waiters.splice(0)) waiter();
  };
  socket.onclose = (event) => {
    socket.closedWith = event.code;
    for (const waiter of waiters.splice(0)) waiter();
  };
  return {
    socket,
    /** The next frame satisfying `accept` (earlier non-matching frames are dropped). */
    async next(accept, what) {
      const deadline = Date.now() + 10000;
      for (;;) {
        while (frames.length > 0) {
          const frame = frames.shift();
          if (accept(frame)) return frame;
        }
        if (socket.closedWith !== undefined) throw new Error(`closed (${socket.closedWith}) while waiting for ${what}`);
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => { waiters.push(resolve); setTimeout(resolve, left); });
      }
    },
    async request(json) {
      socket.send(JSON.stringify(json));
      const text = await this.next((frame) => typeof frame === "string" && JSON.parse(frame).id === json.id, `response ${json.id}`);
      const response = JSON.parse(text);
      if (!response.ok) throw new Error(`${json.type} failed: ${text}`);
      return response;
    },
  };
}

function opened(socket) {
  return new Promise((resolve, reject) => {
    socket.onopen = () => resolve(socket);
    socket.onerror = () => reject(new Error(`could not open ${socket.url}`));
  });
}

function bytesEqual(a, b) {
  const x = new Uint8Array(a), y = new Uint8Array(b);
  return x.length === y.length && x.every((value, index) => value === y[index]);
}

async function runInterop(config, open, name) {
  const lines = [];
  for (const base of config.bases) {
    const echo = peer(await opened(open(`${base}/echo`)));
    const compressed = echo.socket.extensions.includes("permessage-deflate");
    if (compressed !== config.compression) throw new Error(`${base}: permessage-deflate negotiated=${compressed}, expected ${config.compression}`);
    const text = `hello from ${name} ✓ ${base}`;
    echo.socket.send(text);
    if ((await echo.next(() => true, "text echo")) !== text) throw new Error("text echo mismatch");
    const binary = new Uint8Array(1000).map((_, index) => (index * 31) & 0xff);
    echo.socket.send(binary);
    if (!bytesEqual(await echo.next(() => true, "binary echo"), binary)) throw new Error("binary echo mismatch");
    const big = "chat message ".repeat(5042);
    echo.socket.send(big);
    if ((await echo.next(() => true, "64 KiB echo")) !== big) throw new Error("64 KiB echo mismatch");
    echo.socket.close(1000);
    lines.push(`ok echo ${base} compression=${compressed}`);

    const bob = peer(await opened(open(`${base}/sync?token=${config.bob}`, "herald.v1")));
    const alice = peer(await opened(open(`${base}/sync?token=${config.alice}`, "herald.v1")));
    if (bob.socket.protocol !== "herald.v1") throw new Error(`subprotocol ${bob.socket.protocol}`);
    await bob.request({ type: "sync", id: 1 });
    await alice.request({ type: "sync", id: 1 });
    const dm = await alice.request({ type: "dm", id: 2, user: "bob" });
    const conversation = typeof dm.conversation === "object" ? dm.conversation.id : dm.conversation;
    const message = `hi bob, ${name} here over ${base}`;
    await alice.request({ type: "send", id: 3, conversation, clientMessageId: `${name}-${Date.now()}-${Math.random()}`, text: message });
    await bob.next((frame) => {
      const event = JSON.parse(frame);
      return event.type === "event" && event.event === "message" && event.message.text === message;
    }, "bob's message event");
    alice.socket.close(1000);
    bob.socket.close(1000);
    lines.push(`ok sync ${base} compression=${bob.socket.extensions.includes("permessage-deflate")}`);
  }
  return lines;
}

if (typeof module !== "undefined") module.exports = { runInterop };
