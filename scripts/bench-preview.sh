#!/usr/bin/env bash
# Trace preview benchmark (docs/architecture.md, performance budgets): `walkscape preview --fast --no-audio
# --json` over a three-hour walk (10,800 epochs, 32,400 sentences) and a 500,000-sentence log,
# against `gpsdecode` decoding the same file. Prints wall time (best of RUNS), sentence rates,
# the ratio (budget: walkscape at least 10x gpsdecode's sentence rate, on the 500k-sentence log)
# and peak memory (budget: flat in the size of the log). On the three-hour log (about 20 ms in
# all) the process's own start-up is more than half of walkscape's time and a rate says little:
# its ratio is printed, with each program's start-up (a one-epoch trace), not budgeted. Traces are
# generated once into out/bench/ by make-demo-tour.py.
# Cost per fix: whole-process seconds over the trace's fixes; with WALKSCAPE_BASELINE=/path/to/an
# older walkscape binary, the same preview by it is measured too and the ratio printed (the walk
# core's budget: at most 1.5x the cost per fix of the code before route progress).
set -euo pipefail
bindir="$1"
bin="$bindir/walkscape"
cd "$(dirname "$0")/.."
runs="${RUNS:-3}"
mkdir -p out/bench
# shellcheck source=scripts/lib/bench-common.sh
source scripts/lib/bench-common.sh
bench_require bench-preview gpsdecode python3 /usr/bin/time

declare -A epochs=([three-hours]=10800 [500k-sentences]=166667)
for name in three-hours 500k-sentences; do
  trace="out/bench/$name.nmea"
  [ -s "$trace" ] || python3 scripts/make-demo-tour.py --bench-trace "${epochs[$name]}" "$trace"
done

# The best wall seconds of RUNS runs of a command (at least 0.001), stdin from $STDIN if set:
# timed around the child alone (a `/usr/bin/time` and a `date` around each run added about 3 ms to
# both programs, a tenth of a short run).
wall() {
  python3 - "$runs" "${STDIN:-/dev/null}" "$@" <<'PY'
import subprocess, sys, time
runs, stdin, command = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
best = None
for _ in range(runs):
    with open(stdin, "rb") as source:
        t0 = time.perf_counter()
        code = subprocess.call(command, stdin=source, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        elapsed = time.perf_counter() - t0
    if code != 0:
        sys.exit(f"bench-preview: {' '.join(command)} exited {code}")
    best = elapsed if best is None else min(best, elapsed)
print(f"{max(best, 0.001):.4f}")
PY
}

# The peak RSS (KB) of one more run, by `/usr/bin/time` (a child forked from Python reports
# Python's own pages as its peak).
peak() {
  /usr/bin/time -f "%M" -o out/bench/.time "$@" < "${STDIN:-/dev/null}" > /dev/null 2>/dev/null
  tail -1 out/bench/.time
}

status=0
printf "%-16s %10s %9s %12s %9s | %9s %12s %9s | %7s\n" trace sentences "ws s" "ws sent/s" "ws MB" "gd s" "gd sent/s" "gd MB" ratio
for name in three-hours 500k-sentences; do
  trace="out/bench/$name.nmea"
  sentences=$(wc -l < "$trace")
  preview=("$bin" preview tours/demo --trace "$trace" --fast --no-audio --json)
  ws_s=$(wall "${preview[@]}"); ws_kb=$(peak "${preview[@]}")
  gd_s=$(STDIN="$trace" wall gpsdecode); gd_kb=$(STDIN="$trace" peak gpsdecode)
  awk -v n="$name" -v s="$sentences" -v a="$ws_s" -v am="$ws_kb" -v b="$gd_s" -v bm="$gd_kb" 'BEGIN {
    printf "%-16s %10d %9.3f %12.0f %9.1f | %9.3f %12.0f %9.1f | %6.1fx\n", n, s, a, s / a, am / 1024, b, s / b, bm / 1024, b / a
  }'
  if [ "$name" = 500k-sentences ]; then
    awk -v a="$ws_s" -v b="$gd_s" 'BEGIN { exit !(b / a >= 10) }' \
      || { echo "  below budget: preview should be at least 10x gpsdecode's sentence rate"; status=1; }
  else
    head -n 3 "$trace" > out/bench/one-epoch.nmea
    ws_start=$(wall "$bin" preview tours/demo --trace out/bench/one-epoch.nmea --fast --no-audio --json)
    gd_start=$(STDIN=out/bench/one-epoch.nmea wall gpsdecode)
    awk -v a="$ws_start" -v b="$gd_start" 'BEGIN {
      printf "  start-up (a one-epoch trace): walkscape %.1f ms, gpsdecode %.1f ms (not budgeted: see the header)\n", a * 1000, b * 1000 }'
  fi
  echo "$name $ws_kb" >> out/bench/.memory
  awk -v s="$ws_s" -v n="${epochs[$name]}" 'BEGIN { printf "  cost per fix: %.2f us (whole process, %d fixes)\n", s / n * 1e6, n }'
  if [ -n "${WALKSCAPE_BASELINE:-}" ]; then
    baseline=("$WALKSCAPE_BASELINE" "${preview[@]:1}")
    base_s=$(wall "${baseline[@]}"); base_kb=$(peak "${baseline[@]}")
    awk -v a="$ws_s" -v b="$base_s" -v am="$ws_kb" -v bm="$base_kb" 'BEGIN {
      printf "  against the baseline binary: %.2fx its time per fix, peak %.1f vs %.1f MB\n", a / b, am / 1024, bm / 1024 }'
  fi
done
# Memory flat in the size of the log: the 15x larger log may not cost more than 1.5x the memory.
small=$(awk '$1=="three-hours"{m=$2} END{print m}' out/bench/.memory)
large=$(awk '$1=="500k-sentences"{m=$2} END{print m}' out/bench/.memory)
rm -f out/bench/.memory out/bench/.time out/bench/one-epoch.nmea
awk -v s="$small" -v l="$large" 'BEGIN { verdict = "flat"; if (l > 1.5 * s) verdict = "GROWS with the log"
  printf "peak memory: %.1f MB (three hours) vs %.1f MB (500k sentences): %s\n", s / 1024, l / 1024, verdict }'
awk -v s="$small" -v l="$large" 'BEGIN { exit (l <= 1.5 * s) ? 0 : 1 }' || status=1
exit $status
