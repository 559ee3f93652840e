#!/usr/bin/env bash
# Server benchmark: walkscape-server on loopback, against Debian's nginx serving the same file.
#   1. media throughput: a 200 MB file with `curl -o /dev/null` from walkscape-server and from nginx
#      (started here on a loopback port with its own minimal config, not the system service),
#      alternating, median of RUNS each. Goal: at least 0.8x nginx.
#   2. `wrk -t 2 -c 64` for 10 s on /tours and on a manifest: requests/s and p99. Goal: zero errors.
#   3. the server's peak RSS while streaming the 200 MB file (fast and to a rate-limited client),
#      against streaming a 20 MB file, in a fresh server. Goal: flat (less than 16 MiB more).
# Usage: scripts/bench-server.sh BINDIR [RUNS]
set -euo pipefail
bindir="${1:?usage: scripts/bench-server.sh BINDIR [RUNS]}"
runs="${2:-5}"
cd "$(dirname "$0")/.."
server="$(cd "$bindir" && pwd)/walkscape-server"
. scripts/lib/bench-common.sh
bench_require bench-server curl wrk python3 /usr/sbin/nginx
bench_workdir bench-server

# A tour folder with a 200 MB and a 20 MB "narration" (random bytes: nothing compresses them).
tour="$work/tours/bench"
mkdir -p "$tour/media"
head -c 200M /dev/urandom >"$tour/media/big.mp3"
head -c 20M /dev/urandom >"$tour/media/small.mp3"
cat >"$tour/tour.json" <<'JSON'
{"format": 1, "id": "bench-tour", "slug": "bench", "languages": {"en": {"title": "Bench"}},
 "points": [
  {"id": "big", "order": 1, "location": {"lat": 44.49, "lng": 11.34}, "triggerRadiusMeters": 30,
   "content": {"en": {"title": "Big", "audio": "media/big.mp3"}}},
  {"id": "small", "order": 2, "location": {"lat": 44.50, "lng": 11.35}, "triggerRadiusMeters": 30,
   "content": {"en": {"title": "Small", "audio": "media/small.mp3"}}}]}
JSON
cp -r tours/demo "$work/tours/demo"

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

media_url() {  # point id -> signed URL from the manifest
  curl -sf "$base/tours/bench-tour/manifest?language=en" |
    python3 -c 'import json, sys; print(next(a["fileUrl"] for a in json.load(sys.stdin)["audio"] if a["pointId"] == sys.argv[1]))' "$1"
}

# nginx on its own loopback port, with a minimal config of its own.
nginx_port="$(free_port)"
mkdir -p "$work/nginx/logs"
user_line=""; [ "$(id -u)" = 0 ] && user_line="user root;"
cat >"$work/nginx/nginx.conf" <<CONF
$user_line
worker_processes auto;
daemon off;
pid $work/nginx/nginx.pid;
error_log $work/nginx/logs/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  client_body_temp_path $work/nginx/body;
  proxy_temp_path $work/nginx/proxy;
  fastcgi_temp_path $work/nginx/fastcgi;
  uwsgi_temp_path $work/nginx/uwsgi;
  scgi_temp_path $work/nginx/scgi;
  server {
    listen 127.0.0.1:$nginx_port;
    root $tour;
  }
}
CONF
/usr/sbin/nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" -e "$work/nginx/logs/error.log" &
nginx_pid=$!
pids+=("$nginx_pid")
for _ in $(seq 500); do curl -sf -o /dev/null "http://127.0.0.1:$nginx_port/media/small.mp3" && break; sleep 0.01; done

start_server main "$work/tours"
big_url="$(media_url big)"
nginx_url="http://127.0.0.1:$nginx_port/media/big.mp3"
size=$(stat -c %s "$tour/media/big.mp3")

# 1. Throughput, alternating, page cache warm for both.
speed() { curl -sf -o /dev/null -w '%{speed_download} %{size_download}' "$1"; }
check_size() { [ "${1#* }" = "$size" ] || { echo "bench-server: short download (${1#* } of $size bytes)" >&2; exit 1; }; }
speed "$big_url" >/dev/null; speed "$nginx_url" >/dev/null
ours=(); peer=()
for _ in $(seq "$runs"); do
  r=$(speed "$big_url"); check_size "$r"; ours+=("${r% *}")
  r=$(speed "$nginx_url"); check_size "$r"; peer+=("${r% *}")
done
a=$(median "${ours[@]}"); b=$(median "${peer[@]}")
status=0
awk -v a="$a" -v b="$b" -v runs="$runs" 'BEGIN {
  printf "media 200 MB: walkscape-server %.0f MB/s, nginx %.0f MB/s (median of %d): ratio %.2fx (goal >= 0.80x)\n", a / 1e6, b / 1e6, runs, a / b }'
awk -v a="$a" -v b="$b" 'BEGIN { exit !(a / b >= 0.8) }' || status=1

# 2. wrk on the catalog and on a manifest (the demo tour's: 5 narrations and 5 subtitles, all signed).
wrk_run() {
  local name="$1" url="$2" out="$work/wrk-$1.txt"
  wrk -t 2 -c 64 -d "${WRK_SECONDS:-10}s" --latency "$url" >"$out"
  python3 - "$name" "$out" <<'PY' || status=1
import re, sys
name, text = sys.argv[1], open(sys.argv[2]).read()
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
p99 = re.search(r"99%\s+([\d.]+\w+)", text).group(1)
total = int(re.search(r"(\d+) requests in", text).group(1))
errors = sum(int(n) for n in re.findall(r"(?:connect|read|write|timeout) (\d+)", text))
non2xx = int((re.search(r"Non-2xx or 3xx responses: (\d+)", text) or [0, 0])[1])
print(f"wrk -c 64 /{name}: {rps:,.0f} requests/s, p99 {p99}, {total} requests, {errors} socket errors, {non2xx} non-2xx")
sys.exit(0 if errors == 0 and non2xx == 0 else 1)
PY
}
wrk_run tours "$base/tours"
wrk_run manifest "$base/tours/3b6f7a0e-2c55-4c1e-8f4a-7d2f5e0c9a10/manifest?language=en"
stop_server

# 3. Peak RSS of a fresh server: after streaming 20 MB, then 200 MB fast, then 200 MB to a slow reader.
hwm() { awk '/VmHWM/ { print $2 }' "/proc/$server_pid/status"; }
start_server rss "$work/tours"
curl -sf -o /dev/null "$base/tours"
idle=$(hwm)
curl -sf -o /dev/null "$(media_url small)"; small_peak=$(hwm)
curl -sf -o /dev/null "$(media_url big)"; big_peak=$(hwm)
curl -sf -o /dev/null --limit-rate 100M "$(media_url big)"; slow_peak=$(hwm)
stop_server
echo "server peak RSS: idle $((idle / 1024)) MiB, after 20 MB $((small_peak / 1024)) MiB, after 200 MB $((big_peak / 1024)) MiB, after 200 MB to a 100 MB/s reader $((slow_peak / 1024)) MiB"
[ $((slow_peak - small_peak)) -lt $((16 * 1024)) ] || status=1

[ $status = 0 ] && echo "bench-server: within budget (ratio >= 0.8x, no wrk errors, RSS flat)" \
  || echo "bench-server: OVER BUDGET (ratio must be >= 0.8x, wrk without errors, RSS within 16 MiB of the 20 MB peak)"
exit $status
