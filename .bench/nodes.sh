#!/usr/bin/env bash
# Group fan-out through /sync: 1 herald-server node vs 2 nodes on the same PostgreSQL database (issue 9).
#
#   .bench/nodes.sh [-r ROUNDS] [-o OUTDIR]        (run as root or as a normal user; from anywhere)
#
# 1. swift build -c release (herald-server, herald-bench), unless HERALD_BIN_DIR points at prebuilt ones.
# 2. A throwaway PostgreSQL 15 cluster: initdb in a temp dir (as the postgres user when root, like the test
#    fixture Tests/HeraldTestSupport/PostgresCluster.swift), 127.0.0.1 on a free port, fsync=off (it measures
#    the CPU path, not this VM's disk), max_connections=200. Stopped and deleted on exit.
# 3. Per round, interleaved: a fresh database each run,
#    - 1 node:  herald-server serve --store URL; herald-bench fanout --url A
#    - 2 nodes: two herald-server serve --store URL (same database); herald-bench fanout --url A --url2 B:
#      the group's devices alternate between the nodes (the sender, device 0, is on A), so half of every
#      message's deliveries cross nodes through LISTEN/NOTIFY and a stream read on B.
#    Nothing is pinned: the nodes, PostgreSQL and herald-bench share the machine's cores. Server CPU is the
#    sum over the nodes (utime+stime from /proc), as % of one core.
# FANOUT_ARGS overrides the load (default below). One JSON line per run in OUTDIR/nodes.jsonl; a table in
# OUTDIR/summary.md.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
ROUNDS=1
OUT="$HERE/results/nodes-$(date +%Y%m%d-%H%M%S)"
FANOUT_ARGS=${FANOUT_ARGS:-"fanout -n 200 --devices 1 -s 1 --inflight 32 --duration 10"}
FLAGS="--sync-send-rate 0 --handshake-rate-per-ip 0 --max-connections-per-ip 0"
PGBIN=${HERALD_PG_BIN:-/usr/lib/postgresql/15/bin}
while getopts "r:o:" o; do
  case $o in r) ROUNDS=$OPTARG ;; o) OUT=$OPTARG ;; *) sed -n 2,18p "$0"; exit 2 ;; esac
done
mkdir -p "$OUT"
log() { echo "[nodes] $*" | tee -a "$OUT/nodes.log" >&2; }

if [ -n "${HERALD_BIN_DIR:-}" ]; then
  BIN=$HERALD_BIN_DIR
else
  log "building release (herald-server, herald-bench)"
  (cd "$ROOT" && swift build -c release --product herald-server && swift build -c release --product herald-bench) >>"$OUT/build.log" 2>&1 \
    || { log "release build failed, see $OUT/build.log"; exit 2; }
  BIN=$(cd "$ROOT" && swift build -c release --show-bin-path)
fi
SERVER="$BIN/herald-server"
BENCH="$BIN/herald-bench"

# --- the throwaway cluster --------------------------------------------------------------------------------
PGDIR=$(mktemp -d /tmp/herald-nodes-pg-XXXXXX)
AS=()
if [ "$(id -u)" = 0 ]; then chown postgres: "$PGDIR" && AS=(setpriv --reuid=postgres --regid=postgres --clear-groups --); fi
PGPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  (cd "$PGDIR" && "${AS[@]}" "$PGBIN/pg_ctl" -D "$PGDIR/data" -m immediate -w stop >/dev/null 2>&1)
  rm -rf "$PGDIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
(cd "$PGDIR" && LC_ALL=C "${AS[@]}" "$PGBIN/initdb" -D "$PGDIR/data" -U herald --auth=trust -E UTF8 --locale=C --no-sync) \
  >>"$OUT/pg.log" 2>&1 || { log "initdb failed, see $OUT/pg.log"; exit 2; }
(cd "$PGDIR" && "${AS[@]}" "$PGBIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/server.log" -w -t 30 start \
  -o "-p $PGPORT -k $PGDIR -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=200") \
  >>"$OUT/pg.log" 2>&1 || { log "postgres did not start"; cat "$PGDIR/server.log" >>"$OUT/pg.log"; exit 2; }
