#!/usr/bin/env bash
# Herald's user-space instructions per operation, counted by callgrind: a figure this VM cannot move (wall-clock
# ratios swing by more than the margins chased). Also syscalls per operation (perf stat of raw_syscalls:sys_enter).
#
#   .bench/instructions.sh [-o OUTDIR] [-l "LOADS"] [-q] [-j FILE] [-n]     (run from anywhere)
#
# The marginal method: each load runs twice (after a warm-up run), a short and a long run of the same load (fixed
# operation counts where the generator has them, else two durations); the figure is
# (Ir_long - Ir_short) / (ops_long - ops_short), so start-up, connecting and shutting down cancel out and only
# what one more operation costs remains. Ir is every thread of the server, user space only (callgrind sees no kernel).
# Valgrind 3.19 cannot read Swift 6.3's DWARF 5, so callgrind runs a copy of the server with its debug info stripped
# (`strip --strip-debug`; symbols stay, so `callgrind_annotate OUTDIR/<load>-long.cg.<dump>-<thread>` names the
# functions: each dump is written per thread with --compress-strings=no, so it reads on its own). One server runs every load of its kind under callgrind;
# `callgrind_control -d` after each generator run dumps (and zeroes) the counters, so a run's count is its dump's.
#
# Loads (-l picks some; default all that can run):
#   echo          round trip: 50 connections to /echo, 64 B (--bench-endpoints server)
#   broadcast     delivery: 200 subscribers, 1 publisher, 100 B, 8 messages in flight (raw broadcast, --bench-endpoints)
#   sync-group    delivery: /sync group of 200 users x 1 device, 1 sender, 8 in flight (herald-bench fanout)
#   sync-sqlite   acknowledged /sync send: 16 DM pairs, 256 in flight, SQLite (herald-bench insert)
#   sync-pg       the same on PostgreSQL, one node, a throwaway PostgreSQL 15 cluster (initdb in a temp dir)
#   uws-echo, uws-broadcast   uWebSockets' echo and broadcast with the same loads, when UWS_BIN names a binary built
#                 by .bench/build-uws.sh, or UWS_SRC="UWEBSOCKETS_DIR USOCKETS_DIR" names its sources (built here)
#
# Generators: the full run uses the kit's wsbench (../shared/bench, as compare.sh; echo by duration 4 s / 12 s,
# broadcast by message count) and herald-bench (--count). -q (quick, what CI runs) uses .bench/ws_load.py instead of
# wsbench (the kit is not in the repository; it does fixed counts), small counts and one operation in flight (see
# the windows below), takes the least short and the least long of three runs each per load (REPEATS=N), about three minutes in all
# plus the servers' start under callgrind, and skips syscalls and uWS. -j FILE writes {"load": instructions per op, ...} as JSON. -n: no syscall counts.
# HERALD_BIN_DIR: prebuilt release binaries (herald-server, herald-bench); else `swift build -c release` here.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
KIT=${KIT:-$(cd "$ROOT/../shared/bench" 2>/dev/null && pwd)}
OUT="$HERE/results/instructions-$(date +%Y%m%d-%H%M%S)"
LOADS=""
QUICK=0
REPEATS=${REPEATS:-}
JSON=""
SYSCALLS=1
while getopts "o:l:qj:n" o; do
  case $o in o) OUT=$OPTARG ;; l) LOADS=$OPTARG ;; q) QUICK=1 ;; j) JSON=$OPTARG ;; n) SYSCALLS=0 ;; *) sed -n 2,29p "$0"; exit 2 ;; esac
