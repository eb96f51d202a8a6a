#!/usr/bin/env bash
# report_speed: sonde report against perf report (and sonde script against perf script) on
# profiles of at least 1,000,000 samples with deep frame-pointer stacks (issue 4).
# Workload: workloads/deep_stacks (next to SONDE in the build tree): 100 functions calling each
# other 24-48 deep along seeded random paths, two threads, recorded once with
# `perf record -g -F 20000` for 26 CPU-seconds per thread (about 1.04M samples) in two modes:
#   hot    - 8 fixed paths, one taken 60% of the time (few distinct stacks);
#   unique - a fresh random path for every walk (nearly every stack distinct).
# The recordings are cached in CACHE (default /var/tmp/sonde-bench) and reused; delete them to
# record again. Each case runs RUNS times (default 1; medians), sonde first then perf:
#   report (perf's default: children, graph call graph), report --no-children, report -g none,
#   and script (when sonde script is built).
# Measured: wall time and peak RSS (from /usr/bin/time), samples per second; ratio = perf / sonde
# for time and RSS (above 1: sonde is faster / smaller). perf runs under `timeout PEER_TIMEOUT`
# (default 300 s) and `ulimit -v PEER_MEM_GB` (default 12 GB of address space): perf report's
# children mode grows past 24 GB on unique stacks. A peer that hits either limit is reported as
# such ("timeout", "out of memory") and its ratio shown as a lower bound.
# Targets: report >= 10x faster than perf in every mode with no more memory; 1M unique-stack
# samples under 2 GB in every mode; script >= 5x faster.
# Usage: bench/report_speed.sh SONDE [RUNS]
set -u
(($# >= 1 && $# <= 2)) || { echo "usage: report_speed.sh SONDE [RUNS]"; exit 2; }
SONDE=$1 RUNS=${2:-1}
CACHE=${CACHE:-/var/tmp/sonde-bench}
PEER_TIMEOUT=${PEER_TIMEOUT:-300}
PEER_MEM_GB=${PEER_MEM_GB:-12}
WORKLOAD=${WORKLOAD:-$(dirname "$SONDE")/workloads/deep_stacks}
[[ -x $SONDE ]] || { echo "report_speed: sonde binary '$SONDE' not found or not executable"; exit 2; }
[[ -x $WORKLOAD ]] || { echo "report_speed: workload '$WORKLOAD' not found (build target workloads)"; exit 2; }
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "report_speed: RUNS must be a positive integer, got '$RUNS'"; exit 2; }
PERF=$(command -v perf) || { echo "report_speed: perf not found; peer absent, skipping"; exit 0; }
[[ -x /usr/bin/time ]] || { echo "report_speed: /usr/bin/time is needed for peak RSS (apt-get install time)"; exit 2; }
mkdir -p "$CACHE" || { echo "report_speed: cannot create $CACHE"; exit 2; }

tmp=$(mktemp -d /tmp/bench_report_speed.XXXXXX); trap 'rm -rf "$tmp"' EXIT
cp "$SONDE" "$tmp/sonde" || { echo "report_speed: cannot copy $SONDE"; exit 2; }
SONDE=$tmp/sonde

# samples FILE: the sample count perf record printed when it wrote FILE (kept next to it).
samples() { cat "$1.samples" 2>/dev/null || echo 0; }

record() {  # record MODE: CACHE/MODE.data with at least 1M samples, unless already there
    local mode=$1 data=$CACHE/$1.data
    if [[ -s $data && $(samples "$data") -ge 1000000 ]]; then return 0; fi
    echo "recording $mode stacks into $data (about a minute of CPU on two threads)..."
    cp "$WORKLOAD" "$CACHE/deep_stacks"
    "$PERF" record -g -F 20000 -o "$data.tmp" -- "$CACHE/deep_stacks" "$mode" 26 2 >/dev/null 2>"$tmp/rec.err" ||
        { echo "report_speed: perf record failed: $(tail -1 "$tmp/rec.err")"; return 1; }
    local n; n=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$tmp/rec.err")
    mv "$data.tmp" "$data" && echo "${n:-0}" >"$data.samples"
    ((${n:-0} >= 1000000)) || echo "report_speed: only ${n:-0} samples in $data (machine busy?); figures still shown"
}

# measure KEY TOOL-COMMAND...: one run; appends "seconds rss_kb status" to $tmp/KEY.
measure() {
    local key=$1; shift
    # Output goes to /dev/null: script prints ~2 GB, and writing it to disk would time the disk.
    /usr/bin/time -f "%e %M" -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err"; local rc=$?
    local status=ok
    ((rc == 124)) && status=timeout
    ((rc != 0 && rc != 124)) && { grep -qi "memory\|alloc" "$tmp/err" || ((rc == 137 || rc == 134 || rc == 139)); } && status=out-of-memory
    ((rc != 0)) && [[ $status == ok ]] && status="failed($rc)"
    echo "$(tail -1 "$tmp/time") $status" >>"$tmp/$key"
}
# The peer under its time and memory limits (a shell that sets them, then becomes the peer).
PEER=(bash -c "ulimit -v $((PEER_MEM_GB * 1024 * 1024)) && exec timeout $PEER_TIMEOUT \"\$@\"" peer)
median() {  # median FILE FIELD
    awk -v f="$2" '{print $f}' "$1" | sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'
}
status_of() { awk '{print $3}' "$1" | grep -v '^ok$' | head -1; }

have_script=1
"$SONDE" script -i /dev/null >/dev/null 2>"$tmp/script.err"
grep -q "not built yet" "$tmp/script.err" && have_script=0

printf '%-7s %-22s %10s %10s %12s %12s %10s %10s %8s %8s\n' stacks case "sonde s" "perf s" "sonde smp/s" "perf smp/s" \
    "sonde MB" "perf MB" "time x" "RSS x"
for mode in hot unique; do
    record "$mode" || continue
    data=$CACHE/$mode.data
    n=$(samples "$data")
    cases=("report|report --stdio|" "report --no-children|report --stdio --no-children|--no-children"
           "report -g none|report --stdio -g none|-g none")
    ((have_script)) && cases+=("script|script|script")
    for spec in "${cases[@]}"; do
        IFS='|' read -r name peer_args sonde_args <<<"$spec"
        key=$mode.${name// /_}
        for ((r = 0; r < RUNS; r++)); do
            if [[ $name == script ]]; then
                measure "$key.sonde" "$SONDE" script -i "$data"
            else
                # shellcheck disable=SC2086
                measure "$key.sonde" "$SONDE" report -i "$data" $sonde_args
            fi
            # shellcheck disable=SC2086
            measure "$key.perf" "${PEER[@]}" "$PERF" $peer_args -i "$data"
        done
        st=$(median "$tmp/$key.sonde" 1) sm=$(median "$tmp/$key.sonde" 2)
        pt=$(median "$tmp/$key.perf" 1) pm=$(median "$tmp/$key.perf" 2)
        note=$(status_of "$tmp/$key.perf")
        sonde_note=$(status_of "$tmp/$key.sonde")
        bound=""; [[ -n $note ]] && bound=">"
        printf '%-7s %-22s %10.2f %10s %12.0f %12s %10.0f %10s %8s %8s %s\n' "$mode" "$name" "$st" \
            "$bound$pt" "$(echo "$n / $st" | bc -l)" "$(echo "$n / $pt" | bc -l | xargs printf '%.0f')" \
            "$(echo "$sm / 1024" | bc -l)" "$(echo "$pm / 1024" | bc -l | xargs printf '%.0f')" \
            "$bound$(echo "$pt / $st" | bc -l | xargs printf '%.1f')" "$(echo "$pm / $sm" | bc -l | xargs printf '%.2f')" \
            "${note:+perf: $note }${sonde_note:+sonde: $sonde_note}"
    done
done
((have_script)) || echo "(sonde script is not built yet: script not compared)"
echo "samples: hot $(samples "$CACHE/hot.data"), unique $(samples "$CACHE/unique.data"); perf limited to ${PEER_TIMEOUT} s and ${PEER_MEM_GB} GB of address space"
