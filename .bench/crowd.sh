#!/usr/bin/env bash
# 100,000 live /sync devices on this one machine, in ONE run: how fast they connect, what each costs the server in
# memory, and how fast a 1,000-member group among them is delivered (the 100,000-device row of BENCHMARKS.md).
#
#   .bench/crowd.sh [-o OUTDIR]        (as root it raises the limits below when they are too low; from anywhere)
#
# 1. swift build -c release (herald-server, herald-bench), unless HERALD_BIN_DIR points at prebuilt ones.
# 2. Checks what DEVICES connections need, and stops with one line saying what to change when something falls short.
#    Raised only when running as root, and logged when raised:
#    - open files: one server process and one herald-bench process holding all DEVICES sockets need `ulimit -n` of
#      DEVICES + 1000 (as root: ulimit -n raises soft and hard for this script and its children; fs.nr_open first if
#      it is lower). Where the hard limit is lower and cannot be raised (root without CAP_SYS_RESOURCE, as in many
#      containers: a hard limit of 20,000 here), the crowd is spread instead: NODES herald-server nodes on one
#      PostgreSQL database (the multi-node mode), device i on node i % NODES, and PROCESSES herald-bench processes
#      (`crowd --processes`: this one holds the group, `hold` processes the rest), each under the limit. NODES and
#      PROCESSES may also be set by hand (NODES=1 is the SQLite store);
#    - net.core.somaxconn >= PARALLEL, or 1024 when PARALLEL is larger (herald-bench has at most PARALLEL connects in
#      progress; the server listens with a backlog of 1024, which the kernel caps at somaxconn);
#    - net.netfilter.nf_conntrack_max, when connection tracking is loaded: room for DEVICES more entries;
#    - ephemeral ports: herald-bench connects from SOURCES loopback addresses (127.0.0.1 ... 127.0.0.SOURCES, see
#      herald-bench --source-addresses), each of which holds at most net.ipv4.ip_local_port_range's ports; the
#      range is never changed here, SOURCES is raised instead (default: one address per PER_ADDRESS devices);
#    - memory: MemAvailable must exceed DEVICES x MEM_PER_DEVICE_KIB, so that the machine does not swap: 19,000
#      devices took about 20 KiB each in all (server 2.6, herald-bench 4-9, the kernel's two sockets and the
#      conntrack entry the rest); the default leaves more than twice that.
# 3. One herald-server: `serve --threads 1 --db FILE --secret bench --push-grace-seconds 2 --log-level error
#    --max-connections DEVICES+1000` with the abuse limits off (FLAGS, as in stores.sh: one generator is one user
#    agent on a few addresses), a fresh SQLite file in a temp dir. Pinned to CPU 0 and herald-bench to CPU 1
#    (taskset) unless PIN=0. With NODES > 1: a throwaway PostgreSQL 15 cluster (HERALD_PG_BIN; initdb in a temp
#    dir, fsync on, deleted on exit) and NODES nodes with `--store postgres://...` in place of `--db`, each with
#    --max-connections DEVICES/NODES+1000; not pinned unless PIN=1 (PostgreSQL does the connects' writes, and on
#    two CPUs it needs the second while the devices connect).
# 4. herald-bench crowd: DEVICES devices (one user each) connect and sync, PARALLEL at a time, with a progress line
#    a second on stderr; they stay idle IDLE s and the server's RSS (/proc/PID/status; summed over the nodes) is
#    read, before connecting and then; the first MEMBERS devices form a group (the load waits until every member has heard of it), device 0
#    sends RATE messages/s for DURATION s, every member counts what it receives (lost, duplicated), and it waits
#    DRAIN s at most for the rest.
# Output in OUTDIR: crowd.jsonl (herald-bench's one JSON line: connects_per_s, connect_latency_ms,
# server_rss_per_device_kib, latency_ms p50/p99, lost, duplicated, connections_by_source, ...), bench.log (its
# progress lines), server.log, conditions.txt (commit, machine, load, the limits and knobs as used), and the figures
# in one line on stdout. Exit status: herald-bench's (0 clean, 1 lost/duplicated/dropped, 2 setup failed), 2 when a
# check above failed.
# Env: DEVICES (100000) MEMBERS (1000) RATE (20) DURATION (10) IDLE (5) DRAIN (10) PARALLEL (200) PER_ADDRESS (20000)
# SOURCES (DEVICES / PER_ADDRESS, rounded up) SETUP_TIMEOUT (600) STOP_TIMEOUT (30) MEM_PER_DEVICE_KIB (48)
# NODES, PROCESSES (1, or as many as the open-file limit needs) PIN (1 with one node, 0 with several) HERALD_PG_BIN
# (/usr/lib/postgresql/15/bin) HERALD_BIN_DIR. PG_STATS=SECONDS (several nodes only): PostgreSQL runs with
# pg_stat_statements, and the 30 statements with the most time go to OUTDIR/pg-statements-setup.txt SECONDS after
# PostgreSQL starts (while the devices connect) and to OUTDIR/pg-statements.txt at the end (how the nodes' write lock
# was found to be what the connects wait for).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
OUT="$HERE/results/crowd-$(date +%Y%m%d-%H%M%S)"
DEVICES=${DEVICES:-100000}
MEMBERS=${MEMBERS:-1000}
RATE=${RATE:-20}
DURATION=${DURATION:-10}
IDLE=${IDLE:-5}
DRAIN=${DRAIN:-10}
PARALLEL=${PARALLEL:-200}
PER_ADDRESS=${PER_ADDRESS:-20000}
SOURCES=${SOURCES:-$(((DEVICES + PER_ADDRESS - 1) / PER_ADDRESS))}
SETUP_TIMEOUT=${SETUP_TIMEOUT:-600}
STOP_TIMEOUT=${STOP_TIMEOUT:-30}
MEM_PER_DEVICE_KIB=${MEM_PER_DEVICE_KIB:-48}
PGBIN=${HERALD_PG_BIN:-/usr/lib/postgresql/15/bin}
FLAGS="--sync-send-rate 0 --handshake-rate-per-ip 0 --max-connections-per-ip 0 --max-unanswered-requests 256"
while getopts "o:" o; do
  case $o in o) OUT=$OPTARG ;; *) sed -n '2,/^# HERALD_BIN_DIR/p' "$0"; exit 2 ;; esac
