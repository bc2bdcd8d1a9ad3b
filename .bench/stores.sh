#!/usr/bin/env bash
# The same /sync loads on the SQLite store, on PostgreSQL with one node, and on PostgreSQL with two nodes, in ONE
# run, with what each message costs the database: statements, commits and NOTIFYs per message.
#
#   .bench/stores.sh [-r ROUNDS] [-o OUTDIR]        (run as root or as a normal user; from anywhere)
#
# 1. swift build -c release (herald-server, herald-bench), unless HERALD_BIN_DIR points at prebuilt ones.
# 2. A throwaway PostgreSQL 15 cluster, made as the test fixture makes it (initdb in a temp dir, as the postgres user when
#    root; 127.0.0.1 on a free port; max_connections=200), but durable: fsync=on, synchronous_commit and
#    full_page_writes at their defaults (on). shared_preload_libraries=pg_stat_statements (track=top,
#    track_utility=on: BEGIN, COMMIT and SAVEPOINT count as statements); the extension is created in the
#    `postgres` database only, whose view shows every database's statements (dbid). WAL segments are recycled as on
#    a server that has been running (min_wal_size=2GB filled by a ballast before the first run, checkpoints every
#    120 s, wal_keep_size=512MB for pg_waldump): see PGOPTS. Stopped and deleted on exit.
# 3. Setups, every node `herald-server serve --threads 1` with the abuse limits off (FLAGS below; among them the
#    per-connection pipelining limit, 8 unanswered requests by default, raised to 256 so that herald-bench's --inflight
#    window is what the server sees: with the default a lone sender's "32 in flight" was 8):
#    - sqlite: one node, --db FILE, a fresh file in a temp dir per run (same disk as the cluster);
#    - pg1:    one node, --store postgres://herald@127.0.0.1:PORT/DB, a fresh database per run (createdb);
#    - pg2:    two nodes on one fresh database; herald-bench --server A --server B: connections alternate between the
#              nodes (even ones on A). fanout: the sender and half the group on A, the other half on B. chat: each
#              DM has one user on A and one on B and everyone sends, so half the sends go to each node and every
#              message crosses nodes. insert is left out of pg2 by default: its senders are the even connections,
#              so --server puts every send on A and only the partners on B (PG2_LOADS="... insert" runs it anyway).
#    - pg3 ... pg9: that many nodes the same way (--server once per further node; connection i on node i % N). chat:
#              a DM's two users are consecutive connections, so every message still crosses nodes. PG2_LOADS says
#              which loads every setup of 2 or more nodes runs; "node B" figures are then all nodes but A together.
#    Loads (herald-bench; DURATION s of load, DRAIN s drain at most; each *_ARGS overridable by env):
#      insert     insert -c 16 --inflight 256
#      fanout200  fanout -n 200 --devices 1 -s 1 --inflight 32
#      fanout1000 fanout -n 1000 --devices 1 -s 1 --inflight 32
#      chat5000   chat -u 5000 --per-user 1        (5,000 users in 2,500 DMs, 1 msg/s each: 5,000 msgs/s offered)
#      chat5000typing  the same with --typing: everyone reports typing (typing.start) before each message, so each
#                 message also costs a typing request, a typing event to the partner and the stop the message implies
#                 (E1); presence (E2) is exchanged at every connect. Not in the default LOADS: name it, e.g.
#                 SETUPS="sqlite pg2" LOADS="chat5000 chat5000typing" PG2_LOADS="chat5000 chat5000typing" .bench/stores.sh -r 2
# 4. Rounds interleave: per round, per load, every setup once, in an order that changes every round (round 1
#    sqlite pg1 pg2, round 2 the reverse, then the next rotation and its reverse, ...: every pair swaps places
#    between consecutive rounds, so use an even ROUNDS). Nothing is pinned: nodes, PostgreSQL and herald-bench
#    share the machine's cores.
# 5. Measured over a window of the load phase (setup, warm-up and drain excluded): at each of herald-bench's
#    once-a-second progress lines during the load the script samples the nodes' and PostgreSQL's utime+stime (/proc; PostgreSQL = the
#    postmaster and its children but the LISTEN session's backend), and for PostgreSQL: pg_stat_statements calls of
#    the run's database by user herald (reset before herald-bench starts), pg_stat_database.xact_commit, the WAL
#    insert position, and the notifications counted by a LISTEN session on LISTEN_CHANNELS of the run's database
#    (pg_listen.py, next to this script: the wire protocol in the standard library, so it runs no statements that
#    would count). The window runs from the progress line WARMUP s into the load (work a node defers, such as the
#    push grace period's check of each message after --push-grace-seconds 2 s, has begun by then) to the last load line.
#    Per acked send in the window:
#    - statements: pg_stat_statements calls (BEGIN, COMMIT and SAVEPOINT count; a SAVEPOINT or RELEASE that the
#      store pipelines with the next statement counts apart but shares its round trip);
#    - commits: xact_commit, every transaction, read-only ones too. A backend publishes it at most once a second,
#      so it is taken as the window's COMMIT statements times the whole run's xact_commit per COMMIT statement,
#      read once every backend of the database has exited; and the WAL's Transaction/COMMIT records in the window
#      (pg_waldump), the commits that wrote and waited for the WAL flush;
#    - NOTIFYs: calls of statements matching pg_notify( or NOTIFY (one call may notify once per row: a NOTIFY
#      inside a statement is not counted apart by pg_stat_statements), and notifications the LISTEN session
#      received (PostgreSQL folds identical channel+payload pairs of one transaction into one);
#    - CPU % of one core (nodes, PostgreSQL, herald-bench) and the machine's idle share (all CPUs); pg2: node B's CPU time per delivery to B (B holds every odd
#      connection, so half the deliveries).
#    Also per PostgreSQL run: "deadlock detected" and other ERRORs in PostgreSQL's log; nodes that do not exit
#    STOP_TIMEOUT s after SIGTERM (e.g. with a backlog of sends) are SIGKILLed and logged.
# One JSON line per run in OUTDIR/stores.jsonl (bench result "r", load-window figures "w", whole-run "pg_run");
# per PostgreSQL run the top statements by calls, the window's WAL records and the log's ERRORs in
# OUTDIR/statements/RUN.txt and the samples in OUTDIR/samples/RUN.tsv; medians per (load, setup) and every run in
# OUTDIR/summary.md. A round took 3.6 minutes on 2 cores (a PostgreSQL run: setup + DURATION + up to DRAIN + up to STOP_TIMEOUT).
# Env: DURATION (10) WARMUP (3) DRAIN (10) SETUP_TIMEOUT (120) STOP_TIMEOUT (5) LOADS SETUPS PG2_LOADS INSERT_ARGS
# FANOUT200_ARGS FANOUT1000_ARGS CHAT_ARGS CHAT_TYPING_ARGS LISTEN_CHANNELS ("herald_wake": the one channel the store notifies on) HERALD_PG_BIN
# HERALD_BIN_DIR PG_SETTINGS (more postgres options for the cluster, e.g. "-c wal_init_zero=off").
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
ROUNDS=1
OUT="$HERE/results/stores-$(date +%Y%m%d-%H%M%S)"
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-3}
DRAIN=${DRAIN:-10}
SETUP_TIMEOUT=${SETUP_TIMEOUT:-120}
STOP_TIMEOUT=${STOP_TIMEOUT:-5}
LOADS=${LOADS:-"insert fanout200 fanout1000 chat5000"}
SETUPS=${SETUPS:-"sqlite pg1 pg2"}
PG2_LOADS=${PG2_LOADS:-"fanout200 fanout1000 chat5000"}
declare -A ARGS=(
  [insert]=${INSERT_ARGS:-"insert -c 16 --inflight 256"}
  [fanout200]=${FANOUT200_ARGS:-"fanout -n 200 --devices 1 -s 1 --inflight 32"}
  [fanout1000]=${FANOUT1000_ARGS:-"fanout -n 1000 --devices 1 -s 1 --inflight 32"}
  [chat5000]=${CHAT_ARGS:-"chat -u 5000 --per-user 1"}
  [chat5000typing]=${CHAT_TYPING_ARGS:-"chat -u 5000 --per-user 1 --typing"}
)
LISTEN_CHANNELS=${LISTEN_CHANNELS:-"herald_wake"}
FLAGS="--sync-send-rate 0 --handshake-rate-per-ip 0 --max-connections-per-ip 0 --max-unanswered-requests 256"
PGBIN=${HERALD_PG_BIN:-/usr/lib/postgresql/15/bin}
while getopts "r:o:" o; do
  case $o in r) ROUNDS=$OPTARG ;; o) OUT=$OPTARG ;; *) sed -n 2,55p "$0"; exit 2 ;; esac
