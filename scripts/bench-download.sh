#!/usr/bin/env bash
# Download benchmark: `walkscape download` from walkscape-server over loopback.
#   1. throughput: a 200 MB tour (8 narrations of 25 MB) into a fresh store, against
#      `curl --parallel --parallel-max 4` fetching the same signed URLs into files, alternating,
#      median of RUNS each. walkscape also hashes every byte (SHA-256), flushes each file (fsync)
#      and commits the catalog; curl only writes. Goal: at least 0.8x curl. Beside it, what bounds
#      the ratio on the machine at hand: the CPU each client and the server spent per run, and
#      SHA-256 alone over the same 200 MB (`openssl dgst`) as a part of curl's whole run.
#   2. memory: walkscape's peak RSS downloading the 200 MB tour against a 20 MB one. Goal: flat
#      (less than 16 MiB more).
#   3. resume: the 200 MB tour from a server paced to 20 MB/s per connection, `kill -9` once 60% of
#      it is on disk (finished files and part files), then `download` again: bytes fetched after the
#      resume (walkscape's count at the body stream, --json `bytesReceived`) against the bytes
#      missing (the files still to fetch, --json `bytesToFetch`, minus what their part files hold,
#      `resumedBytes`). Goal: at most 1.01x.
#   4. `walkscape tours --installed` with 100 tours installed, against `walkscape --version` (the
#      floor: process start): median of 20 runs each. Goal: tens of milliseconds.
# Usage: scripts/bench-download.sh BINDIR [RUNS]
set -euo pipefail
bindir="${1:?usage: scripts/bench-download.sh BINDIR [RUNS]}"
runs="${2:-3}"
cd "$(dirname "$0")/.."
bindir="$(cd "$bindir" && pwd)"
walkscape="$bindir/walkscape"
server="$bindir/walkscape-server"
. scripts/lib/bench-common.sh
bench_require bench-download curl python3 /usr/bin/time
bench_workdir bench-download

# Tour folders: NAME, number of narrations, bytes each (random: nothing compresses them).
make_tour() {
  local dir="$work/$1/$2" count="$3" bytes="$4"
  mkdir -p "$dir/media"
  python3 - "$dir" "$2" "$count" "$bytes" <<'PY'
import json, os, sys
root, slug, count, size = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
points = []
for i in range(1, count + 1):
    name = f"media/{i:02d}.mp3"
    with open(os.path.join(root, name), "wb") as f:
        left = size
        while left:
            n = min(left, 1 << 20)
            f.write(os.urandom(n))
            left -= n
    points.append({"id": f"{slug}-p{i}", "order": i, "location": {"lat": 44.49 + i * 0.001, "lng": 11.34},
                   "triggerRadiusMeters": 30, "content": {"en": {"title": f"Point {i}", "audio": name}}})
json.dump({"format": 1, "id": f"{slug}-id", "slug": slug, "languages": {"en": {"title": slug}}, "points": points},
          open(os.path.join(root, "tour.json"), "w"))
PY
}
make_tour big bench200 8 $((25 * 1000 * 1000))
make_tour small bench20 8 $((2500 * 1000))
for i in $(seq -w 1 100); do make_tour many "tour$i" 1 2000; done

now() { date +%s.%N; }
json_field() {  # FILE EVENT FIELD: the field of the last JSON line with that event
  python3 - "$@" <<'PY'
import json, sys
value = None
for line in open(sys.argv[1]):
    try:
        o = json.loads(line)
    except ValueError:
        continue
    if o.get("event") == sys.argv[2]:
        value = o.get(sys.argv[3])
print(value)
PY
}
download() {  # HOME SLUG [JSON-OUT]: /usr/bin/time's "wall peakKiB user sys" of `walkscape download`
  local home="$1" slug="$2" out="${3:-/dev/null}"
  /usr/bin/time -f '%e %M %U %S' -o "$work/time" env WALKSCAPE_HOME="$home" WALKSCAPE_API_URL="$base" \
    "$walkscape" download "$slug" --json >"$out"
  cat "$work/time"
}
status=0
total=$((8 * 25 * 1000 * 1000))

