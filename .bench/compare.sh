#!/usr/bin/env bash
# Herald against its peers, side by side, in ONE run on this machine; then herald-bench's /sync scenarios.
#
#   .bench/compare.sh [-r ROUNDS] [-o OUTDIR] [-s] [-c] [-b BASE_BIN_DIR]   (run from anywhere; -s skips the peers)
#
# -c: also step 5, the 100,000 live /sync devices of .bench/crowd.sh (about 6 minutes more), so that one run shows
# every row of the comparison.
#
# -b: old against new instead of Herald against its peers. BASE_BIN_DIR holds the herald-server and herald-bench of
# an earlier commit (e.g. `swift build -c release` in a `git worktree` of it); it is the only peer in step 3, and in
# step 4 every scenario runs on it and on this build alternately, round by round ("-base" names its rows). The two
# swap places every round (odd rounds old first, even rounds new first): on this machine whichever runs second in a
# round measured up to 25% slower, so use an even ROUNDS. Ratios to the base in one run say whether a change cost speed.
#
# 1. swift build -c release (herald-server, herald-bench); make -C ../shared/bench (wsbench).
# 2. Peers: Node ws (apt-get install -y node-ws when missing), Python websockets (system module, else a venv
#    in OUTDIR/venv), Hummingbird only if its release binary is already built (building it takes minutes), and
#    uWebSockets when UWS_BIN names a binary built by .bench/build-uws.sh (the kit's peers/build-uws.sh with the
#    echo route fixed; outside this repository): then the ratios are to uWebSockets, the fastest of them.
#    Every server's /echo is probed first (.bench/echo_probe.py); one that does not echo has its echo rows dropped.
# 3. bench-peers.sh: for each round, each server, each test: a fresh server pinned to CPU 0, wsbench on CPU 1;
#    rounds interleave servers so machine noise hits all alike, in an order rotated by one server every round.
#    summarize.py: medians and ratios to Node ws.
# 4. herald-bench fanout / fanout --rate 20 / chat / insert / connect / group of 1,000 (twice: its window counted
#    per message, then as wsbench counts in flight) / 10,000 idle /sync devices
#    (crowd: connected, synced and idle 5 s, then the server's RSS per device) against a fresh herald-server
#    each (server on CPU 0 with --secret and --max-unanswered-requests 256, so a sender's 32 requests in flight are
#    read as sent; herald-bench on CPU 1), ROUNDS interleaved rounds. One JSON line per run in
#    OUTDIR/sync.jsonl; sync_table.py prints every run, the medians, and the group fan-out against each raw broadcast.
# 5. With -c: .bench/crowd.sh with the same binaries, output in OUTDIR/crowd (its env knobs pass through: DEVICES,
#    NODES, ...); its one line goes into the summary. A crowd that fails is named in the summary and in the exit
#    status (crowd.sh's), the rest of the run is kept.
# Everything is on 127.0.0.1 and bounded in time. Results: OUTDIR (default .bench/results/<timestamp>).
# HERALD_BIN_DIR=/path/to/release skips step 1's swift build and uses herald-server/herald-bench from there.
# Herald's abuse limits are off for every run (HERALD_BENCH_FLAGS): one load generator on 127.0.0.1 would otherwise
# hit the per-IP handshake rate and the per-user /sync send rate, which protect a server, not measure it.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
KIT=${KIT:-$(cd "$ROOT/../shared/bench" && pwd)}
ROUNDS=3
OUT="$HERE/results/$(date +%Y%m%d-%H%M%S)"
SKIP_PEERS=0
CROWD=0
BASE=
TESTS=${TESTS:-"fanout-max32 fanout-rate20 conns10k echo100"}
HERALD_BENCH_FLAGS=${HERALD_BENCH_FLAGS:-"--sync-send-rate 0 --handshake-rate-per-ip 0 --max-connections-per-ip 0"}
while getopts "r:o:scb:" o; do
  case $o in r) ROUNDS=$OPTARG ;; o) OUT=$OPTARG ;; s) SKIP_PEERS=1 ;; c) CROWD=1 ;; b) BASE=$(cd "$OPTARG" && pwd) ;; *) sed -n 2,24p "$0"; exit 2 ;; esac
done
mkdir -p "$OUT"
SUMMARY="$OUT/summary.md"
log() { echo "[compare] $*" | tee -a "$OUT/compare.log" >&2; }

# --- 1. builds -------------------------------------------------------------------------------------------
if [ -n "${HERALD_BIN_DIR:-}" ]; then
  BIN=$HERALD_BIN_DIR  # prebuilt release binaries (e.g. a patched checkout); recorded in the summary
  log "using prebuilt binaries in $BIN"
