#!/usr/bin/env bash
# Playback benchmark: CPU time (user+sys) and peak memory of
#   walkscape play X.mp3 --audio-device null     against     mpg123 -q -o alsa -a null X.mp3
# on the same generated narration, measured in one run, the two commands alternating.
# Budget: CPU ratio <= 1.10x; peak RSS at most 10 MiB above walkscape's own floor, and that floor
# under 25 MiB.
#
# The floor is the peak RSS of `walkscape --help`, which plays nothing: about 21 MiB, nearly all of
# it clean pages of the 175 MB static binary's own file (its relocations, and text mapped 64 KiB
# around each page touched at start-up), which the kernel shares and can drop; private memory is
# about 3 MiB. The budget was "under 20 MiB" of peak RSS until the binary outgrew that floor by
# itself: what playing adds over the floor (the decoder, the queue's buffers, ALSA) is what it
# now bounds, so a narration decoded whole (37 MB for 3.5 minutes) still fails it; the floor's own
# cap catches the binary's start-up growing.
#
# Two files, both made here from espeak-ng speech with lame:
#   main:  ~3.5 min, 44.1 kHz, 128 kbps (a typical exported narration): the budgeted ratio
#   light: ~1.5 min, 22.05 kHz mono, 64 kbps (the test fixtures' format): decoding it costs mpg123
#          only ~35 ms, so process start-up dominates; printed for context with the start-up cost
#          (`walkscape --help`) itself.
# Usage: scripts/bench-play.sh BINDIR [RUNS]
set -euo pipefail
bindir="${1:?usage: scripts/bench-play.sh BINDIR [RUNS]}"
runs="${2:-7}"
walkscape="$bindir/walkscape"
# shellcheck source=scripts/lib/bench-common.sh
source "$(dirname "$0")/lib/bench-common.sh"
bench_require bench-play espeak-ng lame mpg123 /usr/bin/time
bench_workdir bench-play
# Narration loudness is measured once and cached (docs/loudness.md): the warm-up run does it.
export WALKSCAPE_HOME="$work/home"

paragraph="Welcome to the porticoes of Bologna. Thirty-eight kilometres of arcades shelter the walker \
from sun and rain. Look up at the wooden beams of Casa Isolani, and the three arrows stuck in them \
since the Middle Ages. Walk on to Piazza Santo Stefano, where seven churches lean on one another."
make_file() {  # name repeats lame-args...
  local name="$1" repeats="$2"; shift 2
  for _ in $(seq "$repeats"); do printf '%s ' "$paragraph"; done >"$work/$name.txt"
  espeak-ng -s 150 -f "$work/$name.txt" -w "$work/$name.wav"
  lame --quiet "$@" "$work/$name.wav" "$work/$name.mp3"
  local seconds=$(( ($(stat -c %s "$work/$name.wav") - 44) / 44100 ))  # espeak: 22050 Hz mono s16
  [ "$seconds" -ge 40 ] || { echo "bench-play: $name is only ${seconds}s" >&2; exit 1; }
  echo "$name: ${seconds} s, lame $*, $(stat -c %s "$work/$name.mp3") bytes"
}
make_file main 12 --resample 44.1 -b 128
make_file light 5 -b 64

# Peak resident set (KiB) of one run of "$@".
rss() {
  /usr/bin/time -f '%M' -o "$work/rss" "$@" >/dev/null 2>&1
  cat "$work/rss"
}

status=0
for name in main light; do
  mp3="$work/$name.mp3"
  bench_cpu "$walkscape" play "$mp3" --audio-device null >/dev/null   # warm the page cache
  ours=(); peer=()
  for _ in $(seq "$runs"); do
    ours+=("$(bench_cpu "$walkscape" play "$mp3" --audio-device null)")
    peer+=("$(bench_cpu mpg123 -q -o alsa -a null "$mp3")")
  done
  a=$(bench_median "${ours[@]}"); b=$(bench_median "${peer[@]}")
  ours_rss=$(rss "$walkscape" play "$mp3" --audio-device null); peer_rss=$(rss mpg123 -q -o alsa -a null "$mp3")
  echo "$name: walkscape play --audio-device null  cpu median ${a}s (${ours[*]}), peak RSS $((ours_rss / 1024)) MiB"
  echo "$name: mpg123 -q -o alsa -a null           cpu median ${b}s (${peer[*]}), peak RSS $((peer_rss / 1024)) MiB"
  awk -v n="$name" -v a="$a" -v b="$b" 'BEGIN { printf "%s: ratio %.2fx\n", n, (b > 0 ? a / b : 0) }'
  if [ "$name" = main ]; then
    awk -v a="$a" -v b="$b" 'BEGIN { exit !(b > 0 && a / b <= 1.10) }' || status=1
    main_rss=$ours_rss
  fi
done
startup=(); for _ in $(seq "$runs"); do startup+=("$(bench_cpu "$walkscape" --help)"); done
floor=$(rss "$walkscape" --help)
echo "start-up: walkscape --help cpu median $(bench_median "${startup[@]}")s, peak RSS $((floor / 1024)) MiB (the floor)"
over=$((main_rss - floor))
added=$((over / 1024))
[ "$over" -le $((10 * 1024)) ] || status=1
[ "$floor" -lt $((25 * 1024)) ] || status=1
[ $status = 0 ] && echo "bench-play: within budget (main ratio <= 1.10x, play's peak RSS $((main_rss / 1024)) MiB: ${added} MiB over the floor, <= 10; the floor < 25 MiB)" \
  || echo "bench-play: OVER BUDGET (main ratio must be <= 1.10x, play's peak RSS at most 10 MiB over the floor (${added} MiB), the floor under 25 MiB ($((floor / 1024)) MiB))"
exit $status
