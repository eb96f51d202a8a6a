#!/usr/bin/env bash
# blk_speed: `sonde blk parse` against blkparse (Debian's blktrace) on blktrace files of about
# 1,000,000 traces, and `sonde blk record` making them. The files: O_DIRECT 4 KiB writes to a
# loop device (IOS of them, default 170,000; six traces each: Q G P U D C), recorded once with
# `sonde blk record` into CACHE (default ~/.cache/sonde-bench) and reused; delete them to record
# again. Each parse runs RUNS times (default 3; medians), sonde first, text to /dev/null; the text
# is checked equal first. Measured: wall time and peak RSS (/usr/bin/time); ratio = blkparse /
# sonde (above 1: sonde is faster / smaller).
# Usage: bench/blk_speed.sh SONDE [RUNS]   (as root: it traces a loop device)
set -u
(($# >= 1 && $# <= 2)) || { echo "usage: blk_speed.sh SONDE [RUNS]"; exit 2; }
SONDE=$1 RUNS=${2:-3}
CACHE=${CACHE:-$HOME/.cache/sonde-bench}
IOS=${IOS:-170000}
[[ -x $SONDE ]] || { echo "blk_speed: sonde binary '$SONDE' not found or not executable"; exit 2; }
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "blk_speed: RUNS must be a positive integer, got '$RUNS'"; exit 2; }
BLKPARSE=$(command -v blkparse) || { echo "blk_speed: blkparse not found (apt-get install blktrace); peer absent, skipping"; exit 0; }
[[ -x /usr/bin/time ]] || { echo "blk_speed: /usr/bin/time is needed for peak RSS (apt-get install time)"; exit 2; }
((EUID == 0)) || { echo "blk_speed: tracing a loop device needs root; skipping"; exit 0; }
mkdir -p "$CACHE" || { echo "blk_speed: cannot create $CACHE"; exit 2; }
tmp=$(mktemp -d /tmp/bench_blk_speed.XXXXXX)
device=""
cleanup() { [[ -n $device ]] && losetup -d "$device"; rm -rf "$tmp"; }
trap cleanup EXIT
. "$(dirname "$0")/lib/measure.sh"

name=$CACHE/blk-dd-$IOS
if [[ ! -s $name.blktrace.0 ]]; then
    truncate -s $((IOS * 4096 + 1048576)) "$tmp/disk.img"
    device=$(losetup -f --show "$tmp/disk.img") || { echo "blk_speed: cannot set up a loop device"; exit 2; }
    echo "recording $IOS writes on $device into $name.blktrace.* ..."
    /usr/bin/time -f "%e %M" -o "$tmp/record.time" "$SONDE" blk record -d "$device" -o "$name" -b 65536 -- \
        dd if=/dev/zero of="$device" bs=4k count="$IOS" oflag=direct 2>"$tmp/record.err" ||
        { echo "blk_speed: sonde blk record failed:"; tail -3 "$tmp/record.err"; exit 2; }
    echo "sonde blk record: $(cut -d' ' -f1 "$tmp/record.time") s, $(($(cut -d' ' -f2 "$tmp/record.time") / 1024)) MB ($(tail -1 "$tmp/record.err"))"
fi
traces=$("$SONDE" blk parse -q -i "$name" | grep -c .)
echo "blk parse: $traces traces in $name.blktrace.*"
"$SONDE" blk parse -i "$name" >"$tmp/ours.txt"
"$BLKPARSE" -i "$name" >"$tmp/theirs.txt"
cmp -s "$tmp/ours.txt" "$tmp/theirs.txt" || echo "blk_speed: warning: sonde's text differs from blkparse's"

printf '%-22s %10s %10s %10s %10s %8s %8s\n' case "sonde s" "blkparse s" "sonde MB" "blkp. MB" "time x" "RSS x"
for spec in "parse|-i $name" "parse -q|-q -i $name"; do
    IFS='|' read -r what words <<<"$spec"
    key=${what// /_}
    for ((r = 0; r < RUNS; r++)); do
        # shellcheck disable=SC2086
        time_rss "$key.sonde" "$SONDE" blk parse $words
        # shellcheck disable=SC2086
        time_rss "$key.peer" "$BLKPARSE" $words
    done
    st=$(median_field "$tmp/$key.sonde" 1) sm=$(median_field "$tmp/$key.sonde" 2)
    pt=$(median_field "$tmp/$key.peer" 1) pm=$(median_field "$tmp/$key.peer" 2)
    printf '%-22s %10.2f %10.2f %10.0f %10.0f %8s %8s\n' "$what" "$st" "$pt" "$(echo "$sm / 1024" | bc -l)" \
        "$(echo "$pm / 1024" | bc -l)" "$(echo "$pt / $st" | bc -l | xargs printf '%.1f')" \
        "$(echo "$pm / $sm" | bc -l | xargs printf '%.2f')"
done
