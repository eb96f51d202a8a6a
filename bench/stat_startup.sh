#!/usr/bin/env bash
# stat_startup: the fixed cost of `sonde stat true` against `perf stat true`.
# Measures, over RUNS runs each, interleaved (sonde, perf, sonde, perf, ...) so machine noise hits
# both tools alike:
#   - wall time, from bash's $EPOCHREALTIME around the bare command (no wrapper process);
#   - peak RSS, from GNU time's %M (max resident KB; GNU time reports the largest of the process
#     and its waited children, which is the tool itself since `true` is tiny), in separate runs.
# Prints the median of each, the sonde/perf ratios, and PASS/MISS against the issue's target:
# sonde at most half perf's time and memory. The stat output itself goes to /dev/null.
# Usage: bench/stat_startup.sh SONDE
set -u
(($# == 1)) || { echo "usage: stat_startup.sh SONDE"; exit 2; }
SONDE=$1
RUNS=20
[[ -x $SONDE ]] || { echo "stat_startup: sonde binary '$SONDE' not found or not executable"; exit 2; }
PERF=$(command -v perf) || { echo "stat_startup: perf not found; peer absent, skipping"; exit 0; }
[[ -x /usr/bin/time ]] || { echo "stat_startup: GNU time (/usr/bin/time) not found"; exit 2; }

tmp=$(mktemp -d /tmp/bench_startup.XXXXXX); trap 'rm -rf "$tmp"' EXIT

# shellcheck source=bench/lib/measure.sh
source "$(dirname "$0")/lib/measure.sh"

for ((i = 0; i < RUNS; i++)); do
    wall_ms "$SONDE" stat true >>"$tmp/sonde.ms"; wall_ms "$PERF" stat true >>"$tmp/perf.ms"
    rss_kb "$SONDE" stat true >>"$tmp/sonde.kb";  rss_kb "$PERF" stat true >>"$tmp/perf.kb"
done

s_ms=$(median "$tmp/sonde.ms"); p_ms=$(median "$tmp/perf.ms")
s_kb=$(median "$tmp/sonde.kb"); p_kb=$(median "$tmp/perf.kb")
awk -v sm="$s_ms" -v pm="$p_ms" -v sk="$s_kb" -v pk="$p_kb" -v n="$RUNS" 'BEGIN {
    printf "stat true, %d interleaved runs each (medians)\n", n
    printf "%-6s %10s %12s\n", "tool", "median_ms", "peak_rss_MB"
    printf "%-6s %10.2f %12.1f\n", "sonde", sm, sk / 1024
    printf "%-6s %10.2f %12.1f\n", "perf",  pm, pk / 1024
    rt = sm / pm; rr = sk / pk
    printf "sonde/perf: time %.2f  rss %.2f\n", rt, rr
    printf "target: time <= 0.50 and rss <= 0.50 -> %s\n", (rt <= 0.5 && rr <= 0.5) ? "PASS" : "MISS"
}'