done
[ -n "$REPEATS" ] || { [ "$QUICK" = 1 ] && REPEATS=3 || REPEATS=1; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
log() { echo "[instructions] $*" | tee -a "$OUT/run.log" >&2; }
command -v valgrind >/dev/null || { log "valgrind is not installed (apt-get install valgrind)"; exit 2; }

if [ -n "${HERALD_BIN_DIR:-}" ]; then
  BIN=$(cd "$HERALD_BIN_DIR" && pwd)
else
  log "building release (herald-server, herald-bench)"
  (cd "$ROOT" && swift build -c release --product herald-server && swift build -c release --product herald-bench) \
    >>"$OUT/build.log" 2>&1 || { log "release build failed, see $OUT/build.log"; exit 2; }
  BIN=$(cd "$ROOT" && swift build -c release --show-bin-path)
fi
WORK=$(mktemp -d /tmp/herald-instructions-XXXXXX)
strip --strip-debug -o "$WORK/herald-server" "$BIN/herald-server" || { log "strip failed"; exit 2; }
cp "$WORK/herald-server" "$OUT/herald-server.stripped"
SERVER_CG="$WORK/herald-server"
SERVER="$BIN/herald-server"
BENCH="$BIN/herald-bench"
FLAGS="--sync-send-rate 0 --handshake-rate-per-ip 0 --max-connections-per-ip 0"
# Callgrind runs the server ~50x slower than natively, and the sync thread's fair turns are measured in wall-clock
# time (--sync-user-batch-us, 2 ms per user per batch): under callgrind every user would overrun it within a few
# requests, and the turns would postpone inputs that natively run in the batch they came in, a path and a cost the
# native server does not have under these loads (and a count that moves with timing). The budget is scaled by the
# slowdown, so the turns are kept (their bookkeeping is counted) but decide as they would natively. Builds without
# the setting run as they are.
# Likewise the event loop's timer sweep (--tick-ms, 100 ms): it visits every connection and gives back the write-queue
# storage of those that drained, so under callgrind it ran ~50 times as often per operation as natively and its
# share moved with the machine's load (a broadcast delivery measured 673 and 741 in two runs of one build, the
# sweep and the queues it emptied making the difference); at 5 s it is as rare per operation as natively.
CG_FLAGS=""
help=$("$SERVER" serve --help 2>/dev/null)
grep -q -- '--sync-user-batch-us' <<<"$help" && CG_FLAGS="--sync-user-batch-us 1000000"
grep -q -- '--tick-ms ' <<<"$help" && CG_FLAGS="$CG_FLAGS --tick-ms 5000"

WSBENCH=""
if [ "$QUICK" = 0 ]; then
  if [ -n "$KIT" ] && [ -f "$KIT/wsbench.c" ]; then
    cc -O2 -std=gnu11 -o "$WORK/wsbench" "$KIT/wsbench.c" -lm 2>>"$OUT/build.log" && WSBENCH="$WORK/wsbench"
  fi
  [ -n "$WSBENCH" ] || log "no wsbench (KIT=$KIT): echo and broadcast use .bench/ws_load.py"
fi

UWS=""
if [ "$QUICK" = 0 ]; then
  if [ -n "${UWS_BIN:-}" ] && [ -x "$UWS_BIN" ]; then UWS=$UWS_BIN
  elif [ -n "${UWS_SRC:-}" ]; then
    # shellcheck disable=SC2086
    "$HERE/build-uws.sh" $UWS_SRC "$WORK/uws" >>"$OUT/build.log" 2>&1 && UWS="$WORK/uws" || log "building uWebSockets failed, see $OUT/build.log"
  fi
  [ -n "$UWS" ] || log "no uWebSockets (UWS_BIN or UWS_SRC): its rows are left out"
fi
[ -n "$LOADS" ] || { LOADS="echo broadcast sync-group sync-sqlite sync-pg"; [ -n "$UWS" ] && LOADS="$LOADS uws-echo uws-broadcast"; }

freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# --- a throwaway PostgreSQL cluster, only when a load needs it ----------------------------------------------------
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
PGDIR=""
PGPORT=""
AS=()
start_pg() {
  PGDIR=$(mktemp -d /tmp/herald-instructions-pg-XXXXXX)
  if [ "$(id -u)" = 0 ]; then chown postgres: "$PGDIR" && AS=(setpriv --reuid=postgres --regid=postgres --clear-groups --); fi
  PGPORT=$(freeport)
  (cd "$PGDIR" && LC_ALL=C "${AS[@]}" "$PGBIN/initdb" -D "$PGDIR/data" -U herald --auth=trust -E UTF8 --locale=C --no-sync) \
    >>"$OUT/pg.log" 2>&1 || { log "initdb failed, see $OUT/pg.log"; return 1; }
  (cd "$PGDIR" && "${AS[@]}" "$PGBIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/server.log" -w -t 30 start \
    -o "-p $PGPORT -k $PGDIR -c listen_addresses=127.0.0.1 -c fsync=off") >>"$OUT/pg.log" 2>&1 \
    || { log "postgres did not start"; return 1; }
}
stop_pg() {
  [ -n "$PGDIR" ] || return 0
  (cd "$PGDIR" && "${AS[@]}" "$PGBIN/pg_ctl" -D "$PGDIR/data" -m immediate -w stop >/dev/null 2>&1)
  rm -rf "$PGDIR"
  PGDIR=""
}

SPID=""
stop_server() { # SIGTERM, then up to 120 s (callgrind writes its counts on the way out)
  [ -n "$SPID" ] || return 0
  kill "$SPID" 2>/dev/null
  for _ in $(seq 1 1200); do kill -0 "$SPID" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$SPID" 2>/dev/null && { log "server $SPID did not stop: killed"; kill -9 "$SPID" 2>/dev/null; }
  wait "$SPID" 2>/dev/null
  SPID=""
}
cleanup() { trap '' INT TERM; stop_server; stop_pg; rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# Loads share a server where they can: one callgrind start costs ~10-25 s here. Every raw and SQLite load runs on one
# server (/sync is always served; --bench-endpoints adds the peers' routes), PostgreSQL and uWS on their own.
kind_of() { case $1 in sync-pg) echo pg ;; uws-*) echo uws ;; *) echo sqlite ;; esac; }
server_cmd() { # kind port dir
  case $1 in
    uws) echo "$UWS $2" ;;
    pg) echo "$SERVER serve --threads 1 --port $2 --store postgres://herald@127.0.0.1:$PGPORT/$4 --secret bench --log-level error --push-grace-seconds 2 --max-unanswered-requests 256 $FLAGS" ;;
    sqlite) echo "$SERVER serve --bench-endpoints --threads 1 --port $2 --db $3/herald.db --secret bench --log-level error --push-grace-seconds 2 --max-unanswered-requests 256 $FLAGS" ;;
  esac
}
# Sizes (short long) per load: round trips / messages / sends, or wsbench echo seconds. A warm-up run of the short
# size comes first (buffers grown, caches filled), so both measured runs start from the same state.
sizes() {
  if [ "$QUICK" = 1 ]; then
    case $1 in echo) echo "1000 3000" ;; broadcast) echo "50 150" ;; sync-group) echo "20 60" ;; sync-sqlite | sync-pg) echo "100 300" ;; esac
  else
    case $1 in
      echo | uws-echo) [ -n "$WSBENCH" ] && echo "4 12" || echo "5000 15000" ;;
      broadcast | uws-broadcast) echo "500 1500" ;;
      sync-group) echo "100 300" ;; sync-sqlite | sync-pg) echo "2000 6000" ;;
    esac
  fi
}
# The loads' windows. The full run keeps several operations in flight, as the wall-clock benchmarks do; the quick run
# (CI) keeps one, so that how the server's passes group the work does not depend on timing: with 8 broadcasts in
# flight, runs of the same build differed by up to 9% (how many messages a subscriber's one send carries), with 1 by
# about 1%.
if [ "$QUICK" = 1 ]; then
  BCAST_INFLIGHT=1; GROUP_INFLIGHT=1; INSERT_ARGS=(-c 1 --inflight 1)