done
mkdir -p "$OUT"
log() { echo "[crowd] $*" | tee -a "$OUT/crowd.log" >&2; }
die() { log "$*"; exit 2; }
ROOTUSER=0
[ "$(id -u)" = 0 ] && ROOTUSER=1
sysctl_get() { cat "/proc/sys/$(echo "$1" | tr . /)" 2>/dev/null; }
raise_sysctl() { # name value why: as root only, logged
  [ "$ROOTUSER" = 1 ] || return 1
  sysctl -qw "$1=$2" >/dev/null 2>&1 || return 1
  log "raised $1 to $2 ($3; running as root)"
}

# --- the checks ---------------------------------------------------------------------------------------------------
[ "$SOURCES" -ge 1 ] && [ "$SOURCES" -le 254 ] || die "SOURCES=$SOURCES: herald-bench takes 1...254 source addresses"
FDS=$((DEVICES + 1000))
hard_limit_below() { [ "$(ulimit -Hn)" != unlimited ] && [ "$(ulimit -Hn)" -lt "$1" ]; }
raise_open_files() { # count: as root, raise soft and hard for this script and its children; fails when it cannot
  [ "$ROOTUSER" = 1 ] || return 1
  if [ "$(sysctl_get fs.nr_open)" -lt "$1" ]; then raise_sysctl fs.nr_open "$1" "the most open files a process may have" || return 1; fi
  ulimit -n "$1" 2>/dev/null || return 1
  log "raised the open-file limit (soft and hard) to $1 for the server and herald-bench (running as root)"
}
if [ -z "${NODES:-}" ]; then
  NODES=1
  if hard_limit_below "$FDS" && ! raise_open_files "$FDS"; then
    # One process may not hold every socket: spread the crowd over nodes and load processes that each can.
    EACH=$(($(ulimit -Hn) - 1000))
    [ "$EACH" -ge 1000 ] || die "the open-file hard limit is $(ulimit -Hn), too low to spread $DEVICES devices over processes"
    NODES=$(((DEVICES + EACH - 1) / EACH))
    log "one process may hold $(ulimit -Hn) open files and this user cannot raise that (no CAP_SYS_RESOURCE, as in a container): $DEVICES devices go to $NODES nodes on one PostgreSQL database"
  fi
fi
PROCESSES=${PROCESSES:-$NODES}
[ "$NODES" -ge 1 ] && [ "$PROCESSES" -ge 1 ] || die "NODES and PROCESSES must be 1 or more"
# herald-bench's first process holds the most: what the others' equal shares leave (crowd --processes).
FIRST_SHARE=$((DEVICES - (PROCESSES - 1) * (DEVICES / PROCESSES)))
[ $((DEVICES / PROCESSES)) -ge 1 ] && [ "$FIRST_SHARE" -ge "$MEMBERS" ] \
  || die "PROCESSES=$PROCESSES leaves the first herald-bench process fewer than MEMBERS=$MEMBERS devices"
