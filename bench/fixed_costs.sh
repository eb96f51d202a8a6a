#!/usr/bin/env bash
# fixed_costs: what a small, everyday run costs, sonde against its peer in the same run.
#   - start-up: `stat true` and `--version` against perf's;
#   - a file of a few thousand samples (frame-pointer call graphs, user and kernel samples):
#     report --no-children, report (children), script, collapse and flamegraph against perf
#     report and perf script (collapse and flamegraph are timed against `perf script` alone,
#     the first stage of the FlameGraph pipeline, so the peer's figure is a lower bound);
#   - a trace.dat of a few thousand events: `sonde ftrace report` against `trace-cmd report`;
#   - a mid-sized file, about 200,000 samples of 24-48-deep stacks (workloads/deep_stacks hot,
#     5 s on two threads at 20 kHz): report --no-children, report and script, RUNS_MID times.
# Each pair runs RUNS times interleaved (sonde, peer, sonde, peer, ...); wall time from bash's
# $EPOCHREALTIME around the bare command, peak RSS from GNU time in separate runs; medians.
# Output goes to /dev/null. Targets (issue 12): start-up at most half perf's time and memory;
# small files at most a fifth of the peer's time and no more memory; the mid-sized file's
# reports at least 10x faster (script 5x) with no more memory.
# Usage: bench/fixed_costs.sh SONDE
set -u
(($# == 1)) || { echo "usage: fixed_costs.sh SONDE"; exit 2; }
SONDE=$1
RUNS=${RUNS:-15}
RUNS_MID=${RUNS_MID:-3}
[[ -x $SONDE ]] || { echo "fixed_costs: sonde binary '$SONDE' not found or not executable"; exit 2; }
PERF=$(command -v perf) || { echo "fixed_costs: perf not found; peer absent, skipping"; exit 0; }
[[ -x /usr/bin/time ]] || { echo "fixed_costs: GNU time (/usr/bin/time) not found"; exit 2; }
WORKLOADS=$(dirname "$SONDE")/workloads
[[ -x $WORKLOADS/demo && -x $WORKLOADS/writes ]] || { echo "fixed_costs: build the workloads first"; exit 2; }

tmp=$(mktemp -d /tmp/bench_fixed.XXXXXX); trap 'rm -rf "$tmp"' EXIT

# shellcheck source=bench/lib/measure.sh
source "$(dirname "$0")/lib/measure.sh"

# compare NAME TIME_TARGET -- SONDE_CMD... -- PEER_CMD...   (RUNS runs of each, or $runs)
compare() {
    local name=$1 target=$2 runs=${runs:-$RUNS}; shift 3
    local ours=() theirs=()
    while (($#)) && [[ $1 != -- ]]; do ours+=("$1"); shift; done
    shift; theirs=("$@")
    rm -f "$tmp"/{s,p}.{ms,kb}
    "${ours[@]}" >/dev/null 2>&1; "${theirs[@]}" >/dev/null 2>&1  # warm the page cache
    for ((i = 0; i < runs; i++)); do
        wall_ms "${ours[@]}" >>"$tmp/s.ms"; wall_ms "${theirs[@]}" >>"$tmp/p.ms"
        rss_kb "${ours[@]}" >>"$tmp/s.kb"; rss_kb "${theirs[@]}" >>"$tmp/p.kb"
    done
    awk -v name="$name" -v target="$target" -v sm="$(median "$tmp/s.ms")" -v pm="$(median "$tmp/p.ms")" \
        -v sk="$(median "$tmp/s.kb")" -v pk="$(median "$tmp/p.kb")" 'BEGIN {
        rt = sm / pm; rr = sk / pk
        memory_target = (target == 0.5) ? 0.5 : 1.0  # start-up: half; files: no more than the peer
        ok = (rt <= target && rr <= memory_target) ? "PASS" : "MISS"
        printf "%-34s %9.1f %9.1f %7.1fx %8.1f %8.1f %6.2f  %s\n", name, sm, pm, pm / sm, sk / 1024, pk / 1024, rr, ok
    }'
}

echo "recording the inputs..."
# record FILE ARGS...: perf record -g into FILE; prints the sample count perf reports.
record() {
    local file=$1; shift
    "$PERF" record -g -o "$file" "$@" >/dev/null 2>"$tmp/record.err" ||
        { echo "fixed_costs: perf record failed: $(tail -1 "$tmp/record.err")" >&2; return 1; }
    sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$tmp/record.err"
}
samples=$(record "$tmp/small.data" -F 2000 -- "$WORKLOADS/demo" 1500000 200) || exit 2
"$SONDE" ftrace record -e sched:sched_switch -e syscalls:sys_enter_write -o "$tmp/small.dat" -- \
    "$WORKLOADS/writes" 2000 >/dev/null 2>&1 || { echo "fixed_costs: sonde ftrace record failed"; exit 2; }
TRACE_CMD=$(command -v trace-cmd || true)
events=$( [[ -n $TRACE_CMD ]] && "$TRACE_CMD" report "$tmp/small.dat" 2>/dev/null | grep -c ': ' )

echo "$RUNS interleaved runs each, medians; small.data: $samples samples (-g, user and kernel)"
printf "%-34s %9s %9s %8s %8s %8s %6s  %s\n" case sonde_ms peer_ms speedup sonde_MB peer_MB rss target
compare "stat true (perf stat)" 0.5 -- "$SONDE" stat true -- "$PERF" stat true
compare "--version (perf)" 0.5 -- "$SONDE" --version -- "$PERF" --version
compare "report --no-children (perf)" 0.2 -- "$SONDE" report -i "$tmp/small.data" --stdio --no-children \
    -- "$PERF" report -i "$tmp/small.data" --stdio --no-children
compare "report, children (perf)" 0.2 -- "$SONDE" report -i "$tmp/small.data" --stdio \
    -- "$PERF" report -i "$tmp/small.data" --stdio
compare "script (perf script)" 0.2 -- "$SONDE" script -i "$tmp/small.data" -- "$PERF" script -i "$tmp/small.data"
compare "collapse (perf script)" 0.2 -- "$SONDE" collapse "$tmp/small.data" -- "$PERF" script -i "$tmp/small.data"
compare "flamegraph (perf script)" 0.2 -- "$SONDE" flamegraph "$tmp/small.data" -o /dev/null \
    -- "$PERF" script -i "$tmp/small.data"
if [[ -n $TRACE_CMD ]]; then
    echo "small.dat: $events events"
    compare "ftrace report (trace-cmd report)" 0.2 -- "$SONDE" ftrace report "$tmp/small.dat" \
        -- "$TRACE_CMD" report "$tmp/small.dat"
else
    echo "trace-cmd not found: ftrace report not compared"
fi

[[ -x $WORKLOADS/deep_stacks ]] || { echo "fixed_costs: no deep_stacks workload: mid-sized case skipped"; exit 0; }
mid_samples=$(record "$tmp/mid.data" -F 20000 -- "$WORKLOADS/deep_stacks" hot 5 2) || exit 2
echo "mid.data: $mid_samples samples of 24-48-deep stacks, $RUNS_MID runs each"
runs=$RUNS_MID compare "mid report --no-children (perf)" 0.1 -- "$SONDE" report -i "$tmp/mid.data" --stdio \
    --no-children -- "$PERF" report -i "$tmp/mid.data" --stdio --no-children
runs=$RUNS_MID compare "mid report, children (perf)" 0.1 -- "$SONDE" report -i "$tmp/mid.data" --stdio \
    -- "$PERF" report -i "$tmp/mid.data" --stdio
runs=$RUNS_MID compare "mid script (perf script)" 0.2 -- "$SONDE" script -i "$tmp/mid.data" \
    -- "$PERF" script -i "$tmp/mid.data"
