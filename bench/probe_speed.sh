#!/usr/bin/env bash
# probe_speed: sonde probe against perf probe in the same run, on libc (its DWARF from libc6-dbg)
# and on a large generated C++ binary (thousands of functions, each inlining helpers):
#   -V (variables at a function), -L (source lines; libc's sources are not installed, so -L is
#   timed on the generated binary only, where both tools read the source), --add with an
#   argument (a real add into uprobe_events, removed again after each run, untimed), and -F.
# On libc perf is given __libc_malloc (it fails on `malloc bytes`, sonde takes the alias).
# Each pair runs RUNS times interleaved; wall time from $EPOCHREALTIME around the bare command,
# peak RSS from GNU time in separate runs; medians. The first sonde run on libc inflates its
# compressed debug file into ~/.cache/sonde (timed separately as "first use").
# Targets (issue 13): at least 5x faster than perf on each, and --add on libc under 50 ms; -F
# (marked *) is shown for information.
# Usage: bench/probe_speed.sh SONDE
set -u
(($# == 1)) || { echo "usage: probe_speed.sh SONDE"; exit 2; }
SONDE=$1
RUNS=${RUNS:-11}
FUNCTIONS=${FUNCTIONS:-3000}
[[ -x $SONDE ]] || { echo "probe_speed: sonde binary '$SONDE' not found or not executable"; exit 2; }
PERF=$(command -v perf) || { echo "probe_speed: perf not found; peer absent, skipping"; exit 0; }
[[ -x /usr/bin/time ]] || { echo "probe_speed: GNU time (/usr/bin/time) not found"; exit 2; }
[[ -w /sys/kernel/tracing/uprobe_events || $(id -u) == 0 ]] || { echo "probe_speed: needs root (uprobe_events)"; exit 2; }
LIBC=/lib/x86_64-linux-gnu/libc.so.6

tmp=$(mktemp -d /tmp/bench_probe.XXXXXX)
cleanup() {
    "$SONDE" probe -q -d 'probe_libc:*' 2>/dev/null; "$SONDE" probe -q -d 'probe_big:*' 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

# shellcheck source=bench/lib/measure.sh
source "$(dirname "$0")/lib/measure.sh"

# compare NAME [--after CMD] -- SONDE_CMD... -- PEER_CMD...: medians of RUNS interleaved runs;
# --after runs CMD (untimed) after each timed command (to remove what an add made). A name
# ending in "*" is shown without a verdict (not one of the issue's targets).
compare() {
    local name=$1 after=""; shift
    if [[ $1 == --after ]]; then after=$2; shift 2; fi
    shift
    local ours=() theirs=()
    while (($#)) && [[ $1 != -- ]]; do ours+=("$1"); shift; done
    shift; theirs=("$@")
    rm -f "$tmp"/{s,p}.{ms,kb}
    for ((i = 0; i < RUNS; i++)); do
        wall_ms "${ours[@]}" >>"$tmp/s.ms"; [[ -n $after ]] && eval "$after"
        wall_ms "${theirs[@]}" >>"$tmp/p.ms"; [[ -n $after ]] && eval "$after"
        rss_kb "${ours[@]}" >>"$tmp/s.kb"; [[ -n $after ]] && eval "$after"
        rss_kb "${theirs[@]}" >>"$tmp/p.kb"; [[ -n $after ]] && eval "$after"
    done
    awk -v name="$name" -v sm="$(median "$tmp/s.ms")" -v pm="$(median "$tmp/p.ms")" \
        -v sk="$(median "$tmp/s.kb")" -v pk="$(median "$tmp/p.kb")" 'BEGIN {
        ok = (name ~ /\*$/) ? "" : (pm / sm >= 5) ? "PASS" : "MISS"
        printf "%-36s %9.1f %9.1f %7.1fx %8.1f %8.1f  %s\n", name, sm, pm, pm / sm, sk / 1024, pk / 1024, ok
    }'
}

echo "generating and building a C++ binary of $FUNCTIONS functions..."
# shellcheck source=bench/lib/big_binary.sh
source "$(dirname "$0")/lib/big_binary.sh"
make_big_binary "$tmp/big" "$FUNCTIONS" || { echo "probe_speed: building the C++ binary failed"; exit 1; }
BIG=$tmp/big
echo "  $(stat -c %s "$BIG" | awk '{ printf "%.1f MB", $1 / 1048576 }'), $(nm "$BIG" | grep -c ' T ') functions"

"$SONDE" probe -q -d 'probe_libc:*' 2>/dev/null; "$PERF" probe -q -d 'probe_libc:*' 2>/dev/null
rm -f "${XDG_CACHE_HOME:-$HOME/.cache}"/sonde/debug/*.debug
echo "first use on libc (inflates the debug file): $(wall_ms "$SONDE" probe -x $LIBC -V malloc) ms"

printf "%-36s %9s %9s %8s %8s %8s\n" "" "sonde ms" "perf ms" "speedup" "sonde MB" "perf MB"
compare "libc -V malloc" -- "$SONDE" probe -x $LIBC -V malloc -- "$PERF" probe -x $LIBC -V malloc
compare "libc --add 'malloc bytes'" --after "\"$SONDE\" probe -q -d 'probe_libc:*'" \
    -- "$SONDE" probe -q -x $LIBC -a 'malloc bytes' -- "$PERF" probe -q -x $LIBC -a '__libc_malloc bytes'
compare "libc -n 'malloc bytes' (dry run)" -- "$SONDE" probe -q -n -x $LIBC 'malloc bytes' \
    -- "$PERF" probe -q -n -x $LIBC '__libc_malloc bytes'
compare "libc -F *" -- "$SONDE" probe -x $LIBC -F -- "$PERF" probe -x $LIBC -F
mid=$((FUNCTIONS / 2))
compare "c++ -V work_$mid" -- "$SONDE" probe -x "$BIG" -V work_$mid -- "$PERF" probe -x "$BIG" -V work_$mid
compare "c++ -L work_$mid" -- "$SONDE" probe -x "$BIG" -L work_$mid -- "$PERF" probe -x "$BIG" -L work_$mid
compare "c++ --add 'work_$mid seed it->key'" --after "\"$SONDE\" probe -q -d 'probe_big:*'" \
    -- "$SONDE" probe -q -x "$BIG" -a "work_$mid seed it->key" -- "$PERF" probe -q -x "$BIG" -a "work_$mid seed it->key"
compare "c++ -V helper_3 (inline sites)" -- "$SONDE" probe -x "$BIG" -V helper_3 -- "$PERF" probe -x "$BIG" -V helper_3
compare "c++ -F *" -- "$SONDE" probe -x "$BIG" -F -- "$PERF" probe -x "$BIG" -F