else
  BCAST_INFLIGHT=8; GROUP_INFLIGHT=8; INSERT_ARGS=(-c 16 --inflight 256)
fi
generate() { # load port size -> prints ops
  local load=${1#uws-} port=$2 n=$3 out field
  case $load in
    echo)
      if [ -n "$WSBENCH" ]; then
        out=$("$WSBENCH" echo --url "ws://127.0.0.1:$port/echo" -c 50 --size 64 -d "$n" --timeout 300 --connect-timeout 120 2>>"$OUT/gen.log")
        echo "$out" >>"$OUT/gen.log"; echo "$out" | sed -n 's/^RESULT //p' | python3 -c 'import json,sys; print(json.load(sys.stdin)["round_trips"])'
      else
        out=$(python3 "$HERE/ws_load.py" echo "$port" "$n" --conns 50 --size 64 2>>"$OUT/gen.log")
        echo "$out" >>"$OUT/gen.log"; echo "$out" | sed -n 's/^RESULT //p' | python3 -c 'import json,sys; print(json.load(sys.stdin)["ops"])'
      fi ;;
    broadcast)
      if [ -n "$WSBENCH" ]; then
        out=$("$WSBENCH" fanout --url "ws://127.0.0.1:$port/ws?user={i}" -s 200 --inflight "$BCAST_INFLIGHT" --hello 'hello {i}' --size 100 \
          -m "$n" -d 3600 --drain 600 --timeout 3600 --connect-timeout 120 2>>"$OUT/gen.log")
        echo "$out" >>"$OUT/gen.log"; echo "$out" | sed -n 's/^RESULT //p' | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["deliveries"] if r["lost"] == 0 else "")'
      else
        out=$(python3 "$HERE/ws_load.py" broadcast "$port" "$n" --subs 200 --inflight "$BCAST_INFLIGHT" --size 100 2>>"$OUT/gen.log")
        echo "$out" >>"$OUT/gen.log"; echo "$out" | sed -n 's/^RESULT //p' | python3 -c 'import json,sys; print(json.load(sys.stdin)["ops"])'
      fi ;;
    sync-group | sync-sqlite | sync-pg)
      local args
      if [ "$load" = sync-group ]; then args=(fanout -n 200 --devices 1 -s 1 --inflight "$GROUP_INFLIGHT" --text-bytes 100); field=deliveries
      else args=(insert "${INSERT_ARGS[@]}" --text-bytes 100); field=acked; fi
      out=$("$BENCH" "${args[@]}" --count "$n" --duration-seconds 3600 --drain-seconds 600 --setup-timeout-seconds 600 --quiet \
        --server "ws://127.0.0.1:$port" --secret bench 2>>"$OUT/gen.log")
      echo "$out" >>"$OUT/gen.log"
      echo "$out" | tail -1 | python3 -c "import json,sys; r=json.load(sys.stdin); print(r['$field'] if r.get('lost', 0) == 0 and r.get('unacked', 0) == 0 else '')" ;;
  esac
}

