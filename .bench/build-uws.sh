#!/usr/bin/env bash
# Builds the uWebSockets peer as the kit's peers/build-uws.sh does (same sources, same compiler flags), with ONE
# change to the kit's peers/uws-broadcast.cpp: its echo route "/echo*" becomes "/echo".
#
#   .bench/build-uws.sh UWEBSOCKETS_DIR USOCKETS_DIR [OUT]      (OUT defaults to ./uws-broadcast)
#
# Why: uWebSockets does not match the pattern "/echo*" for the path /echo, so wsbench's echo clients landed on the
# catch-all broadcast route. Each message then went to the 99 other echo connections and none came back to its
# sender; wsbench counts any frame a waiting connection receives as its echo, so it reported 120k-156k "round
# trips/s" at a p50 of 16 us, from about 160 reads and 2.3 million sends in a 6 s run (perf stat of the server).
# With the exact route the server reads and sends once per round trip, as every other peer does, and
# .bench/echo_probe.py (run by compare.sh before every peer) confirms the echo. The broadcast route "/*" that the
# fan-out tests use is unchanged. Nothing of uWebSockets is kept in this repository; OUT goes where you say.
set -euo pipefail
[ $# -ge 2 ] || { sed -n 2,6p "$0"; exit 2; }
UWS=$1; US=$2; OUT=${3:-uws-broadcast}
HERE=$(cd "$(dirname "$0")" && pwd)
KIT=${KIT:-$(cd "$HERE/../../shared/bench" && pwd)}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
sed 's|app.ws<PerSocketData>("/echo\*"|app.ws<PerSocketData>("/echo"|' "$KIT/peers/uws-broadcast.cpp" > "$WORK/uws-broadcast.cpp"
grep -q 'app.ws<PerSocketData>("/echo"' "$WORK/uws-broadcast.cpp" || { echo "the kit's uws-broadcast.cpp has no echo route to fix" >&2; exit 1; }
make -C "$US" -j2 >/dev/null
g++ -O3 -std=c++20 -flto -DUWS_NO_ZLIB -I "$UWS/src" -I "$US/src" "$WORK/uws-broadcast.cpp" "$US/uSockets.a" -o "$OUT"
echo "built $OUT (run: $OUT PORT)"
