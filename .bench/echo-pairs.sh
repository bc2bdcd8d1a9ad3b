#!/usr/bin/env bash
# Two echo servers against each other in short adjacent pairs: the median of the pairs' ratios B ÷ A.
#
#   .bench/echo-pairs.sh [-n PAIRS] A B        (PAIRS 16 by default; run from anywhere)
#
# A and B are NAME:COMMAND, the command with PORT where the port goes, e.g.
#   "herald:.build/release/herald-server serve --bench-endpoints --threads 1 --port PORT --db DB --secret bench"
#   "uws:/tmp/uws/uws-echo PORT"
# (DB becomes a fresh file per run). ENV=VALUE words before the command go to its environment.
#
# Why pairs: echo on this machine runs in one of two states (~165k or ~210k round trips/s, whichever server), and the
# state can change in the middle of a round (see the git history of BENCHMARKS.md, 2026-11). A 10-second run per server, minutes
# apart, then compares the states as much as the servers. Here each pair is two 3-second runs back to back (the order
# alternating), so nearly every pair meets one state; single pairs still scatter ±4%, so a change of 1-2% needs the
# median of 16 pairs or more. Server on CPU 0, wsbench `echo -c 100 --size 64` (the kit's echo test) on CPU 1.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
KIT=${KIT:-$(cd "$HERE/../../shared/bench" && pwd)}
PAIRS=16
PORT=${PORT:-18812}
if [ "${1:-}" = "-n" ]; then PAIRS=$2; shift 2; fi
[ $# -eq 2 ] || { sed -n 2,16p "$0"; exit 2; }
make -C "$KIT" >/dev/null 2>&1 || { echo "wsbench build failed" >&2; exit 2; }
WORK=$(mktemp -d)
SP=
trap '[ -n "$SP" ] && kill "$SP" 2>/dev/null; rm -rf "$WORK"' EXIT

# Round trips per second of one 3-second run of the server described by $1.
run() {
  local spec=${1#*:} cmd=() envs=() word
  for word in $spec; do
    if [ ${#cmd[@]} -eq 0 ] && [[ $word == *=* ]]; then envs+=("$word"); continue; fi
    word=${word//PORT/$PORT}
    cmd+=("${word//DB/$WORK/echo.db}")
  done
  rm -f "$WORK"/echo.db*
  env "${envs[@]}" taskset -c 0 "${cmd[@]}" >/dev/null 2>&1 &
  SP=$!
  for _ in $(seq 1 100); do [ -n "$(ss -Hltn "sport = :$PORT" 2>/dev/null)" ] && break; sleep 0.05; done
  taskset -c 1 "$KIT/wsbench" echo --url "ws://127.0.0.1:$PORT/echo" -c 100 --size 64 -d 3 --server-pid "$SP" 2>/dev/null |
    sed -n 's/^RESULT //p' | python3 -c 'import json, sys; print(json.load(sys.stdin)["rt_per_s"])'
  kill "$SP" 2>/dev/null
  wait "$SP" 2>/dev/null
  SP=
}

ratios=()
for pair in $(seq 1 "$PAIRS"); do
  if [ $((pair % 2)) = 1 ]; then a=$(run "$1"); b=$(run "$2"); else b=$(run "$2"); a=$(run "$1"); fi
  ratio=$(python3 -c "print(f'{$b / $a:.3f}')")
  ratios+=("$ratio")
  echo "pair $pair: ${1%%:*} $a, ${2%%:*} $b, ratio $ratio"
done
python3 -c '
import statistics, sys
values = [float(v) for v in sys.argv[3:]]
print(f"{sys.argv[2]} / {sys.argv[1]}: median {statistics.median(values):.3f} over {len(values)} pairs (mean {statistics.mean(values):.3f})")
' "${1%%:*}" "${2%%:*}" "${ratios[@]}"