done
for l in $LOADS; do [ -n "${ARGS[$l]:-}" ] || { echo "unknown load $l (known: ${!ARGS[*]})" >&2; exit 2; }; done
mkdir -p "$OUT/statements" "$OUT/samples"
log() { echo "[stores] $*" | tee -a "$OUT/stores.log" >&2; }

if [ -n "${HERALD_BIN_DIR:-}" ]; then
  BIN=$HERALD_BIN_DIR
  log "using prebuilt binaries in $BIN"
else
  log "building release (herald-server, herald-bench)"
  (cd "$ROOT" && swift build -c release --product herald-server && swift build -c release --product herald-bench) >>"$OUT/build.log" 2>&1 \
    || { log "release build failed, see $OUT/build.log"; exit 2; }
  BIN=$(cd "$ROOT" && swift build -c release --show-bin-path)
fi
SERVER="$BIN/herald-server"
BENCH="$BIN/herald-bench"
CLK=$(getconf CLK_TCK)

# --- the throwaway cluster and the work dir -----------------------------------------------------------------
PGDIR=$(mktemp -d /tmp/herald-stores-pg-XXXXXX)
WORK=$(mktemp -d /tmp/herald-stores-work-XXXXXX)
AS=()
if [ "$(id -u)" = 0 ]; then chown postgres: "$PGDIR" && AS=(setpriv --reuid=postgres --regid=postgres --clear-groups --); fi
freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
PGPORT=$(freeport)
PIDS=()
stop() { # pid...: SIGTERM, up to STOP_TIMEOUT s to exit, then SIGKILL; KILLED = the pids that had to be killed
  local p left=() n
  KILLED=""
  for p in "$@"; do kill "$p" 2>/dev/null && left+=("$p"); done
  for ((n = 0; n < STOP_TIMEOUT * 10 && ${#left[@]}; n++)); do
    sleep 0.1
    for p in "${!left[@]}"; do kill -0 "${left[$p]}" 2>/dev/null || unset "left[$p]"; done
  done
  for p in "${left[@]}"; do kill -9 "$p" 2>/dev/null && KILLED="$KILLED$p "; done
  for p in "$@"; do wait "$p" 2>/dev/null; done
}
cleanup() {
  trap '' INT TERM
  stop "${PIDS[@]}"
  (cd "$PGDIR" && "${AS[@]}" "$PGBIN/pg_ctl" -D "$PGDIR/data" -m immediate -w stop >/dev/null 2>&1)
  rm -rf "$PGDIR" "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
(cd "$PGDIR" && LC_ALL=C "${AS[@]}" "$PGBIN/initdb" -D "$PGDIR/data" -U herald --auth=trust -E UTF8 --locale=C --no-sync) \
  >>"$OUT/pg.log" 2>&1 || { log "initdb failed, see $OUT/pg.log"; exit 2; }
# WAL as on a database server that has been running: segments are recycled, not created. A fresh cluster creates and
# zero-fills a new 16 MiB segment every ~2 s under these loads, and the commit that needs it waits (tens of ms, a
# latency tail no long-running server has). min_wal_size keeps 2 GB of old segments for reuse at each checkpoint, the
# ballast below fills that pool before the first run, and wal_keep_size keeps only the last runs' segments for
# pg_waldump (keeping every segment, as a larger value would, makes each new one a fresh file again).
PGOPTS="-p $PGPORT -k $PGDIR -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=on"
PGOPTS="$PGOPTS -c min_wal_size=2GB -c max_wal_size=8GB -c wal_keep_size=512MB -c checkpoint_timeout=120s"
PGOPTS="$PGOPTS -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=top -c pg_stat_statements.track_utility=on"
PGOPTS="$PGOPTS ${PG_SETTINGS:-}"
(cd "$PGDIR" && "${AS[@]}" "$PGBIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/server.log" -w -t 30 start -o "$PGOPTS") \
  >>"$OUT/pg.log" 2>&1 || { log "postgres did not start"; cat "$PGDIR/server.log" >>"$OUT/pg.log"; exit 2; }
psql() { "$PGBIN/psql" -X -q -h 127.0.0.1 -p "$PGPORT" -U herald "$@"; }
psql -d postgres -c "CREATE EXTENSION pg_stat_statements" >>"$OUT/pg.log" 2>&1 || { log "CREATE EXTENSION pg_stat_statements failed"; exit 2; }
# About 2 GB of WAL, then two checkpoints: its segments become the recycled pool the runs write into.
log "filling the WAL segment pool (about 2 GB of WAL, then CHECKPOINT)"
psql -d postgres -c "CREATE TABLE wal_ballast AS SELECT g, repeat('x', 1000) AS x FROM generate_series(1, 1800000) g" \
  -c "DROP TABLE wal_ballast" -c "CHECKPOINT" -c "CHECKPOINT" >>"$OUT/pg.log" 2>&1 || { log "filling the WAL pool failed"; exit 2; }
PGSET=$(psql -d postgres -At -F' ' -c "SELECT string_agg(name || '=' || setting, ' ' ORDER BY name) FROM pg_settings WHERE name IN
  ('fsync','synchronous_commit','full_page_writes','wal_sync_method','shared_buffers','max_connections','shared_preload_libraries',
   'min_wal_size','max_wal_size','wal_keep_size','checkpoint_timeout')")
log "postgres 15 on 127.0.0.1:$PGPORT ($PGDIR): $PGSET"

{
  echo "# Stores: SQLite vs PostgreSQL (1 node, 2 nodes), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo
  echo "- machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), kernel $(uname -r); nothing pinned"
  echo "- load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "- herald commit: $(cd "$ROOT" && git rev-parse --short HEAD); binaries: $BIN"
  echo "- nodes: herald-server serve --threads 1 $FLAGS; PostgreSQL: $PGSET"
  echo "- rounds: $ROUNDS; load ${DURATION} s (window from ${WARMUP} s), drain <= ${DRAIN} s; loads: $LOADS; pg2 loads: $PG2_LOADS"
  for l in $LOADS; do echo "  - $l: herald-bench ${ARGS[$l]} --duration-seconds $DURATION --drain-seconds $DRAIN"; done
  echo
} >"$OUT/summary.md"

cpu_ticks() { # utime+stime of the given pids (no process started: the sampler must not take the CPU it measures)
  local sum=0 p line f
  for p in "$@"; do
    read -r line 2>/dev/null <"/proc/$p/stat" || continue
    f=(${line##*) })
    [ ${#f[@]} -gt 12 ] && sum=$((sum + f[11] + f[12]))
  done
  echo $sum
}
idle_ticks() { # the machine's idle + iowait ticks, all CPUs together
  local cpu user nice system idle iowait rest
  read -r cpu user nice system idle iowait rest </proc/stat
  echo $((idle + iowait))
}
notify_total() { # file: the "total" of pg_listen.py's JSON, into TOTAL (read by the shell: no process started)
  local json=""
  TOTAL=""
  read -r json 2>/dev/null <"$1" || [ -n "$json" ] || return 0
  case $json in *'"total": '*) ;; *) return 0 ;; esac
  json=${json#*\"total\": }
  TOTAL=${json%%[,\}]*}
}
pg_pids() { # the postmaster and its children (backends, walwriter, ...), except the listener's backend
  local pm
  pm=$(head -1 "$PGDIR/data/postmaster.pid")
  echo "$pm" $(pgrep -P "$pm" | grep -vx "${LISTEN_BACKEND:-0}")
}
PG_SAMPLE_SQL() { # db: herald's pg_stat_statements calls (all / NOTIFY ones / COMMIT), xact_commit, the WAL insert LSN
  cat <<SQL
SELECT coalesce(sum(s.calls), 0),
       coalesce(sum(s.calls) FILTER (WHERE s.query ~* '(pg_notify[[:space:]]*\(|^[[:space:]]*notify[[:space:]])'), 0),
       coalesce(sum(s.calls) FILTER (WHERE s.query ~* '^[[:space:]]*(commit|end)[[:space:]]*;?[[:space:]]*$'), 0),
       (SELECT xact_commit FROM pg_stat_database WHERE datname = '$1'),
       pg_current_wal_insert_lsn()
FROM pg_stat_statements s
WHERE s.dbid = (SELECT oid FROM pg_database WHERE datname = '$1') AND s.userid = (SELECT oid FROM pg_roles WHERE rolname = 'herald')
SQL
}

wait_port() { # port pid: until the node listens (or dies)
  for _ in $(seq 1 150); do
    [ -n "$(ss -Hltn "sport = :$1" 2>/dev/null)" ] && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

RUN_SEQ=0
run() { # round setup load
  local round=$1 setup=$2 load=$3 name="$3-$2-r$1" db="" store nodes=1 i port
  local pids=() ports=() w="$WORK/run" t0 t1
  RUN_SEQ=$((RUN_SEQ + 1))
  rm -rf "$w"; mkdir -p "$w"
  t0=$(date +%s.%N)
  case $setup in
    sqlite) store=(--db "$w/herald.db") ;;
    pg[1-9])
      db="s${RUN_SEQ}_$RANDOM"
      "$PGBIN/createdb" -h 127.0.0.1 -p "$PGPORT" -U herald "$db" >>"$OUT/pg.log" 2>&1 || { log "$name: createdb failed"; return; }
      store=(--store "postgres://herald@127.0.0.1:$PGPORT/$db")
      nodes=${setup#pg} ;;
  esac
  for i in $(seq 1 "$nodes"); do
    port=$(freeport)
    # shellcheck disable=SC2086
    "$SERVER" serve --threads 1 --port "$port" "${store[@]}" --secret bench --log-level error --push-grace-seconds 2 $FLAGS \
      >>"$OUT/server.log" 2>&1 &
    pids+=($!); PIDS+=($!); ports+=("$port")
    wait_port "$port" "$!" || { log "$name: node $i did not start, see $OUT/server.log"; }
  done
  local urls=(--server "ws://127.0.0.1:${ports[0]}")
  for port in "${ports[@]:1}"; do urls+=(--server "ws://127.0.0.1:$port"); done

  local lpid="" pglog0
  pglog0=$(stat -c %s "$PGDIR/server.log")
  LISTEN_BACKEND=0
  if [ -n "$db" ]; then
    # shellcheck disable=SC2086
    python3 "$HERE/pg_listen.py" 127.0.0.1 "$PGPORT" herald "$db" "$w/notify.json" $LISTEN_CHANNELS 2>>"$OUT/pg.log" &
    lpid=$!; PIDS+=($lpid)
    for _ in $(seq 1 50); do [ -s "$w/notify.json" ] && break; sleep 0.1; done
    [ -s "$w/notify.json" ] || log "$name: the LISTEN session did not start"
    LISTEN_BACKEND=$(psql -d postgres -At -c "SELECT coalesce(max(pid), 0) FROM pg_stat_activity WHERE application_name = 'stores-listen'")
    psql -d postgres -c "SELECT pg_stat_statements_reset()" >/dev/null 2>>"$OUT/pg.log"
  fi

  local sql="" load_avg rc
  if [ -n "$db" ]; then
    sql=$(PG_SAMPLE_SQL "$db")
    psql -d postgres -At -F' ' -c "$sql" >"$w/pg_before" 2>>"$OUT/pg.log"
    coproc PGS { psql -d postgres -At -F' ' 2>>"$OUT/pg.log"; }
    PIDS+=("$PGS_PID")
  fi
  load_avg=$(cut -d' ' -f1-3 /proc/loadavg)
  local cmd=(${ARGS[$load]} --duration-seconds "$DURATION" --drain-seconds "$DRAIN" --setup-timeout-seconds "$SETUP_TIMEOUT" "${urls[@]}" --secret bench --server-pid "${pids[0]}")
  echo "== $name (load $load_avg): herald-bench ${cmd[*]}" >>"$OUT/bench.log"
  mkfifo "$w/err"
  local bstart; bstart=$(date +%s.%N)
  "$BENCH" "${cmd[@]}" >"$w/result.json" 2>"$w/err" &
  local bpid=$!; PIDS+=($bpid)
  # One sample per progress line of the load phase: time, the line, CPU ticks (node A, node B, PostgreSQL), and for
  # PostgreSQL the counters. The sample lags its line by the few ms psql takes, alike at both ends of the window.
  local l ta tb tp tbench ti pgc nt
  while IFS= read -r l; do
    echo "$l" >>"$OUT/bench.log"
    case $l in
      "[load "*)
        ta=$(cpu_ticks "${pids[0]}"); tb=$(cpu_ticks "${pids[@]:1}")
        # shellcheck disable=SC2046
        tp=$(cpu_ticks $(pg_pids))
        tbench=$(cpu_ticks "$bpid"); ti=$(idle_ticks)
        pgc=""; nt=""
        if [ -n "$db" ]; then
          # One psql session for the whole run: a new connection per sample (a psql and a backend started every
          # second) took enough CPU to show in the latency it was measuring.
          echo "$sql;" >&"${PGS[1]}"
          read -t 5 -r pgc <&"${PGS[0]}" || pgc=""
          notify_total "$w/notify.json"; nt=$TOTAL
        fi
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date +%s.%N)" "$ta" "$tb" "$tp" "$tbench" "$ti" "$pgc" "$nt" "$l" >>"$w/samples.tsv" ;;
    esac
  done <"$w/err"
  wait "$bpid"; rc=$?

  if [ -n "$db" ]; then
    psql -d postgres -c "SELECT calls, rows, round(total_exec_time::numeric, 1) AS ms, left(regexp_replace(query, '[[:space:]]+', ' ', 'g'), 160) AS query
      FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = '$db') ORDER BY calls DESC LIMIT 40" \
      >"$OUT/statements/$name.txt" 2>&1
    # Channels that herald's statements notify on but the LISTEN session did not listen to.
    local chans missing=""
    chans=$(grep -o -i -E "(pg_notify\('|notify +)[a-z_0-9]+" "$OUT/statements/$name.txt" | sed -E "s/.*['[:space:]]//" | sort -u)
    for c in $chans; do case " $LISTEN_CHANNELS " in *" $c "*) ;; *) missing="$missing $c" ;; esac; done
    [ -n "$missing" ] && log "$name: notifications on channels not listened to:$missing (set LISTEN_CHANNELS)"
  fi
  if [ -n "$db" ]; then
    local spid=$PGS_PID
    exec {PGS[1]}>&-
    wait "$spid" 2>/dev/null
  fi
  stop "${pids[@]}" $lpid
  local killed=$KILLED
  [ -n "$killed" ] && log "$name: did not exit ${STOP_TIMEOUT} s after SIGTERM, SIGKILLed: $killed(nodes: ${pids[*]})"
  if [ -n "$db" ]; then
    # The whole run's xact_commit once every backend of the database has exited (a backend publishes its counts
    # when it exits): against the run's COMMIT statements, it calibrates the window's commits (see the python).
    for _ in $(seq 1 50); do
      [ "$(psql -d postgres -At -c "SELECT count(*) FROM pg_stat_activity WHERE datname = '$db'")" = 0 ] && break
      sleep 0.1
    done
    sleep 0.2
    psql -d postgres -At -F' ' -c "$sql" >"$w/pg_after" 2>>"$OUT/pg.log"
    # The window's last WAL records may still sit in WAL buffers: a segment switch writes them out for pg_waldump
    # (run by the python below on the window's WAL positions; wal_keep_size keeps the last runs' segments).
    psql -d postgres -At -c "SELECT pg_switch_wal()" >/dev/null 2>>"$OUT/pg.log"
    "$PGBIN/dropdb" --force -h 127.0.0.1 -p "$PGPORT" -U herald "$db" >>"$OUT/pg.log" 2>&1
    # PostgreSQL's log lines of this run: deadlocks and other errors.
    tail -c +$((pglog0 + 1)) "$PGDIR/server.log" >"$w/pglog.txt"
    { echo; echo "PostgreSQL log during the run, ERROR lines by kind:"; grep -o 'ERROR: .*' "$w/pglog.txt" | cut -c1-100 | sort | uniq -c | sort -rn | head; } \
      >>"$OUT/statements/$name.txt"
  fi
  t1=$(date +%s.%N)

  local summary
  summary=$(python3 - "$w" "$name" "$round" "$setup" "$load" "$nodes" "$load_avg" "$rc" "$bstart" "$t0" "$t1" "$CLK" "${cmd[*]}" \
    "$OUT/stores.jsonl" "$killed" "$WARMUP" "$PGBIN" "$PGDIR" "$OUT/statements/$name.txt" 2>>"$OUT/stores.log" <<'PY'
import json, re, subprocess, sys
w, name, rnd, setup, load, nodes, load_avg, rc, bstart, t0, t1, clk, cmd, jsonl, killed, warmup, pgbin, pgdir, stmts = sys.argv[1:]
warmup = float(warmup)
clk = int(clk)
try:
    r = json.loads(open(w + "/result.json").read().strip().splitlines()[-1])
except Exception:
    r = None
def lsn(text):
    hi, lo = text.split("/")
    return (int(hi, 16) << 32) | int(lo, 16)
samples = []
try:
    for row in open(w + "/samples.tsv"):
        t, ta, tb, tp, tbench, ti, pgc, nt, line = row.rstrip("\n").split("\t", 8)
        f = {k: int(v) for k, v in re.findall(r"(sent|acked|deliveries/s)=(\d+)", line)}
        s = dict(t=float(t), a=int(ta), b=int(tb), pg=int(tp), bench=int(tbench), idle=int(ti), sent=f.get("sent", 0), acked=f.get("acked", 0), dps=f.get("deliveries/s", 0),
                 elapsed=float(re.match(r"\[load +([0-9.]+)s\]", line).group(1)))
        if pgc.strip():
            calls, notify_calls, commit_calls, xact, wal = pgc.split()
            s.update(calls=int(calls), notify_calls=int(notify_calls), commit_calls=int(commit_calls), xact_commit=int(xact), wal=lsn(wal), lsn=wal)
        if nt.strip():
            s["notifications"] = int(nt)
        samples.append(s)
except FileNotFoundError:
    pass
pg_errors = None
try:
    text = open(w + "/pglog.txt", errors="replace").read()
    pg_errors = dict(errors=len(re.findall(r"\bERROR: ", text)), deadlocks=text.count("ERROR:  deadlock detected"))
except FileNotFoundError:
    pass
def slope(xs, ys):  # least squares
    n = len(xs); mx = sum(xs) / n; my = sum(ys) / n
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
def pg_counts(path):
    try:
        calls, notify_calls, commit_calls, xact, wal = open(path).read().split()
        return dict(calls=int(calls), commit_calls=int(commit_calls), xact_commit=int(xact))
    except (FileNotFoundError, ValueError):
        return None
before, after = pg_counts(w + "/pg_before"), pg_counts(w + "/pg_after")
run_pg = None
if before and after:
    run_pg = dict(statements=after["calls"], commit_statements=after["commit_calls"], xact_commit=after["xact_commit"] - before["xact_commit"])
    run_pg["xact_per_commit_statement"] = round(run_pg["xact_commit"] / run_pg["commit_statements"], 3) if run_pg["commit_statements"] else None
all_samples = samples
# The window starts WARMUP s into the load: work a node defers (e.g. the push grace period's check of each message,
# --push-grace-seconds 2) has not started before that.
if len([s for s in samples if s["elapsed"] >= warmup - 0.05]) >= 2:
    samples = [s for s in samples if s["elapsed"] >= warmup - 0.05]
win = None
if len(samples) >= 2:
    a, b = samples[0], samples[-1]
    dt = b["t"] - a["t"]
    acked = b["acked"] - a["acked"]
    deliveries = sum(s["dps"] for s in samples[1:])
    cpu = lambda k: round((b[k] - a[k]) / clk / dt * 100, 1)
    win = dict(start_s=a["elapsed"], end_s=b["elapsed"], seconds=round(dt, 3), acked=acked, sent=b["sent"] - a["sent"], deliveries=deliveries,
               acked_per_s=round(acked / dt), deliveries_per_s=round(deliveries / dt),
               nodes_cpu_pct=round(cpu("a") + cpu("b"), 1), node_a_cpu_pct=cpu("a"), postgres_cpu_pct=cpu("pg"),
               bench_cpu_pct=cpu("bench"), machine_idle_pct=cpu("idle"))
    per = lambda k: round((b[k] - a[k]) / acked, 2) if acked and k in a and k in b else None
    wal_commits = None
    if "lsn" in a and a["wal"] < b["wal"]:
        # Commit records in the WAL of the window: the transactions that wrote, each waiting for its WAL flush.
        dump = subprocess.run([pgbin + "/pg_waldump", "-p", pgdir + "/data/pg_wal", "-s", a["lsn"], "-e", b["lsn"], "--stats=record"],
                              capture_output=True, text=True)
        if dump.returncode == 0:
            m = re.search(r"^Transaction/COMMIT\s+(\d+)", dump.stdout, re.M)
            wal_commits = int(m.group(1)) if m else 0
        with open(stmts, "a") as f:
            f.write(f"\nWAL records in the load window ({a['elapsed']} s .. {b['elapsed']} s: {a['lsn']} .. {b['lsn']}):\n{dump.stdout}{dump.stderr}")
    if "calls" in a:
        # A backend publishes its xact_commit at most once a second (when idle between transactions), so a sample of
        # it is up to ~1 s stale, and the load ramps up at its start: the window's delta can be off by a second's
        # worth. COMMIT statements (pg_stat_statements) are counted at once. So: the window's COMMIT statements
        # times the whole run's xact_commit per COMMIT statement (exact: read after every backend exited; 1.0
        # when every transaction is an explicit BEGIN ... COMMIT). Without COMMIT statements: the slope of xact_commit.
        ratio = (run_pg or {}).get("xact_per_commit_statement")
        if ratio is not None:
            xact = (b["commit_calls"] - a["commit_calls"]) * ratio
        else:
            xact = slope([s["t"] for s in samples], [s["xact_commit"] for s in samples]) * dt
        win.update(statements=b["calls"] - a["calls"], wal_commits=wal_commits, xact_commit=round(xact),
                   xact_commit_endpoints=b["xact_commit"] - a["xact_commit"],
                   statements_per_msg=per("calls"), wal_commits_per_msg=round(wal_commits / acked, 2) if acked and wal_commits is not None else None,
                   commit_statements_per_msg=per("commit_calls"), xact_commit_per_msg=round(xact / acked, 2) if acked else None,
                   notify_statements_per_msg=per("notify_calls"), notifications_per_msg=per("notifications"),
                   wal_bytes_per_msg=round((b["wal"] - a["wal"]) / acked) if acked else None)
    if int(nodes) >= 2:
        # "Node B" is every node but A: connection i is on node i % nodes, so they hold (nodes - 1) / nodes of them.
        on_b = deliveries * (int(nodes) - 1) / int(nodes)
        win.update(node_b_cpu_pct=cpu("b"), node_b_us_per_delivery=round((b["b"] - a["b"]) / clk / on_b * 1e6, 1) if on_b else None)
setup_s = round(all_samples[0]["t"] - float(bstart) - all_samples[0]["elapsed"], 1) if all_samples else None
x = dict(name=name, round=int(rnd), setup=setup, load=load, nodes=int(nodes), bench=cmd, load_at_start=load_avg,
         bench_rc=int(rc), setup_s=setup_s, wall_s=round(float(t1) - float(t0), 1), sigkilled=killed.split(), pg_log=pg_errors, pg_run=run_pg, w=win, r=r)
with open(jsonl, "a") as f:
    f.write(json.dumps(x) + "\n")
w, r = win or {}, r or {}
lat = r.get("latency_ms") or {}
print(f"rc {rc}, wall {x['wall_s']} s (setup {setup_s} s): {w.get('acked_per_s')} acks/s, {w.get('deliveries_per_s')} deliveries/s, "
      f"p50/p99 {lat.get('p50')}/{lat.get('p99')} ms, lost/dup/unacked {r.get('lost')}/{r.get('duplicated')}/{r.get('unacked')}, "
      f"CPU nodes {w.get('nodes_cpu_pct')}%"
      + (f" pg {w.get('postgres_cpu_pct')}%; per msg: {w.get('statements_per_msg')} statements, {w.get('xact_commit_per_msg')} xact_commit, "
         f"{w.get('wal_commits_per_msg')} WAL commits, {w.get('notify_statements_per_msg')} NOTIFY statements, "
         f"{w.get('notifications_per_msg')} notifications" if "statements" in w else "")
      + (f"; PostgreSQL log: {pg_errors['errors']} ERRORs, {pg_errors['deadlocks']} deadlocks" if pg_errors and pg_errors["errors"] else ""))
PY
  )
  log "$name (load $load_avg): $summary"
  cp "$w/samples.tsv" "$OUT/samples/$name.tsv" 2>/dev/null
  rm -rf "$w"
  sleep 1
}

order() { # round: the setups in this round's order (rotation k = (round-1)/2; even rounds reversed)
  local r=$1 s=($SETUPS) n k i out=()
  n=${#s[@]}; k=$(((r - 1) / 2 % n))
  for i in $(seq 0 $((n - 1))); do out+=("${s[$(((i + k) % n))]}"); done
  if [ $((r % 2)) = 0 ]; then for ((i = n - 1; i >= 0; i--)); do echo -n "${out[$i]} "; done; else echo "${out[*]}"; fi
}

for r in $(seq 1 "$ROUNDS"); do
  log "round $r: setup order $(order "$r")"
  for load in $LOADS; do
    for setup in $(order "$r"); do
      [[ $setup == pg[2-9] ]] && ! [[ " $PG2_LOADS " == *" $load "* ]] && continue
      run "$r" "$setup" "$load"
    done
  done
done

python3 - "$OUT/stores.jsonl" "$LOADS" "$SETUPS" >>"$OUT/summary.md" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
loads, setups = sys.argv[2].split(), sys.argv[3].split()
def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None
def fmt(x, nd=0):
    return "–" if x is None else f"{x:,.{nd}f}"
def fields(x):
    w, r, g = x["w"] or {}, x["r"] or {}, x.get("pg_log") or {}
    lat = r.get("latency_ms") or {}
    return dict(dps=w.get("deliveries_per_s"), aps=w.get("acked_per_s"), n=w.get("acked"), p50=lat.get("p50"), p99=lat.get("p99"),
                lost=r.get("lost"), dup=r.get("duplicated"), unacked=r.get("unacked"), cpu=w.get("nodes_cpu_pct"),
                pg=w.get("postgres_cpu_pct"), bcpu=w.get("node_b_us_per_delivery"), st=w.get("statements_per_msg"),
                co=w.get("xact_commit_per_msg"), wc=w.get("wal_commits_per_msg"), ns=w.get("notify_statements_per_msg"),
                nr=w.get("notifications_per_msg"), dl=g.get("deadlocks"), wall=x.get("wall_s"), rc=x.get("bench_rc"),
                bench=w.get("bench_cpu_pct"), idle=w.get("machine_idle_pct"))
head = ("| deliveries/s | acked sends/s | acked in window | p50 / p99 ms | lost / dup / unacked | server CPU % | PG CPU % | herald-bench CPU % | machine idle % | node B µs/delivery | "
        "statements/msg | commits/msg: xact_commit / WAL | NOTIFY stmts / notifications per msg | PG deadlocks |")
def cells(m):
    return (f'{fmt(m["dps"])} | {fmt(m["aps"])} | {fmt(m["n"])} | {fmt(m["p50"], 1)} / {fmt(m["p99"], 1)} | {fmt(m["lost"])} / {fmt(m["dup"])} / '
            f'{fmt(m["unacked"])} | {fmt(m["cpu"])} | {fmt(m["pg"])} | {fmt(m["bench"])} | {fmt(m["idle"])} | {fmt(m["bcpu"], 1)} | {fmt(m["st"], 1)} | '
            f'{fmt(m["co"], 2)} / {fmt(m["wc"], 2)} | {fmt(m["ns"], 2)} / {fmt(m["nr"], 2)} | {fmt(m["dl"])} |')
print("## Medians per (load, setup)\n")
print("| load | setup | runs " + head)
print("|---|---|---" + "|---" * 14 + "|")
for load in loads:
    for setup in setups:
        xs = [fields(x) for x in rows if x["load"] == load and x["setup"] == setup]
        if xs:
            print(f"| {load} | {setup} | {len(xs)} | " + cells({k: med([x[k] for x in xs]) for k in xs[0]}))
print("""
- Over the load window (herald-bench's progress lines from WARMUP s into the load to the last one): deliveries/s,
  acked sends/s, CPU and every per-message figure. Over the whole run (herald-bench's JSON): p50/p99 delivery latency,
  lost / duplicated / unacked (lost = acked but not delivered everywhere by the end of the drain).
- Server CPU: all nodes, % of one core. PG CPU: the postmaster and its children but the LISTEN session's backend.
  herald-bench CPU: the load generator itself. Machine idle: idle + iowait of all CPUs together (200% = an idle
  2-CPU machine); near 0, every process competes for the cores and a setup with more processes pays for it.
  node B µs/delivery: node B's CPU time / the deliveries to node B (half of them).
- Per message = per acked send in the window ("acked in window": few of them, as in a PostgreSQL fan-out to
  1,000, make the per-message figures coarse; none, as when a node stalls, leaves them empty).
  statements: pg_stat_statements calls (BEGIN, COMMIT, SAVEPOINT count).
  xact_commit: pg_stat_database, every transaction including read-only ones; backends publish it up to ~1 s late,
  so it is the window's COMMIT statements times the run's xact_commit per COMMIT statement (read once every
  backend has exited; 1.00 on one node: every transaction is BEGIN ... COMMIT). WAL: Transaction/COMMIT records
  in the window (pg_waldump), i.e. the transactions that wrote and waited for the WAL flush.
  NOTIFY stmts: calls of statements with pg_notify( or NOTIFY; notifications: received by a LISTEN session.
- PG deadlocks: "deadlock detected" ERRORs in PostgreSQL's log during the run (the whole run).
""")
print("## Every run\n")
print("| run | rc | wall s " + head)
print("|---|---|---" + "|---" * 12 + "|")
for x in rows:
    m = fields(x)
    print(f'| {x["name"]} | {m["rc"]} | {m["wall"]} | ' + cells(m))
PY
echo "- load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/summary.md"
cat "$OUT/summary.md"
