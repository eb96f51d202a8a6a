#!/usr/bin/env bash
# Fails when a C++ file under src/, tests/ or bench/ differs from what clang-format makes of it
# (the checked-in .clang-format). The workloads are left alone: tests assert their line numbers.
# With --fix, reformats those files in place instead.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(find src tests bench -name '*.cpp' -o -name '*.hpp' | grep -v '^tests/workloads/' | sort)
if [ "${1:-}" = "--fix" ]; then
  clang-format -i "${files[@]}"
  exit 0
fi
if ! clang-format --dry-run --Werror "${files[@]}" 2>/tmp/sonde-format.$$; then
  grep -E '^[^ ].*: (error|warning):' /tmp/sonde-format.$$ | cut -d: -f1 | sort -u | sed 's/^/not formatted: /'
  rm -f /tmp/sonde-format.$$
  echo "run scripts/check_format.sh --fix (clang-format -i with the checked-in .clang-format)"
  exit 1
fi
rm -f /tmp/sonde-format.$$
