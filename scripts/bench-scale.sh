#!/usr/bin/env bash
# Scale benchmark (issue 9 item 18):
#   walkscape lint on a 10,000-point tour whose radii overlap densely: wall time, peak memory, and
#     how many lines it prints (every pair used to be compared and printed: 29 s, 390 MB);
#   walkscape map --trace on a 2,000,000-fix log against walkscape trace on the same log (the peer:
#     a streaming pass over the same fixes): peak memory of each and their ratio;
#   walkscape preview of a walker standing 300 m off a 50 km drawn route of 50,000 vertices for an
#     hour at 10 Hz (36,000 fixes), against the same walker standing on it (the peer: the walk's
#     cost per fix where it is cheapest): wall time of each and their ratio. Off the route every
#     fix looks along the rest of the route for a shortcut; that scanned all of it (34x);
#   walkscape lint and map of that tour with 30,000 more vertices 250 m on going back and forth
#     between two places 4 m apart (a receiver's track at rest, drawn as the route): each
#     such vertex was measured for a stray against every other leg, sorted anew (lint about 7 minutes).
# Goals: lint under 5 s and 100 MiB; map's peak within 1.5x trace's (plus 10 MiB for the picture);
# off the route at most 3x on it; lint and map of the resting route under 2 s each.
# Usage: scripts/bench-scale.sh BINDIR [RUNS]
set -euo pipefail
bindir="${1:?usage: scripts/bench-scale.sh BINDIR [RUNS]}"
runs="${2:-3}"
cd "$(dirname "$0")/.."
walkscape="$(cd "$bindir" && pwd)/walkscape"
for tool in farm-bench python3; do
  command -v "$tool" >/dev/null || { echo "bench-scale: $tool is not installed (make deps-bench)" >&2; exit 1; }
done
work="$PWD/.build-bench"
mkdir -p "$work"
tour="$work/scale-tour-10k"
log="$work/trace-2m.nmea"
[ -s "$tour/tour.json" ] || python3 scripts/make-scale-bench.py tour 10000 "$tour"
[ -s "$log" ] || python3 scripts/make-scale-bench.py trace 2000000 "$log"
long="$work/scale-long-route"
[ -s "$long/tour.json" ] || python3 scripts/make-scale-bench.py route 50000 "$long"
resting="$work/scale-resting-route"
[ -s "$resting/tour.json" ] || python3 scripts/make-scale-bench.py resting 30000 "$resting"
[ -s "$work/standing-on.nmea" ] || python3 scripts/make-scale-bench.py standing 0 "$work/standing-on.nmea"
[ -s "$work/standing-off.nmea" ] || python3 scripts/make-scale-bench.py standing 300 "$work/standing-off.nmea"
fixes=$("$walkscape" trace --json "$log" | python3 -c 'import json,sys; print(json.load(sys.stdin)["fixes"])')
lines=$("$walkscape" lint "$tour" | wc -l)
findings=$("$walkscape" lint "$tour" --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
echo "tour: 10000 points; lint prints $lines lines for $findings findings"
echo "log: $fixes fixes, $(du -h "$log" | cut -f1)"

lint_out="$work/farm-bench-lint.txt"
farm-bench -n "$runs" --timeout 600 -- sh -c "exec $walkscape lint $tour > /dev/null" | tee "$lint_out"
map_out="$work/farm-bench-map.txt"
farm-bench -n "$runs" --timeout 1800 --vs "sh -c 'exec $walkscape trace $log > /dev/null'" \
  -- sh -c "exec $walkscape map tours/demo --trace $log -o $work/map-2m.svg > /dev/null" | tee "$map_out"
off_out="$work/farm-bench-off-route.txt"
preview="$walkscape preview $long --no-audio --fast --home $work/scale-home --trace"
farm-bench -n "$runs" --timeout 600 --vs "sh -c 'exec $preview $work/standing-on.nmea > /dev/null'" \
  -- sh -c "exec $preview $work/standing-off.nmea > /dev/null" | tee "$off_out"
resting_out="$work/farm-bench-resting.txt"
farm-bench -n "$runs" --timeout 600 --vs "sh -c 'exec $walkscape map $resting -o $work/resting.svg > /dev/null'" \
  -- sh -c "exec $walkscape lint $resting > /dev/null" | tee "$resting_out"

median() { awk -v key="$2" 'index($0, key) == 1 { print $(NF-1) }' "$1"; }
python3 - "$(median "$lint_out" "A wall s")" "$(median "$lint_out" "A peak MiB")" \
  "$(median "$map_out" "A wall s")" "$(median "$map_out" "A peak MiB")" \
  "$(median "$map_out" "B wall s")" "$(median "$map_out" "B peak MiB")" "$lines" \
  "$(median "$off_out" "A wall s")" "$(median "$off_out" "B wall s")" \
  "$(median "$resting_out" "A wall s")" "$(median "$resting_out" "B wall s")" <<'PY'
import sys
(lint_wall, lint_peak, map_wall, map_peak, trace_wall, trace_peak, lines, off_wall, on_wall, resting_lint,
 resting_map) = map(float, sys.argv[1:])
print(f"lint, 10,000 points: {lint_wall:.2f} s, peak {lint_peak:.1f} MiB, {lines:.0f} lines (goal: < 5 s, < 100 MiB)")
print(f"map, 2M fixes:   {map_wall:.2f} s, peak {map_peak:.1f} MiB")
print(f"trace, 2M fixes: {trace_wall:.2f} s, peak {trace_peak:.1f} MiB")
print(f"map/trace peak memory: {map_peak / trace_peak:.2f}x (goal: <= 1.5x + 10 MiB)")
print(f"preview, an hour at 10 Hz beside a 50,000-vertex route: 300 m off {off_wall:.2f} s, on it {on_wall:.2f} s: "
      f"{off_wall / on_wall:.2f}x (goal: <= 3x)")
print(f"a route with 30,000 vertices at rest: lint {resting_lint:.2f} s, map {resting_map:.2f} s (goal: < 2 s each)")
ok = (lint_wall < 5 and lint_peak < 100 and map_peak <= 1.5 * trace_peak + 10 and off_wall <= 3 * on_wall
      and resting_lint < 2 and resting_map < 2)
print("bench-scale:", "OK" if ok else "BELOW GOAL")
sys.exit(0 if ok else 1)
PY
