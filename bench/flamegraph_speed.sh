#!/usr/bin/env bash
# flamegraph_speed: sonde against Brendan Gregg's FlameGraph scripts, in the same run.
#   1. folded stacks -> SVG:      sonde flamegraph  vs  flamegraph.pl            (target: >= 20x)
#   2. perf script text -> SVG:   sonde flamegraph  vs  stackcollapse-perf.pl | flamegraph.pl
#   3. perf.data -> SVG:          sonde flamegraph  vs  perf script | stackcollapse-perf.pl | flamegraph.pl
#                                                                                 (target: >= 50x)
# Prints wall and CPU times (best of RUNS), the ratios, SVG sizes, and checks that sonde's folded output
# is byte-identical to stackcollapse-perf.pl's on the big input.
# The input is a synthetic perf script text (deep call paths, 24-48 frames through ~100 functions,
# drawn with a skew from 40,000 paths; a fifth of the samples with a kernel stack on top),
# generated once into $CACHE (outside the repository) and reused.
# Usage: bench/flamegraph_speed.sh SONDE [FLAMEGRAPH_DIR]   (or FLAMEGRAPH_DIR in the environment)
# The bench fetches nothing: without the FlameGraph scripts it says so and skips.
set -u
(($# >= 1 && $# <= 2)) || { echo "usage: flamegraph_speed.sh SONDE [FLAMEGRAPH_DIR]"; exit 2; }
SONDE=$1
FG=${2:-${FLAMEGRAPH_DIR:-}}
SAMPLES=${SAMPLES:-300000}
RUNS=${RUNS:-3}
CACHE=${CACHE:-/var/tmp/sonde-bench/flamegraph}
[[ -x $SONDE ]] || { echo "flamegraph_speed: sonde binary '$SONDE' not found"; exit 2; }
if [[ -z $FG || ! -f $FG/flamegraph.pl || ! -f $FG/stackcollapse-perf.pl ]]; then
    echo "flamegraph_speed: FlameGraph scripts not given (flamegraph_speed.sh SONDE FLAMEGRAPH_DIR, or"
    echo "  FLAMEGRAPH_DIR=... make bench; a checkout of github.com/brendangregg/FlameGraph); skipping"
    exit 0
fi
[[ -x /usr/bin/time ]] || { echo "flamegraph_speed: GNU time (/usr/bin/time) not found"; exit 2; }
command -v perl >/dev/null || { echo "flamegraph_speed: perl not found; peer cannot run, skipping"; exit 0; }
mkdir -p "$CACHE"
script_txt=$CACHE/script-v2-$SAMPLES.txt
if [[ ! -s $script_txt ]]; then
    echo "generating $SAMPLES synthetic samples into $script_txt (once)"
    awk -v samples="$SAMPLES" 'BEGIN {
        srand(42)
        for (f = 0; f < 100; f++) name[f] = sprintf("func_%02d_%s", f, substr("abcdefghijklmnopqrstuvwxyz", f % 26 + 1, 5))
        for (f = 0; f < 12; f++) kname[f] = sprintf("kernel_path_%02d", f)
        t = 1000.0
        paths = 40000
        for (s = 0; s < samples; s++) {
            tid = 4000 + int(rand() * 4)
            # A skewed choice among PATHS call paths (a few hot, a long tail), each path the same
            # every time it is drawn: its frames come from an LCG seeded by the path number.
            path = int(paths * rand() ^ 3)
            seed = path * 2654435761 % 4294967296
            depth = 24 + seed % 25
            f = seed % 3
            for (d = 0; d < depth; d++) {
                stack[d] = f
                seed = (seed * 1103515245 + 12345) % 2147483648
                f = (f * 7 + 1 + (d > 8 ? int(seed / 65536) % 3 : 0)) % 100
            }
            t += 0.000251
            printf "bench %d [%03d] %.6f:     250000 cpu-clock:pppH: \n", tid, tid % 2, t
            if (rand() < 0.2) {
                kd = 3 + path % 5
                for (k = kd - 1; k >= 0; k--) printf "\tffffffff81%06x %s+0x%x ([kernel.kallsyms])\n", k * 4096 + 17, kname[(k * 5 + path % 3) % 12], 16 + k
            }
            for (d = depth - 1; d >= 0; d--) printf "\t%16x %s+0x%x (/usr/bin/bench)\n", 4096 + stack[d] * 256 + d, name[stack[d]], 16 + d
            printf "\t%16x __libc_start_call_main+0x7a (/usr/lib/x86_64-linux-gnu/libc.so.6)\n\n", 160330
        }
    }' >"$script_txt.tmp" && mv "$script_txt.tmp" "$script_txt"
fi
tmp=$(mktemp -d /tmp/bench_flamegraph.XXXXXX); trap 'rm -rf "$tmp"' EXIT

# Wall time and CPU time (user + sys, from GNU time): this machine is often shared, and the CPU
# figure is the one a busy neighbour disturbs least. Sets WALL and CPU to the best of RUNS runs.
best_s() {  # best_s CMD...: stdout to /dev/null
    WALL=""; CPU=""
    for ((i = 0; i < RUNS; i++)); do
        /usr/bin/time -f '%e %U %S' -o "$tmp/time" "$@" >/dev/null 2>&1
        read -r w u s <"$tmp/time"
        WALL=$(awk -v t="$w" -v b="$WALL" 'BEGIN { if (b == "" || t < b) b = t; printf "%.2f", b }')
        CPU=$(awk -v u="$u" -v s="$s" -v b="$CPU" 'BEGIN { t = u + s; if (b == "" || t < b) b = t; printf "%.2f", b }')
    done
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (a > 0 ? b / a : 0) }'; }
size() { stat -c %s "$1"; }

echo "input: $SAMPLES samples, $(size "$script_txt") bytes of perf script text"
"$SONDE" collapse "$script_txt" >"$tmp/sonde.folded"
perl "$FG/stackcollapse-perf.pl" "$script_txt" >"$tmp/perl.folded" 2>/dev/null
if cmp -s "$tmp/sonde.folded" "$tmp/perl.folded"; then same="byte-identical"; else same="DIFFERENT"; fi
echo "folded: $(wc -l <"$tmp/sonde.folded") unique stacks; sonde collapse vs stackcollapse-perf.pl: $same"

verdict() { awk -v r="$1" -v t="$2" 'BEGIN { print (r >= t ? "PASS" : "MISS") " (target >= " t "x)" }'; }
printf '%-26s %18s %18s %15s %13s %13s\n' "" "sonde wall/cpu s" "peer wall/cpu s" "ratio wall/cpu" "sonde SVG B" "peer SVG B"

# 1. folded -> SVG
best_s "$SONDE" flamegraph "$tmp/sonde.folded" -o "$tmp/sonde1.svg"; sw=$WALL; sc=$CPU
best_s sh -c "perl '$FG/flamegraph.pl' '$tmp/perl.folded' > '$tmp/perl1.svg'"; pw=$WALL; pc=$CPU
rw=$(ratio "$sw" "$pw"); rc=$(ratio "$sc" "$pc")
printf '%-26s %18s %18s %15s %13s %13s   %s\n' "folded -> SVG" "$sw / $sc" "$pw / $pc" "${rw}x / ${rc}x" \
    "$(size "$tmp/sonde1.svg")" "$(size "$tmp/perl1.svg")" "$(verdict "$rc" 20)"

# 2. perf script text -> SVG
best_s "$SONDE" flamegraph "$script_txt" -o "$tmp/sonde2.svg"; sw=$WALL; sc=$CPU
best_s sh -c "perl '$FG/stackcollapse-perf.pl' '$script_txt' | perl '$FG/flamegraph.pl' > '$tmp/perl2.svg'"; pw=$WALL; pc=$CPU
printf '%-26s %18s %18s %15s %13s %13s\n' "perf script text -> SVG" "$sw / $sc" "$pw / $pc" \
    "$(ratio "$sw" "$pw")x / $(ratio "$sc" "$pc")x" "$(size "$tmp/sonde2.svg")" "$(size "$tmp/perl2.svg")"

# 3. perf.data -> SVG, end to end: `sonde flamegraph FILE` against
#    `perf script -i FILE | stackcollapse-perf.pl | flamegraph.pl` (target >= 50x), on the 1M-sample
#    deep-stack recordings report_speed uses (bench/lib/deep_stacks_data.sh records them once into
#    PERFDATA_CACHE). The peer takes minutes per run: E2E_RUNS (default 1) runs of each, for the
#    modes in E2E_MODES (default "hot"; "hot unique" adds the nearly-all-distinct stacks, where
#    flamegraph.pl alone needs many minutes and over 8 GB).
PERFDATA_CACHE=${PERFDATA_CACHE:-$(dirname "$CACHE")}
WORKLOAD=${WORKLOAD:-$(dirname "$SONDE")/workloads/deep_stacks}
# shellcheck source=bench/lib/deep_stacks_data.sh
source "$(dirname "$0")/lib/deep_stacks_data.sh"
PERF=$(command -v perf) || { echo "perf.data -> SVG: perf not found; peer absent, skipped"; exit 0; }
RUNS=${E2E_RUNS:-1}
for mode in ${E2E_MODES:-hot}; do
    deep_stacks_data "$mode" "$PERFDATA_CACHE" "$WORKLOAD" "$PERF" || { echo "perf.data ($mode) -> SVG: skipped"; continue; }
    data=$PERFDATA_CACHE/$mode.data
    best_s "$SONDE" flamegraph "$data" -o "$tmp/sonde3.svg"; sw=$WALL; sc=$CPU
    best_s sh -c "'$PERF' script -i '$data' 2>/dev/null | perl '$FG/stackcollapse-perf.pl' | tee '$tmp/perl3.folded' |
                  perl '$FG/flamegraph.pl' > '$tmp/perl3.svg'"; pw=$WALL; pc=$CPU
    rc=$(ratio "$sc" "$pc")
    printf '%-26s %18s %18s %15s %13s %13s   %s\n' "perf.data ($mode) -> SVG" "$sw / $sc" "$pw / $pc" \
        "$(ratio "$sw" "$pw")x / ${rc}x" "$(size "$tmp/sonde3.svg")" "$(size "$tmp/perl3.svg")" "$(verdict "$rc" 50)"
    "$SONDE" collapse "$data" >"$tmp/sonde3.folded" 2>/dev/null
    if cmp -s "$tmp/sonde3.folded" "$tmp/perl3.folded"; then same="byte-identical"; else
        same="DIFFERENT in $(diff "$tmp/sonde3.folded" "$tmp/perl3.folded" | grep -c '^[<>]') lines"; fi
    echo "  $(deep_stacks_samples "$data") samples, $(wc -l <"$tmp/perl3.folded") unique stacks;" \
        "sonde collapse vs perf script | stackcollapse-perf.pl: $same"
done
