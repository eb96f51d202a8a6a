#!/usr/bin/env bash
# trace_overhead: what tracing every system call costs the traced program, sonde against
# perf trace and strace (issue 14).
# Workload: dd if=/dev/zero of=/dev/null bs=512 count=N (N=50000 by default: 2N read/write
# calls; perf trace and strace take 100x and more, so N stays small), timed alone and under: sonde trace -s, sonde trace -c, sonde trace -o FILE (every call
# with its arguments), perf trace -s, strace -c, strace -f -o FILE. Each tool also runs `true`
# for its fixed cost. Runs are interleaved round by round (3 rounds, medians); wall time from
# bash's $EPOCHREALTIME. Reported: fixed cost, total, total/dd-alone, and the ns each tool adds
# per syscall ((total - fixed - dd) / 2N). The lost-event count of sonde's full trace (its
# "LOST n events!" line) and the number of lines it wrote are printed: both must be exact. A last
# run traces dd count=1000000 to a file alone (sonde only) and reports its lines, lost events and
# time against dd alone.
# "hooks only" is sonde stat counting every syscall with one BPF program on sys_enter and one on
# sys_exit: what any in-kernel tracer pays on this machine before doing anything (enabling the
# syscall tracepoints sends every call through the kernel's slow path), the floor for -s and -c.
# Targets: sonde -s and -c at most 1.3x dd alone, the full trace at most 2x, no lost events at
# N = 1,000,000, fixed cost under 50 ms.
# Usage: bench/trace_overhead.sh SONDE [N]
set -u
(($# >= 1 && $# <= 2)) || { echo "usage: trace_overhead.sh SONDE [N]"; exit 2; }
SONDE=$1 N=${2:-50000}
[[ -x $SONDE ]] || { echo "trace_overhead: sonde binary '$SONDE' not found or not executable"; exit 2; }
[[ $N =~ ^[1-9][0-9]*$ ]] || { echo "trace_overhead: N must be a positive integer, got '$N'"; exit 2; }
PERF=$(command -v perf) || { echo "trace_overhead: perf not found; peer absent, skipping"; exit 0; }
STRACE=$(command -v strace) || { echo "trace_overhead: strace not found; peer absent, skipping"; exit 0; }

tmp=$(mktemp -d /tmp/bench_trace.XXXXXX); trap 'rm -rf "$tmp"' EXIT
DD=(dd if=/dev/zero of=/dev/null bs=512 count="$N")

# run NAME CMD...: time one run of CMD, append seconds to $tmp/NAME.t
run() {
    local name=$1; shift
    local t0=$EPOCHREALTIME; "$@" >"$tmp/$name.out" 2>&1; local rc=$? t1=$EPOCHREALTIME
    ((rc == 0)) || echo "warning: $name exited $rc: $(tail -n1 "$tmp/$name.out")" >&2
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", b - a }' >>"$tmp/$name.t"
}
median() { sort -g "$tmp/$1.t" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2 }'; }

tools=(hooks sonde_s sonde_c sonde_full perf_s strace_c strace_full)
declare -A label=([hooks]="hooks only (see above)" [sonde_s]="sonde trace -s" [sonde_c]="sonde trace -c" [sonde_full]="sonde trace -o FILE"
                  [perf_s]="perf trace -s" [strace_c]="strace -c" [strace_full]="strace -f -o FILE")
cmd() {  # cmd TOOL: the tool's command prefix
    case $1 in
        hooks) echo "$SONDE stat -e syscalls:sys_enter_* -e syscalls:sys_exit_* --" ;;
        sonde_s) echo "$SONDE trace -s --" ;;
        sonde_c) echo "$SONDE trace -c --" ;;
        sonde_full) echo "$SONDE trace -o $tmp/sonde.trace --" ;;
        perf_s) echo "$PERF trace -s --" ;;
        strace_c) echo "$STRACE -c -f --" ;;
        strace_full) echo "$STRACE -f -o $tmp/strace.trace --" ;;
    esac
}
for ((r = 1; r <= 3; r++)); do
    echo "round $r/3" >&2
    run dd "${DD[@]}"
    for t in "${tools[@]}"; do
        read -ra prefix <<<"$(cmd "$t")"
        run "${t}_true" "${prefix[@]}" true
        run "${t}_dd" "${prefix[@]}" "${DD[@]}"
    done
done

dd_s=$(median dd)
echo "dd bs=512 count=$N ($((2 * N)) syscalls), medians of 3; seconds"
printf "%-22s %9s %9s %9s %12s\n" tool fixed_s total_s total/dd ns/syscall
printf "%-22s %9s %9.3f %9.2f %12s\n" "dd alone" - "$dd_s" 1 -
for t in "${tools[@]}"; do
    f=$(median "${t}_true") s=$(median "${t}_dd")
    awk -v n="${label[$t]}" -v f="$f" -v s="$s" -v d="$dd_s" -v c="$((2 * N))" \
        'BEGIN { printf "%-22s %9.3f %9.3f %9.2f %12.0f\n", n, f, s, s / d, (s - f - d) * 1e9 / c }'
done
lines=$(grep -c ' = ' "$tmp/sonde.trace" 2>/dev/null || echo 0)
lost=$(sed -n 's/^LOST \([0-9]*\) events!$/\1/p' "$tmp/sonde.trace" | tail -n1)
echo "sonde trace -o: last run wrote $lines call lines, lost ${lost:-0} events"

big=1000000
t0=$EPOCHREALTIME; dd if=/dev/zero of=/dev/null bs=512 count=$big 2>/dev/null; t1=$EPOCHREALTIME
"$SONDE" trace -o "$tmp/big.trace" -- dd if=/dev/zero of=/dev/null bs=512 count=$big 2>/dev/null; t2=$EPOCHREALTIME
lines=$(grep -c ' = ' "$tmp/big.trace")
lost=$(sed -n 's/^LOST \([0-9]*\) events!$/\1/p' "$tmp/big.trace" | tail -n1)
awk -v a="$t0" -v b="$t1" -v c="$t2" -v l="$lines" -v n="${lost:-0}" -v big=$big \
    'BEGIN { printf "dd count=%d: alone %.3f s, sonde trace -o %.3f s (%.2fx), %d call lines, lost %d events\n", big, b - a, c - b, (c - b) / (b - a), l, n }'