log "postgres 15 on 127.0.0.1:$PGPORT ($PGDIR)"

cpu_ticks() { # utime+stime of the given pids
  local sum=0 p f
  for p in "$@"; do
    f=($(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null)) || continue
    [ ${#f[@]} -gt 12 ] && sum=$((sum + f[11] + f[12]))
  done
  echo $sum
}
pg_pids() { # the postmaster and its children (backends, walwriter, ...)
  local pm
  pm=$(head -1 "$PGDIR/data/postmaster.pid")
  echo "$pm" $(pgrep -P "$pm")
}

run() { # name nodes
  local name=$1 nodes=$2 db="r$RANDOM$RANDOM" url ports=() pids=() i port
  "$PGBIN/psql" -q -h 127.0.0.1 -p "$PGPORT" -U herald -d postgres -c "CREATE DATABASE $db" >>"$OUT/pg.log" 2>&1
  url="postgres://herald@127.0.0.1:$PGPORT/$db"
  for i in $(seq 1 "$nodes"); do
    port=$((9300 + i))
    # shellcheck disable=SC2086
    "$SERVER" serve --threads 1 --port "$port" --store "$url" --secret bench --log-level error --push-grace 2 $FLAGS \
      >>"$OUT/server.log" 2>&1 &
    pids+=($!); PIDS+=($!); ports+=("$port")
    for _ in $(seq 1 100); do [ -n "$(ss -Hltn "sport = :$port" 2>/dev/null)" ] && break; sleep 0.1; done
  done
  local urls=(--url "ws://127.0.0.1:${ports[0]}")
  [ "$nodes" = 2 ] && urls+=(--url2 "ws://127.0.0.1:${ports[1]}")
  local load before after t0 t1 line
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  echo "== $name: herald-bench $FANOUT_ARGS ${urls[*]} --secret bench --server-pid ${pids[0]} (load $load)" >>"$OUT/bench.log"
  local pgp pgbefore pgafter
  pgp=$(pg_pids)
  # shellcheck disable=SC2086
  before=$(cpu_ticks "${pids[@]}"); pgbefore=$(cpu_ticks $pgp); t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  line=$("$BENCH" $FANOUT_ARGS "${urls[@]}" --secret bench --server-pid "${pids[0]}" 2>>"$OUT/bench.log")
  # shellcheck disable=SC2086
  after=$(cpu_ticks "${pids[@]}"); pgafter=$(cpu_ticks $pgp); t1=$(date +%s.%N)
  local cpu pgcpu
  cpu=$(python3 -c "print(round(($after-$before)/$(getconf CLK_TCK)/($t1-$t0)*100))")
  pgcpu=$(python3 -c "print(round(($pgafter-$pgbefore)/$(getconf CLK_TCK)/($t1-$t0)*100))")
  echo "{\"name\":\"$name\",\"nodes\":$nodes,\"load_at_start\":\"$load\",\"nodes_cpu_pct\":$cpu,\"postgres_cpu_pct\":$pgcpu,\"r\":${line:-null}}" >>"$OUT/nodes.jsonl"
  log "$name (load $load): nodes CPU ${cpu}%, postgres ${pgcpu}% of one core: $line"
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  sleep 1
}

for r in $(seq 1 "$ROUNDS"); do
  run "1node-r$r" 1
  run "2nodes-r$r" 2
done

python3 - "$OUT/nodes.jsonl" >"$OUT/summary.md" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print("| run | load at start | deliveries/s | acks/s | p50 / p99 ms | lost / dup / unacked | CPU % of 1 core: nodes, postgres |")
print("|---|---|---|---|---|---|---|")
for x in rows:
    r = x["r"] or {}
    lat = r.get("latency_ms", {})
    print(f'| {x["name"]} | {x["load_at_start"]} | {r.get("deliveries_per_s")} | {r.get("acks_per_s")} | '
          f'{lat.get("p50")} / {lat.get("p99")} | {r.get("lost")} / {r.get("duplicated")} / {r.get("unacked")} | {x["nodes_cpu_pct"]}, {x.get("postgres_cpu_pct")} |')
PY
cat "$OUT/summary.md"
