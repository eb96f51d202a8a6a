#!/bin/bash
# make fuzz's loop: for each target, replay its saved crashes (all must pass), then fuzz a copy of
# its seeds for SECONDS. Exits non-zero at the first find; the input is in BUILD/artifacts/.
#   tests/fuzz/run_fuzz.sh BUILD SECONDS TARGET... (FUZZ_FLAGS in the environment)
set -euo pipefail
build=$1 seconds=$2
shift 2
fuzz_dir=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$fuzz_dir/../.." && pwd)
export LSAN_OPTIONS=suppressions=$fuzz_dir/lsan.supp:print_suppressions=0
mkdir -p "$build/artifacts"

# The seeds of a target: files (globs) or directories, copied into its working corpus.
seeds_of() {
  case $1 in
    perfdata_reader) echo "$fuzz_dir/corpus" ;;
    tracedat_reader) echo "$fuzz_dir/corpus_tracedat" ;;
    script_text) echo "$root/tests/fixtures/collapse/*.txt" ;;
    folded_stacks) echo "$root/tests/fixtures/collapse/*.folded" ;;
    probe_binary) echo "$build/seeds_probe_binary" ;;
    *) echo "$fuzz_dir/corpus_$1" ;;
  esac
}
crashes_of() {
  case $1 in
    perfdata_reader) echo "$fuzz_dir/crashes" ;;
    tracedat_reader) echo "$fuzz_dir/crashes_tracedat" ;;
    *) echo "$fuzz_dir/crashes_$1" ;;
  esac
}

# probe_binary's seeds are binaries built from the test workloads (never checked in): with
# DWARF at -O0 and -O2, SDT notes, C++ and inline functions; each below -max_len=65536 so that
# the section headers at the end of the file stay in.
mkdir -p "$build/seeds_probe_binary"
for source in usdt_markers.c probe_targets.cpp inlined.c; do
  for level in O0 O2; do
    out=$build/seeds_probe_binary/${source%.*}_$level
    [ -f "$out" ] && continue
    case $source in *.cpp) cc=g++ ;; *) cc=gcc ;; esac
    $cc -g -$level -o "$out" "$root/tests/workloads/$source"
  done
done

for target in "$@"; do
  fuzzer=$build/${target}_fuzzer
  corpus=$build/corpus_$target
  mkdir -p "$corpus"
  for seed in $(seeds_of "$target"); do
    if [ -d "$seed" ]; then cp "$seed"/* "$corpus/"; else cp "$seed" "$corpus/"; fi
  done
  crashes=$(crashes_of "$target")
  if [ -d "$crashes" ] && [ -n "$(ls -A "$crashes")" ]; then
    echo "fuzz: $target: replaying $crashes/"
    # shellcheck disable=SC2086
    ASAN_OPTIONS=fast_unwind_on_malloc=0 "$fuzzer" $FUZZ_FLAGS "$crashes"/* > "$build/replay_$target.log" 2>&1 ||
      { cat "$build/replay_$target.log"; echo "fuzz: a saved crash input fails again"; exit 1; }
  fi
  echo "fuzz: $target: $seconds s on $corpus"
  # libdw has no frame pointers: only the slow unwinder sees the libdw function an allocation
  # came from, which lsan.supp's dwarf_getscopes line needs.
  unwind=
  [ "$target" = probe_binary ] && unwind=fast_unwind_on_malloc=0
  # shellcheck disable=SC2086
  ASAN_OPTIONS=$unwind "$fuzzer" $FUZZ_FLAGS -max_total_time="$seconds" "$corpus"
done
