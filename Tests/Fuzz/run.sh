#!/usr/bin/env bash
# Builds the libFuzzer harnesses (with AddressSanitizer) and runs each for a fixed number of executions.
#
#   Tests/Fuzz/run.sh [runs] [target...]     runs defaults to 1000000; targets default to all of them
#
# Each target starts from its seed corpus (written by make_seeds.py into .build/seeds/<target>/ before every run, so
# the script is the one source of the seeds and a change to it takes effect at once) plus a scratch corpus in
# .build/corpus/<target>/ that keeps what earlier runs learned. A crash or a broken invariant stops that target,
# leaves the input in .build/artifacts/<target>/, and makes the script exit 1 after the remaining targets ran.
# Extra libFuzzer flags can be passed in FUZZ_FLAGS (e.g. FUZZ_FLAGS="-max_len=8192 -timeout=10").
set -uo pipefail
cd "$(dirname "$0")"

runs=${1:-1000000}
shift || true
all=(fuzz-websocket-bytes fuzz-websocket-frames fuzz-handshake fuzz-inflate fuzz-request-frame fuzz-server-frame
     fuzz-identifiers fuzz-token fuzz-api-bodies)
[ $# -gt 0 ] && targets=("$@") || targets=("${all[@]}")

# -sanitize=fuzzer,address in ONE flag: with two -sanitize flags swiftc keeps only the last one, which silently
# drops the coverage instrumentation libFuzzer needs.
build_flags=(-c release --scratch-path .build -Xswiftc -sanitize=fuzzer,address -Xswiftc -g)
for target in "${targets[@]}"; do
    swift build "${build_flags[@]}" --product "$target" 2>&1 | grep -v "^warning: 'fuzz'" | grep -E "error|warning: |Compiling|Build of" || true
    [ -x ".build/release/$target" ] || { echo "build of $target failed" >&2; exit 2; }
done

rm -rf .build/seeds && python3 make_seeds.py .build/seeds || { echo "writing the seed corpora failed" >&2; exit 2; }

# Let libFuzzer and ASan report crashes; the Swift runtime's backtracer would race them and confuse ASan.
export SWIFT_BACKTRACE=enable=no
status=0
for target in "${targets[@]}"; do
    mkdir -p ".build/corpus/$target" ".build/artifacts/$target"
    log=".build/$target.log"
    echo "== $target: $runs runs"
    start=$(date +%s)
    # Scratch corpus first: libFuzzer adds new inputs to the first directory only.
    # shellcheck disable=SC2086
    ".build/release/$target" -runs="$runs" -max_len=8192 -timeout=25 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix=".build/artifacts/$target/" ${FUZZ_FLAGS:-} ".build/corpus/$target" ".build/seeds/$target" > "$log" 2>&1
    code=$?
    seconds=$(( $(date +%s) - start ))
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
    speed=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$')
    if [ "$code" -ne 0 ]; then
        echo "   CRASH (exit $code) after ${seconds}s; log: Tests/Fuzz/$log; input: $(ls .build/artifacts/$target/ | head -1)"
        grep -E "fuzz invariant violated|Fatal error|ERROR: AddressSanitizer|ERROR: libFuzzer|SUMMARY" "$log" | head -5 | sed 's/^/   /'
        status=1
    else
        echo "   ok: ${execs:-?} executions in ${seconds}s (${speed:-?} exec/s)"
    fi
done
exit $status
