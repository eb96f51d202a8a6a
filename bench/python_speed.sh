#!/usr/bin/env bash
# python_speed: perf's Python scripting, sonde script -s against perf script -s, on one
# recording of at least 1,000,000 tracepoint events (issue 20).
# Workload: workloads/writes (next to SONDE in the build tree) making WRITES write() calls
# (default 1000000), recorded once with `perf record -e syscalls:sys_enter_write` and cached in
# CACHE (default ~/.cache/sonde-bench); delete it to record again. The script is perf's skeleton
# example as users edit it, tests/fixtures/python/event_counts.py: a count per handler. Each
# tool runs RUNS times (default 3; medians), sonde first then perf, output to /dev/null.
# Measured: wall time and peak RSS (/usr/bin/time); ratio = perf / sonde (above 1: sonde is
# faster / smaller). Target: >= 3x faster than perf.
# Usage: bench/python_speed.sh SONDE [RUNS]
set -u
(($# >= 1 && $# <= 2)) || { echo "usage: python_speed.sh SONDE [RUNS]"; exit 2; }
SONDE=$1 RUNS=${2:-3}
CACHE=${CACHE:-$HOME/.cache/sonde-bench}
WRITES=${WRITES:-1000000}
WORKLOAD=${WORKLOAD:-$(dirname "$SONDE")/workloads/writes}
SCRIPT=$(cd "$(dirname "$0")/.." && pwd)/tests/fixtures/python/event_counts.py
[[ -x $SONDE ]] || { echo "python_speed: sonde binary '$SONDE' not found or not executable"; exit 2; }
[[ -x $WORKLOAD ]] || { echo "python_speed: workload '$WORKLOAD' not found (build target workloads)"; exit 2; }
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "python_speed: RUNS must be a positive integer, got '$RUNS'"; exit 2; }
PERF=$(command -v perf) || { echo "python_speed: perf not found; peer absent, skipping"; exit 0; }
[[ -x /usr/bin/time ]] || { echo "python_speed: /usr/bin/time is needed for peak RSS (apt-get install time)"; exit 2; }
mkdir -p "$CACHE" || { echo "python_speed: cannot create $CACHE"; exit 2; }

tmp=$(mktemp -d /tmp/bench_python_speed.XXXXXX); trap 'rm -rf "$tmp"' EXIT
data=$CACHE/python-writes-$WRITES.data
if [[ ! -s $data ]]; then
    echo "recording $WRITES writes into $data ..."
    "$PERF" record -q -N -e syscalls:sys_enter_write -o "$data.tmp" -- "$WORKLOAD" "$WRITES" >/dev/null 2>"$tmp/record.err" ||
        { echo "python_speed: perf record failed:"; cat "$tmp/record.err"; exit 2; }
    mv "$data.tmp" "$data"
fi

measure() {  # measure KEY CMD...: one run; appends "seconds rss_kb" to $tmp/KEY, the output to $tmp/KEY.out
    local key=$1; shift
    /usr/bin/time -f "%e %M" -o "$tmp/time" "$@" >"$tmp/$key.out" 2>"$tmp/err" ||
        { echo "python_speed: '$*' failed:"; head -3 "$tmp/err"; }
    tail -1 "$tmp/time" >>"$tmp/$key"
}
median() {  # median FILE FIELD
    awk -v f="$2" '{print $f}' "$1" | sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'
}

for ((r = 0; r < RUNS; r++)); do
    measure sonde "$SONDE" script -i "$data" -s "$SCRIPT"
    measure perf "$PERF" script -i "$data" -s "$SCRIPT"
done
cmp -s "$tmp/sonde.out" "$tmp/perf.out" || { echo "python_speed: the script printed differently under sonde:"; diff "$tmp/perf.out" "$tmp/sonde.out" | head -5; }
st=$(median "$tmp/sonde" 1) sm=$(median "$tmp/sonde" 2)
pt=$(median "$tmp/perf" 1) pm=$(median "$tmp/perf" 2)
printf '%-14s %10s %10s %10s %10s %8s %8s\n' case "sonde s" "perf s" "sonde MB" "perf MB" "time x" "RSS x"
printf '%-14s %10.2f %10.2f %10.0f %10.0f %8s %8s\n' "event counts" "$st" "$pt" "$(echo "$sm / 1024" | bc -l)" \
    "$(echo "$pm / 1024" | bc -l)" "$(echo "$pt / $st" | bc -l | xargs printf '%.1f')" \
    "$(echo "$pm / $sm" | bc -l | xargs printf '%.2f')"
grep -h "sys_enter_write" "$tmp/sonde.out" | sed 's/^/events: /'
