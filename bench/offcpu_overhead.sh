#!/usr/bin/env bash
# offcpu_overhead: what measuring off-CPU time costs a context-switch-heavy workload (issue 15):
# sonde record --off-cpu (one BPF program on sched_switch) against the tracepoint way, a sample
# with its callchain for every switch (perf record -e sched:sched_switch -g, and sonde record the
# same), and against plain sampling (sonde record, which --off-cpu also does).
# Workloads (next to SONDE in the build tree): workloads/pingpong N, two threads bouncing a byte
# over two pipes N times (each round trip blocks each thread once), run
#   - pinned: both threads on CPU 0 (taskset -c 0): every block is a local switch of ~1.5 us, the
#     worst case for any per-switch cost;
#   - spread: free to run on both CPUs: each wake-up crosses CPUs (slow on this VM, ~30 us).
# Runs are interleaved round by round (RUNS=3, medians); wall time from bash's $EPOCHREALTIME.
# Reported: seconds, slowdown against the workload alone, and the us each tool adds per block
# (2N blocks). sonde's off-CPU totals are checked: they must be non-empty.
# Targets: --off-cpu below the tracepoint way, and at most 1.2x the workload alone.
# Usage: bench/offcpu_overhead.sh SONDE [N]
set -u
(($# >= 1 && $# <= 2)) || { echo "usage: offcpu_overhead.sh SONDE [N]"; exit 2; }
SONDE=$1 N=${2:-200000} RUNS=3
PINGPONG=${PINGPONG:-$(dirname "$SONDE")/workloads/pingpong}
[[ -x $SONDE ]] || { echo "offcpu_overhead: sonde binary '$SONDE' not found or not executable"; exit 2; }
[[ -x $PINGPONG ]] || { echo "offcpu_overhead: workload '$PINGPONG' not found (build target workloads)"; exit 2; }
[[ $N =~ ^[1-9][0-9]*$ ]] || { echo "offcpu_overhead: N must be a positive integer, got '$N'"; exit 2; }
PERF=$(command -v perf) || { echo "offcpu_overhead: perf not found; peer absent, skipping"; exit 0; }

source "$(dirname "$0")/lib/measure.sh"
tmp=$(mktemp -d /tmp/bench_offcpu.XXXXXX); trap 'rm -rf "$tmp"' EXIT


tools=(alone sonde_plain sonde_offcpu sonde_tp perf_tp)
declare -A label=([alone]="workload alone" [sonde_plain]="sonde record" [sonde_offcpu]="sonde record --off-cpu"
    [sonde_tp]="sonde record -e sched_switch -g" [perf_tp]="perf record -e sched_switch -g")
for mode in pinned spread; do
    work=("$PINGPONG" "$N")
    [[ $mode == pinned ]] && work=(taskset -c 0 "$PINGPONG" "$N")
    for ((r = 1; r <= RUNS; r++)); do
        timed_run "${mode}_alone" "${work[@]}"
        timed_run "${mode}_sonde_plain" "$SONDE" record -q -o "$tmp/plain.data" -- "${work[@]}"
        timed_run "${mode}_sonde_offcpu" "$SONDE" record -q --off-cpu -o "$tmp/offcpu.data" -- "${work[@]}"
        timed_run "${mode}_sonde_tp" "$SONDE" record -q -e sched:sched_switch -g -o "$tmp/sonde_tp.data" -- "${work[@]}"
        timed_run "${mode}_perf_tp" "$PERF" record -q -e sched:sched_switch -g -o "$tmp/perf_tp.data" -- "${work[@]}"
    done
    blocked=$("$SONDE" collapse --event-filter offcpu-time "$tmp/offcpu.data" 2>/dev/null |
        awk '{ t += $NF } END { printf "%.0f", t / 1e6 }')
    alone=$(median "$tmp/${mode}_alone.t")
    echo "pingpong $N ($mode, $((2 * N)) blocks), medians of $RUNS; off-CPU measured: ${blocked:-0} ms"
    printf "%-34s %9s %9s %11s\n" tool seconds slowdown us/block
    for t in "${tools[@]}"; do
        s=$(median "$tmp/${mode}_$t.t")
        awk -v n="${label[$t]}" -v s="$s" -v a="$alone" -v b="$((2 * N))" \
            'BEGIN { printf "%-34s %9.3f %9.2f %11.2f\n", n, s, s / a, (s - a) * 1e6 / b }'
    done
done
