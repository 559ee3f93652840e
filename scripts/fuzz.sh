#!/usr/bin/env bash
# Runs a libFuzzer target for a while: scripts/fuzz.sh NAME [SECONDS]   (make fuzz-NAME FUZZ_SECONDS=600)
# Targets: nmea (NMEA parser and trace files), srt (subtitles), progress (saved walk progress and
# resuming the walk core from it), tour (tour.json in a tour folder), audio (the decoders: every
# narration format, sniffed and decoded from memory), manifest (the service's tour list, detail,
# points and manifest as the client decodes them; seeds itself).
# Links with lld: gold hits an internal error on the fuzzer runtime's debug info.
# Builds with its own scratch path so it never shares a build lock or objects with normal builds.
# Seeds (nmea): the gpsd corpus logs in Tests/Fixtures/gpsd-3.22 and the
# tours' GPX traces, cut into 4 KiB pieces; (tour) the bundled tours' tour.json; srt and progress
# seed themselves into an empty corpus folder. Crashes land in .build-fuzz/artifacts-NAME/; the run's last status line (execs, cov)
# is printed at the end.
set -euo pipefail
name="${1:?usage: scripts/fuzz.sh nmea|srt|progress|tour|audio|manifest [seconds]}"
seconds="${2:-600}"
cd "$(dirname "$0")/.."
scratch=.build-fuzz
case "$name" in
  nmea) product=fuzz-nmea ;;
  srt) product=fuzz-srt ;;  # seeds itself into an empty corpus folder
  progress) product=fuzz-progress ;;  # seeds itself into an empty corpus folder
  tour) product=fuzz-tour ;;
  audio) product=fuzz-audio ;;
  manifest) product=fuzz-manifest ;;  # seeds itself into an empty corpus folder
  *) echo "fuzz.sh: no fuzz target '$name' (known: nmea, srt, progress, tour, audio, manifest)" >&2; exit 64 ;;
esac
# A tour.json is bigger than a trace piece: the demo's is 5.5 KB.
max_len=4096
[ "$name" = tour ] && max_len=16384
[ "$name" = manifest ] && max_len=16384
# Short narrations of each format: a second of speech is a few kilobytes.
[ "$name" = audio ] && max_len=65536
if ! swift build -c release --scratch-path "$scratch" -Xswiftc -sanitize=fuzzer -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld --product "$product"; then
  echo "fuzz.sh: build failed" >&2; exit 1
fi
bin="$(swift build -c release --scratch-path "$scratch" -Xswiftc -sanitize=fuzzer -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld --show-bin-path)/$product"
seeds="$scratch/corpus-$name"
artifacts="$scratch/artifacts-$name"
mkdir -p "$seeds" "$artifacts"
if [ "$name" = nmea ] && [ -z "$(ls -A "$seeds")" ] && [ -d Tests/Fixtures/gpsd-3.22 ]; then
  for log in Tests/Fixtures/gpsd-3.22/*.log; do
    split -b 4096 -d "$log" "$seeds/$(basename "$log" .log)-"
  done
fi
# GPX seeds: fuzz-nmea also reads its input as a trace file, which is GPX when it starts with `<`.
if [ "$name" = nmea ]; then
  for gpx in tours/*/traces/*.gpx; do
    [ -e "$gpx" ] || continue
    [ -e "$seeds/gpx-$(basename "$gpx" .gpx)-00" ] || split -b 4096 -d "$gpx" "$seeds/gpx-$(basename "$gpx" .gpx)-"
  done
fi
if [ "$name" = tour ]; then
  for manifest in tours/*/tour.json; do
    [ -e "$manifest" ] || continue
    cp "$manifest" "$seeds/$(basename "$(dirname "$manifest")").json"
  done
fi
if [ "$name" = audio ] && [ -z "$(ls -A "$seeds")" ]; then
  # One short recording in each format walkscape plays, made with ffmpeg (and lame for MP3).
  espeak-ng -w "$seeds/speech.wav" "A short walk." 2>/dev/null
  ffmpeg -v error -y -i "$seeds/speech.wav" -t 1 -ar 8000 "$seeds/seed.wav"
  for spec in "m4a:-c:a aac -b:a 32k" "aac:-c:a aac -b:a 32k -f adts" "ogg:-c:a libvorbis"               "opus:-c:a libopus -b:a 24k" "flac:-c:a flac" "alaw.wav:-c:a pcm_alaw" \
              "webm:-c:a libopus -b:a 24k" "aiff:-c:a pcm_s16be" "rf64.wav:-c:a pcm_s16le -rf64 always"; do
    ext="${spec%%:*}"; args="${spec#*:}"
    # shellcheck disable=SC2086
    ffmpeg -v error -y -i "$seeds/seed.wav" $args "$seeds/seed.$ext"
  done
  lame --quiet -b 32 "$seeds/seed.wav" "$seeds/seed.mp3"
  # Two files carelessly concatenated: the second part is another rate and stereo.
  ffmpeg -v error -y -i "$seeds/seed.wav" -ar 16000 -ac 2 -c:a libmp3lame -b:a 32k "$seeds/stereo.mp3"
  cat "$seeds/seed.mp3" "$seeds/stereo.mp3" >"$seeds/joined.mp3" && rm -f "$seeds/stereo.mp3"
  rm -f "$seeds/speech.wav"
fi
log="$scratch/fuzz-$name.log"
# Let libFuzzer, not the Swift runtime's backtracer, handle a crash, so it saves the input.
export SWIFT_BACKTRACE=enable=no
echo "fuzz.sh: running $product for ${seconds}s (log: $log)"
set +e
"$bin" -max_total_time="$seconds" -max_len="$max_len" -timeout=10 -print_final_stats=1 \
  -artifact_prefix="$artifacts/" "$seeds" >"$log" 2>&1
status=$?
set -e
grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE)' "$log" | tail -1 || true
grep -E '^stat::' "$log" || true
if [ $status -ne 0 ]; then
  echo "fuzz.sh: $product found a problem (exit $status); see $log and $artifacts/" >&2
  grep -E 'ERROR|Fatal|panic|Precondition' "$log" | head -5 >&2 || true
fi
exit $status
