#!/usr/bin/env bash
# record_overhead: what recording costs a CPU-bound workload, sonde record against perf record.
# Workload: workloads/demo ROUNDS 10 (next to SONDE in the build tree; ROUNDS=1500000 by default,
# about 2 s of CPU here, hot path main -> run -> work -> hot_leaf), timed alone and under
# `perf record` and `sonde record` with `-F 999 -g`, `-F 9999 -g` and `-F 999 --call-graph dwarf`.
# The workload runs as `sh -c 'date > start; demo ...; date > end'`, alone too, so every case pays
# the same shell and stamps, and the stamps are taken by the workload itself, under the tool.
# Runs are interleaved round by round (alone, then both tools, their order swapped every round)
# so machine noise hits everything alike; RUNS=3 rounds; medians.
# Measured per run:
#   - total: wall time of the whole command, tool included, from bash's $EPOCHREALTIME;
#     slowdown = total / total alone (what the user waits, perf's ~1 s start-up included);
#   - work_x: the workload's own time (end - start stamps) under the tool / alone, informational;
#   - tail: from the workload's end stamp to the tool's exit. perf re-reads the whole file for
#     build-ids there (~100 ms here), but on this machine most of its tail is its BPF-event
#     synthesis (~1 s, see record_fixed_cost) still running when the workload ends: with
#     --no-bpf-event the tail drops to ~100 ms, with -B as well to ~3 ms. sonde collects
#     build-ids while recording;
#   - samples: from the tool's "Captured and wrote ... (N samples)" line;
#   - lost: the `lost` fields of every PERF_RECORD_LOST and PERF_RECORD_LOST_SAMPLES record in the
#     data file, read by `perf report -D` for both tools' files (the same ruler; perf report's own
#     "lost N chunks" warning counts records, not samples); the table shows the sum over the runs;
#   - bytes/sample: data file size / samples.
# Targets (issue 3), each judged per configuration on the medians: sonde's slowdown and bytes per
# sample no worse than perf's; no lost samples in any sonde run at 9999 Hz; sonde's tail "far
# below" perf's, taken as at most a tenth of it. The binaries are copied first, so a concurrent
# rebuild cannot change them mid-run; a run that fails is reported and left out. Data files live
# in a private temporary directory, each removed after its run, the directory at exit.
# Usage: bench/record_overhead.sh SONDE [ROUNDS]      (DEMO=path overrides the workload binary)
set -u
(($# >= 1 && $# <= 2)) || { echo "usage: record_overhead.sh SONDE [ROUNDS]"; exit 2; }
SONDE=$1 ROUNDS=${2:-1500000} WRITES=10 RUNS=3
DEMO=${DEMO:-$(dirname "$SONDE")/workloads/demo}
[[ -x $SONDE ]] || { echo "record_overhead: sonde binary '$SONDE' not found or not executable"; exit 2; }
[[ -x $DEMO ]] || { echo "record_overhead: workload '$DEMO' not found (build target workloads, or set DEMO)"; exit 2; }
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "record_overhead: ROUNDS must be a positive integer, got '$ROUNDS'"; exit 2; }
PERF=$(command -v perf) || { echo "record_overhead: perf not found; peer absent, skipping"; exit 0; }

tmp=$(mktemp -d /tmp/bench_record_overhead.XXXXXX); trap 'rm -rf "$tmp"' EXIT
cp "$SONDE" "$tmp/sonde" && cp "$DEMO" "$tmp/demo" || { echo "record_overhead: cannot copy the binaries"; exit 2; }
SONDE=$tmp/sonde DEMO=$tmp/demo
"$SONDE" record -q -o "$tmp/check.data" -- true >/dev/null 2>&1 ||
    { echo "record_overhead: '$SONDE' record -- true fails (binary being rebuilt?)"; exit 2; }
rm -f "$tmp/check.data"
CONFIGS=("-F 999 -g" "-F 9999 -g" "-F 999 --call-graph dwarf")
WORK=(sh -c 'date +%s.%6N >"$3.start"; "$0" "$1" "$2" >/dev/null; date +%s.%6N >"$3.end"' \
    "$DEMO" "$ROUNDS" "$WRITES" "$tmp/stamp")

# run KEY [TOOL ARGS...]: one timed run of the workload, alone (no TOOL) or under `TOOL record ARGS`;
# appends total/work/tail seconds to $tmp/KEY.{total,work,tail} and, under a tool, samples, lost
# and bytes per sample to $tmp/KEY.{samples,lost,bps}.
run() {
    local key=$1; shift
    local data=$tmp/$key.data; local -a cmd=("${WORK[@]}")
    (($#)) && cmd=("$1" record "${@:2}" -o "$data" -- "${WORK[@]}")
    rm -f "$tmp/stamp.start" "$tmp/stamp.end"
    local t0=$EPOCHREALTIME
    "${cmd[@]}" >"$tmp/$key.out" 2>&1; local rc=$?
    local t1=$EPOCHREALTIME
    if ((rc != 0)) || [[ ! -s $tmp/stamp.start || ! -s $tmp/stamp.end ]]; then
        echo "warning: $key exited $rc, run left out: $(tail -n1 "$tmp/$key.out")" >&2; rm -f "$data"; return
    fi
    local start end; start=$(<"$tmp/stamp.start") end=$(<"$tmp/stamp.end")
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", b - a }' >>"$tmp/$key.total"
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.6f\n", b - a }' >>"$tmp/$key.work"
    awk -v a="$end" -v b="$t1" 'BEGIN { printf "%.6f\n", b - a }' >>"$tmp/$key.tail"
    (($#)) || return 0
    local samples lost size
    samples=$(sed -n 's/.*Captured and wrote .*(\([0-9]*\) samples).*/\1/p' "$tmp/$key.out")
    lost=$("$PERF" report -D -i "$data" 2>/dev/null |
        awk '/PERF_RECORD_LOST/ && match($0, /lost:[0-9]+/) { n += substr($0, RSTART + 5, RLENGTH - 5) } END { print n + 0 }')
    size=$(stat -c %s "$data")
    rm -f "$data"
    echo "${samples:-0}" >>"$tmp/$key.samples"; echo "$lost" >>"$tmp/$key.lost"
    awk -v s="$size" -v n="${samples:-0}" 'BEGIN { printf "%.1f\n", n ? s / n : 0 }' >>"$tmp/$key.bps"
}
median() {  # median KEY.METRIC, or - without data
    [[ -s $tmp/$1 ]] || { echo -; return; }
    sort -g "$tmp/$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2 }'
}
total() { [[ -s $tmp/$1 ]] && awk '{ n += $1 } END { print n }' "$tmp/$1" || echo -; }

for ((r = 1; r <= RUNS; r++)); do
    for ((c = 0; c < ${#CONFIGS[@]}; c++)); do
        echo "round $r/$RUNS: ${CONFIGS[c]}" >&2
        read -ra args <<<"${CONFIGS[c]}"
        run alone
        if ((r % 2)); then run "perf$c" "$PERF" "${args[@]}"; run "sonde$c" "$SONDE" "${args[@]}"
        else               run "sonde$c" "$SONDE" "${args[@]}"; run "perf$c" "$PERF" "${args[@]}"; fi
    done
done

a_total=$(median alone.total) a_work=$(median alone.work) a_tail=$(median alone.tail)
echo "demo $ROUNDS $WRITES; $RUNS interleaved runs per case (alone: $((RUNS * ${#CONFIGS[@]}))), medians; lost = sum over the runs"
fmt="%-26s %-11s %8s %9s %7s %9s %8s %9s %12s\n"
printf "$fmt" config tool total_s slowdown work_x tail_ms samples lost_sum bytes/sample
awk -v t="$a_total" -v l="$a_tail" 'BEGIN { printf "%-26s %-11s %8.3f %9.2f %7.2f %9.1f %8s %9s %12s\n",
    "(none)", "alone", t, 1, 1, l * 1000, "-", "-", "-" }'
verdict=PASS
for ((c = 0; c < ${#CONFIGS[@]}; c++)); do
    declare -A m=()
    for t in perf sonde; do
        for k in total work tail samples bps; do m[$t.$k]=$(median "$t$c.$k"); done
        m[$t.lost]=$(total "$t$c.lost")
    done
    if [[ ${m[perf.total]} == - || ${m[sonde.total]} == - ]]; then
        echo "${CONFIGS[c]}: no successful run of one tool, no comparison"; verdict=MISS; continue
    fi
    out=$(awk -v cfg="${CONFIGS[c]}" -v at="$a_total" -v aw="$a_work" -v hz9999="$([[ ${CONFIGS[c]} == *9999* ]] && echo 1 || echo 0)" \
        -v pt="${m[perf.total]}" -v pw="${m[perf.work]}" -v pl="${m[perf.tail]}" -v ps="${m[perf.samples]}" \
        -v pL="${m[perf.lost]}" -v pb="${m[perf.bps]}" \
        -v st="${m[sonde.total]}" -v sw="${m[sonde.work]}" -v sl="${m[sonde.tail]}" -v ss="${m[sonde.samples]}" \
        -v sL="${m[sonde.lost]}" -v sb="${m[sonde.bps]}" 'BEGIN {
        f = "%-26s %-11s %8.3f %9.2f %7.2f %9.1f %8d %9d %12.1f\n"
        printf f, cfg, "perf",  pt, pt / at, pw / aw, pl * 1000, ps, pL, pb
        printf f, "", "sonde", st, st / at, sw / aw, sl * 1000, ss, sL, sb
        printf "%-26s %-11s %8.2f %9.2f %7.2f %9.3f %8.2f %9s %12.2f\n", "", "sonde/perf",
            st / pt, st / pt, sw / pw, sl / pl, ss / ps, "-", sb / pb
        ok_slow = (st / at <= pt / at); ok_bps = (sb <= pb); ok_tail = (sl <= pl / 10)
        ok_lost = !hz9999 || sL == 0
        printf "  target %-28s slowdown %.2f <= %.2f %s; bytes/sample %.1f <= %.1f %s; tail %.1f ms <= %.1f ms (perf/10) %s",
            cfg ":", st / at, pt / at, ok_slow ? "PASS" : "MISS", sb, pb, ok_bps ? "PASS" : "MISS",
            sl * 1000, pl * 100, ok_tail ? "PASS" : "MISS"
        if (hz9999) printf "; sonde lost %d == 0 %s", sL, ok_lost ? "PASS" : "MISS"
        printf "\n"
        print (ok_slow && ok_bps && ok_tail && ok_lost) ? "=PASS" : "=MISS"
    }')
    grep -v '^=' <<<"$out" | sed '/^  target/d'
    grep '^  target' <<<"$out" >>"$tmp/targets"
    [[ $(tail -n1 <<<"$out") == =PASS ]] || verdict=MISS
    unset m
done
cat "$tmp/targets" 2>/dev/null
echo "targets (issue 3): sonde's slowdown and bytes/sample <= perf's, no lost samples at 9999 Hz, tail <= perf's / 10 -> $verdict"
