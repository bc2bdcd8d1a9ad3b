#!/usr/bin/env bash
# 100,000 live /sync devices on this one machine, in ONE run: how fast they connect, what each costs the server in
# memory, and how fast a 1,000-member group among them is delivered (issue 21).
#
#   .bench/crowd.sh [-o OUTDIR]        (as root it raises the limits below when they are too low; from anywhere)
#
# 1. swift build -c release (herald-server, herald-bench), unless HERALD_BIN_DIR points at prebuilt ones.
# 2. Checks what DEVICES connections need, and stops with one line saying what to change when something falls short.
#    Raised only when running as root, and logged when raised:
#    - open files: the server and herald-bench each hold DEVICES sockets; `ulimit -n` must allow DEVICES + 1000
#      (as root: ulimit -n raises soft and hard for this script and its children; fs.nr_open first if it is lower;
#      root without CAP_SYS_RESOURCE, as in many containers, cannot raise the hard limit: then the container must be
#      started with nofile >= DEVICES + 1000, and a hard limit of 20,000 holds at most DEVICES=19000);
#    - net.core.somaxconn >= PARALLEL, or 1024 when PARALLEL is larger (herald-bench has at most PARALLEL connects in
#      progress; the server listens with a backlog of 1024, which the kernel caps at somaxconn);
#    - net.netfilter.nf_conntrack_max, when connection tracking is loaded: room for DEVICES more entries;
#    - ephemeral ports: herald-bench connects from SOURCES loopback addresses (127.0.0.1 ... 127.0.0.SOURCES, see
#      herald-bench --source-addresses), each of which holds at most net.ipv4.ip_local_port_range's ports; the
#      range is never changed here, SOURCES is raised instead (default: one address per PER_ADDRESS devices);
#    - memory: MemAvailable must exceed DEVICES x MEM_PER_DEVICE_KIB, so that the machine does not swap: 19,000
#      devices took about 20 KiB each in all (server 2.6, herald-bench 4-9, the kernel's two sockets and the
#      conntrack entry the rest); the default leaves more than twice that.
# 3. One herald-server: `serve --threads 1 --db FILE --secret bench --push-grace 2 --log-level error
#    --max-connections DEVICES+1000` with the abuse limits off (FLAGS, as in stores.sh: one generator is one user
#    agent on a few addresses), a fresh SQLite file in a temp dir. Pinned to CPU 0 and herald-bench to CPU 1
#    (taskset) unless PIN=0.
# 4. herald-bench crowd: DEVICES devices (one user each) connect and sync, PARALLEL at a time, with a progress line
#    a second on stderr; they stay idle IDLE s and the server's RSS (/proc/PID/status) is read, before connecting
#    and then; the first MEMBERS devices form a group (the load waits until every member has heard of it), device 0
#    sends RATE messages/s for DURATION s, every member counts what it receives (lost, duplicated), and it waits
#    DRAIN s at most for the rest.
# Output in OUTDIR: crowd.jsonl (herald-bench's one JSON line: connects_per_s, connect_latency_ms,
# server_rss_per_device_kib, latency_ms p50/p99, lost, duplicated, connections_by_source, ...), bench.log (its
# progress lines), server.log, conditions.txt (commit, machine, load, the limits and knobs as used), and the figures
# in one line on stdout. Exit status: herald-bench's (0 clean, 1 lost/duplicated/dropped, 2 setup failed), 2 when a
# check above failed.
# Env: DEVICES (100000) MEMBERS (1000) RATE (20) DURATION (10) IDLE (5) DRAIN (10) PARALLEL (200) PER_ADDRESS (20000)
# SOURCES (DEVICES / PER_ADDRESS, rounded up) SETUP_TIMEOUT (600) STOP_TIMEOUT (30) MEM_PER_DEVICE_KIB (48) PIN (1)
# HERALD_BIN_DIR.
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
PIN=${PIN:-1}
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
if [ "$(ulimit -Hn)" != unlimited ] && [ "$(ulimit -Hn)" -lt "$FDS" ]; then
  [ "$ROOTUSER" = 1 ] || die "$DEVICES devices need $FDS open files per process, the hard limit is $(ulimit -Hn): run as root, or raise nofile in /etc/security/limits.conf"
  if [ "$(sysctl_get fs.nr_open)" -lt "$FDS" ]; then raise_sysctl fs.nr_open "$FDS" "the most open files a process may have" \
    || die "fs.nr_open is $(sysctl_get fs.nr_open), below the $FDS open files needed"; fi
  ulimit -n "$FDS" 2>/dev/null \
    || die "$DEVICES devices need $FDS open files per process, the hard limit is $(ulimit -Hn) and root cannot raise it here (no CAP_SYS_RESOURCE, as in a container): start the container with a higher nofile limit (docker run --ulimit nofile=$FDS), or lower DEVICES"
  log "raised the open-file limit (soft and hard) to $FDS for the server and herald-bench (running as root)"
