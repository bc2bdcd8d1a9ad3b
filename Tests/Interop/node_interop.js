#!/usr/bin/env node
// Interop check: Node.js `ws` (Debian's node-ws; NODE_PATH=/usr/share/nodejs) against herald-server.
// Usage: node_interop.js '<json config>'  with {"bases":["ws://127.0.0.1:P","wss://127.0.0.1:T"],
//        "alice":TOKEN,"bob":TOKEN,"compression":true|false,"ca":"cert.pem"}
// Exit status: 0 ok, 1 failed check, 77 when the `ws` module is not installed (skip).
"use strict";
let WebSocket;
try {
  WebSocket = require("ws");
} catch (error) {
  console.log("SKIP: node module ws is not installed (apt-get install -y node-ws; NODE_PATH=/usr/share/nodejs)");
  process.exit(77);
}
const fs = require("fs");
const { runInterop } = require("./interop_client.js");

const config = JSON.parse(process.argv[2]);
const ca = config.ca ? fs.readFileSync(config.ca) : undefined;
// perMessageDeflate is offered always; the server decides (config.compression says what it will answer).
const open = (url, protocol) => new WebSocket(url, protocol ? [protocol] : [], { ca, perMessageDeflate: true });

runInterop(config, open, "node-ws")
  .then((lines) => {
    for (const line of lines) console.log(line);
    process.exit(0);
  })
  .catch((error) => {
    console.log(`FAIL: ${error.message}`);
    process.exit(1);
  });
