#!/usr/bin/env bash
# sched_speed: sonde sched latency, timehist and map against perf sched's on one recording of at
# least 1,000,000 scheduler events (issue 15).
# Workload: workloads/handoff (next to SONDE in the build tree): two threads handing a byte over
# a pipe, ROUNDS rounds (default 250000) with 0 ms sleeps, recorded once with
# `perf sched record` (sched_switch, sched_waking, sched_stat_runtime... on every CPU). The
# recording is cached in CACHE (default ~/.cache/sonde-bench) and reused; delete it to record
# again. Each case runs RUNS times (default 1; medians), sonde first then perf, output to
# /dev/null. Measured: wall time and peak RSS (/usr/bin/time); ratio = perf / sonde (above 1:
# sonde is faster / smaller). Target: each >= 10x faster than perf, with no more memory.
# Usage: bench/sched_speed.sh SONDE [RUNS]
set -u
(($# >= 1 && $# <= 2)) || { echo "usage: sched_speed.sh SONDE [RUNS]"; exit 2; }
SONDE=$1 RUNS=${2:-1}
CACHE=${CACHE:-$HOME/.cache/sonde-bench}
ROUNDS=${ROUNDS:-250000}
WORKLOAD=${WORKLOAD:-$(dirname "$SONDE")/workloads/handoff}
[[ -x $SONDE ]] || { echo "sched_speed: sonde binary '$SONDE' not found or not executable"; exit 2; }
[[ -x $WORKLOAD ]] || { echo "sched_speed: workload '$WORKLOAD' not found (build target workloads)"; exit 2; }
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "sched_speed: RUNS must be a positive integer, got '$RUNS'"; exit 2; }
PERF=$(command -v perf) || { echo "sched_speed: perf not found; peer absent, skipping"; exit 0; }
[[ -x /usr/bin/time ]] || { echo "sched_speed: /usr/bin/time is needed for peak RSS (apt-get install time)"; exit 2; }
mkdir -p "$CACHE" || { echo "sched_speed: cannot create $CACHE"; exit 2; }

tmp=$(mktemp -d /tmp/bench_sched_speed.XXXXXX); trap 'rm -rf "$tmp"' EXIT
data=$CACHE/sched-handoff-$ROUNDS.data
events() { "$PERF" report -i "$1" --stats 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }'; }
if [[ ! -s $data ]]; then
    echo "recording $ROUNDS hand-overs into $data ..."
    "$PERF" sched record -o "$data.tmp" -- "$WORKLOAD" "$ROUNDS" 0 >/dev/null 2>"$tmp/record.err" ||
        { echo "sched_speed: perf sched record failed:"; cat "$tmp/record.err"; exit 2; }
    mv "$data.tmp" "$data"
fi
n=$(events "$data")
((n >= 1000000)) || echo "sched_speed: warning: only $n events in $data (raise ROUNDS and delete the file)"

. "$(dirname "$0")/lib/measure.sh"

printf '%-14s %10s %10s %10s %10s %8s %8s\n' case "sonde s" "perf s" "sonde MB" "perf MB" "time x" "RSS x"
for spec in "latency|latency" "timehist|timehist" "timehist -w -M|timehist -w -M" "timehist -s|timehist -s" "map|map"; do
    IFS='|' read -r name args <<<"$spec"
    key=${name// /_}
    for ((r = 0; r < RUNS; r++)); do
        # shellcheck disable=SC2086
        time_rss "$key.sonde" "$SONDE" sched $args -i "$data"
        # shellcheck disable=SC2086
        time_rss "$key.perf" "$PERF" sched $args -i "$data"
    done
    st=$(median_field "$tmp/$key.sonde" 1) sm=$(median_field "$tmp/$key.sonde" 2)
    pt=$(median_field "$tmp/$key.perf" 1) pm=$(median_field "$tmp/$key.perf" 2)
    printf '%-14s %10.2f %10.2f %10.0f %10.0f %8s %8s\n' "$name" "$st" "$pt" "$(echo "$sm / 1024" | bc -l)" \
        "$(echo "$pm / 1024" | bc -l)" "$(echo "$pt / $st" | bc -l | xargs printf '%.1f')" \
        "$(echo "$pm / $sm" | bc -l | xargs printf '%.2f')"
done
echo "events: $n sched samples in $data"
