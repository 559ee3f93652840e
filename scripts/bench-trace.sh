#!/usr/bin/env bash
# Trace benchmark: fixes per second of
#   walkscape trace --json LOG > /dev/null      against      gpsdecode < LOG > /dev/null
# on the same generated NMEA log of 600,000 sentences (75,000 epochs of a u-blox-like receiver,
# scripts/make-bench-trace.py), measured in one farm-bench run, alternating the two commands.
# Goal: at least 10x gpsdecode's rate, with peak memory flat in the log's size (checked against
# a log a tenth as long).
# Usage: scripts/bench-trace.sh BINDIR [RUNS]
set -euo pipefail
bindir="${1:?usage: scripts/bench-trace.sh BINDIR [RUNS]}"
runs="${2:-5}"
cd "$(dirname "$0")/.."
walkscape="$(cd "$bindir" && pwd)/walkscape"
for tool in gpsdecode farm-bench python3; do
  command -v "$tool" >/dev/null || { echo "bench-trace: $tool is not installed (make deps-bench)" >&2; exit 1; }
done
work="$PWD/.build-bench"
mkdir -p "$work"
log="$work/trace-600k.nmea"
small="$work/trace-60k.nmea"
[ -s "$log" ] || python3 scripts/make-bench-trace.py 600000 "$log"
[ -s "$small" ] || head -n 60000 "$log" >"$small"
sentences=$(wc -l <"$log")
fixes=$("$walkscape" trace --json "$log" | python3 -c 'import json,sys; print(json.load(sys.stdin)["fixes"])')
echo "log: $sentences sentences, $fixes fixes, $(du -h "$log" | cut -f1)"

out="$work/farm-bench-trace.txt"
farm-bench -n "$runs" --timeout 600 --vs "sh -c 'exec gpsdecode < $log > /dev/null'" \
  -- sh -c "exec $walkscape trace --json $log > /dev/null" | tee "$out"
small_out="$work/farm-bench-trace-small.txt"
farm-bench -n "$runs" -- sh -c "exec $walkscape trace --json $small > /dev/null" >"$small_out"

median() { awk -v key="$2" 'index($0, key) == 1 { print $(NF-1) }' "$1"; }
a_wall=$(median "$out" "A wall s"); b_wall=$(median "$out" "B wall s")
a_cpu=$(median "$out" "A cpu s"); b_cpu=$(median "$out" "B cpu s")
a_peak=$(median "$out" "A peak MiB"); small_peak=$(median "$small_out" "A peak MiB")
python3 - "$fixes" "$a_wall" "$b_wall" "$a_cpu" "$b_cpu" "$a_peak" "$small_peak" <<'PY'
import sys
fixes, aw, bw, ac, bc, peak, small = int(sys.argv[1]), *map(float, sys.argv[2:])
print(f"walkscape trace: {fixes / aw:,.0f} fixes/s wall ({fixes / ac:,.0f} per CPU second)")
print(f"gpsdecode:       {fixes / bw:,.0f} fixes/s wall ({fixes / bc:,.0f} per CPU second)")
print(f"ratio: {bw / aw:.1f}x gpsdecode by wall time, {bc / ac:.1f}x by CPU time (goal >= 10x)")
print(f"peak memory: {peak:.1f} MiB on 600k sentences, {small:.1f} MiB on 60k (flat if equal)")
ok = bw / aw >= 10 and peak <= small * 1.1 + 1
print("bench-trace:", "OK" if ok else "BELOW GOAL")
sys.exit(0 if ok else 1)
PY
