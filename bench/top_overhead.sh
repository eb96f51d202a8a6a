#!/usr/bin/env bash
# top_overhead: the CPU time perf top and sonde top take to watch a busy machine (issue 16).
# Both run system-wide at -F 4000 with --stdio -d 2 for SECONDS (default 30), their screens to
# /dev/null, standard input a pipe nobody writes to (perf top busy-loops on one at its end),
# while a busy load runs on every CPU: workloads/demo in a loop (a hot user loop, plus a fork
# and exec every ~0.3 s) and workloads/syscalls in a loop (system calls, page faults and mmaps).
# Each tool runs once, perf first then sonde, under the same load, and is stopped with SIGINT.
# Measured: user+system CPU seconds of the tool's process (from /proc at the end, all threads),
# that as a share of one CPU, the resident set every 5 s (first, largest, last: memory growth),
# and the samples its screens saw (the header's irqs/sec, summed). Target: sonde's CPU time at
# most a fifth of perf's, and no memory growth (SECONDS=600 for the issue's 10 minutes).
# Usage: bench/top_overhead.sh SONDE [SECONDS]
set -u
(($# >= 1 && $# <= 2)) || { echo "usage: top_overhead.sh SONDE [SECONDS]"; exit 2; }
SONDE=$1 SECS=${2:-30}
WORKLOADS=${WORKLOADS:-$(dirname "$SONDE")/workloads}
[[ -x $SONDE ]] || { echo "top_overhead: sonde binary '$SONDE' not found or not executable"; exit 2; }
[[ -x $WORKLOADS/demo && -x $WORKLOADS/syscalls ]] || { echo "top_overhead: workloads not found in $WORKLOADS (build target workloads)"; exit 2; }
[[ $SECS =~ ^[1-9][0-9]*$ ]] || { echo "top_overhead: SECONDS must be a positive integer, got '$SECS'"; exit 2; }
PERF=$(command -v perf) || { echo "top_overhead: perf not found; peer absent, skipping"; exit 0; }

tmp=$(mktemp -d /tmp/bench_top_overhead.XXXXXX)
load_pids=()
cleanup() {
    for p in "${load_pids[@]}"; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
mkfifo "$tmp/in"
exec 3<>"$tmp/in"
ncpu=$(nproc)
for ((c = 0; c < ncpu; c++)); do
    (while :; do "$WORKLOADS/demo" 400000 10 >/dev/null; done) &
    load_pids+=($!)
done
(while :; do "$WORKLOADS/syscalls" 20000 >/dev/null; done) &
load_pids+=($!)
sleep 1

# cpu_seconds PID: user+system time of every thread so far, in seconds.
cpu_seconds() {
    awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) / hz }' "/proc/$1/stat"
}
rss_mb() { awk '/^VmRSS:/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }

# run NAME CMD...: the tool for SECS seconds; prints "NAME cpu share rss_first rss_max rss_last samples".
run() {
    local name=$1; shift
    "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" <&3 &
    local pid=$! first="" max=0 last="" cpu
    for ((t = 0; t < SECS; t += 5)); do
        sleep $((SECS - t < 5 ? SECS - t : 5))
        last=$(rss_mb "$pid") || break
        [[ -z $first ]] && first=$last
        max=$(awk -v a="$max" -v b="$last" 'BEGIN { print (b > a ? b : a) }')
    done
    cpu=$(cpu_seconds "$pid")
    kill -INT "$pid"
    wait "$pid"
    local samples
    samples=$(tr '\033' '\n' <"$tmp/$name.out" | awk '/PerfTop:/ { sub(/.*PerfTop: */, ""); n += $1 * 2 } END { print n + 0 }')
    printf '%-6s %8.2f %7.1f%% %10s %10s %10s %12s\n' "$name" "$cpu" "$(echo "$cpu * 100 / $SECS" | bc -l)" \
        "$first" "$max" "$last" "$samples"
    echo "$cpu" >"$tmp/$name.cpu"
}

echo "load: $ncpu x demo loop + syscalls loop; each tool ${SECS}s, -F 4000 -d 2, system-wide"
printf '%-6s %8s %8s %10s %10s %10s %12s\n' tool "cpu s" "of 1 CPU" "RSS MB 1st" "RSS max" "RSS last" "samples seen"
run perf "$PERF" top --stdio -F 4000 -d 2
run sonde "$SONDE" top --stdio -F 4000 -d 2
p=$(cat "$tmp/perf.cpu") s=$(cat "$tmp/sonde.cpu")
echo "sonde/perf CPU time: $(echo "$s / $p" | bc -l | xargs printf '%.3f') (target <= 0.2)"
