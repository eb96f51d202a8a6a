#!/usr/bin/env bash
# run_all: run every benchmark script in bench/ (all *.sh but this one) against BUILD_DIR/sonde,
# with a heading per benchmark. `make bench` calls `bench/run_all.sh build`. Exits 0 when the
# peer (perf) is missing: benchmarks compare against it, so they are skipped with a note.
# flamegraph_speed also needs the FlameGraph scripts: FLAMEGRAPH_DIR=/path/to/FlameGraph make bench.
# Usage: bench/run_all.sh BUILD_DIR
set -u
(($# == 1)) || { echo "usage: run_all.sh BUILD_DIR"; exit 2; }
BUILD=$1
SONDE=$BUILD/sonde
[[ -x $SONDE ]] || { echo "run_all: $SONDE not found; build first (make build)"; exit 2; }
command -v perf >/dev/null || { echo "run_all: perf not found; peer absent, skipping benchmarks"; exit 0; }
here=$(cd "$(dirname "$0")" && pwd)
status=0
for b in "$here"/*.sh; do
    [[ $(basename "$b") == run_all.sh ]] && continue
    echo "=== $(basename "$b" .sh) ==="
    "$b" "$SONDE" || status=1
    echo
done
exit $status
