#!/usr/bin/env bash
# Builds against each other on the /sync group of 1,000 (32 in flight), each beside Herald's raw fan-out of the same
# round: the quick before/after of a change to the sync path (compare.sh -b does the same for every scenario, in ~4x
# the time).
#
#   .bench/group-ab.sh NAME:BINDIR[:ENV=VALUE ...] ...      (ROUNDS=3 by default; run from anywhere)
#
# Each round: wsbench's raw fan-out (fanout-max32, 100-byte messages) against BINDIR of the first build, then
# herald-bench's `fanout -n 1000 --devices 1 -s 1 --inflight 32` against each named build in the order given, each a
# fresh herald-server on CPU 0 (--threads 1, a fresh SQLite file) with herald-bench on CPU 1, as compare.sh runs them.
# Name a build twice (a b a b) so each runs first and later in a round. ENV=VALUE pairs go to that server's
# environment. One line per round: the raw deliveries/s, then per build its deliveries/s, the ratio to the round's raw,
# the server's CPU and what was lost. herald-bench comes from the first build's BINDIR.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
KIT=${KIT:-$(cd "$HERE/../../shared/bench" && pwd)}
ROUNDS=${ROUNDS:-3}
PORT=${PORT:-18606}
[ $# -ge 1 ] || { sed -n 2,12p "$0"; exit 2; }
make -C "$KIT" >/dev/null 2>&1 || { echo "wsbench build failed" >&2; exit 2; }
WORK=$(mktemp -d)
SP=
trap '[ -n "$SP" ] && kill "$SP" 2>/dev/null; rm -rf "$WORK"' EXIT
first=${1#*:}; first=${first%%:*}
BENCH=$first/herald-bench
FLAGS="--sync-send-rate 0 --handshake-rate-per-ip 0 --max-connections-per-ip 0"
listening() { for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$PORT/healthz" && return 0; sleep 0.1; done; return 1; }
stop() { kill "$SP" 2>/dev/null; wait "$SP" 2>/dev/null; SP=; rm -f "$WORK"/*.db*; }
for round in $(seq 1 "$ROUNDS"); do
  # A build from before the one bench switch named its two endpoints separately.
  bench=--bench-endpoints; "$first/herald-server" serve --help 2>&1 | grep -q -- --bench-endpoints || bench="--broadcast --echo"
  # shellcheck disable=SC2086
  taskset -c 0 "$first/herald-server" serve $bench --threads 1 --port "$PORT" --db "$WORK/raw.db" --secret bench \
    --log-level error $FLAGS >/dev/null 2>&1 &
  SP=$!
  listening || { echo "raw server did not start" >&2; exit 1; }
  raw=$(taskset -c 1 "$KIT/wsbench" fanout --url "ws://127.0.0.1:$PORT/ws?user={i}" -s 1000 -d 10 --inflight 32 --hello 'hello {i}' \
    --size 100 --server-pid "$SP" --timeout 120 2>/dev/null | sed -n 's/^RESULT //p' | python3 -c 'import json,sys; print(json.load(sys.stdin)["deliveries_per_s"])')
  stop
  line="round $round: raw $raw"
  for build in "$@"; do
    name=${build%%:*}; rest=${build#*:}; dir=${rest%%:*}; envs=
    [ "$rest" != "$dir" ] && envs=${rest#*:}
    # shellcheck disable=SC2086
    env $envs taskset -c 0 "$dir/herald-server" serve --threads 1 --port "$PORT" --db "$WORK/sync.db" --secret bench --log-level error \
      --push-grace-seconds 2 --max-unanswered-requests 256 $FLAGS >/dev/null 2>&1 &
    SP=$!
    listening || { echo "$name did not start" >&2; exit 1; }
    result=$(taskset -c 1 "$BENCH" fanout -n 1000 --devices 1 -s 1 --inflight 32 --duration-seconds 10 --server "ws://127.0.0.1:$PORT" \
      --secret bench --server-pid "$SP" 2>/dev/null | tail -1)
    stop
    line="$line | $(python3 -c '
import json, sys
r = json.loads(sys.argv[2]); raw = float(sys.argv[3])
rate, cpu, lost = r["deliveries_per_s"], r["server_cpu_pct"], r["lost"]
print(f"{sys.argv[1]} {rate:,.0f} ({rate / raw:.3f}x, server {cpu}%, lost {lost})")
' "$name" "$result" "$raw")"
  done
  echo "$line"
done
