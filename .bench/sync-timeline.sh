#!/usr/bin/env bash
# When the server and herald-bench each run during a /sync group of 1,000 (32 in flight): 0.1 s of their system
# calls (reads, writes, sends, epoll waits, futexes, WAL writes) counted per 0.5 ms, so a gap where one side waits for
# the other shows as empty lines. This is how the server's idle quarter was found: the
# loop sending for milliseconds before herald-bench read anything, and herald-bench's next window a millisecond late.
#
#   .bench/sync-timeline.sh [BINDIR]      (BINDIR holds herald-server and herald-bench; default .build/release)
#
# Needs perf with syscall tracepoints (root). Server on CPU 0, herald-bench on CPU 1, as compare.sh runs them. perf
# itself needs a CPU too, and on two CPUs it takes turns with one of them: a gap of a few ms on one side only may be
# perf; `perf sched record` + `perf sched timehist -s` says who ran.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=${1:-$HERE/../.build/release}
PORT=${PORT:-18501}
WORK=$(mktemp -d)
trap 'kill "$SP" 2>/dev/null; rm -rf "$WORK"' EXIT
taskset -c 0 "$BIN/herald-server" serve --threads 1 --port "$PORT" --db "$WORK/h.db" --secret bench --log-level error \
  --push-grace-seconds 2 --max-unanswered-requests 256 --sync-send-rate 0 --handshake-rate-per-ip 0 --max-connections-per-ip 0 \
  >"$WORK/server.log" 2>&1 &
SP=$!
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$PORT/healthz" && break; sleep 0.1; done
taskset -c 1 "$BIN/herald-bench" fanout -n 1000 --devices 1 -s 1 --inflight 32 --duration-seconds 7 \
  --server "ws://127.0.0.1:$PORT" --secret bench --server-pid "$SP" >"$WORK/bench.json" 2>"$WORK/bench.log" &
BP=$!
sleep 4  # past the setup and the first windows
perf record -a -o "$WORK/sc.data" -e 'syscalls:sys_enter_read,syscalls:sys_enter_write,syscalls:sys_enter_sendto,syscalls:sys_enter_sendmsg,syscalls:sys_enter_epoll_wait,syscalls:sys_enter_epoll_pwait,syscalls:sys_enter_recvfrom,syscalls:sys_enter_futex,syscalls:sys_enter_pwrite64' \
  -- sleep 0.1 >/dev/null 2>&1
wait "$BP"
perf script -i "$WORK/sc.data" -F comm,tid,time,event 2>/dev/null | grep herald | python3 -c '
import collections, re, sys
rows = []
for line in sys.stdin:
    m = re.match(r"\s*(\S+)\s+(\d+)\s+([\d.]+):\s+syscalls:sys_enter_(\w+)", line)
    if m: rows.append((m.group(1), float(m.group(3)), m.group(4)))
if not rows: sys.exit("no system calls recorded (perf needs root and syscall tracepoints)")
t0 = rows[0][1]
buckets = collections.defaultdict(collections.Counter)
for comm, t, call in rows: buckets[int((t - t0) * 2000)][(comm.replace("herald-", ""), call)] += 1
for k in range(max(buckets) + 1):
    print("%5.1f ms " % (k / 2) + " ".join("%s:%s=%d" % (c, e, n) for (c, e), n in sorted(buckets[k].items())))
'