fi
[ "$(ulimit -Sn)" = unlimited ] || [ "$(ulimit -Sn)" -ge "$FDS" ] || ulimit -Sn "$FDS" || die "ulimit -Sn $FDS failed"
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
SPID=""
cleanup() {
  trap '' INT TERM
  if [ -n "$SPID" ] && kill "$SPID" 2>/dev/null; then
    for ((n = 0; n < STOP_TIMEOUT * 10; n++)); do kill -0 "$SPID" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$SPID" 2>/dev/null && log "the server did not exit ${STOP_TIMEOUT} s after SIGTERM; killed"
    wait "$SPID" 2>/dev/null
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(cd "$ROOT" && git rev-parse --short HEAD)$(cd "$ROOT" && git diff --quiet HEAD -- . 2>/dev/null || echo ' (with uncommitted changes)'); binaries: $BIN"
  echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), kernel $(uname -r); pinned: $([ ${#SERVER_CPU[@]} -gt 0 ] && echo 'server CPU 0, herald-bench CPU 1' || echo no)"
  echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg); MemAvailable: $((AVAIL_KIB / 1024)) MiB"
  echo "open files: soft $(ulimit -Sn), hard $(ulimit -Hn); fs.nr_open $(sysctl_get fs.nr_open); net.core.somaxconn $(sysctl_get net.core.somaxconn)"
  echo "ip_local_port_range: $PORT_LOW-$PORT_HIGH ($PORTS ports); source addresses: $SOURCES ($PER devices each at most)"
  echo "nf_conntrack_max: ${CT_MAX:-not loaded}"
  echo "server: herald-server serve --threads 1 --db FILE --secret bench --push-grace 2 --log-level error --max-connections $((DEVICES + 1000)) $FLAGS"
  echo "load: herald-bench crowd -d $DEVICES -n $MEMBERS --rate $RATE --duration $DURATION --idle $IDLE --drain $DRAIN --parallel $PARALLEL --source-addresses $SOURCES"
} >"$OUT/conditions.txt"
log "conditions: $OUT/conditions.txt"

# --port 0 and the listening line: no race with another process for a port.
# shellcheck disable=SC2086
"${SERVER_CPU[@]}" "$BIN/herald-server" serve --threads 1 --port 0 --db "$WORK/crowd.db" --secret bench --push-grace 2 \
  --log-level error --max-connections $((DEVICES + 1000)) $FLAGS >"$WORK/server.out" 2>"$OUT/server.log" &
SPID=$!
PORT=""
for _ in $(seq 1 200); do
  PORT=$(sed -n 's/^herald-server listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$WORK/server.out")
  [ -n "$PORT" ] && break
  kill -0 "$SPID" 2>/dev/null || break
  sleep 0.1
done
[ -n "$PORT" ] || die "the server did not start, see $OUT/server.log"
log "herald-server pid $SPID on 127.0.0.1:$PORT; $DEVICES devices from $SOURCES source addresses, then a group of $MEMBERS at $RATE msgs/s"

"${BENCH_CPU[@]}" "$BIN/herald-bench" crowd -d "$DEVICES" -n "$MEMBERS" --rate "$RATE" --duration "$DURATION" --idle "$IDLE" \
  --drain "$DRAIN" --parallel "$PARALLEL" --source-addresses "$SOURCES" --setup-timeout "$SETUP_TIMEOUT" \
  --url "ws://127.0.0.1:$PORT" --secret bench --server-pid "$SPID" >>"$OUT/crowd.jsonl" 2> >(tee -a "$OUT/bench.log" >&2)
STATUS=$?
echo "free -m after the run, before the server stops:" >>"$OUT/conditions.txt"
free -m >>"$OUT/conditions.txt"
tail -1 "$OUT/crowd.jsonl" | python3 -c '
import json, sys
r = json.loads(sys.stdin.read() or "{}")
if "error" in r: print("crowd: error:", r["error"]); sys.exit()
l = r.get("latency_ms", {})
print("crowd: %d devices in %.1f s = %d connects/s; server %.2f KiB/device (RSS %d -> %d MiB); group of %d at %g msgs/s: p50 %.1f ms, p99 %.1f ms, sent %d, lost %d, duplicated %d, dropped %d" % (
  r["devices"], r["connect_s"], r["connects_per_s"], r["server_rss_per_device_kib"], r["server_rss_before_kib"] // 1024,
  r["server_rss_idle_kib"] // 1024, r["members"], r["rate"], l.get("p50", 0), l.get("p99", 0), r["sent"], r["lost"], r["duplicated"],
  r["dropped_connections"]))' | tee -a "$OUT/crowd.log"
log "herald-bench exited $STATUS; results in $OUT"
exit "$STATUS"
