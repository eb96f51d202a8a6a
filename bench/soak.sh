#!/usr/bin/env bash
# soak: long recordings under a busy machine (issue 19). Each of
#   - `sonde record -a -g` and `perf record -a -g` (the peer), one after the other, under a heavy
#     load: a process per CPU forking short-lived children (sh -c true), copying with dd in 4 KiB
#     blocks (syscalls), and spinning (samples);
#   - `sonde ftrace record -e sched -e syscalls` and, as the peer, `perf record -a -e 'sched:*'
#     --exclude-perf -e 'syscalls:*' --exclude-perf` (without the filter its own writes are most
#     of its events; trace-cmd record cannot run on this kernel: it insists on writing
#     /proc/sys/kernel/ftrace_enabled, which the locked-down kernel refuses), under a moderate
#     load of the same kinds (each loop pausing 10 ms, dd copying 100 blocks), about 200,000
#     events a second: the heavy load makes 1.8 million, 40 GB of trace in ten minutes, more than
#     a reader can check;
# runs for DURATION seconds (600 by default). SOAK_PARTS="record ftrace" (the default) picks parts.
# Measured per run:
#   - the recorder's resident memory every 10 s (VmRSS): first, largest, last (flat = the last is
#     no more than the first minute's largest plus 10%);
#   - events lost: the file's PERF_RECORD_LOST records (perf report --stats, on both files); for
#     trace.dat, the per-CPU overrun and dropped counts sonde prints;
#   - the file read back completely: the samples perf report --stats counts equal the samples
#     sonde script reads; for trace.dat, trace-cmd report's events equal sonde ftrace report's
#     and the count sonde ftrace record printed.
# Usage: bench/soak.sh SONDE [DURATION]
set -u
(($# >= 1 && $# <= 2)) || { echo "usage: soak.sh SONDE [DURATION]"; exit 2; }
SONDE=$1 DURATION=${2:-${SOAK_SECONDS:-600}}
[[ -x $SONDE ]] || { echo "soak: sonde binary '$SONDE' not found or not executable"; exit 2; }
[[ $DURATION =~ ^[1-9][0-9]*$ ]] || { echo "soak: DURATION must be a positive integer, got '$DURATION'"; exit 2; }
PERF=$(command -v perf) || { echo "soak: perf not found; peer absent, skipping"; exit 0; }
tmp=$(mktemp -d /var/tmp/bench_soak.XXXXXX)
busy_pids=()
stop_busy() { for p in "${busy_pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; busy_pids=(); }
trap 'stop_busy; rm -rf "$tmp"' EXIT

LOAD=heavy
start_busy() {
    local cpus pause=0 blocks=2000
    cpus=$(nproc)
    [[ $LOAD == moderate ]] && pause=0.01 blocks=100
    for ((c = 0; c < cpus; c++)); do
        (while :; do sh -c true; sleep $pause; done) & busy_pids+=($!)
        (while :; do dd if=/dev/zero of=/dev/null bs=4k count=$blocks 2>/dev/null; sleep $pause; done) & busy_pids+=($!)
        (while :; do :; done) & busy_pids+=($!)
    done
}

# soak_run NAME OUTFILE COMMAND...: runs COMMAND for DURATION under load, sampling its RSS.
soak_run() {
    local name=$1; shift
    start_busy
    "$@" >"$tmp/$name.out" 2>&1 &
    local pid=$! t=0
    : >"$tmp/$name.rss"
    while ((t < DURATION)); do
        sleep 10; t=$((t + 10))
        awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null >>"$tmp/$name.rss"
    done
    kill -INT "$pid"; wait "$pid"
    echo "$?" >"$tmp/$name.status"
    stop_busy
}
rss_summary() {  # first, largest, last in MB; flat when last <= max(first minute) * 1.1
    awk 'NR <= 6 && $1 > early { early = $1 } NR == 1 { first = $1 } $1 > max { max = $1 } { last = $1 }
         END { printf "%.1f %.1f %.1f %s", first / 1024, max / 1024, last / 1024, (last <= early * 1.1) ? "flat" : "GROWS" }' "$tmp/$1.rss"
}
# One pass of each reader over a file: perf's event counts (SAMPLE and LOST records) and the
# samples sonde reads (perf script -F event's line per sample, as sonde script prints it).
perf_stat() { "$PERF" report --stats -i "$1" 2>/dev/null | awk -v what="$2" '$1 == what && $2 == "events:" { print $3; exit }'; }
sonde_samples() { "$SONDE" script -i "$1" -F event 2>/dev/null | wc -l; }

PARTS=${SOAK_PARTS:-record ftrace}
echo "soak: $DURATION s per run, $(nproc) CPUs, parts: $PARTS"
fmt="%-26s %8s %8s %8s %6s %10s %12s %12s %s\n"
printf "$fmt" run rss0_MB rssmax_MB rss_end memory lost samples_perf samples_sonde readback
if [[ " $PARTS " == *" record "* ]]; then
    LOAD=heavy
    for tool in sonde perf; do
        if [[ $tool == sonde ]]; then
            soak_run record-$tool "$SONDE" record -a -g -o "$tmp/$tool.data"
        else
            soak_run record-$tool "$PERF" record -a -g -o "$tmp/$tool.data"
        fi
        read -r r0 rmax rend flat <<<"$(rss_summary record-$tool)"
        ps=$(perf_stat "$tmp/$tool.data" SAMPLE) lost=$(perf_stat "$tmp/$tool.data" LOST) ss=$(sonde_samples "$tmp/$tool.data")
        ok=$([[ -n $ps && $ps == "$ss" ]] && echo complete || echo DIFFERS)
        printf "$fmt" "record -a -g ($tool)" "$r0" "$rmax" "$rend" "$flat" "${lost:-0}" "${ps:--}" "${ss:--}" "$ok"
        rm -f "$tmp/$tool.data"
    done
fi

if [[ " $PARTS " == *" ftrace "* ]]; then
    LOAD=moderate
    soak_run ftrace-sonde "$SONDE" ftrace record -e sched -e syscalls -o "$tmp/sonde.dat"
    read -r r0 rmax rend flat <<<"$(rss_summary ftrace-sonde)"
    summary=$(grep "events in" "$tmp/ftrace-sonde.out" | tail -1)
    lost=$(sed -n 's/.*; lost \([0-9]*\) events.*/\1/p' <<<"$summary") kept=$(awk '{ print $4 }' <<<"$summary")
    # Event lines only: trace-cmd report starts with a "cpus=N" line.
    tc=$(trace-cmd report -i "$tmp/sonde.dat" 2>/dev/null | grep -vc '^cpus=')
    so=$("$SONDE" ftrace report -i "$tmp/sonde.dat" 2>/dev/null | grep -vc '^cpus=')
    ok=$([[ $so -gt 0 && $so == "$kept" ]] && echo complete || echo "DIFFERS (recorded $kept)")
    printf "$fmt" "ftrace record (sonde)" "$r0" "$rmax" "$rend" "$flat" "${lost:-?}" "tc:$tc" "$so" "$ok"
    # trace-cmd 3.1.6 stops early, silently, once one CPU's data passes 2 GiB.
    [[ $tc == "$so" ]] || echo "trace-cmd report read $tc of the $so events (largest CPU data: $(
        awk '/events in/' "$tmp/ftrace-sonde.out" | grep -o 'cpu[0-9]* [0-9]*/[0-9]*' |
        awk -F/ '{ if ($2 > m) m = $2 } END { printf "%.2f GiB", m * 4096 / 2^30 }'))"
    rm -f "$tmp/sonde.dat"
    soak_run ftrace-perf "$PERF" record -a -e 'sched:*' --exclude-perf -e 'syscalls:*' --exclude-perf -o "$tmp/perf-tp.data"
    read -r r0 rmax rend flat <<<"$(rss_summary ftrace-perf)"
    ps=$(perf_stat "$tmp/perf-tp.data" SAMPLE) lost=$(perf_stat "$tmp/perf-tp.data" LOST)
    lost_samples=$("$PERF" report --stats -i "$tmp/perf-tp.data" 2>/dev/null | awk '$1 == "LOST_SAMPLES" { print $3; exit }')
    printf "$fmt" "perf record -e tracepoints" "$r0" "$rmax" "$rend" "$flat" "${lost:-0}/${lost_samples:-0}" "${ps:--}" "-" "(lost records/samples)"
    rm -f "$tmp/perf-tp.data"
fi
