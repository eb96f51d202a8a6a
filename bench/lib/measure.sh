# shellcheck shell=bash
# Sourced by the benchmarks that time short commands (stat_startup, fixed_costs); not a
# benchmark itself. The caller sets $tmp, a scratch directory.

# wall_ms CMD...: runs CMD once (output discarded), prints the elapsed milliseconds, from bash's
# $EPOCHREALTIME around the bare command (no wrapper process).
wall_ms() {
    local t0=$EPOCHREALTIME; "$@" >/dev/null 2>&1; local t1=$EPOCHREALTIME
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", (b - a) * 1000 }'
}
# rss_kb CMD...: runs CMD once, prints its peak RSS in KB (GNU time's %M: the largest of the
# process and its waited children, which is the tool itself for these commands).
rss_kb() { /usr/bin/time -f '%M' -o "$tmp/rss" "$@" >/dev/null 2>&1; tail -n1 "$tmp/rss"; }
# median FILE: the median of the numbers in FILE, one a line.
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2 }'; }
# timed_run KEY CMD...: runs CMD once, its output kept in $tmp/KEY.out, and appends its wall
# seconds to $tmp/KEY.t (a failure is said on stderr and still timed).
timed_run() {
    local key=$1; shift
    local t0=$EPOCHREALTIME; "$@" >"$tmp/$key.out" 2>&1; local rc=$? t1=$EPOCHREALTIME
    ((rc == 0)) || echo "warning: $key exited $rc: $(tail -n1 "$tmp/$key.out")" >&2
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", b - a }' >>"$tmp/$key.t"
}
# time_rss KEY CMD...: runs CMD once (output discarded) under GNU time; appends "seconds rss_kb"
# to $tmp/KEY (a failure is said on stdout and still measured). For the speed benchmarks.
time_rss() {
    local key=$1; shift
    /usr/bin/time -f "%e %M" -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" ||
        { echo "warning: '$*' failed:"; head -3 "$tmp/err"; }
    tail -1 "$tmp/time" >>"$tmp/$key"
}
# median_field FILE FIELD: the median of FILE's column FIELD.
median_field() { awk -v f="$2" '{ print $f }' "$1" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2 }'; }
