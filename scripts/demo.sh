#!/usr/bin/env bash
# `make demo`: the curator's preview of the bundled demo tour (Florence, Duomo to Palazzo Pitti).
# Lints the tour, draws its map, then replays the recorded walk at DEMO_SPEED (default 20x; the
# narration itself always plays at 1x) with sound. Without a sound card it says so and previews
# without sound; the timeline, subtitles and summary are the same.
set -euo pipefail
bin="$1"
cd "$(dirname "$0")/.."
tour=tours/demo
trace=$tour/traces/walk.nmea
speed="${DEMO_SPEED:-20}"
language="${DEMO_LANGUAGE:-en}"

echo "== walkscape lint $tour"
"$bin" lint "$tour"
echo
mkdir -p out
"$bin" map "$tour" --trace "$trace" -l "$language" -o out/demo-map.svg
echo
echo "== walkscape preview $tour --trace $trace --speed $speed -l $language"
status=0
"$bin" preview "$tour" --trace "$trace" --speed "$speed" -l "$language" 2>out/demo-preview.err || status=$?
if [ "$status" -eq 69 ]; then
  # 69 (EX_UNAVAILABLE) is how preview reports that the sound device could not be opened.
  echo "No sound card on this machine ($(head -c 300 out/demo-preview.err | sed 's/^walkscape: //'))"
  echo "Previewing without sound instead (--no-audio): same timeline, subtitles on screen."
  echo
  "$bin" preview "$tour" --trace "$trace" --speed "$speed" -l "$language" --no-audio
elif [ "$status" -ne 0 ]; then
  cat out/demo-preview.err >&2
  exit "$status"
fi
