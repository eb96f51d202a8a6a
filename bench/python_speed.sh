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
# Then `import sonde`: sonde.open(F).samples() into a pandas DataFrame for the deep-stacks profile
# of about 1,040,000 samples (bench/lib/deep_stacks_data.sh's hot mode, shared with report_speed),
# under the system's python3 with PYTHONPATH at the module beside SONDE. Measured: wall time and
# peak RSS against the file's size. Target: under 2 s, memory under 4x the file. No peer: perf
# has no module that reads perf.data into arrays.
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

# shellcheck source=lib/deep_stacks_data.sh
source "$(dirname "$0")/lib/deep_stacks_data.sh"
MODULE_DIR=$(dirname "$SONDE")/python
if [[ ! -f $MODULE_DIR/sonde.so ]]; then echo "python_speed: $MODULE_DIR/sonde.so not built; skipping the module"; exit 0; fi
/usr/bin/python3 -c "import pandas" 2>/dev/null || { echo "python_speed: pandas missing; skipping the module"; exit 0; }
deep_stacks_data hot "$CACHE" "$(dirname "$SONDE")/workloads/deep_stacks" "$PERF" || exit 2
deep=$CACHE/hot.data
for ((r = 0; r < RUNS; r++)); do
    PYTHONPATH=$MODULE_DIR /usr/bin/time -f "%e %M" -o "$tmp/time" /usr/bin/python3 -c \
        "import sonde, sys; f = sonde.open(sys.argv[1]).samples(); print(len(f), f.sym.value_counts().index[0])" "$deep" \
        >"$tmp/module.out" 2>"$tmp/err" || { echo "python_speed: the module failed:"; head -3 "$tmp/err"; }
    tail -1 "$tmp/time" >>"$tmp/module"
done
mt=$(median "$tmp/module" 1) mm=$(median "$tmp/module" 2)
size_mb=$(( $(stat -c %s "$deep") / 1048576 ))
printf '%-14s %10s %10s %10s %10s\n' case "seconds" "RSS MB" "file MB" "RSS/file"
printf '%-14s %10.2f %10.0f %10d %10s\n' "samples() df" "$mt" "$(echo "$mm / 1024" | bc -l)" "$size_mb" \
    "$(echo "$mm / 1024 / $size_mb" | bc -l | xargs printf '%.2f')"
echo "rows, hottest symbol: $(cat "$tmp/module.out")"