else
  log "building release (herald-server, herald-bench)"
  (cd "$ROOT" && swift build -c release --product herald-server && swift build -c release --product herald-bench) \
    >>"$OUT/build.log" 2>&1 || { log "release build failed, see $OUT/build.log"; exit 2; }
  BIN=$(cd "$ROOT" && swift build -c release --show-bin-path)
fi
SERVER="$BIN/herald-server"
BENCH="$BIN/herald-bench"
make -C "$KIT" >>"$OUT/build.log" 2>&1 || { log "wsbench build failed"; exit 2; }

{
  echo "# Herald benchmark run $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo
  echo "- machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), kernel $(uname -r)"
  echo "- load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "- herald commit: $(cd "$ROOT" && git rev-parse --short HEAD); binaries: $BIN"
  echo "- herald flags in every run: $HERALD_BENCH_FLAGS"
  [ -n "$BASE" ] && echo "- base (old) binaries: $BASE; rows named *-base / herald-base are the old build, run alternately with this one"
  echo
} >"$SUMMARY"

# --- 2-3. peers ------------------------------------------------------------------------------------------
if [ "$SKIP_PEERS" = 0 ]; then
  SPECS=()
  HDB="$OUT/herald-broadcast-db"
  mkdir -p "$HDB"
  SPECS+=("herald|9101|$SERVER serve --bench-endpoints --threads 1 --port 9101 --db $HDB/bench.db --secret bench --log-level error $HERALD_BENCH_FLAGS")
  REFERENCE=node-ws
  if [ -n "$BASE" ]; then
    # A base built before the one bench switch named its two endpoints separately.
    BASE_BENCH=--bench-endpoints
    "$BASE/herald-server" serve --help 2>&1 | grep -q -- --bench-endpoints || BASE_BENCH="--broadcast --echo"
    SPECS=("herald-base|9100|$BASE/herald-server serve $BASE_BENCH --threads 1 --port 9100 --db $HDB/base.db --secret bench --log-level error $HERALD_BENCH_FLAGS" "${SPECS[@]}")
    REFERENCE=herald-base
  elif ! [ -d /usr/share/nodejs/ws ]; then
    log "installing node-ws"
    { apt-get install -y node-ws || { apt-get update && apt-get install -y node-ws; }; } >>"$OUT/build.log" 2>&1 \
      || log "node-ws install failed"
  fi
  if [ -z "$BASE" ]; then
    [ -d /usr/share/nodejs/ws ] && SPECS+=("node-ws|9102|env NODE_PATH=/usr/share/nodejs node $KIT/peers/node-ws-broadcast.js 9102")
    PY=python3
    if ! python3 -c 'import websockets' 2>/dev/null; then
      log "creating a venv with websockets"
      python3 -m venv "$OUT/venv" >>"$OUT/build.log" 2>&1 && "$OUT/venv/bin/pip" install -q websockets >>"$OUT/build.log" 2>&1
      PY="$OUT/venv/bin/python"
    fi
    "$PY" -c 'import websockets' 2>/dev/null && SPECS+=("python-websockets|9103|$PY $KIT/peers/py-broadcast.py 9103")
    HB="$KIT/peers/hummingbird-broadcast/.build/release/HBBroadcast"
    [ -x "$HB" ] && SPECS+=("hummingbird|9104|$HB 9104")
    if [ -n "${UWS_BIN:-}" ]; then
      if [ -x "$UWS_BIN" ]; then SPECS+=("uws|9105|$UWS_BIN 9105"); REFERENCE=uws; else log "UWS_BIN=$UWS_BIN is not an executable; uWebSockets left out"; fi
    fi
  fi
  log "peers: ${SPECS[*]%%|*}; $ROUNDS rounds of: $TESTS"
  # wsbench's echo test takes any frame a waiting connection receives for its echo; a server whose /echo does
  # something else would show a round-trip rate that is none. Each server is probed once; one that does not echo
  # keeps its other rows, and its echo rows are dropped from the results (and named in the summary).
  NO_ECHO=()
  if [[ " $TESTS " == *" echo100 "* ]]; then
    for spec in "${SPECS[@]}"; do
      IFS='|' read -r name port cmd <<<"$spec"
      $cmd >>"$OUT/probe.log" 2>&1 &
      ppid=$!
      for _ in $(seq 1 100); do [ -n "$(ss -Hltn "sport = :$port" 2>/dev/null)" ] && break; sleep 0.1; done
      probe=$(python3 "$HERE/echo_probe.py" "$port")
      echo "$name: $probe" >>"$OUT/probe.log"
      case $probe in "echo verified"*) ;; *) NO_ECHO+=("$name"); log "$name: $probe; its echo rows are left out" ;; esac
      kill "$ppid" 2>/dev/null; wait "$ppid" 2>/dev/null
    done
  fi
  if [ -n "$BASE" ]; then
    # One round at a time, the two builds in swapped order every other round; run numbers are rewritten to the round.
    for ROUND in $(seq 1 "$ROUNDS"); do
      ORDER=("${SPECS[@]}")
      [ $((ROUND % 2)) = 0 ] && ORDER=("${SPECS[1]}" "${SPECS[0]}")
      "$KIT/bench-peers.sh" -r 1 -t "$TESTS" -o "$OUT/peers-round.jsonl" "${ORDER[@]}" >>"$OUT/peers.out" 2>&1
      sed "s/\"run\": *1\b/\"run\": $ROUND/" "$OUT/peers-round.jsonl" >>"$OUT/peers.jsonl"
      rm -f "$OUT/peers-round.jsonl"
    done
  else
    # One round at a time, the servers' order rotated by one every round, so no server always runs first: in three
    # runs on this machine the hypervisor's steal time came in the first server's slot of a round far more often
    # than in the last one's. Run numbers are rewritten to the round.
    for ROUND in $(seq 1 "$ROUNDS"); do
      SHIFT=$(( (ROUND - 1) % ${#SPECS[@]} ))
      ORDER=("${SPECS[@]:$SHIFT}" "${SPECS[@]:0:$SHIFT}")
      log "round $ROUND: ${ORDER[*]%%|*}"
      "$KIT/bench-peers.sh" -r 1 -t "$TESTS" -o "$OUT/peers-round.jsonl" "${ORDER[@]}" >>"$OUT/peers.out" 2>&1
      sed "s/\"run\": *1\b/\"run\": $ROUND/" "$OUT/peers-round.jsonl" >>"$OUT/peers.jsonl"
      rm -f "$OUT/peers-round.jsonl"
    done
  fi
  if [ ${#NO_ECHO[@]} -gt 0 ]; then
    python3 - "$OUT/peers.jsonl" "${NO_ECHO[@]}" <<'PY'
import json, sys
path, silent = sys.argv[1], set(sys.argv[2:])
rows = [line for line in open(path) if line.strip()]
keep = [line for line in rows if not (json.loads(line)["server"] in silent and json.loads(line)["test"] == "echo100")]
open(path, "w").writelines(keep)
PY
  fi
  {
    echo "## wsbench: Herald and peers (medians of $ROUNDS interleaved rounds; ratios to $REFERENCE per round)"
    echo
    echo "Commands: see the kit README; each test as in bench-peers.sh (server on CPU 0, wsbench on CPU 1)."
    echo "Echo checked before the runs (.bench/echo_probe.py, one connection, three messages): $(sed 's/$/;/' "$OUT/probe.log" 2>/dev/null | grep -E 'echo verified|no echo' | tr '\n' ' ')"
    [ ${#NO_ECHO[@]} -gt 0 ] && echo "Echo rows left out (the server did not echo): ${NO_ECHO[*]}."
    echo
    python3 "$KIT/summarize.py" "$OUT/peers.jsonl" "$REFERENCE"
    echo
  } >>"$SUMMARY" 2>&1
fi

# --- 4. herald-bench /sync scenarios -----------------------------------------------------------------------
SPID=
stop_server() {
  [ -n "$SPID" ] || return 0
  kill "$SPID" 2>/dev/null
  for _ in $(seq 1 50); do kill -0 "$SPID" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$SPID" 2>/dev/null && kill -9 "$SPID" 2>/dev/null
  wait "$SPID" 2>/dev/null
  SPID=
}
trap 'stop_server; exit 130' INT TERM

sync_run() { # name port herald-bench-args...  (ROUND is the current round; with -b, the base build runs first in
  # odd rounds and second in even ones)
  if [ -n "$BASE" ] && [ -z "${SYNC_BASE_DONE:-}" ]; then
    if [ $((ROUND % 2)) = 1 ]; then
      SYNC_BASE_DONE=1 SERVER="$BASE/herald-server" BENCH="$BASE/herald-bench" sync_run "$1-base" "${@:2}"
      SYNC_BASE_DONE=1 sync_run "$@"
    else
      SYNC_BASE_DONE=1 sync_run "$@"
      SYNC_BASE_DONE=1 SERVER="$BASE/herald-server" BENCH="$BASE/herald-bench" sync_run "$1-base" "${@:2}"
    fi
    return
  fi
  local name=$1 port=$2; shift 2
  local db="$OUT/sync-$name-$ROUND"
  rm -rf "$db"; mkdir -p "$db"
  # --max-unanswered-requests: the /sync scenarios keep up to 32 sends in flight on one connection, and the server's
  # default (8) would quietly read them 8 at a time, so the run would measure a window of 8 (as stores.sh and crowd.sh).
  # shellcheck disable=SC2086
  taskset -c 0 "$SERVER" serve --threads 1 --port "$port" --db "$db/herald.db" --secret bench --log-level error \
    --push-grace-seconds 2 --max-unanswered-requests 256 $HERALD_BENCH_FLAGS >>"$OUT/sync-server.log" 2>&1 &
  SPID=$!
  for _ in $(seq 1 100); do [ -n "$(ss -Hltn "sport = :$port" 2>/dev/null)" ] && break; sleep 0.1; done
  echo "== $name round $ROUND: taskset -c 1 herald-bench $* --server ws://127.0.0.1:$port --secret bench --server-pid PID" >>"$OUT/sync.log"
  local line
  line=$(taskset -c 1 "$BENCH" "$@" --server "ws://127.0.0.1:$port" --secret bench --server-pid "$SPID" 2>>"$OUT/sync.log")
  echo "{\"name\":\"$name\",\"round\":$ROUND,\"r\":${line:-null}}" >>"$OUT/sync.jsonl"
  log "$name round $ROUND: $line"
  stop_server
  # The store's size shows what each message costs on disk.
  log "$name round $ROUND: database after the run: $(du -sk "$db" | cut -f1) KiB"
  rm -rf "$db"
  sleep 1
}

# Interleaved rounds, like the peers: machine noise hits every scenario alike.
for ROUND in $(seq 1 "$ROUNDS"); do
  sync_run fanout-1000-max32 9201 fanout -n 250 --devices 4 -s 1 --inflight 32 --duration-seconds 10
  sync_run fanout-1000-rate20 9202 fanout -n 250 --devices 4 -s 1 --rate 20 --duration-seconds 10
  sync_run chat-5000x1 9203 chat -u 5000 --per-user 1 --duration-seconds 10
  sync_run insert-16x256 9204 insert -c 16 --inflight 256 --duration-seconds 10
  sync_run connect-1000 9205 connect -d 1000 --parallel 64 --duration-seconds 10
  # A group of 1,000 users (ProtocolLimits.maxGroupMembers = 1,000), one device each.
  sync_run fanout-group1000-max32 9206 fanout -n 1000 --devices 1 -s 1 --inflight 32 --duration-seconds 10
  # The same group with its window counted as wsbench counts the raw fan-out's (outstanding deliveries ÷ receivers),
  # so the ratio to the raw row is also shown with both sides paced alike. Not with -b: older herald-bench builds
  # lack --inflight-counts.
  [ -z "$BASE" ] && sync_run fanout-group1000-max32-deliveries 9208 fanout -n 1000 --devices 1 -s 1 --inflight 32 \
    --inflight-counts deliveries --duration-seconds 10
  # 10,000 authenticated, synced, live devices held idle: what each costs the server in memory (the idle raw
  # connections are wsbench's conns10k above). Two of them then exchange a message, so the crowd is shown live.
  sync_run idle-sync-10k 9207 crowd -d 10000 -n 2 --rate 1 --duration-seconds 2 --idle-seconds 5 --drain-seconds 5
done

{
  echo "## herald-bench: /sync scenarios against Herald (one run each; server on CPU 0, herald-bench on CPU 1)"
  echo
  python3 "$HERE/sync_table.py" "$OUT/sync.jsonl" "$OUT/peers.jsonl"
  echo
  echo "- load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
} >>"$SUMMARY" 2>&1

# --- 5. the 100,000-device crowd ---------------------------------------------------------------------------------
STATUS=0
if [ "$CROWD" = 1 ]; then
  log "crowd: .bench/crowd.sh -o $OUT/crowd (100,000 live /sync devices unless DEVICES says otherwise)"
  HERALD_BIN_DIR=$BIN "$HERE/crowd.sh" -o "$OUT/crowd" >"$OUT/crowd.out" 2>>"$OUT/compare.log"
  STATUS=$?
  {
    echo
    echo "## herald-bench crowd: live /sync devices (.bench/crowd.sh, same binaries, after the rounds above)"
    echo
    echo "Conditions (nodes, limits, commands): crowd/conditions.txt. crowd.sh exited $STATUS."
    echo
    line=$(grep '^crowd:' "$OUT/crowd.out" | tail -1)
    echo "    ${line:-no result line: see crowd/crowd.log}"
    echo
  } >>"$SUMMARY"
fi
log "summary: $SUMMARY"
cat "$SUMMARY"
exit "$STATUS"