wait_listening() { # port pid
  for _ in $(seq 1 1800); do
    [ -n "$(ss -Hltn "sport = :$1" 2>/dev/null)" ] && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# The count of one generator run on the running server SPID: callgrind's counters since the last dump (a dump zeroes
# them), or perf's count of syscalls entered while the generator ran. Prints "count ops".
measure() { # tool load port size label
  local tool=$1 load=$2 port=$3 n=$4 label=$5 ops count perfpid file
  if [ "$tool" = sys ]; then
    file="$OUT/$label.sys"
    perf stat -x, -e raw_syscalls:sys_enter -p "$SPID" -o "$file" &
    perfpid=$!
    sleep 0.3
  fi
  ops=$(generate "$load" "$port" "$n")
  # What a run leaves to timers lands in its own count: presence changes are announced at most every 2 s per user
  # (E2), so the devices' goodbyes of a /sync run were announced, or not, inside the next run's count (two runs of a
  # build differed by 11% per group delivery). Idle, with no connection, the server does next to nothing meanwhile.
  case $load in sync-*) sleep 3 ;; *) sleep 0.5 ;; esac
  if [ "$tool" = sys ]; then
    kill -INT "$perfpid"; wait "$perfpid" 2>/dev/null
    count=$(grep 'raw_syscalls:sys_enter' "$file" | cut -d, -f1)
  else
    # One file per thread and dump (--separate-threads=yes). SQLite's checkpoint thread is left out of the sum: it
    # wakes every 0.2 s to copy the WAL's pages into the database file, so under callgrind's slowdown it ran ~50 times
    # as often per send as natively, and how many of its passes fell into a run moved that run's count by up to 7%
    # (natively one pass serves thousands of sends and costs next to nothing per send).
    local before after total=0 files=() f last=-1
    before=$(ls "$CG_FILE".* 2>/dev/null | sort)
    callgrind_control -d "$label" "$SPID" >>"$OUT/run.log" 2>&1
    for _ in $(seq 1 600); do
      after=$(comm -13 <(echo "$before") <(ls "$CG_FILE".* 2>/dev/null | sort))
      local n
      n=$(echo "$after" | grep -c .)
      if [ "$n" -gt 0 ] && [ "$n" = "$last" ] && ! grep -L '^totals:' $after | grep -q .; then break; fi
      last=$n
      sleep 0.3
    done
    # Likewise the sync thread's timers (SyncCore.fireDueTimers: presence coalescing every 2 s, maintenance, expiries):
    # a pass fell into one run or the next by timing, moving a /sync group run's count by up to 7%; what they cost
    # is subtracted (the loads keep every device connected, so no push waits for them).
    for f in $after; do
      cp "$f" "$OUT/$label.cg.${f##*.}"
      grep -q '^fn=.*SQLiteCheckpointerC3run' "$f" && continue
      total=$((total + $(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$f" | head -1) - $(timer_cost "$f")))
      files+=("$f")
    done
    [ ${#files[@]} -gt 0 ] && count=$total
  fi
  [ -n "$ops" ] && [ -n "$count" ] || { log "$label: no result (ops '$ops', count '$count'), see $OUT/gen.log"; echo ""; return; }
  echo "$count $ops"
}

# Inclusive instructions of SyncCore.fireDueTimers in one callgrind file: the cost lines after its calls.
timer_cost() {
  awk '/^cfn=/ { timer = ($0 ~ /fireDueTimers3now/) } /^calls=/ { pending = timer; next }
       pending && /^[0-9+*-]/ { sum += $2; pending = 0 } END { print sum + 0 }' "$1"
}

declare -A IR SYS
run_kind() { # tool kind loads...
  local tool=$1 kind=$2 port dir dbname="" cmd load short long a b; shift 2
  port=$(freeport)
  dir="$WORK/$kind-$tool"; rm -rf "$dir"; mkdir -p "$dir"
  if [ "$kind" = pg ]; then
    dbname="instr_$tool"
    "$PGBIN/createdb" -h 127.0.0.1 -p "$PGPORT" -U herald "$dbname" >>"$OUT/pg.log" 2>&1 || { log "createdb failed"; return 1; }
  fi
  read -r -a cmd <<<"$(server_cmd "$kind" "$port" "$dir" "$dbname")"
  if [ "$tool" = cg ]; then
    [ "${cmd[0]}" = "$SERVER" ] && { cmd[0]=$SERVER_CG; [ -n "$CG_FLAGS" ] && read -r -a extra <<<"$CG_FLAGS" && cmd+=("${extra[@]}"); }
    CG_FILE="$WORK/$kind.cg"
    valgrind --tool=callgrind --compress-strings=no --separate-threads=yes --callgrind-out-file="$CG_FILE" "${cmd[@]}" >>"$OUT/server.log" 2>&1 &
  else
    "${cmd[@]}" >>"$OUT/server.log" 2>&1 &
  fi
  SPID=$!
  wait_listening "$port" "$SPID" || { log "$kind: the server did not listen, see $OUT/server.log"; stop_server; return 1; }
  for load in "$@"; do
    read -r short long <<<"$(sizes "$load")"
    log "$load ($tool): warm-up $short, then $short and $long"
    measure "$tool" "$load" "$port" "$short" "$load-warmup" >/dev/null
    # Work the server does by the clock (timers, checkpoints, an index written every so many messages) lands in
    # whichever run it falls into, and only ever adds: one build's quick echo measured 927 to 1,534 per op as the median
    # of three pairs' marginal costs. So the least short run is taken from the least long one: what is left is the
    # load's own cost. Runs of one size do the same number of operations; when they do not, the median pair is taken.
    local per pairs=()
    for ((r = 1; r <= REPEATS; r++)); do
      a=$(measure "$tool" "$load" "$port" "$short" "$load-short$r")
      b=$(measure "$tool" "$load" "$port" "$long" "$load-long$r")
      log "$load ($tool): short $a; long $b (count ops)"
      pairs+=("$a $b")
    done
    per=$(python3 -c "
import statistics, sys
pairs = []
for pair in sys.argv[1:]:
    try:
        pairs.append(tuple(map(int, pair.split())))
    except ValueError:
        continue
pairs = [p for p in pairs if len(p) == 4 and p[3] > p[1]]
value = None
if pairs and len({p[1] for p in pairs}) == 1 and len({p[3] for p in pairs}) == 1:
    value = (min(p[2] for p in pairs) - min(p[0] for p in pairs)) / (pairs[0][3] - pairs[0][1])
elif pairs:
    value = statistics.median((c2 - c1) / (o2 - o1) for c1, o1, c2, o2 in pairs)
print(round(value, 2 if '$tool' == 'sys' else None) if value is not None else '')" "${pairs[@]}" 2>/dev/null)
    if [ "$tool" = cg ]; then IR[$load]=$per; else SYS[$load]=$per; fi
    log "$load ($tool): ${per:-failed} per op"
  done
  stop_server
}

[[ " $LOADS " == *" sync-pg "* ]] && { start_pg || { log "sync-pg left out"; LOADS=${LOADS/sync-pg/}; }; }
for kind in sqlite pg uws; do
  ls=()
  for load in $LOADS; do [ "$(kind_of "$load")" = "$kind" ] && ls+=("$load"); done
  [ ${#ls[@]} -gt 0 ] || continue
  run_kind cg "$kind" "${ls[@]}"
  if [ "$SYSCALLS" = 1 ] && [ "$QUICK" = 0 ]; then run_kind sys "$kind" "${ls[@]}"; fi
done
stop_pg

{
  echo "# Herald instructions per operation $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo
  echo "- herald commit: $(cd "$ROOT" && git rev-parse --short HEAD); binaries: $BIN; $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  echo "- callgrind ($(valgrind --version)) on the stripped server, user space only, marginal cost between two runs of each load"
  echo
  echo "| load | per | instructions (user space) | syscalls |"
  echo "| --- | --- | --- | --- |"
  for load in $LOADS; do
    case $load in
      echo | uws-echo) per="round trip" ;; broadcast | uws-broadcast | sync-group) per=delivery ;; *) per="acknowledged send" ;;
    esac
    printf '| %s | %s | %s | %s |\n' "$load" "$per" "${IR[$load]:-failed}" "${SYS[$load]:--}"
  done
  if [ -n "${IR[uws-echo]:-}" ] && [ -n "${IR[echo]:-}" ]; then
    echo
    python3 -c "import sys; e,ue,b,ub=[float(x) if x else 0 for x in sys.argv[1:]]; print(f'Herald / uWS: echo {e/ue:.2f}x' + (f', broadcast {b/ub:.2f}x' if ub else ''))" \
      "${IR[echo]}" "${IR[uws-echo]}" "${IR[broadcast]:-}" "${IR[uws-broadcast]:-}"
  fi
  if [ -n "${IR[sync-group]:-}" ] && [ -n "${IR[broadcast]:-}" ]; then
    echo
    python3 -c "import sys; g,b=map(float,sys.argv[1:]); print(f'/sync group delivery / raw delivery: {g/b:.2f}x')" "${IR[sync-group]}" "${IR[broadcast]}"
  fi
} >"$OUT/table.md"
cat "$OUT/table.md"

if [ -n "$JSON" ]; then
  for load in $LOADS; do echo "$load ${IR[$load]:-}"; done | python3 -c '
import json, sys
print(json.dumps({k: (int(float(v)) if v else None) for k, *rest in (l.split() for l in sys.stdin) for v in [rest[0] if rest else ""]}, indent=1))' >"$JSON"
fi
for load in $LOADS; do [ -n "${IR[$load]:-}" ] || exit 1; done
