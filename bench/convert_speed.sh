#!/usr/bin/env bash
# convert_speed: sonde data convert against perf data convert (issue 17), on a small profile
# (about a second of the demo workload) and on the 1M-sample deep-stack profile report_speed
# uses (bench/lib/deep_stacks_data.sh records it once into CACHE, default /var/tmp/sonde-bench).
# Formats: --to-json (perf's layout; both write the same bytes, checked here with cmp), --to-ctf
# (babeltrace2's text of both compared, for a deep profile a few minutes of babeltrace2), and
# --to-pprof, --to-speedscope, --to-chrome and --to-firefox (sonde's alone: perf 6.1 has no
# converter to them; newer perf's `script report gecko` is a Python script), and report --html
# (written, then opened in headless Chromium: target under 20 MB and 3 s for 1M samples).
# Each case runs RUNS times (default 1; medians), sonde first then perf, each writing into
# OUTDIR (removed after each run: a deep JSON is ~3 GB). OUTDIR defaults to a tmpfs
# (/dev/shm/sonde-bench-out) when it has 8 GB free, else /var/tmp/sonde-bench/out: on the
# reference VM the disk takes ~330 MB/s, so on disk a 3 GB JSON's time is the disk's, whoever
# writes it.
# Measured: wall time, peak RSS (/usr/bin/time) and output size; ratio = perf / sonde (above 1:
# sonde is faster / smaller). Target: 10x faster than perf's converter, a 1M-sample file's
# output in under 2 s (a 3 GB JSON is bound by the page-cache copy: see the note printed).
# Usage: bench/convert_speed.sh SONDE [RUNS]
set -u
(($# >= 1 && $# <= 2)) || { echo "usage: convert_speed.sh SONDE [RUNS]"; exit 2; }
SONDE=$1 RUNS=${2:-1}
CACHE=${CACHE:-/var/tmp/sonde-bench}
if [[ -z ${OUTDIR:-} ]]; then
    OUTDIR=$CACHE/out
    shm_free=$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')
    ((${shm_free:-0} > 8 * 1024 * 1024)) && OUTDIR=/dev/shm/sonde-bench-out
fi
WORKLOADS=$(dirname "$SONDE")/workloads
[[ -x $SONDE ]] || { echo "convert_speed: sonde binary '$SONDE' not found or not executable"; exit 2; }
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "convert_speed: RUNS must be a positive integer, got '$RUNS'"; exit 2; }
PERF=$(command -v perf) || { echo "convert_speed: perf not found; peer absent, skipping"; exit 0; }
[[ -x /usr/bin/time ]] || { echo "convert_speed: /usr/bin/time is needed for peak RSS (apt-get install time)"; exit 2; }
mkdir -p "$CACHE" "$OUTDIR" || { echo "convert_speed: cannot create $CACHE"; exit 2; }

tmp=$(mktemp -d /tmp/bench_convert_speed.XXXXXX); trap 'rm -rf "$tmp" "$OUTDIR"/bench-*' EXIT
echo "outputs written to $OUTDIR"
# shellcheck source=bench/lib/deep_stacks_data.sh
source "$(dirname "$0")/lib/deep_stacks_data.sh"

small=$tmp/small.data
"$PERF" record -q -g -F 999 -o "$small" -- "$WORKLOADS/demo" 200000 2 >/dev/null 2>&1 ||
    { echo "convert_speed: perf record of the demo failed"; exit 2; }
inputs=("small|$small")
if deep_stacks_data hot "$CACHE" "$WORKLOADS/deep_stacks" "$PERF"; then inputs+=("deep|$CACHE/hot.data"); fi

# measure KEY OUT CMD...: one run; appends "seconds rss_kb bytes" to $tmp/KEY, keeps OUT for cmp.
measure() {
    local key=$1 out=$2; shift 2
    rm -rf "$out"
    local start end
    start=$(date +%s%N)  # wall time in ns: /usr/bin/time's 10 ms steps are too coarse for small files
    /usr/bin/time -f "%M" -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" ||
        { echo "convert_speed: '$*' failed:"; head -3 "$tmp/err"; }
    end=$(date +%s%N)
    echo "$(echo "($end - $start) / 1000000000" | bc -l) $(tail -1 "$tmp/time") $(du -sb "$out" 2>/dev/null | cut -f1)" >>"$tmp/$key"
}
median() {  # median FILE FIELD
    awk -v f="$2" '{print $f}' "$1" | sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'
}

printf '%-6s %-10s %7s %9s %9s %9s %10s %8s %8s %s\n' input format "sonde s" "perf s" "sonde MB" "perf MB" "output MB" "time x" "RSS x" same
for input in "${inputs[@]}"; do
    IFS='|' read -r name data <<<"$input"
    for format in json ctf; do
        key=$name.$format same=yes
        for ((r = 0; r < RUNS; r++)); do
            measure "$key.sonde" "$OUTDIR/bench-sonde.out" "$SONDE" data convert -i "$data" "--to-$format" "$OUTDIR/bench-sonde.out"
            measure "$key.perf" "$OUTDIR/bench-perf.out" "$PERF" data convert -i "$data" "--to-$format" "$OUTDIR/bench-perf.out"
            if [[ $format == json ]]; then
                cmp -s "$OUTDIR/bench-sonde.out" "$OUTDIR/bench-perf.out" || same=NO
            elif command -v babeltrace2 >/dev/null; then  # CTF: the same events as babeltrace2 prints them
                cmp -s <(babeltrace2 "$OUTDIR/bench-sonde.out" 2>&1) <(babeltrace2 "$OUTDIR/bench-perf.out" 2>&1) || same=NO
            else
                same="?"
            fi
            rm -rf "$OUTDIR"/bench-*.out
        done
        st=$(median "$tmp/$key.sonde" 1) sm=$(median "$tmp/$key.sonde" 2) sb=$(median "$tmp/$key.sonde" 3)
        pt=$(median "$tmp/$key.perf" 1) pm=$(median "$tmp/$key.perf" 2)
        printf '%-6s %-10s %7.3f %9.3f %9.0f %9.0f %10.1f %8.1f %8.2f %s\n' "$name" "$format" "$st" "$pt" \
            "$(echo "$sm / 1024" | bc -l)" "$(echo "$pm / 1024" | bc -l)" "$(echo "$sb / 1048576" | bc -l)" \
            "$(echo "$pt / $st" | bc -l)" "$(echo "$pm / $sm" | bc -l)" "$same"
    done
done
# sonde's own formats: no perf converter to compare with; time, memory and size.
for input in "${inputs[@]}"; do
    IFS='|' read -r name data <<<"$input"
    for format in pprof speedscope chrome firefox; do
        key=$name.$format
        for ((r = 0; r < RUNS; r++)); do
            measure "$key.sonde" "$OUTDIR/bench-sonde.out" "$SONDE" data convert -i "$data" "--to-$format" "$OUTDIR/bench-sonde.out"
            rm -f "$OUTDIR"/bench-sonde.out
        done
        printf '%-6s %-10s %7.3f %9s %9.0f %9s %10.1f\n' "$name" "$format" "$(median "$tmp/$key.sonde" 1)" - \
            "$(echo "$(median "$tmp/$key.sonde" 2) / 1024" | bc -l)" - "$(echo "$(median "$tmp/$key.sonde" 3) / 1048576" | bc -l)"
    done
done
# The HTML report (sonde report --html): written like the formats above, then opened in headless
# Chromium until its views are drawn (wall time, Chromium's own start of ~0.7 s included).
for input in "${inputs[@]}"; do
    IFS='|' read -r name data <<<"$input"
    key=$name.html
    for ((r = 0; r < RUNS; r++)); do
        measure "$key.sonde" "$OUTDIR/bench-sonde.html" "$SONDE" report -i "$data" --html "$OUTDIR/bench-sonde.html"
    done
    printf '%-6s %-10s %7.3f %9s %9.0f %9s %10.1f\n' "$name" html "$(median "$tmp/$key.sonde" 1)" - \
        "$(echo "$(median "$tmp/$key.sonde" 2) / 1024" | bc -l)" - "$(echo "$(median "$tmp/$key.sonde" 3) / 1048576" | bc -l)"
    if command -v chromium >/dev/null; then
        start=$(date +%s%N)
        ready=$(timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/chromium" \
            --virtual-time-budget=60000 --dump-dom "file://$OUTDIR/bench-sonde.html" 2>/dev/null |
            grep -c 'data-ready-ms=')
        end=$(date +%s%N)
        printf '%-6s %-10s %7.3f (views drawn: %s)\n' "$name" "html open" "$(echo "($end - $start) / 1000000000" | bc -l)" \
            "$([[ $ready == 1 ]] && echo yes || echo NO)"
    fi
    rm -f "$OUTDIR"/bench-sonde.html
done
echo "note: sonde formats on one thread and writes on another; on a deep profile the writing"
echo "thread (the kernel copying ~3 GB into the page cache) is the longer of the two."
