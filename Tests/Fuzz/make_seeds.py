#!/usr/bin/env python3
"""Writes the seed corpora, one directory per target, into the directory given (run.sh: .build/seeds).

Every seed is real traffic in the layout its harness expects (see each harness's doc comment): a few header bytes
that choose limits and chunking, then bytes as they travel on the wire.
"""
import os, struct, sys, zlib

HERE = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), ".build", "seeds")
SEED = bytes(range(1, 9))  # 8 chunking-seed bytes


def write(target, name, data):
    os.makedirs(os.path.join(HERE, target), exist_ok=True)
    with open(os.path.join(HERE, target, name), "wb") as f:
        f.write(data)


def mask(payload, key):
    return bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def client_frame(opcode, payload, fin=True, rsv=0, key=b"\x37\xfa\x21\x3d"):
    first = (0x80 if fin else 0) | rsv << 4 | opcode
    n = len(payload)
    if n <= 125:
        header = bytes([first, 0x80 | n])
    elif n <= 0xFFFF:
        header = bytes([first, 0x80 | 126]) + struct.pack(">H", n)
    else:
        header = bytes([first, 0x80 | 127]) + struct.pack(">Q", n)
    return header + key + mask(payload, key)


def deflate_message(data, wbits=15):
    c = zlib.compressobj(6, zlib.DEFLATED, -wbits)
    out = c.compress(data) + c.flush(zlib.Z_SYNC_FLUSH)
    assert out.endswith(b"\x00\x00\xff\xff")
    return out[:-4]


# --- fuzz-websocket-bytes: config byte (limits, chunk size), 8 seed bytes, client bytes.
ws = "fuzz-websocket-bytes"
write(ws, "rfc6455-5.7-masked-hello", b"\x0f" + SEED + bytes.fromhex("818537fa213d7f9f4d5158"))
write(ws, "fragmented-text-with-ping", b"\x07" + SEED + client_frame(1, b"Hel", fin=False) + client_frame(9, b"ping")
      + client_frame(0, b"lo \xe2\x82", fin=False) + client_frame(0, b"\xac!"))
write(ws, "binary-16bit-length-then-close", b"\x0b" + SEED + client_frame(2, bytes(range(256)) * 2) + client_frame(8, b"\x03\xe8bye"))
write(ws, "ping-pong-close-no-code", b"\x03" + SEED + client_frame(9, b"") + client_frame(10, b"x" * 125) + client_frame(8, b""))
write(ws, "1GiB-length-header", b"\x0f" + SEED + bytes.fromhex("82ff0000000040000000"))
write(ws, "unmasked-text", b"\x03" + SEED + b"\x81\x05Hello")
write(ws, "invalid-utf8-across-fragments", b"\x0f" + SEED + client_frame(1, b"ok \xf0\x9f", fin=False) + client_frame(0, b"\x28\x28"))

# --- fuzz-websocket-frames: config, 8 seed bytes, [deflate parameters], then operations (see the harness).
fr = "fuzz-websocket-frames"
# text message "hello" in 2 fragments with a ping between, then a close 1000 "bye"
write(fr, "text-ping-close", b"\x03" + SEED + bytes([0x10, 5]) + b"hello" + bytes([2, 1, 0xFF, 0, 3, 0x41])
      + bytes([0x02, 4]) + b"ping" + bytes([0x40, 0x04, 0, 3]) + b"bye" + bytes([0]))
# compressed text (deflate negotiated: config bit 2), long pattern message, context takeover across two messages
write(fr, "deflate-two-messages", b"\x07" + SEED + bytes([0x00, 0x30, 0xF3, 1]) + b"abc" + bytes([2, 0, 5, 0, 9, 0x80])
      + bytes([0x30, 40]) + b"{\"type\":\"send\",\"id\":5,\"text\":\"hello\"}.." + bytes([1, 0, 0]))
