#!/usr/bin/env bash
# Playback benchmark: CPU time (user+sys) and peak memory of
#   walkscape play X.mp3 --audio-device null     against     mpg123 -q -o alsa -a null X.mp3
# on the same generated narration (speech by espeak-ng, encoded with lame -b 64, over 40 s),
# measured in one run, alternating the two commands. Budget: ratio <= 1.1x, peak RSS < 20 MB.
# Usage: scripts/bench-play.sh BINDIR [RUNS]
set -euo pipefail
bindir="${1:?usage: scripts/bench-play.sh BINDIR [RUNS]}"
runs="${2:-5}"
walkscape="$bindir/walkscape"
for tool in espeak-ng lame mpg123 /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench-play: $tool is not installed" >&2; exit 1; }
done
work="$(mktemp -d "${TMPDIR:-/tmp}/walkscape-bench-play.XXXXXX")"
trap 'rm -rf "$work"' EXIT

text="Welcome to the porticoes of Bologna. Thirty-eight kilometres of arcades shelter the walker \
from sun and rain. Look up at the wooden beams of Casa Isolani, and the three arrows stuck in them \
since the Middle Ages. Walk on to Piazza Santo Stefano, where seven churches lean on one another."
for _ in 1 2 3 4 5; do printf '%s ' "$text"; done >"$work/text.txt"
espeak-ng -s 150 -f "$work/text.txt" -w "$work/narration.wav"
lame --quiet -b 64 "$work/narration.wav" "$work/narration.mp3"
mp3="$work/narration.mp3"
# 22050 Hz mono 16-bit: 44100 bytes a second after the 44-byte header.
seconds=$(( ($(stat -c %s "$work/narration.wav") - 44) / 44100 ))
if [ "$seconds" -lt 40 ]; then echo "bench-play: the test file is only ${seconds}s" >&2; exit 1; fi
echo "file: ${seconds} s, 22050 Hz mono, 64 kbps ($(stat -c %s "$mp3") bytes); $runs runs each, alternating"

# One measurement: prints "user+sys maxrss_kb".
measure() {
  /usr/bin/time -f '%U %S %M' -o "$work/time" "$@" >/dev/null 2>"$work/err" || {
    echo "bench-play: '$*' failed:" >&2; cat "$work/err" >&2; exit 1; }
  awk '{ printf "%.3f %d\n", $1 + $2, $3 }' "$work/time"
}

ours=(); peer=(); ours_rss=0; peer_rss=0
measure "$walkscape" play "$mp3" --audio-device null >/dev/null  # warm the page cache
for _ in $(seq "$runs"); do
  read -r cpu rss < <(measure "$walkscape" play "$mp3" --audio-device null)
  ours+=("$cpu"); [ "$rss" -gt "$ours_rss" ] && ours_rss=$rss
  read -r cpu rss < <(measure mpg123 -q -o alsa -a null "$mp3")
  peer+=("$cpu"); [ "$rss" -gt "$peer_rss" ] && peer_rss=$rss
done
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
m_ours=$(median "${ours[@]}"); m_peer=$(median "${peer[@]}")
echo "walkscape play --audio-device null: cpu ${ours[*]} s (median $m_ours), peak RSS $((ours_rss / 1024)) MB"
echo "mpg123 -q -o alsa -a null:          cpu ${peer[*]} s (median $m_peer), peak RSS $((peer_rss / 1024)) MB"
awk -v a="$m_ours" -v b="$m_peer" -v r="$ours_rss" 'BEGIN {
  ratio = (b > 0) ? a / b : 0
  printf "ratio (CPU, median): %.2fx (budget 1.10x); peak RSS %.1f MB (budget 20 MB)\n", ratio, r / 1024
  exit !(ratio <= 1.10 && r < 20 * 1024)
}'
