#!/usr/bin/env bash
# annotate_speed: sonde annotate --stdio against perf annotate --stdio on the same recordings, in
# the same run. Three profiles: a large generated C++ binary (bench/lib/big_binary.sh, shared
# with probe_speed: thousands of functions with inlining, ~20 MB with -g), sort(1) (libc, its
# DWARF from libc6-dbg) and a Python workload (the interpreter and libc). For each: the hottest
# 20 symbols annotated one at a time (one command per symbol, as a user reads them), and the
# whole profile in one command. perf runs objdump once per symbol; sonde disassembles in process.
# Prints each tool's median wall time, the ratio, and whether the two annotated the same symbols
# with the same sample counts. Target (issue 16): at least 10x.
# Usage: bench/annotate_speed.sh [SONDE]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
SONDE=${1:-$here/../build/sonde}
RUNS=${RUNS:-3}
FUNCTIONS=${FUNCTIONS:-3000}
PERF=$(command -v perf) || { echo "annotate_speed: perf not found; peer absent, skipping"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=bench/lib/measure.sh
source "$here/lib/measure.sh"
# shellcheck source=bench/lib/big_binary.sh
source "$here/lib/big_binary.sh"

echo "building a C++ binary of $FUNCTIONS functions and recording three profiles..."
make_big_binary "$tmp/big" "$FUNCTIONS" || { echo "annotate_speed: building the C++ binary failed"; exit 1; }
"$PERF" record -q -g -o "$tmp/big.data" -F 10000 -- "$tmp/big" 10000000 >/dev/null 2>&1
seq 1 400000 | shuf --random-source=<(yes) >"$tmp/numbers"
"$PERF" record -q -g -o "$tmp/sort.data" -F 4000 -- sort -n "$tmp/numbers" -o /dev/null >/dev/null 2>&1
"$PERF" record -q -g -o "$tmp/python.data" -F 4000 -- python3 -c "
import json, re, zlib
d = [{'a': i, 'b': str(i) * 5} for i in range(150000)]
s = json.dumps(d); json.loads(s); zlib.compress(s.encode()); re.findall(r'\d+', s)
" >/dev/null 2>&1
echo "  big: $(du -h "$tmp/big" | cut -f1) binary, $(du -h "$tmp/big.data" | cut -f1) recording"

# hottest NAME: the 20 user symbols with the most samples, one a line.
hottest() {
    "$SONDE" report -i "$tmp/$1.data" --stdio --no-children --sort sym -g none -q 2>/dev/null |
        awk '$2 == "[.]" && $3 !~ /^0x/ { $1 = ""; $2 = ""; sub(/^ +/, ""); print }' | head -20
}
# one_at_a_time TOOL NAME: annotates each hottest symbol with one command.
one_at_a_time() {
    local tool=$1 name=$2 symbol
    while IFS= read -r symbol; do
        if [[ $tool == sonde ]]; then "$SONDE" annotate -i "$tmp/$name.data" --stdio -s "$symbol"
        else "$PERF" annotate -i "$tmp/$name.data" --stdio -s "$symbol" 2>/dev/null; fi
    done <"$tmp/$name.top"
}

printf "%-22s %8s %10s %10s %8s  %s\n" profile symbols "sonde s" "perf s" speedup "same symbols and counts"
for name in big sort python; do
    hottest "$name" >"$tmp/$name.top"
    for mode in top20 all; do
        key=$name-$mode
        for ((i = 0; i < RUNS; i++)); do
            if [[ $mode == top20 ]]; then
                timed_run "sonde-$key" one_at_a_time sonde "$name"
                timed_run "perf-$key" one_at_a_time perf "$name"
            else
                timed_run "sonde-$key" "$SONDE" annotate -i "$tmp/$name.data" --stdio
                timed_run "perf-$key" "$PERF" annotate -i "$tmp/$name.data" --stdio
            fi
        done
        symbols=$(grep -c 'Percent |' "$tmp/sonde-$key.out" || true)
        same=no
        cmp -s <(grep 'Percent |' "$tmp/sonde-$key.out") <(grep 'Percent |' "$tmp/perf-$key.out") && same=yes
        awk -v n="$name ($mode)" -v c="$symbols" -v s="$(median "$tmp/sonde-$key.t")" \
            -v p="$(median "$tmp/perf-$key.t")" -v same="$same" \
            'BEGIN { printf "%-22s %8d %10.3f %10.3f %7.1fx  %s\n", n, c, s, p, p / s, same }'
    done
done