NODE_DEVICES=$(((DEVICES + NODES - 1) / NODES))
FDS=$(((NODE_DEVICES > FIRST_SHARE ? NODE_DEVICES : FIRST_SHARE) + 1000))
if hard_limit_below "$FDS"; then
  raise_open_files "$FDS" || die "each process holds up to $((FDS - 1000)) sockets and needs $FDS open files, the hard limit is $(ulimit -Hn) and cannot be raised here: set more NODES and PROCESSES"
fi
[ "$(ulimit -Sn)" = unlimited ] || [ "$(ulimit -Sn)" -ge "$FDS" ] || ulimit -Sn "$FDS" || die "ulimit -Sn $FDS failed"
if [ "$NODES" = 1 ]; then PIN=${PIN:-1}; else PIN=${PIN:-0}; fi
# The server asks for a backlog of 1024; the kernel gives min(1024, somaxconn).
BACKLOG_NEEDED=$((PARALLEL < 1024 ? PARALLEL : 1024))
if [ "$(sysctl_get net.core.somaxconn)" -lt "$BACKLOG_NEEDED" ]; then
  raise_sysctl net.core.somaxconn 1024 "the listen backlog must hold PARALLEL=$PARALLEL connects" \
    || die "net.core.somaxconn is $(sysctl_get net.core.somaxconn), below PARALLEL=$PARALLEL: lower PARALLEL, or run as root"
fi
[ "$PARALLEL" -le 1024 ] || log "PARALLEL=$PARALLEL is more than the server's listen backlog (1024): connects past it may wait for SYN retries"
CT_MAX=$(sysctl_get net.netfilter.nf_conntrack_max)
if [ -n "$CT_MAX" ]; then
  CT_COUNT=$(sysctl_get net.netfilter.nf_conntrack_count || echo 0)
  if [ $((CT_MAX - CT_COUNT)) -lt $((DEVICES + 1000)) ]; then
    raise_sysctl net.netfilter.nf_conntrack_max $((CT_COUNT + 2 * DEVICES + 1000)) "connection tracking must hold every connection" \
      || die "net.netfilter.nf_conntrack_max $CT_MAX with $CT_COUNT tracked leaves no room for $DEVICES connections: raise it, or run as root"
  fi
fi
read -r PORT_LOW PORT_HIGH <<<"$(sysctl_get net.ipv4.ip_local_port_range)"
PORTS=$((PORT_HIGH - PORT_LOW + 1))
PER=$(((DEVICES + SOURCES - 1) / SOURCES))
[ "$PER" -le $((PORTS - 500)) ] \
  || die "SOURCES=$SOURCES puts $PER connections on each source address, which has $PORTS ephemeral ports ($PORT_LOW-$PORT_HIGH): raise SOURCES"
AVAIL_KIB=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
NEED_KIB=$((DEVICES * MEM_PER_DEVICE_KIB))
[ "$AVAIL_KIB" -ge "$NEED_KIB" ] \
  || die "$DEVICES devices need about $((NEED_KIB / 1024)) MiB (MEM_PER_DEVICE_KIB=$MEM_PER_DEVICE_KIB), $((AVAIL_KIB / 1024)) MiB are available"

# --- the binaries, the server --------------------------------------------------------------------------------------
if [ -n "${HERALD_BIN_DIR:-}" ]; then
  BIN=$HERALD_BIN_DIR
  log "using prebuilt binaries in $BIN"
else
  log "building release (herald-server, herald-bench)"
  (cd "$ROOT" && swift build -c release --product herald-server && swift build -c release --product herald-bench) >>"$OUT/build.log" 2>&1 \
    || die "release build failed, see $OUT/build.log"
  BIN=$(cd "$ROOT" && swift build -c release --show-bin-path)
