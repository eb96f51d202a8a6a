#!/usr/bin/env bash
# sonde annotate --stdio against perf annotate --stdio on the same recordings, in the same run:
# every symbol of a profile of a Python workload (the interpreter and libc) and of sort(1)
# (libc), as a user annotating a whole profile would. perf runs objdump once per symbol; sonde
# disassembles in process. Prints each tool's median wall time, the ratio, and whether the two
# agree on which symbols they annotate and on their sample counts.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
SONDE=${SONDE:-$here/../build/sonde}
PERF=${PERF:-perf}
RUNS=${RUNS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=lib/measure.sh
source "$here/lib/measure.sh"

"$PERF" record -q -o "$tmp/python.data" -F 4000 -- python3 -c "
import json, re, zlib
d = [{'a': i, 'b': str(i) * 5} for i in range(150000)]
s = json.dumps(d); json.loads(s); zlib.compress(s.encode()); re.findall(r'\d+', s)
" >/dev/null 2>&1
seq 1 400000 | shuf --random-source=<(yes) >"$tmp/numbers"
"$PERF" record -q -o "$tmp/sort.data" -F 4000 -- sort -n "$tmp/numbers" -o /dev/null >/dev/null 2>&1

printf "%-10s %8s %10s %10s %8s  %s\n" profile symbols "sonde s" "perf s" speedup "same symbols and counts"
for name in python sort; do
    data=$tmp/$name.data
    for ((i = 0; i < RUNS; i++)); do
        timed_run "sonde-$name" "$SONDE" annotate -i "$data" --stdio
        timed_run "perf-$name" "$PERF" annotate -i "$data" --stdio
    done
    symbols=$(grep -c 'Percent |' "$tmp/sonde-$name.out" || true)
    same=no
    cmp -s <(grep 'Percent |' "$tmp/sonde-$name.out") <(grep 'Percent |' "$tmp/perf-$name.out") && same=yes
    s=$(median "$tmp/sonde-$name.t") p=$(median "$tmp/perf-$name.t")
    awk -v n="$name" -v c="$symbols" -v s="$s" -v p="$p" -v same="$same" \
        'BEGIN { printf "%-10s %8d %10.3f %10.3f %7.1fx  %s\n", n, c, s, p, p / s, same }'
done
