#!/usr/bin/env bash
# Follow-up to compare.sh: only the /sync fan-out scenarios, interleaved between two herald-server binaries under the
# same load (BEFORE and AFTER), exactly as compare.sh runs them (server on CPU 0 with --threads 1, herald-bench on CPU 1).
# Usage: BEFORE=/path/herald-server AFTER=/path/herald-server BENCH=/path/herald-bench .bench/fanout-split.sh OUTDIR
set -uo pipefail
OUT=${1:?outdir}; mkdir -p "$OUT"
FLAGS="--sync-send-rate 0 --handshake-rate-per-ip 0 --max-connections-per-ip 0"
run() { # label server port args...
  local label=$1 server=$2 port=$3; shift 3
  local db="$OUT/db-$label-$port"; rm -rf "$db"; mkdir -p "$db"
  # shellcheck disable=SC2086
  taskset -c 0 "$server" serve --threads 1 --port "$port" --db "$db/herald.db" --secret bench --log-level error --push-grace-seconds 2 $FLAGS >>"$OUT/server.log" 2>&1 &
  local spid=$!
  for _ in $(seq 1 100); do [ -n "$(ss -Hltn "sport = :$port" 2>/dev/null)" ] && break; sleep 0.1; done
  local load; load=$(cut -d' ' -f1 /proc/loadavg)
  local line; line=$(taskset -c 1 "$BENCH" "$@" --server "ws://127.0.0.1:$port" --secret bench --server-pid "$spid" 2>>"$OUT/bench.log")
  echo "{\"label\":\"$label\",\"args\":\"$*\",\"load_start\":$load,\"r\":${line:-null}}" >>"$OUT/fanout.jsonl"
  kill "$spid" 2>/dev/null; for _ in $(seq 1 50); do kill -0 "$spid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$spid" 2>/dev/null; wait "$spid" 2>/dev/null
  rm -rf "$db"; sleep 1
}
port=9301
for round in 1 2; do
  for label in before after; do
    server=$BEFORE; [ "$label" = after ] && server=$AFTER
    run "$label" "$server" $((port++)) fanout -n 250 --devices 4 -s 1 --inflight 32 --duration-seconds 10
    run "$label" "$server" $((port++)) fanout -n 1000 --devices 1 -s 1 --inflight 32 --duration-seconds 10
  done
done
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/fanout.jsonl.notes"