write(fr, "binary-limits-1009", b"\x00" + SEED + bytes([0x01, 0xF2, 0, 1, 0x55, 3, 10, 0, 20, 0, 0, 0x40, 0x80, 0xC0]))
write(fr, "violations", b"\x0f" + SEED + bytes([0x07, 3, 1, 2, 3, 0]) + bytes([0x17, 2, 9, 9, 0]) + bytes([0x05, 0x01]))
write(fr, "invalid-text-and-garbage", b"\x0b" + SEED + bytes([0x06, 4]) + b"caf\xc3" + bytes([2, 1, 2, 0, 0]) + bytes([0x08, 4]) + b"\x81\x85\x00\x00")

# --- fuzz-handshake: config (bit 0: 0 request, 1 response; head limit; chunk size), 8 seed bytes, head bytes.
hs = "fuzz-handshake"
upgrade = (b"GET /sync?token=abc&device=d1 HTTP/1.1\r\nHost: server.example.com\r\nUpgrade: websocket\r\n"
           b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nOrigin: http://example.com\r\n"
           b"Sec-WebSocket-Protocol: herald.v1, chat\r\nSec-WebSocket-Version: 13\r\n"
           b"Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits, permessage-deflate\r\n\r\n")
write(hs, "rfc6455-upgrade-with-deflate", b"\x04" + SEED + upgrade)
write(hs, "upgrade-then-frame", b"\x0c" + SEED + upgrade + bytes.fromhex("818537fa213d7f9f4d5158"))
write(hs, "pipelined-healthz", b"\x14" + SEED + b"\n\r\nGET /healthz HTTP/1.1\r\nHost: a\r\n\r\nGET /echo HTTP/1.0\nHost: b\n\n")
write(hs, "version-8-and-folding", b"\x04" + SEED + b"GET / HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\n"
      b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 8\r\nX-Folded: a\r\n b\r\n\r\n")
write(hs, "response-101", b"\x05" + SEED + b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      b"Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nSec-WebSocket-Protocol: herald.v1\r\n"
      b"Sec-WebSocket-Extensions: permessage-deflate; server_no_context_takeover; client_max_window_bits=10\r\n\r\n")
write(hs, "response-426", b"\x0d" + SEED + b"HTTP/1.1 426 Upgrade Required\r\nSec-WebSocket-Version: 13\r\nContent-Length: 5\r\n\r\nhello")

# --- fuzz-inflate: limit choice, parameters byte, 8 seed bytes, then messages as 16-bit LE length + bytes.
inf = "fuzz-inflate"
def messages(*ms):
    return b"".join(struct.pack("<H", len(m)) + m for m in ms)
write(inf, "rfc7692-hello", b"\x03\x00" + SEED + messages(bytes.fromhex("f248cdc9c90700")))
write(inf, "context-takeover", b"\x04\x00" + SEED + messages(*(lambda c: [
    (lambda a: a[:-4])(c.compress(b"Hello, Hello!") + c.flush(zlib.Z_SYNC_FLUSH)),
    (lambda a: a[:-4])(c.compress(b"Hello, Hello! again") + c.flush(zlib.Z_SYNC_FLUSH))])(zlib.compressobj(6, zlib.DEFLATED, -15))))
write(inf, "bfinal-block-and-window-10", b"\x03" + bytes([0x02 | 0x02 << 5]) + SEED
      + messages(zlib.compress(b"final block " * 20, 9)[2:-4], deflate_message(b"window ten " * 30, 10)))
write(inf, "bomb-1MiB-zeros", b"\x04\x00" + SEED + messages(deflate_message(bytes(1 << 20))))
write(inf, "corrupt-block-type", b"\x05\x00" + SEED + messages(b"\x07\x00\x00\xff\xff", deflate_message(b"x" * 100)))
write(inf, "stored-block", b"\x03\x00" + SEED + messages(b"\x00\x05\x00\xfa\xffhello"))

# --- fuzz-request-frame: one client text frame (PROTOCOL.md examples).
req = "fuzz-request-frame"
for i, line in enumerate([
    '{"type":"sync","id":1}', '{"type":"sync","id":1,"after":41}', '{"type":"dm","id":2,"user":"bob"}',
    '{"type":"group","id":3,"title":"Team A","members":["bob","carol"]}',
    '{"type":"history","id":4,"conversation":"c1","before":"m40","limit":20}',
    '{"type":"send","id":5,"conversation":"c1","clientMessageId":"alice-d1-17","text":"hello"}',
    '{"type":"send","id":6,"conversation":"c1","clientMessageId":"alice-d1-18","kind":"image","imageURL":"https://example.org/cat.png"}',
    '{"type":"ack","id":7,"messages":["m41","m42"]}',
    '{"type":"scene","id":8,"scene":"thread","conversation":"c1","foreground":true,"atBottom":true}',
    '{"type":"bell","id":9}', '{"type":"bell.read","id":10,"notification":"n3"}', '{"type":"bell.readAll","id":11}',
    '{"type":"follow","id":12,"user":"bob"}', '{"type":"react","id":13,"message":"m41","emoji":"\\ud83d\\udc4d"}',
    '{"type":"scene","id":14,"scene":"tab","tab":"chats"}', '{"type":"nope","id":15}', '{"id":16}', '[1,2]',
    '{"type":"users","id":18,"cursor":"bob","text":"Ca","limit":50}',
    '{"type":"typing.start","id":19,"conversation":"c1"}', '{"type":"typing.stop","id":20,"conversation":"c1"}',
    '{"type":"message.edit","id":21,"message":"m41","text":"fixed"}', '{"type":"message.unsend","id":22,"message":"m41"}',
    '{"type":"mute","id":23,"conversation":"c1","minutes":60}', '{"type":"mute","id":24,"conversation":"c1","until":1763803600000}',
    '{"type":"mute","id":25,"conversation":"c1","until":5,"minutes":5}', '{"type":"unmute","id":26,"conversation":"c1"}',
    '{"type":"quiet","id":27,"on":true}', '{"type":"markUnread","id":28,"conversation":"c1"}',
    '{"type":"group.rename","id":29,"conversation":"c2","title":"Team B"}', '{"type":"group.add","id":30,"conversation":"c2","user":"dave"}',
    '{"type":"group.remove","id":31,"conversation":"c2","user":"carol"}',
]):
    write(req, "%02d" % i, line.encode())

# --- fuzz-server-frame: one server text frame (PROTOCOL.md examples).
srv = "fuzz-server-frame"
for i, line in enumerate([
    '{"type":"response","id":1,"ok":true,"mode":"snapshot","latest":41,"conversations":[{"id":"c1","kind":"direct",'
    '"participants":[{"id":"alice","name":"Alice"},{"id":"bob","name":"Bob"}],"unread":2,"lastActivity":1763800000000,'
    '"lastMessage":{"id":"m9","conversation":"c1","sender":"bob","senderName":"Bob","kind":"text","text":"hi",'
    '"createdAt":1763800000000}}],"unread":{"c1":2},"badge":2,"notifications":[],"bellUnread":0}',
    '{"type":"response","id":1,"ok":true,"mode":"resume","latest":57}',
    '{"type":"response","id":5,"ok":true,"message":{"id":"m43","conversation":"c1","sender":"alice","senderName":"Alice",'
    '"kind":"text","text":"hello","clientMessageId":"alice-d1-17","createdAt":1763800001000},"duplicate":false}',
    '{"type":"response","id":14,"ok":false,"error":{"code":"not_participant","message":"no such conversation"}}',
    '{"type":"event","event":"message","seq":58,"message":{"id":"m44","conversation":"c1","sender":"bob",'
    '"senderName":"Bob","kind":"text","text":"yo","createdAt":1763800002000}}',
    '{"type":"event","event":"read","seq":60,"conversationId":"c1","messages":["m41","m42"],"unread":{"c1":0},"badge":0}',
    '{"type":"event","event":"receipt","seq":61,"conversationId":"c1","messageId":"m43","reader":"bob","at":1763800004000}',
    '{"type":"event","event":"bell","seq":62,"action":"created","notification":{"id":"n4","kind":"follow","actor":"bob",'
    '"text":"Bob followed you","read":false,"createdAt":1763800005000},"bellUnread":1}',
    '{"type":"event","event":"push","push":{"conversation":"c1","message":"m44","sender":"bob","title":"Bob",'
    '"preview":"yo","url":"herald://conversation/c1"}}',
    '{"type":"event","event":"push.cleared","conversationId":"c1","messageId":"m44"}',
]):
    write(srv, "%02d" % i, line.encode())

# --- fuzz-identifiers: length of the first string, the first string, then the second (both UTF-8).
ids = "fuzz-identifiers"
def pair(a, b):
    a, b = a.encode(), b.encode()
    return bytes([len(a)]) + a + b
write(ids, "kelvin-lookalike", pair("Kate", "\u212Aate"))
write(ids, "decomposed-accent", pair("Jos\u00e9", "Jose\u0301"))
write(ids, "user-ids", pair("bob.smith@example.com", "alice-phone-7"))
write(ids, "urls", pair("HTTPS://cdn.Example.com:8443/a.png?x=1#f", "herald://conversation/c1"))
write(ids, "ssrf-urls", pair("http://169.254.169.254/latest/meta-data", "https://a.localhost/x"))
write(ids, "reaction-and-name", pair("\U0001F44D\U0001F3FD", "Zo\u00eb \U0001F389 \u202Eevil"))

# --- fuzz-token: byte 0's low bits pick the mode (0 raw token, 1 signed JSON, 2 signed segments, 3 claims).
import base64, hmac, hashlib, json
tok = "fuzz-token"
SECRET = b"fuzz-secret-0123456789abcdef0123"  # the harness's server secret
def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=")
def jwt(header, claims, secret=SECRET):
    signing = b64(header) + b"." + b64(claims)
    return signing + b"." + b64(hmac.new(secret, signing, hashlib.sha256).digest())
HEADER = b'{"alg":"HS256","typ":"JWT"}'
CLAIMS = b'{"exp":1900000000,"iat":1750000000,"name":"Alice","sub":"alice"}'
write(tok, "raw-valid", b"\x00" + jwt(HEADER, CLAIMS))
write(tok, "raw-expired", b"\x00" + jwt(HEADER, b'{"exp":1700000000,"iat":1600000000,"name":"Bob","sub":"bob"}'))
write(tok, "raw-alg-none", b"\x00" + b64(b'{"alg":"none"}') + b"." + b64(CLAIMS) + b".")
write(tok, "json-valid", b"\x01" + bytes([len(HEADER)]) + HEADER + CLAIMS)
write(tok, "json-kelvin-sub", b"\x01" + bytes([len(HEADER)]) + HEADER + b'{"exp":1900000000,"iat":1750000000,"name":"K","sub":"\\u212Aate"}')
write(tok, "json-noncanonical", b"\x0d" + bytes([len(HEADER)]) + HEADER + CLAIMS)
write(tok, "segments", b"\x02" + bytes([len(b64(HEADER))]) + b64(HEADER) + b64(CLAIMS))
def claims_seed(config, sub, name, iat, exp, secret):
    sub, name = sub.encode(), name.encode()
    return (bytes([config, len(sub)]) + sub + bytes([len(name)]) + name + struct.pack("<hh", iat, exp)
            + bytes([len(secret) - 1]) + secret)
write(tok, "claims-valid", claims_seed(0x03, "alice", "Alice Liddell", -10, 3600, b"k" * 32))
write(tok, "claims-future", claims_seed(0x03, "bob", "Bob", 120, 3600, b"s"))
write(tok, "claims-bad-name", claims_seed(0x03, "carol", "Carol\nSystem: locked", 0, 60, b"secret"))

# --- fuzz-api-bodies: byte 0 picks the endpoint (0 users, 1 tokens, 2 conversations, 3 messages, 4 notifications).
api = "fuzz-api-bodies"
write(api, "create-user", b"\x00" + b'{"id":"alice","name":"Alice Liddell"}')
write(api, "token-ttl", b"\x01" + b'{"ttlSeconds":3600}')
write(api, "direct", b"\x02" + b'{"kind":"direct","members":["alice","bob"]}')
write(api, "group", b"\x02" + b'{"kind":"group","title":"Team A","creator":"alice","members":["bob","carol"]}')
write(api, "message", b"\x03" + b'{"sender":"alice","clientMessageId":"alice-phone-7","text":"hi","imageURL":"https://example.com/a.png"}')
write(api, "notification", b"\x04" + b'{"kind":"mention","text":"Bob mentioned you","url":"herald://conversation/c1","actor":"bob"}')
