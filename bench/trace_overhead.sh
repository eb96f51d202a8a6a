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
    timed_run dd "${DD[@]}"
    for t in "${tools[@]}"; do
        read -ra prefix <<<"$(cmd "$t")"
        timed_run "${t}_true" "${prefix[@]}" true
        timed_run "${t}_dd" "${prefix[@]}" "${DD[@]}"
    done
done

dd_s=$(median "$tmp/dd.t")
echo "dd bs=512 count=$N ($((2 * N)) syscalls), medians of 3; seconds"
printf "%-22s %9s %9s %9s %12s\n" tool fixed_s total_s total/dd ns/syscall
printf "%-22s %9s %9.3f %9.2f %12s\n" "dd alone" - "$dd_s" 1 -
for t in "${tools[@]}"; do
    f=$(median "$tmp/${t}_true.t") s=$(median "$tmp/${t}_dd.t")
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