# 1 and 2. Throughput against curl, and peak memory.
start_server main "$work/big"
# The CPU each side spends (the client's user + system time, the server's from /proc), kept per
# run in $work/cpu-NAME: on two cores shared with the server, a client that spends more CPU than
# curl cannot keep up with it however its work overlaps.
ticks=$(getconf CLK_TCK)
server_cpu() { awk -v hz="$ticks" '{ print ($14 + $15) / hz }' "/proc/$server_pid/stat"; }
cpu_note() {  # NAME CLIENT-SECONDS SERVER-BEFORE SERVER-AFTER
  echo "$2 $(awk -v a="$3" -v b="$4" 'BEGIN { print b - a }')" >>"$work/cpu-$1"
}
cpu_median() {  # NAME FIELD: the median in ms of that column of $work/cpu-NAME
  median $(awk -v f="$2" '{ print $f * 1000 }' "$work/cpu-$1")
}
curl_run() {
  local urls args=() i=0 dir="$work/curl"
  rm -rf "$dir"; mkdir -p "$dir"
  urls=$(curl -sf "$base/tours/bench200-id/manifest?language=en" | python3 -c 'import json, sys; print("\n".join(a["fileUrl"] for a in json.load(sys.stdin)["audio"]))')
  for u in $urls; do i=$((i + 1)); args+=(-o "$dir/$i.mp3" "$u"); done
  local t0 t1 s0 s1; s0=$(server_cpu); t0=$(now)
  # curl 7.88 draws its --parallel progress meter even with -s: its stderr is dropped (-f and the
  # byte count below still catch a failure).
  /usr/bin/time -f '%U %S' -o "$work/curl-cpu" curl -sf --parallel --parallel-max 4 "${args[@]}" 2>/dev/null
  t1=$(now); s1=$(server_cpu)
  cpu_note curl "$(awk '{ print $1 + $2 }' "$work/curl-cpu")" "$s0" "$s1"
  local got; got=$(cat "$dir"/*.mp3 | wc -c)
  [ "$got" = "$total" ] || { echo "bench-download: curl fetched $got of $total bytes" >&2; exit 1; }
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
}
ours_run() {
  rm -rf "$work/home"
  local t0 t1 s0 s1 times; s0=$(server_cpu); t0=$(now)
  times=$(download "$work/home" bench200 "$work/ours.json")
  t1=$(now); s1=$(server_cpu)
  cpu_note walkscape "$(echo "$times" | awk '{ print $3 + $4 }')" "$s0" "$s1"
  [ "$(json_field "$work/ours.json" installed bytesReceived)" = "$total" ] || { echo "bench-download: walkscape did not fetch the whole tour" >&2; exit 1; }
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
}
curl_run >/dev/null; ours_run >/dev/null   # page cache warm on the server's side for both
rm -f "$work/cpu-curl" "$work/cpu-walkscape"
ours=(); peer=()
for _ in $(seq "$runs"); do
  ours+=("$(ours_run)"); peer+=("$(curl_run)")
done
a=$(median "${ours[@]}"); b=$(median "${peer[@]}")
awk -v a="$a" -v b="$b" -v t="$total" -v runs="$runs" 'BEGIN {
  printf "download 200 MB (8 files, 4 at once): walkscape %.0f MB/s (%.2f s), curl %.0f MB/s (%.2f s) (median of %d): ratio %.2fx (goal >= 0.80x)\n",
    t / a / 1e6, a, t / b / 1e6, b, runs, b / a }'
awk -v a="$a" -v b="$b" 'BEGIN { exit !(b / a >= 0.8) }' || status=1
# What bounds the ratio on this machine: the CPU each side spends, and SHA-256 alone over the same
# 200 MB (curl's files, in memory by now; `openssl dgst` on one core, BoringSSL's and OpenSSL's
# SHA-NI paths run at about the same rate): walkscape names every blob by it, curl hashes nothing.
sha=()
for _ in 1 2 3; do
  t0=$(now); openssl dgst -sha256 "$work/curl/"*.mp3 >/dev/null; t1=$(now)
  sha+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')")
done
s=$(median "${sha[@]}")
echo "  CPU per run (median): walkscape $(cpu_median walkscape 1) ms + walkscape-server $(cpu_median walkscape 2) ms;" \
  "curl $(cpu_median curl 1) ms + walkscape-server $(cpu_median curl 2) ms ($(nproc) cores, the server on them too)"
awk -v s="$s" -v b="$b" 'BEGIN {
  printf "  SHA-256 of the same 200 MB alone (openssl dgst, one core, from memory): %.0f ms, %.2fx curl'"'"'s whole run\n", s * 1000, s / b }'

rm -rf "$work/home"; big_rss=$(download "$work/home" bench200 | cut -d' ' -f2)
stop_server
start_server small "$work/small"
rm -rf "$work/home"; small_rss=$(download "$work/home" bench20 | cut -d' ' -f2)
stop_server
echo "download peak RSS: 20 MB tour $((small_rss / 1024)) MiB, 200 MB tour $((big_rss / 1024)) MiB (goal: within 16 MiB)"
[ $((big_rss - small_rss)) -lt $((16 * 1024)) ] || status=1

# 3. Resume after kill -9 halfway.
start_server paced "$work/big" --throttle 20000000
rm -rf "$work/home"
WALKSCAPE_HOME="$work/home" WALKSCAPE_API_URL="$base" "$walkscape" download bench200 --json >/dev/null 2>&1 &
victim=$!
# Bytes on disk: part files and finished blobs (at most 4 part files exist at once, so part files
# alone never hold half of the tour).
on_disk() { { stat -c %s "$work/home/data/partial/"*.part "$work/home/data/media/"* 2>/dev/null || true; } | awk '{ s += $1 } END { print s + 0 }'; }
for _ in $(seq 3000); do
  [ "$(on_disk)" -ge $((total * 3 / 5)) ] && break
  sleep 0.01
done
kill -9 "$victim" 2>/dev/null || { echo "bench-download: the download ended before it could be killed" >&2; exit 1; }
wait "$victim" 2>/dev/null || true
download "$work/home" bench200 "$work/resume.json" >/dev/null
stop_server
# Missing: the files still to fetch (finished blobs are known and not fetched) less what their
# part files already hold.
kept=$(json_field "$work/resume.json" plan resumedBytes)
to_fetch=$(json_field "$work/resume.json" plan bytesToFetch)
fetched=$(json_field "$work/resume.json" installed bytesReceived)
missing=$((to_fetch - kept))
awk -v f="$fetched" -v m="$missing" -v k="$kept" 'BEGIN {
  printf "resume after kill -9: %.1f MB kept in part files, %.1f MB missing, %.1f MB fetched: %.4fx the missing bytes (goal <= 1.01x)\n", k / 1e6, m / 1e6, f / 1e6, f / m }'
awk -v f="$fetched" -v m="$missing" 'BEGIN { exit !(f / m <= 1.01) }' || status=1
WALKSCAPE_HOME="$work/home" "$walkscape" verify >/dev/null || { echo "bench-download: verify failed after the resume" >&2; status=1; }

# 4. `tours --installed` with 100 tours installed.
start_server many "$work/many"
rm -rf "$work/home"
for i in $(seq -w 1 100); do download "$work/home" "tour$i" >/dev/null; done
stop_server
python3 - "$walkscape" "$work/home" <<'PY' || status=1
import os, statistics, subprocess, sys, time
walkscape, home = sys.argv[1], sys.argv[2]
env = dict(os.environ, WALKSCAPE_HOME=home, WALKSCAPE_API_URL="http://127.0.0.1:9")
def median_ms(args):
    samples = []
    for _ in range(20):
        t0 = time.perf_counter()
        out = subprocess.run([walkscape] + args, env=env, stdout=subprocess.PIPE, check=True).stdout
        samples.append((time.perf_counter() - t0) * 1000)
    return statistics.median(samples), out
version, _ = median_ms(["--version"])
listing, out = median_ms(["tours", "--installed"])
rows = len(out.decode().strip().splitlines()) - 1
print(f"tours --installed with {rows} tours: {listing:.1f} ms (walkscape --version {version:.1f} ms) (median of 20; goal: tens of ms)")
sys.exit(0 if rows == 100 and listing < 100 else 1)
PY

[ $status = 0 ] && echo "bench-download: within budget (throughput >= 0.8x curl, RSS flat, resume <= 1.01x, tours --installed in tens of ms)" \
  || echo "bench-download: OVER BUDGET"
exit $status
