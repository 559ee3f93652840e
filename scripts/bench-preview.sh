#!/usr/bin/env bash
# Trace preview benchmark (docs/architecture.md, performance budgets): `walkscape preview --fast --no-audio
# --json` over a three-hour walk (10,800 epochs, 32,400 sentences) and a 500,000-sentence log,
# against `gpsdecode` decoding the same file. Prints wall time (best of RUNS), sentence rates,
# the ratio (budget: walkscape at least 10x gpsdecode's sentence rate) and peak memory (budget:
# flat in the size of the log). Traces are generated once into out/bench/ by make-demo-tour.py.
# Cost per fix: whole-process seconds over the trace's fixes; with WALKSCAPE_BASELINE=/path/to/an
# older walkscape binary, the same preview by it is measured too and the ratio printed (the walk
# core's budget: at most 1.5x the cost per fix of the code before route progress).
set -euo pipefail
bindir="$1"
bin="$bindir/walkscape"
cd "$(dirname "$0")/.."
runs="${RUNS:-3}"
mkdir -p out/bench
command -v gpsdecode >/dev/null || { echo "gpsdecode not found (apt-get install gpsd-clients)"; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time not found (apt-get install time): it measures peak memory"; exit 1; }

declare -A epochs=([three-hours]=10800 [500k-sentences]=166667)
for name in three-hours 500k-sentences; do
  trace="out/bench/$name.nmea"
  [ -s "$trace" ] || python3 scripts/make-demo-tour.py --bench-trace "${epochs[$name]}" "$trace"
done

# best wall seconds and peak RSS (KB) of RUNS runs of a command; stdin from $STDIN if set.
measure() {
  local best="" peak=0 t m
  for _ in $(seq "$runs"); do
    if [ -n "${STDIN:-}" ]; then
      /usr/bin/time -f "%e %M" -o out/bench/.time "$@" < "$STDIN" > /dev/null 2>out/bench/.stderr
    else
      /usr/bin/time -f "%e %M" -o out/bench/.time "$@" > /dev/null 2>out/bench/.stderr
    fi
    read -r t m < <(tail -1 out/bench/.time)
    if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
    [ "$m" -gt "$peak" ] && peak=$m
  done
  echo "$best $peak"
}

status=0
printf "%-16s %10s %9s %12s %9s | %9s %12s %9s | %7s\n" trace sentences "ws s" "ws sent/s" "ws MB" "gd s" "gd sent/s" "gd MB" ratio
for name in three-hours 500k-sentences; do
  trace="out/bench/$name.nmea"
  sentences=$(wc -l < "$trace")
  read -r ws_s ws_kb < <(measure "$bin" preview tours/demo --trace "$trace" --fast --no-audio --json)
  read -r gd_s gd_kb < <(STDIN="$trace" measure gpsdecode)
  awk -v n="$name" -v s="$sentences" -v a="$ws_s" -v am="$ws_kb" -v b="$gd_s" -v bm="$gd_kb" 'BEGIN {
    a = (a < 0.01 ? 0.01 : a); b = (b < 0.01 ? 0.01 : b)
    printf "%-16s %10d %9.2f %12.0f %9.1f | %9.2f %12.0f %9.1f | %6.1fx\n", n, s, a, s / a, am / 1024, b, s / b, bm / 1024, b / a
  }'
  ratio_ok=$(awk -v a="$ws_s" -v b="$gd_s" 'BEGIN { a = (a < 0.01 ? 0.01 : a); print (b / a >= 10) ? 1 : 0 }')
  [ "$ratio_ok" = 1 ] || { echo "  below budget: preview should be at least 10x gpsdecode's sentence rate"; status=1; }
  echo "$name $ws_kb" >> out/bench/.memory
  awk -v s="$ws_s" -v n="${epochs[$name]}" 'BEGIN { printf "  cost per fix: %.2f us (whole process, %d fixes)\n", s / n * 1e6, n }'
  if [ -n "${WALKSCAPE_BASELINE:-}" ]; then
    read -r base_s base_kb < <(measure "$WALKSCAPE_BASELINE" preview tours/demo --trace "$trace" --fast --no-audio --json)
    awk -v a="$ws_s" -v b="$base_s" -v am="$ws_kb" -v bm="$base_kb" 'BEGIN { b = (b < 0.01 ? 0.01 : b)
      printf "  against the baseline binary: %.2fx its time per fix, peak %.1f vs %.1f MB\n", a / b, am / 1024, bm / 1024 }'
  fi
done
# Memory flat in the size of the log: the 15x larger log may not cost more than 1.5x the memory.
small=$(awk '$1=="three-hours"{m=$2} END{print m}' out/bench/.memory)
large=$(awk '$1=="500k-sentences"{m=$2} END{print m}' out/bench/.memory)
rm -f out/bench/.memory out/bench/.time out/bench/.stderr
awk -v s="$small" -v l="$large" 'BEGIN { verdict = "flat"; if (l > 1.5 * s) verdict = "GROWS with the log"
  printf "peak memory: %.1f MB (three hours) vs %.1f MB (500k sentences): %s\n", s / 1024, l / 1024, verdict }'
awk -v s="$small" -v l="$large" 'BEGIN { exit (l <= 1.5 * s) ? 0 : 1 }' || status=1
exit $status
