#!/usr/bin/env bash
# Live-walk battery cost: CPU per fix and wake-ups of `walkscape walk --no-audio` following a real
# gpsd fed at 1 Hz in real time (60 s), then 10 s idle. Budget: microseconds per fix, no timer
# faster than 4 Hz when idle.
set -euo pipefail
bindir="$1"
python3 "$(dirname "$0")/walk-battery.py" "$bindir/walkscape" "${WALK_BENCH_SECONDS:-60}" 10
