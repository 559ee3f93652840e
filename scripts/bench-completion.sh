#!/usr/bin/env bash
# Tab after `walkscape walk`, `remove` and `-l` with 100 tours installed: the program's answer to
# the shell (`walkscape ---completion ...`, what the generated scripts call) and the whole Tab in a
# real bash (the installed script sourced, _walkscape run), median of 21 runs each. Budget: 50 ms
# for the whole Tab. The tours are 100 copies of the demo tour under other ids and slugs, served
# by walkscape-server and downloaded (their media is stored once).
set -euo pipefail
bindir="$(cd "$1" && pwd)"
cd "$(dirname "$0")/.."
. scripts/lib/bench-common.sh
bench_require bench-completion python3 bash
walkscape="$bindir/walkscape"
server="$bindir/walkscape-server"
bench_workdir completion
count=${COMPLETION_TOURS:-100}

python3 - "$work/tours" "$count" <<'PY'
import json, os, shutil, sys, uuid
target, count = sys.argv[1], int(sys.argv[2])
source = "tours/demo"
tour = json.load(open(os.path.join(source, "tour.json")))
for i in range(count):
    folder = os.path.join(target, f"walk-{i:03d}")
    shutil.copytree(source, folder, ignore=shutil.ignore_patterns("traces"))
    tour["id"] = str(uuid.UUID(int=i + 1))
    tour["slug"] = f"walk-{i:03d}"
    tour.pop("traces", None)
    json.dump(tour, open(os.path.join(folder, "tour.json"), "w"))
PY
start_server completion "$work/tours"
export WALKSCAPE_HOME="$work/home"
for i in $(seq 0 $((count - 1))); do
  "$walkscape" download "$(printf 'walk-%03d' "$i")" --api-url "$base" --no-analytics >/dev/null 2>"$work/download.err" \
    || { echo "bench-completion: download failed:" >&2; cat "$work/download.err" >&2; exit 1; }
done
stop_server
installed=$("$walkscape" tours --installed | grep -c 'walk-' || true)
[ "$installed" -ge "$count" ] || { echo "bench-completion: $installed tours installed, not $count" >&2; exit 1; }

"$walkscape" --generate-completion-script bash > "$work/walkscape.bash"
mkdir -p "$work/bin" && ln -s "$walkscape" "$work/bin/walkscape"
ms() {  # microseconds of one run; a failed run stops the benchmark
  local t0 t1; t0=$(date +%s%N)
  "$@" >/dev/null 2>"$work/tab.err" || { echo "bench-completion: '$*' failed: $(cat "$work/tab.err")" >&2; exit 1; }
  t1=$(date +%s%N); echo $(((t1 - t0) / 1000))
}
tab() {  # a real bash: the script sourced, Tab pressed after the words given
  PATH="$work/bin:$PATH" bash --norc -c '
    source "$1"; shift
    COMP_WORDS=(walkscape "$@"); COMP_CWORD=$#; COMP_LINE="walkscape $*"; COMP_POINT=${#COMP_LINE}
    _walkscape walkscape "${@: -1}" "${@: -2:1}"
    [ "${#COMPREPLY[@]}" -gt 0 ] || exit 3' _ "$work/walkscape.bash" "$@"
}
report() {  # LABEL COMMAND...
  local label="$1"; shift
  local runs=() i
  for i in $(seq 21); do runs+=("$(ms "$@")") || exit 1; done
  awk -v label="$label" -v us="$(bench_median "${runs[@]}")" 'BEGIN { printf "%-44s %7.1f ms\n", label, us / 1000 }'
}
words=$("$walkscape" ---completion walk -- positional@0 2 0 walkscape walk "" | grep -c '^walk-' || true)
[ "$words" -ge "$count" ] || { echo "bench-completion: walk offered $words tours, not $count" >&2; exit 1; }
echo "$count tours installed; walk <Tab> offers $words"
report "program: walk <Tab>" "$walkscape" ---completion walk -- positional@0 2 0 walkscape walk ""
report "program: remove walk-05<Tab>" "$walkscape" ---completion remove -- positional@0 2 7 walkscape remove walk-05
report "program: walk walk-042 -l <Tab>" "$walkscape" ---completion walk -- --language 4 0 walkscape walk walk-042 -l ""
report "bash: walkscape walk <Tab> (budget 50 ms)" tab walk ""
report "bash: walkscape remove walk-05<Tab>" tab remove walk-05
report "bash: walkscape walk walk-042 -l <Tab>" tab walk walk-042 -l ""
report "bash: walkscape wa<Tab> (no program call)" tab wa
