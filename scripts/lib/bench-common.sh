# Sourced by the benchmarks (scripts/bench-*.sh): the checks, the work folder, the processes stopped
# at exit, the server, CPU time and medians.
# Kept outside scripts/bench-*.sh so that scripts/bench.sh does not run it as a benchmark.

# bench_require NAME TOOL...: stops with a clear line when a tool is missing.
bench_require() {
  local name="$1" tool; shift
  for tool in "$@"; do
    command -v "$tool" >/dev/null || { echo "$name: $tool is not installed (make deps-bench)" >&2; exit 1; }
  done
}

# bench_workdir NAME [PARENT]: sets $work (a fresh folder under PARENT, default $TMPDIR or /tmp) and
# $pids; at exit every process in $pids is stopped and $work removed.
bench_workdir() {
  local parent="${2:-${TMPDIR:-/tmp}}"
  work="$(mktemp -d "$parent/walkscape-$1.XXXXXX")"
  pids=()
  trap bench_cleanup EXIT
}
bench_cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}

# start_server LABEL FOLDER [FLAG...]: walkscape-server ($server) on FOLDER with a free port; sets
# $base (its URL, the first line it prints) and $server_pid.
start_server() {
  local label="$1" folder="$2"; shift 2
  local out="$work/server-$label.out"
  "$server" "$folder" --port 0 --data "$work/server-data" --log-level warning "$@" >"$out" 2>"$work/server-$label.err" &
  server_pid=$!
  pids+=("$server_pid")
  for _ in $(seq 500); do [ -s "$out" ] && break; sleep 0.01; done
  base="$(head -n 1 "$out")"
  [ -n "$base" ] || { echo "$(basename "$0" .sh): walkscape-server did not start:" >&2; cat "$work/server-$label.err" >&2; exit 1; }
}
stop_server() { kill -TERM "$server_pid"; wait "$server_pid" 2>/dev/null || true; }

median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# bench_cpu COMMAND...: CPU seconds (user+sys, ms resolution) of one run, output discarded; stops
# the benchmark with the command's errors when it fails. Needs $work.
bench_cpu() {
  local TIMEFORMAT='%3U %3S'
  { time "$@" >/dev/null 2>"$work/err"; } 2>"$work/cpu" \
    || { echo "$(basename "$0" .sh): '$*' failed:" >&2; cat "$work/err" >&2; exit 1; }
  awk '{ printf "%.3f\n", $1 + $2 }' "$work/cpu"
}

# bench_median NUMBER...: the median.
bench_median() {
  printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
