#!/usr/bin/env bash
# make demo: profile the bundled demo workload with what sonde can do so far.
set -euo pipefail
build=${1:-build}
sonde="$build/sonde"
demo="$build/workloads/demo"
for f in "$sonde" "$demo"; do
  [ -x "$f" ] || { echo "demo: $f is missing; run 'make build' first" >&2; exit 1; }
done
if [ "$(id -u)" != 0 ]; then
  echo "demo: sonde needs root for tracepoints and system-wide counting; run 'sudo make demo'" >&2
  exit 1
fi

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }

step sonde stat -- "$demo" 200000 10
"$sonde" stat -- "$demo" 200000 10 >/dev/null

step sonde stat -e "'syscalls:sys_enter_*'" -- "$demo" 200000 10 "(non-zero lines)"
start=$(date +%s%N)
"$sonde" stat -e 'syscalls:sys_enter_*' -- "$demo" 200000 10 2>&1 >/dev/null |
  awk '$1 ~ /^[0-9]+$/ && $1 > 0 || /Performance|elapsed/'
end=$(date +%s%N)
printf '(all %s syscall tracepoints counted in the kernel; %d ms in total)\n' \
  "$("$sonde" list 'syscalls:sys_enter_*' | wc -l)" $(((end - start) / 1000000))

step sonde stat -I 250 -e task-clock,syscalls:sys_enter_write -- "$demo" 400000 4
"$sonde" stat -I 250 -e task-clock,syscalls:sys_enter_write -- "$demo" 400000 4 >/dev/null

step sonde record -g -o /tmp/sonde-demo.data -- "$demo" 400000 10
"$sonde" record -g -o /tmp/sonde-demo.data -- "$demo" 400000 10 >/dev/null
step sonde report -i /tmp/sonde-demo.data --no-children "(the top, with its call graph)"
"$sonde" report -i /tmp/sonde-demo.data --no-children >/tmp/sonde-demo-report.txt
# sed, not head: head would close the pipe early and fail the demo under pipefail.
grep -v '^#' /tmp/sonde-demo-report.txt | grep -v '^$' | sed -n '1,20p'

step sonde script -i /tmp/sonde-demo.data "(the first sample)"
"$sonde" script -i /tmp/sonde-demo.data >/tmp/sonde-demo-script.txt
awk 'NF == 0 { done = 1 } !done { print }' /tmp/sonde-demo-script.txt

if command -v perf >/dev/null; then
  step perf report -i /tmp/sonde-demo.data --stdio --no-children "(sonde's file, read by perf 6.1)"
  perf report -i /tmp/sonde-demo.data --stdio --no-children >/tmp/sonde-demo-perf-report.txt 2>&1 || true
  grep -v '^#' /tmp/sonde-demo-perf-report.txt | grep -v '^$' | sed -n '1,8p'
fi

step sonde flamegraph /tmp/sonde-demo.data -o /tmp/sonde-demo.svg
"$sonde" flamegraph /tmp/sonde-demo.data -o /tmp/sonde-demo.svg
"$sonde" flamegraph /tmp/sonde-demo.data -o /tmp/sonde-demo.html

step sonde report -i /tmp/sonde-demo.data --html /tmp/sonde-demo-report.html
"$sonde" report -i /tmp/sonde-demo.data --html /tmp/sonde-demo-report.html 2>/dev/null
printf '\nflame graph written to /tmp/sonde-demo.svg and /tmp/sonde-demo.html, the whole report (call\n'
printf 'trees, flame graph, timeline, source) to /tmp/sonde-demo-report.html: open any in a browser\n'
