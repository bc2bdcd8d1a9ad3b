#!/usr/bin/env bash
# How long a server takes to write one broadcast to 1,000 receivers, message by message, in the kit's 20 msg/s test.
#
#   .bench/fanout-bursts.sh NAME:COMMAND ...        (run from anywhere; needs perf and the syscall tracepoints)
#
# COMMAND has PORT where the port goes and DB where a fresh database file goes, e.g.
#   "herald:.build/release/herald-server serve --bench-endpoints --threads 1 --port PORT --db DB --secret bench"
#   "uws:/tmp/uws/uws-echo PORT"
# Each server runs fresh on CPU 0 with wsbench's `fanout -s 1000 --rate 20 --size 100` (the kit's 20 msg/s test) on
# CPU 1, while `perf record -C 0` takes the server CPU's recvfrom, sendto and epoll system calls. A burst is the
# publisher's recvfrom, then the sends up to the next epoll wait that sleeps (more than 2 ms); one of at least 999
# sends is one message's fan-out. Printed per server: wsbench's latencies, the burst durations in order (the first
# burst is the 1,000 `ready` replies to the hellos, not a message), their spread, and the time from the read to the
# first send (what the server does before its first write).
#
# Why: the 20 msg/s p99 is the top 1% of 200,000 deliveries: the last receivers of the slowest messages.
# On this machine the first ~16 messages after the clients connect are ~35% slower for every server (TCP's quick-ACK
# start: each receiver acknowledges its first 16 segments at once, inside the sender's send), so the p99 is decided
# there, not in the steady state (see "The 20 msg/s bursts" in BENCHMARKS.md).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
KIT=${KIT:-$(cd "$HERE/../../shared/bench" && pwd)}
PORT=${PORT:-18710}
[ $# -ge 1 ] || { sed -n 2,19p "$0"; exit 2; }
make -C "$KIT" >/dev/null 2>&1 || { echo "wsbench build failed" >&2; exit 2; }
WORK=$(mktemp -d)
SP=
PP=
trap '[ -n "$PP" ] && kill -INT "$PP" 2>/dev/null; [ -n "$SP" ] && kill "$SP" 2>/dev/null; rm -rf "$WORK"' EXIT
EVENTS=syscalls:sys_enter_sendto,syscalls:sys_enter_recvfrom
EVENTS=$EVENTS,syscalls:sys_enter_epoll_pwait,syscalls:sys_exit_epoll_pwait,syscalls:sys_enter_epoll_wait,syscalls:sys_exit_epoll_wait

for spec in "$@"; do
  name=${spec%%:*} cmd=()
  for word in ${spec#*:}; do word=${word//PORT/$PORT}; cmd+=("${word//DB/$WORK/bursts.db}"); done
  rm -f "$WORK"/bursts.db*
  taskset -c 0 "${cmd[@]}" >/dev/null 2>&1 &
  SP=$!
  for _ in $(seq 1 100); do [ -n "$(ss -Hltn "sport = :$PORT" 2>/dev/null)" ] && break; sleep 0.05; done
  perf record -q -C 0 -e "$EVENTS" -o "$WORK/$name.data" -- sleep 30 >/dev/null 2>&1 &
  PP=$!
  sleep 0.5
  taskset -c 1 "$KIT/wsbench" fanout --url "ws://127.0.0.1:$PORT/ws?user={i}" -s 1000 -d 10 --rate 20 --hello 'hello {i}' \
    --size 100 --server-pid "$SP" 2>/dev/null | sed -n 's/^RESULT //p' | python3 -c '
import json, sys
r = json.load(sys.stdin)
ms = [r[key] / 1000 for key in ("p50_us", "p99_us", "p999_us", "max_us")]
print("%s: wsbench p50 %.2f / p99 %.2f / p99.9 %.2f / max %.2f ms" % (sys.argv[1], *ms))
' "$name"
  kill -INT "$PP" 2>/dev/null; wait "$PP" 2>/dev/null; PP=
  kill "$SP" 2>/dev/null; wait "$SP" 2>/dev/null; SP=
  perf script -i "$WORK/$name.data" -F time,event 2>/dev/null | awk '
    { t = $1 + 0; event = $2 }
    event ~ /recvfrom/ { if (sends == 0) start = t; next }
    event ~ /sendto/ { if (sends == 0) first = t; sends++; last = t; next }
    event ~ /enter_epoll/ { entered = t; next }
    event ~ /exit_epoll/ {
      if (t - entered > 0.002) {
        if (sends >= 999) printf "%.0f %.0f\n", (first - start) * 1e6, (last - start) * 1e6
        sends = 0
      }
    }' >"$WORK/$name.bursts"
  python3 - "$name" "$WORK/$name.bursts" <<'PY'
import statistics, sys
name, path = sys.argv[1], sys.argv[2]
rows = [tuple(map(int, line.split())) for line in open(path)]
messages = rows[1:]  # the first burst answers the hellos
if not messages:
    sys.exit(f"{name}: no fan-out burst found (are the syscall tracepoints available?)")
durations = [ms for _, ms in messages]
def q(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]
print(f"  {len(messages)} messages; ms per message in order: " + " ".join(f"{d / 1000:.1f}" for d in durations[:24]) + " ...")
print(f"  messages 1-16: median {statistics.median(durations[:16]) / 1000:.2f} ms; from 17 on: median "
      f"{statistics.median(durations[16:]) / 1000:.2f}, p90 {q(durations[16:], 0.9) / 1000:.2f}, max {max(durations[16:]) / 1000:.2f} ms")
print(f"  read to first send: median {statistics.median(s for s, _ in messages):.0f} us")
PY
done
