#!/usr/bin/env bash
# Issue 18's census: the long options `perf CMD -h` lists that `sonde CMD --help` does not.
#   scripts/option_census.sh [build/sonde] [record report script stat ...]
set -euo pipefail
sonde=${1:-build/sonde}
shift || true
commands=${*:-record report script stat}
for command in $commands; do
  perf_options=$( (perf "$command" -h 2>&1 || true) | grep -oE -- '--[a-z0-9][a-z0-9-]*' | sort -u)
  sonde_options=$( ("$sonde" "$command" --help 2>&1 || true) | grep -oE -- '--[a-z0-9][a-z0-9-]*' | sort -u)
  missing=$(comm -23 <(echo "$perf_options") <(echo "$sonde_options"))
  echo "$command: $(echo "$perf_options" | wc -l) perf options, $(echo "$missing" | grep -c . || true) missing:" $missing
done
