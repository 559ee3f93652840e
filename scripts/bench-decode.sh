#!/usr/bin/env bash
# Decoding benchmark for what is not MP3: CPU time (user+sys) of
#   walkscape play X.m4a --audio-device null     against     ffmpeg -i X.m4a -f null -
# on a ~4 minute AAC narration made here from espeak-ng speech, measured in one run, the two
# commands alternating. Budget: CPU ratio <= 1.10x. FLAC and Ogg Vorbis are printed for context.
# walkscape's runs level the narration (docs/loudness.md) with its loudness already measured, as a
# walk finds it: the warm-up run measures and caches it.
#
# Then the loudness measurement itself: CPU of a play whose file was never measured (a fresh home
# each run) minus a play with --loudness off, per minute of audio: the measuring pass, its own
# decoding included, on the AAC file (44.1 kHz stereo), a 22.05 kHz mono MP3 (the usual narration
# export) and a stereo AAC whose channels differ (one delayed 40 ms). Budget: the meter itself
# <= 0.1 s per minute (the pass less ffmpeg's decoding of the same file, printed beside it: decoding
# has its own budget above). At 44.1 kHz stereo, decoding is about half of the pass.
# Usage: scripts/bench-decode.sh BINDIR [RUNS]
set -euo pipefail
bindir="${1:?usage: scripts/bench-decode.sh BINDIR [RUNS]}"
runs="${2:-7}"
walkscape="$bindir/walkscape"
# shellcheck source=scripts/lib/bench-common.sh
source "$(dirname "$0")/lib/bench-common.sh"
bench_require bench-decode espeak-ng ffmpeg ffprobe
bench_workdir bench-decode
export WALKSCAPE_HOME="$work/home"

paragraph="Welcome to the porticoes of Bologna. Thirty-eight kilometres of arcades shelter the walker \
from sun and rain. Look up at the wooden beams of Casa Isolani, and the three arrows stuck in them \
since the Middle Ages. Walk on to Piazza Santo Stefano, where seven churches lean on one another."
for _ in $(seq 14); do printf '%s ' "$paragraph"; done >"$work/speech.txt"
espeak-ng -s 150 -f "$work/speech.txt" -w "$work/speech.wav"
ffmpeg -v error -y -i "$work/speech.wav" -ar 44100 -ac 2 -c:a aac -b:a 128k "$work/main.m4a"
ffmpeg -v error -y -i "$work/speech.wav" -ar 44100 -c:a flac "$work/flac.flac"
ffmpeg -v error -y -i "$work/speech.wav" -ar 44100 -c:a libvorbis -q:a 4 "$work/vorbis.ogg"
seconds=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$work/main.m4a")
echo "main: AAC 44.1 kHz stereo 128 kbps, ${seconds%.*} s, $(stat -c %s "$work/main.m4a") bytes"

status=0
for file in main.m4a flac.flac vorbis.ogg; do
  f="$work/$file"
  bench_cpu "$walkscape" play "$f" --audio-device null >/dev/null   # warm the page cache
  ours=(); peer=()
  for _ in $(seq "$runs"); do
    ours+=("$(bench_cpu "$walkscape" play "$f" --audio-device null)")
    peer+=("$(bench_cpu ffmpeg -v error -i "$f" -f null -)")
  done
  a=$(bench_median "${ours[@]}"); b=$(bench_median "${peer[@]}")
  echo "$file: walkscape play --audio-device null  cpu median ${a}s (${ours[*]})"
  echo "$file: ffmpeg -i F -f null -               cpu median ${b}s (${peer[*]})"
  awk -v n="$file" -v a="$a" -v b="$b" 'BEGIN { printf "%s: ratio %.2fx\n", n, (b > 0 ? a / b : 0) }'
  if [ "$file" = main.m4a ]; then
    awk -v a="$a" -v b="$b" 'BEGIN { exit !(b > 0 && a / b <= 1.10) }' || status=1
  fi
done

# Loudness: the measuring pass alone, per minute of audio.
ffmpeg -v error -y -i "$work/speech.wav" -c:a libmp3lame -b:a 64k "$work/mono.mp3"
ffmpeg -v error -y -i "$work/speech.wav" -filter_complex "[0:a]asplit[a][b];[b]adelay=40[c];[a][c]join=inputs=2:channel_layout=stereo" \
  -ar 44100 -c:a aac -b:a 128k "$work/stereo.m4a"
for file in main.m4a mono.mp3 stereo.m4a; do
  f="$work/$file"
  fresh=(); off=(); decode=()
  for i in $(seq "$runs"); do
    fresh+=("$(WALKSCAPE_HOME="$work/fresh-$file-$i" bench_cpu "$walkscape" play "$f" --audio-device null)")
    off+=("$(bench_cpu "$walkscape" play "$f" --audio-device null --loudness off)")
    decode+=("$(bench_cpu ffmpeg -v error -i "$f" -f null -)")
  done
  a=$(bench_median "${fresh[@]}"); b=$(bench_median "${off[@]}"); d=$(bench_median "${decode[@]}")
  echo "loudness $file: play, never measured  cpu median ${a}s (${fresh[*]})"
  echo "loudness $file: play --loudness off   cpu median ${b}s (${off[*]})"
  awk -v n="$file" -v a="$a" -v b="$b" -v d="$d" -v s="$seconds" 'BEGIN { m = s / 60;
    printf "loudness %s: measuring pass %.3f s per minute of audio; ffmpeg decodes it in %.3f; the meter %.3f s per minute\n",
      n, (a - b) / m, d / m, (a - b - d) / m }'
  awk -v a="$a" -v b="$b" -v d="$d" -v s="$seconds" 'BEGIN { exit !((a - b - d) / (s / 60) <= 0.1) }' || status=1
done

[ $status = 0 ] && echo "bench-decode: within budget (AAC ratio <= 1.10x, the loudness meter <= 0.1 s per minute)" \
  || echo "bench-decode: OVER BUDGET (AAC ratio must be <= 1.10x, the loudness meter <= 0.1 s per minute)"
exit $status
