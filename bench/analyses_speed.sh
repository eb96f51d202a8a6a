#!/usr/bin/env bash
# analyses_speed: sonde's tracepoint analyses against perf's on recordings of at least 1,000,000
# events (issue 21): kmem stat (slab and page allocators), lock contention and lock report.
# Workloads (next to SONDE in the build tree): workloads/syscalls ROUNDS (each round an openat
# that allocates and frees a names_cache object, an mmap and munmap...) recorded per task with
# perf kmem's slab events; workloads/faults 100000 run PAGE_RUNS times (default 10; 100,000 fresh
# pages each) recorded with the page events and callchains; `perf bench sched messaging -g 10
# -l LOCK_LOOPS` (default 17000, about 1,030,000 events: its pipes' wake-ups contend on
# spinlocks) recorded with perf lock record. The recordings are made with perf, cached in CACHE
# (default ~/.cache/sonde-bench) and reused; delete them to record again. Each case runs RUNS
# times (default 1; medians), sonde first then perf, output to /dev/null. Measured: wall time and
# peak RSS (/usr/bin/time); ratio = perf / sonde (above 1: sonde is faster / smaller). Target:
# each >= 10x faster than perf.
# Usage: bench/analyses_speed.sh SONDE [RUNS]
set -u
(($# >= 1 && $# <= 2)) || { echo "usage: analyses_speed.sh SONDE [RUNS]"; exit 2; }
SONDE=$1 RUNS=${2:-1}
CACHE=${CACHE:-$HOME/.cache/sonde-bench}
ROUNDS=${ROUNDS:-200000}
PAGE_RUNS=${PAGE_RUNS:-10}
WORKLOADS=$(dirname "$SONDE")/workloads
[[ -x $SONDE ]] || { echo "analyses_speed: sonde binary '$SONDE' not found or not executable"; exit 2; }
[[ -x $WORKLOADS/syscalls && -x $WORKLOADS/faults ]] ||
    { echo "analyses_speed: workloads not found in $WORKLOADS (build target workloads)"; exit 2; }
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "analyses_speed: RUNS must be a positive integer, got '$RUNS'"; exit 2; }
PERF=$(command -v perf) || { echo "analyses_speed: perf not found; peer absent, skipping"; exit 0; }
[[ -x /usr/bin/time ]] || { echo "analyses_speed: /usr/bin/time is needed for peak RSS (apt-get install time)"; exit 2; }
mkdir -p "$CACHE" || { echo "analyses_speed: cannot create $CACHE"; exit 2; }

tmp=$(mktemp -d /tmp/bench_analyses_speed.XXXXXX); trap 'rm -rf "$tmp"' EXIT
events() { "$PERF" report -i "$1" --stats 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }'; }
# record FILE WHAT PERF-RECORD-ARGS...: records once into the cache.
record() {
    local data=$1 what=$2; shift 2
    if [[ ! -s $data ]]; then
        echo "recording $what into $data ..."
        "$PERF" record -q -o "$data.tmp" "$@" >/dev/null 2>"$tmp/record.err" ||
            { echo "analyses_speed: perf record failed:"; cat "$tmp/record.err"; exit 2; }
        mv "$data.tmp" "$data"
    fi
    local n; n=$(events "$data")
    ((n >= 1000000)) || echo "analyses_speed: warning: only $n events in $data (raise the workload and delete the file)"
    echo "$what: $n samples in $data"
}
slab=$CACHE/kmem-slab-$ROUNDS.data
page=$CACHE/kmem-page-$PAGE_RUNS.data
record "$slab" "kmem slab" -e kmem:kmalloc -e kmem:kfree -e kmem:kmem_cache_alloc -e kmem:kmem_cache_free \
    -- "$WORKLOADS/syscalls" "$ROUNDS"
record "$page" "kmem page" -g -e kmem:mm_page_alloc -e kmem:mm_page_free \
    -- sh -c "for i in \$(seq $PAGE_RUNS); do '$WORKLOADS/faults' 100000; done"
LOCK_LOOPS=${LOCK_LOOPS:-17000}
lock=$CACHE/lock-messaging-$LOCK_LOOPS.data
if [[ ! -s $lock ]]; then
    echo "recording lock contention into $lock ..."
    "$PERF" lock record -o "$lock.tmp" -- "$PERF" bench sched messaging -g 10 -l "$LOCK_LOOPS" >/dev/null 2>"$tmp/record.err" ||
        { echo "analyses_speed: perf lock record failed:"; cat "$tmp/record.err"; exit 2; }
    mv "$lock.tmp" "$lock"
fi
echo "lock: $(events "$lock") samples in $lock"

. "$(dirname "$0")/lib/measure.sh"

printf '%-34s %10s %10s %10s %10s %8s %8s\n' case "sonde s" "perf s" "sonde MB" "perf MB" "time x" "RSS x"
# Each case: its name, then its words (perf kmem and perf lock read their options before the
# subcommand).
for spec in "kmem stat|kmem -i $slab stat" "kmem --caller --alloc stat|kmem -i $slab --caller --alloc stat" \
    "kmem --page stat|kmem -i $page --page stat" \
    "kmem --page --caller --alloc stat|kmem -i $page --page --caller --alloc stat" \
    "lock contention|lock -i $lock contention" "lock report|lock -i $lock report"; do
    IFS='|' read -r name words <<<"$spec"
    key=${name// /_}
    for ((r = 0; r < RUNS; r++)); do
        # shellcheck disable=SC2086
        time_rss "$key.sonde" "$SONDE" $words
        # shellcheck disable=SC2086
        time_rss "$key.perf" "$PERF" $words
    done
    st=$(median_field "$tmp/$key.sonde" 1) sm=$(median_field "$tmp/$key.sonde" 2)
    pt=$(median_field "$tmp/$key.perf" 1) pm=$(median_field "$tmp/$key.perf" 2)
    printf '%-34s %10.2f %10.2f %10.0f %10.0f %8s %8s\n' "$name" "$st" "$pt" "$(echo "$sm / 1024" | bc -l)" \
        "$(echo "$pm / 1024" | bc -l)" "$(echo "$pt / $st" | bc -l | xargs printf '%.1f')" \
        "$(echo "$pm / $sm" | bc -l | xargs printf '%.2f')"
done
