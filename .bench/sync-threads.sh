#!/usr/bin/env bash
# Where a /sync group of 1,000 (32 in flight) spends the server's CPU: per thread (the loop, the sync thread), per
# delivery, and how many messages each sync batch and each send carry. This is what showed
# that the /sync path is bound by its cost per delivery, not per send: in the steady state a sync
# batch holds the whole window (32 messages) and each receiver gets one send per batch. (/metrics counted from the
# start, setup included, suggests far smaller batches; the deltas here leave the setup out.)
#
#   .bench/sync-threads.sh [BINDIR] [ROUNDS]   (BINDIR holds herald-server and herald-bench; default .build/release)
#
# Each round: a fresh server on CPU 0 and herald-bench on CPU 1 (as compare.sh runs them), 3 s past the setup of
# user and system ticks per thread (/proc/PID/task/*/stat, 100 ticks = one CPU-second), system calls per 1,000
# deliveries (perf stat on syscall tracepoints; needs root, left out without it) and from /metrics the deliveries,
# the messages stored per sync batch and the bytes sent per delivery. Env: PORT (18501), DURATION (8).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=${1:-$HERE/../.build/release}
ROUNDS=${2:-1}
PORT=${PORT:-18501}
DURATION=${DURATION:-8}
WORK=$(mktemp -d)
SP=
trap '[ -n "$SP" ] && kill "$SP" 2>/dev/null; rm -rf "$WORK"' EXIT
metric() { awk -v name="$1" '$1 == name { print $2 }' "$2"; }
ticks() { for task in /proc/"$SP"/task/*; do echo "$(cat "$task/comm") $(awk '{print $14, $15}' "$task/stat")"; done; }
for round in $(seq 1 "$ROUNDS"); do
  rm -f "$WORK"/h.db*
  taskset -c 0 "$BIN/herald-server" serve --threads 1 --port "$PORT" --db "$WORK/h.db" --secret bench --log-level error \
    --push-grace-seconds 2 --max-unanswered-requests 256 --sync-send-rate 0 --handshake-rate-per-ip 0 --max-connections-per-ip 0 \
    >"$WORK/server.log" 2>&1 &
  SP=$!
  for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$PORT/healthz" && break; sleep 0.1; done
  taskset -c 1 "$BIN/herald-bench" fanout -n 1000 --devices 1 -s 1 --inflight 32 --duration-seconds "$DURATION" \
    --server "ws://127.0.0.1:$PORT" --secret bench --server-pid "$SP" >"$WORK/bench.json" 2>"$WORK/bench.log" &
  BP=$!
  sleep 3  # past the setup and the first windows
  curl -s "http://127.0.0.1:$PORT/metrics" >"$WORK/m0"
  ticks >"$WORK/t0"
  perf stat -x, -e 'syscalls:sys_enter_sendto,syscalls:sys_enter_sendmsg,syscalls:sys_enter_recvfrom,syscalls:sys_enter_epoll_pwait,syscalls:sys_enter_epoll_wait,syscalls:sys_enter_futex' \
    -p "$SP" -- sleep 3 2>"$WORK/stat" >/dev/null || sleep 3
  ticks >"$WORK/t1"
  curl -s "http://127.0.0.1:$PORT/metrics" >"$WORK/m1"
  wait "$BP" || true
  kill "$SP" 2>/dev/null; wait "$SP" 2>/dev/null || true; SP=
  python3 - "$round" "$WORK" <<'PY'
import json, sys
round_, work = sys.argv[1], sys.argv[2]
def metrics(name):
    out = {}
    for line in open(f"{work}/{name}"):
        if line.startswith("#") or " " not in line: continue
        key, _, value = line.rpartition(" ")
        out[key] = float(value)
    return out
m0, m1 = metrics("m0"), metrics("m1")
d = lambda key: m1.get(key, 0) - m0.get(key, 0)
deliveries = d("herald_fanout_deliveries_total") or 1
stored, batches = d("herald_messages_stored_total"), d("herald_sync_batch_seconds_count") or 1
calls = []
for line in open(f"{work}/stat"):
    parts = line.strip().split(",")
    if len(parts) > 2 and parts[0].replace(".", "").isdigit():
        calls.append(f"{parts[2].split('sys_enter_')[-1]} {float(parts[0]) * 1000 / deliveries:.2f}")
t0 = {f"{l.split()[0]}#{i}": l.split()[1:] for i, l in enumerate(open(f"{work}/t0"))}
t1 = {f"{l.split()[0]}#{i}": l.split()[1:] for i, l in enumerate(open(f"{work}/t1"))}
threads = []
for key in t1:
    if key in t0:
        user, system = int(t1[key][0]) - int(t0[key][0]), int(t1[key][1]) - int(t0[key][1])
        if user + system > 0: threads.append(f"{key.split('#')[0]} user {user} sys {system}")
result = json.loads(open(f"{work}/bench.json").read().strip().splitlines()[-1])
print(f"round {round_}: {result['deliveries_per_s']:,} deliveries/s, server {result['server_cpu_pct']}% busy, "
      f"{stored / batches:.1f} messages per sync batch, {d('herald_bytes_sent_total') / deliveries:.0f} bytes per delivery")
print(f"  ticks over 3 s: {'; '.join(threads)}")
print(f"  system calls per 1,000 deliveries: {', '.join(calls) or 'not counted (perf stat needs root)'}")
PY
done
