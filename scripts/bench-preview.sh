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
command -v gpsdecode >/dev/null || { echo "gpsdecode not found (apt-get install gpsd-clients)"; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time not found (apt-get install time): it measures peak memory"; exit 1; }

declare -A epochs=([three-hours]=10800 [500k-sentences]=166667)
for name in three-hours 500k-sentences; do
  trace="out/bench/$name.nmea"
  [ -s "$trace" ] || python3 scripts/make-demo-tour.py --bench-trace "${epochs[$name]}" "$trace"
done

# best wall seconds and peak RSS (KB) of RUNS runs of a command; stdin from $STDIN if set. The
# time is taken around the child alone (a `/usr/bin/time` and a `date` around each run added about
# 3 ms to both programs, a tenth of a short run); the peak RSS by `/usr/bin/time`, in one more run
# (a child forked from Python reports Python's own pages as its peak).
measure() {
  local best peak
  best=$(python3 - "$runs" "${STDIN:-/dev/null}" "$@" <<'PY'
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
print(f"{best:.4f}")
PY
  )
  /usr/bin/time -f "%M" -o out/bench/.time "$@" < "${STDIN:-/dev/null}" > /dev/null 2>/dev/null
  peak=$(tail -1 out/bench/.time)
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
    a = (a < 0.001 ? 0.001 : a); b = (b < 0.001 ? 0.001 : b)
    printf "%-16s %10d %9.3f %12.0f %9.1f | %9.3f %12.0f %9.1f | %6.1fx\n", n, s, a, s / a, am / 1024, b, s / b, bm / 1024, b / a
  }'
  if [ "$name" = 500k-sentences ]; then
    ratio_ok=$(awk -v a="$ws_s" -v b="$gd_s" 'BEGIN { a = (a < 0.001 ? 0.001 : a); print (b / a >= 10) ? 1 : 0 }')
    [ "$ratio_ok" = 1 ] || { echo "  below budget: preview should be at least 10x gpsdecode's sentence rate"; status=1; }
  else
    head -n 3 "$trace" > out/bench/one-epoch.nmea
    read -r ws_start _ < <(measure "$bin" preview tours/demo --trace out/bench/one-epoch.nmea --fast --no-audio --json)
    read -r gd_start _ < <(STDIN=out/bench/one-epoch.nmea measure gpsdecode)
    awk -v a="$ws_start" -v b="$gd_start" 'BEGIN {
      printf "  start-up (a one-epoch trace): walkscape %.1f ms, gpsdecode %.1f ms (not budgeted: see the header)\n", a * 1000, b * 1000 }'
  fi
  echo "$name $ws_kb" >> out/bench/.memory
  awk -v s="$ws_s" -v n="${epochs[$name]}" 'BEGIN { printf "  cost per fix: %.2f us (whole process, %d fixes)\n", s / n * 1e6, n }'
  if [ -n "${WALKSCAPE_BASELINE:-}" ]; then
    read -r base_s base_kb < <(measure "$WALKSCAPE_BASELINE" preview tours/demo --trace "$trace" --fast --no-audio --json)
    awk -v a="$ws_s" -v b="$base_s" -v am="$ws_kb" -v bm="$base_kb" 'BEGIN { b = (b < 0.001 ? 0.001 : b)
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