fi
SERVER_CPU=() BENCH_CPU=()
if [ "$PIN" = 1 ] && [ "$(nproc)" -ge 2 ]; then SERVER_CPU=(taskset -c 0) BENCH_CPU=(taskset -c 1); fi
WORK=$(mktemp -d /tmp/herald-crowd-XXXXXX)
SPIDS=() PORTS_OF_NODES=() PGDIR="" AS=()
cleanup() {
  trap '' INT TERM
  local p n left start exits=""
  local -A exited=()
  for p in "${SPIDS[@]}"; do kill "$p" 2>/dev/null; done
  # Each node's exit is timed, all of them at once: a node slow to stop after its devices left is worth knowing of.
  start=$(date +%s%N)
  for ((n = 0; n < STOP_TIMEOUT * 10; n++)); do
    left=0
    for p in "${SPIDS[@]}"; do
      [ -n "${exited[$p]:-}" ] && continue
      if kill -0 "$p" 2>/dev/null; then left=1; else exited[$p]=$((($(date +%s%N) - start) / 1000000)); fi
    done
    [ "$left" = 0 ] && break
    sleep 0.1
  done
  for p in "${SPIDS[@]}"; do
    kill -9 "$p" 2>/dev/null && log "node pid $p did not exit ${STOP_TIMEOUT} s after SIGTERM; killed"
    wait "$p" 2>/dev/null
    exits+=" ${exited[$p]:-killed}"
  done
  [ ${#SPIDS[@]} -gt 0 ] && log "nodes' exit after SIGTERM, ms:$exits"
  [ -n "${STATS_PID:-}" ] && kill "$STATS_PID" 2>/dev/null
  [ -n "$PGDIR" ] && [ -n "${PG_STATS:-}" ] && pg_statements "$OUT/pg-statements.txt"
  [ -n "$PGDIR" ] && (cd "$PGDIR" && "${AS[@]}" "$PGBIN/pg_ctl" -D "$PGDIR/data" -m immediate -w stop >/dev/null 2>&1)
  rm -rf "$WORK" ${PGDIR:+"$PGDIR"}
}
trap cleanup EXIT
trap 'exit 130' INT TERM
NODE_MAX=$((NODE_DEVICES + 1000))
if [ "$NODES" = 1 ]; then
  STORE_TEXT="--db FILE"
else
  STORE_TEXT="--store postgres://herald@127.0.0.1:PGPORT/crowd"
fi

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(cd "$ROOT" && git rev-parse --short HEAD)$(cd "$ROOT" && git diff --quiet HEAD -- . 2>/dev/null || echo ' (with uncommitted changes)'); binaries: $BIN"
  echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), kernel $(uname -r); pinned: $([ ${#SERVER_CPU[@]} -gt 0 ] && echo 'server CPU 0, herald-bench CPU 1' || echo no)"
  echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg); MemAvailable: $((AVAIL_KIB / 1024)) MiB"
  echo "open files: soft $(ulimit -Sn), hard $(ulimit -Hn); fs.nr_open $(sysctl_get fs.nr_open); net.core.somaxconn $(sysctl_get net.core.somaxconn)"
  echo "ip_local_port_range: $PORT_LOW-$PORT_HIGH ($PORTS ports); source addresses: $SOURCES ($PER devices each at most)"
  echo "nf_conntrack_max: ${CT_MAX:-not loaded}"
  echo "nodes: $NODES x herald-server serve --threads 1 $STORE_TEXT --secret bench --push-grace-seconds 2 --log-level error --max-connections $NODE_MAX $FLAGS"
  echo "load: herald-bench crowd -d $DEVICES -n $MEMBERS --rate $RATE --duration-seconds $DURATION --idle-seconds $IDLE --drain-seconds $DRAIN --parallel $PARALLEL --source-addresses $SOURCES --processes $PROCESSES"
} >"$OUT/conditions.txt"
log "conditions: $OUT/conditions.txt"

STORE=(--db "$WORK/crowd.db")
if [ "$NODES" -gt 1 ]; then
  # The nodes' shared database: a throwaway cluster, as the test fixture makes one.
  PGDIR=$(mktemp -d /tmp/herald-crowd-pg-XXXXXX)
  if [ "$ROOTUSER" = 1 ]; then chown postgres: "$PGDIR" && AS=(setpriv --reuid=postgres --regid=postgres --clear-groups --); fi
  PGPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  (cd "$PGDIR" && LC_ALL=C "${AS[@]}" "$PGBIN/initdb" -D "$PGDIR/data" -U herald --auth=trust -E UTF8 --locale=C --no-sync) \
    >>"$OUT/pg.log" 2>&1 || die "initdb failed, see $OUT/pg.log"
  PG_OPTIONS="-p $PGPORT -k $PGDIR -c listen_addresses=127.0.0.1 -c max_connections=$((NODES * 8 + 20))"
  [ -n "${PG_STATS:-}" ] && PG_OPTIONS+=" -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all"
  (cd "$PGDIR" && "${SERVER_CPU[@]}" "${AS[@]}" "$PGBIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/server.log" -w -t 30 start \
    -o "$PG_OPTIONS") >>"$OUT/pg.log" 2>&1 \
    || { cat "$PGDIR/server.log" >>"$OUT/pg.log"; die "postgres did not start, see $OUT/pg.log"; }
  "$PGBIN/createdb" -h 127.0.0.1 -p "$PGPORT" -U herald crowd >>"$OUT/pg.log" 2>&1 || die "createdb failed, see $OUT/pg.log"
  if [ -n "${PG_STATS:-}" ]; then
    "$PGBIN/psql" -h 127.0.0.1 -p "$PGPORT" -U herald -d crowd -c "CREATE EXTENSION pg_stat_statements" >>"$OUT/pg.log" 2>&1 \
      || die "PG_STATS: pg_stat_statements is not available, see $OUT/pg.log"
    pg_statements() { # file: the statements with the most time so far
      "$PGBIN/psql" -h 127.0.0.1 -p "$PGPORT" -U herald -d crowd -c "SELECT calls, round(total_exec_time) AS total_ms,
        round((total_exec_time / calls)::numeric, 3) AS ms_each, rows, left(regexp_replace(query, '\s+', ' ', 'g'), 160) AS statement
        FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 30" >"$1" 2>&1
    }
    (sleep "$PG_STATS" && pg_statements "$OUT/pg-statements-setup.txt") &
    STATS_PID=$!
  fi
  STORE=(--store "postgres://herald@127.0.0.1:$PGPORT/crowd")
  log "postgres 15 on 127.0.0.1:$PGPORT ($PGDIR)"
fi

# --port 0 and the listening line: no race with another process for a port.
for i in $(seq 1 "$NODES"); do
  # shellcheck disable=SC2086
  "${SERVER_CPU[@]}" "$BIN/herald-server" serve --threads 1 --port 0 "${STORE[@]}" --secret bench --push-grace-seconds 2 \
    --log-level error --max-connections "$NODE_MAX" $FLAGS >"$WORK/server$i.out" 2>>"$OUT/server.log" &
  SPIDS+=($!)
  PORT=""
  for _ in $(seq 1 300); do
    PORT=$(sed -n 's/^herald-server listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$WORK/server$i.out")
    [ -n "$PORT" ] && break
    kill -0 "${SPIDS[-1]}" 2>/dev/null || break
    sleep 0.1
  done
  [ -n "$PORT" ] || die "node $i did not start, see $OUT/server.log"
  PORTS_OF_NODES+=("$PORT")
done
log "herald-server pids ${SPIDS[*]} on 127.0.0.1 ports ${PORTS_OF_NODES[*]}; $DEVICES devices from $SOURCES source addresses in $PROCESSES herald-bench processes, then a group of $MEMBERS at $RATE msgs/s"
NODE_ARGS=(--server "ws://127.0.0.1:${PORTS_OF_NODES[0]}" --server-pid "${SPIDS[0]}")
for ((i = 1; i < NODES; i++)); do NODE_ARGS+=(--server "ws://127.0.0.1:${PORTS_OF_NODES[$i]}" --node-pid "${SPIDS[$i]}"); done

"${BENCH_CPU[@]}" "$BIN/herald-bench" crowd -d "$DEVICES" -n "$MEMBERS" --rate "$RATE" --duration-seconds "$DURATION" --idle-seconds "$IDLE" \
  --drain-seconds "$DRAIN" --parallel "$PARALLEL" --source-addresses "$SOURCES" --setup-timeout-seconds "$SETUP_TIMEOUT" --processes "$PROCESSES" \
  "${NODE_ARGS[@]}" --secret bench >>"$OUT/crowd.jsonl" 2> >(tee -a "$OUT/bench.log" >&2)
STATUS=$?
echo "free -m after the run, before the server stops:" >>"$OUT/conditions.txt"
free -m >>"$OUT/conditions.txt"
tail -1 "$OUT/crowd.jsonl" | python3 -c '
import json, sys
r = json.loads(sys.stdin.read() or "{}")
if "error" in r: print("crowd: error:", r["error"]); sys.exit()
l = r.get("latency_ms", {})
print("crowd: %d devices on %d nodes from %d processes in %.1f s = %d connects/s; server %.2f KiB/device (RSS %d -> %d MiB); group of %d at %g msgs/s: p50 %.1f ms, p99 %.1f ms, sent %d, lost %d, duplicated %d, dropped %d" % (
  r["devices"], r.get("nodes", 1), r.get("processes", 1), r["connect_s"], r["connects_per_s"], r["server_rss_per_device_kib"], r["server_rss_before_kib"] // 1024,
  r["server_rss_idle_kib"] // 1024, r["members"], r["rate"], l.get("p50", 0), l.get("p99", 0), r["sent"], r["lost"], r["duplicated"],
  r["dropped_connections"]))' | tee -a "$OUT/crowd.log"
log "herald-bench exited $STATUS; results in $OUT"
exit "$STATUS"
