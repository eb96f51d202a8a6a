# shellcheck shell=bash
# Sourced by the benchmarks that need a profile of at least 1,000,000 samples with deep
# frame-pointer stacks (report_speed, flamegraph_speed); not a benchmark itself.
# Workload: workloads/deep_stacks (100 functions calling each other 24-48 deep along seeded
# random paths, two threads), recorded with `perf record -g -F 20000` for 26 CPU-seconds per
# thread (about 1.04M samples) in one of two modes:
#   hot    - 8 fixed paths, one taken 60% of the time (few distinct stacks);
#   unique - a fresh random path for every walk (nearly every stack distinct).
# Recordings are cached as CACHE/MODE.data, with the sample count perf printed in
# CACHE/MODE.data.samples, and reused; delete them to record again.

# deep_stacks_samples FILE: the sample count perf record printed when it wrote FILE.
deep_stacks_samples() { cat "$1.samples" 2>/dev/null || echo 0; }

# deep_stacks_data MODE CACHE WORKLOAD PERF: makes CACHE/MODE.data unless already there; says
# why on stdout and returns 1 when it cannot.
deep_stacks_data() {
    local mode=$1 cache=$2 workload=$3 perf=$4 data=$2/$1.data
    if [[ -s $data && $(deep_stacks_samples "$data") -ge 1000000 ]]; then return 0; fi
    [[ -x $workload ]] || { echo "workload '$workload' not found (build target workloads)"; return 1; }
    echo "recording $mode stacks into $data (about a minute of CPU on two threads)..."
    cp "$workload" "$cache/deep_stacks"
    "$perf" record -g -F 20000 -o "$data.tmp" -- "$cache/deep_stacks" "$mode" 26 2 >/dev/null 2>"$data.err" ||
        { echo "perf record failed: $(tail -1 "$data.err")"; rm -f "$data.err"; return 1; }
    local n; n=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$data.err")
    rm -f "$data.err"
    mv "$data.tmp" "$data" && echo "${n:-0}" >"$data.samples"
    ((${n:-0} >= 1000000)) || echo "only ${n:-0} samples in $data (machine busy?); figures still shown"
}
