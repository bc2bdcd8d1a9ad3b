#!/usr/bin/env python3
"""Count LISTEN/NOTIFY notifications per channel, for .bench/stores.sh.

    pg_listen.py HOST PORT USER DATABASE COUNTS_FILE CHANNEL...

Speaks PostgreSQL's wire protocol (v3) itself, so it needs only the standard library: trust authentication
only (the benchmark's throwaway cluster). It sends one simple query, `LISTEN a; LISTEN b; ...`, and then only
reads: no further statements, so it adds nothing to the database's pg_stat_statements or pg_stat_database
counters. COUNTS_FILE is rewritten (atomically) at most every 20 ms while notifications arrive, as one JSON
object: {"total": N, "<channel>": n, ...}. SIGTERM/SIGINT write it once more and exit.
"""
import json, os, signal, socket, struct, sys, time

host, port, user, dbname, counts_path = sys.argv[1:6]
channels = sys.argv[6:]
counts = {"total": 0}
dirty = True


def write_counts():
    global dirty
    tmp = counts_path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(counts, f)
    os.replace(tmp, counts_path)
    dirty = False


def stop(*_):
    write_counts()
    sys.exit(0)


signal.signal(signal.SIGTERM, stop)
signal.signal(signal.SIGINT, stop)

sock = socket.create_connection((host, int(port)))
params = b"".join(k.encode() + b"\0" + v.encode() + b"\0" for k, v in (("user", user), ("database", dbname), ("application_name", "stores-listen"))) + b"\0"
sock.sendall(struct.pack("!ii", 8 + len(params), 196608) + params)
buf = b""


def messages():
    """Yields (type, body) for every complete message received; blocks for more."""
    global buf
    while True:
        while len(buf) >= 5:
            kind, length = buf[0:1], struct.unpack("!i", buf[1:5])[0]
            if len(buf) < 1 + length:
                break
            body, buf = buf[5:1 + length], buf[1 + length:]
            yield kind, body
        if dirty and counts["total"]:
            write_counts()
        chunk = sock.recv(1 << 16)
        if not chunk:
            stop()
        buf += chunk


stream = messages()


def until_ready():
    for kind, body in stream:
        if kind == b"R" and struct.unpack("!i", body[:4])[0] != 0:
            sys.exit("pg_listen: the server asks for a password; only trust authentication is supported")
        if kind == b"E":
            sys.exit("pg_listen: " + body.replace(b"\0", b" ").decode(errors="replace"))
        if kind == b"Z":
            return


until_ready()
query = "".join('LISTEN "%s";' % c.replace('"', '""') for c in channels).encode() + b"\0"
sock.sendall(b"Q" + struct.pack("!i", 4 + len(query)) + query)
until_ready()
write_counts()
last_write = time.monotonic()
for kind, body in stream:
    if kind == b"A":  # NotificationResponse: int32 pid, channel\0, payload\0
        channel = body[4:body.index(b"\0", 4)].decode()
        counts[channel] = counts.get(channel, 0) + 1
        counts["total"] += 1
        dirty = True
        now = time.monotonic()
        if now - last_write > 0.02:
            write_counts()
            last_write = now
