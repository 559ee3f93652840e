#!/usr/bin/env bash
# Analytics benchmark (issue 13): recording an event durably, and flushing 10,000 events over
# loopback to walkscape-server. Goals: append at most 1 ms, flush of 10,000 in at most 5 s.
#
#   1. append. No command records a single event and does nothing else, and a process's start
#      (several ms) would drown a sub-millisecond figure, so the appends are counted inside one
#      process, on the real code path: `walkscape remove` of a tour installed in N languages
#      (N = ANALYTICS_BENCH_APPENDS, default 1000) records one `tour_download_deleted` per
#      language, each through the recorder a walk's events go through (stamped, then one SQLite
#      transaction with synchronous = FULL in the WAL outbox, committed before the next). Each
#      event's `recordedAt` (`analytics show --json`, millisecond precision) is taken just before
#      its transaction, so the span from the 2nd to the last event divided by N - 2 is the MEAN
#      time of one append, stamping included (the 1st interval also opens the outbox and is left
#      out). No API URL is configured, so nothing is sent. The figure is the median of RUNS means.
#      Cross-check, coarse: the same `remove` with and without --no-analytics, wall time of the
#      whole process, (with - without) / N, median over RUNS alternating pairs (the removal itself
#      is in both, and its noise is in the difference).
#      Peer: SQLite alone doing the same: a fresh database with the outbox's own schema (read from
#      walkscape's outbox), WAL and synchronous = FULL, the same INSERT of the same rows, one
#      transaction each, from Python's sqlite3 module: the durable commit's floor on this disk.
#   2. flush. M `point_triggered` events (M = ANALYTICS_BENCH_EVENTS, default 10,000) of a tour
#      installed from the server are written as the JSON-lines journal walkscape kept before the
#      outbox (`state/outbox.jsonl`), which the outbox imports when it is first opened (`walkscape
#      analytics status` opens it; that import, one transaction, is timed too). Then `walkscape
#      sync` is timed: batches of 50 events until the outbox is empty, each deleted in the
#      transaction that records it sent. The server's `events --json` must then show exactly M
#      events with the journal's eventIds, none twice. Peer: curl POSTing as many batches of as
#      many events (their own eventIds, `offline: false` as walkscape sends them) one after another
#      on one kept-alive connection (`--next`), every answer a 204. Median of RUNS each,
#      alternating. The ratio is walkscape's rate over curl's (curl reads no outbox and commits
#      nothing).
# The work folder is under .build-bench/ in the checkout (BENCH_DIR to change it): on a real disk,
# as the state folder is; on a tmpfs a sync costs nothing and the append figure would mean nothing.
# A durable append costs what the disk takes to sync: "SQLite alone" shows that floor.
# Usage: scripts/bench-analytics.sh BINDIR [RUNS]
#   (ANALYTICS_BENCH_APPENDS=n, ANALYTICS_BENCH_EVENTS=n change the counts, for a quick try)
set -euo pipefail
bindir="${1:?usage: scripts/bench-analytics.sh BINDIR [RUNS]}"
runs="${2:-3}"
appends="${ANALYTICS_BENCH_APPENDS:-1000}"
events="${ANALYTICS_BENCH_EVENTS:-10000}"
bindir="$(cd "$bindir" && pwd)"
cd "$(dirname "$0")/.."
walkscape="$bindir/walkscape"
server="$bindir/walkscape-server"
. scripts/lib/bench-common.sh
bench_require bench-analytics curl python3
[ "$appends" -ge 10 ] || { echo "bench-analytics: ANALYTICS_BENCH_APPENDS must be at least 10" >&2; exit 1; }
# The environment of whoever runs this must not turn analytics off or send it elsewhere.
unset DO_NOT_TRACK WALKSCAPE_ANALYTICS WALKSCAPE_ANALYTICS_DIALECT WALKSCAPE_ANALYTICS_BATCH_BYTES \
  WALKSCAPE_API_URL WALKSCAPE_HOME WALKSCAPE_LANGUAGE
mkdir -p "${BENCH_DIR:-.build-bench}"
bench_workdir bench-analytics "$(cd "${BENCH_DIR:-.build-bench}" && pwd)"

# The tour: 3 points, in `en` and N - 1 more languages (en-n0001, ...) that share the
# narration files, so installing every language fetches 3 small files.
python3 - "$work/tours/benchevents" "$appends" <<'PY'
import json, os, sys
root, count = sys.argv[1], int(sys.argv[2])
os.makedirs(os.path.join(root, "media"))
languages = ["en"] + [f"en-n{i:04d}" for i in range(1, count)]
points = []
for i in range(1, 4):
    name = f"media/{i:02d}.mp3"
    with open(os.path.join(root, name), "wb") as f:
        f.write(os.urandom(2000))
    points.append({"id": f"benchevents-p{i}", "order": i, "location": {"lat": 44.49 + i * 0.001, "lng": 11.34},
                   "triggerRadiusMeters": 30, "content": {code: {"title": f"Point {i}", "audio": name} for code in languages}})
json.dump({"format": 1, "id": "benchevents-id", "slug": "benchevents",
           "languages": {code: {"title": "Analytics bench"} for code in languages}, "points": points},
          open(os.path.join(root, "tour.json"), "w"))
PY

start_server main "$work/tours"

# Homes with the tour installed (set-up commands record nothing: --no-analytics).
languages=(-l en)
for i in $(seq 1 $((appends - 1))); do languages+=(-l "$(printf 'en-n%04d' "$i")"); done
WALKSCAPE_HOME="$work/append-home" WALKSCAPE_API_URL="$base" "$walkscape" download benchevents "${languages[@]}" \
  --no-analytics >/dev/null 2>"$work/download.err" || { cat "$work/download.err" >&2; exit 1; }
WALKSCAPE_HOME="$work/flush-home" WALKSCAPE_API_URL="$base" "$walkscape" download benchevents -l en \
  --no-analytics >/dev/null 2>"$work/download.err" || { cat "$work/download.err" >&2; exit 1; }

status=0
python3 - "$walkscape" "$work" "$appends" "$runs" <<'PY' || status=1
import json, os, shutil, sqlite3, statistics, subprocess, sys, time
from datetime import datetime
walkscape, work, appends, runs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
template, home = os.path.join(work, "append-home"), os.path.join(work, "append-run")
env = dict(os.environ, WALKSCAPE_HOME=home)

def fresh():
    shutil.rmtree(home, ignore_errors=True)
    shutil.copytree(template, home, symlinks=True)

def remove(*flags):
    t0 = time.perf_counter()
    subprocess.run([walkscape, "remove", "benchevents", *flags], env=env, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t0

def when(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()

means, pairs = [], []
for _ in range(runs):
    fresh()
    with_analytics = remove()
    kept = json.loads(subprocess.run([walkscape, "analytics", "show", "--json"], env=env, stdout=subprocess.PIPE,
                                     check=True).stdout)
    if len(kept) != appends or any(e["name"] != "tour_download_deleted" for e in kept):
        sys.exit(f"bench-analytics: remove recorded {len(kept)} events, not {appends} tour_download_deleted")
    recorded = [when(e["recordedAt"]) for e in kept]
    means.append((recorded[-1] - recorded[1]) / (appends - 2))
    rows = sqlite3.connect(os.path.join(home, "state", "analytics.sqlite")).execute(
        "SELECT eventId, name, tourId, service, state, payload, offline, recordedAt FROM event ORDER BY seq").fetchall()
    schema = sqlite3.connect(os.path.join(home, "state", "analytics.sqlite")).execute(
        "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' AND name != 'grdb_migrations'").fetchall()
    fresh()
    without = remove("--no-analytics")
    if os.path.exists(os.path.join(home, "state", "analytics.sqlite")):
        sys.exit("bench-analytics: remove --no-analytics made an outbox")
    pairs.append((with_analytics - without) / appends)

# The peer: SQLite alone, the same schema, the same INSERT of the same rows, one transaction each.
peer = []
for _ in range(runs):
    path = os.path.join(work, "peer.sqlite")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = FULL")
    for (sql,) in schema:
        db.execute(sql)
    insert = """INSERT OR IGNORE INTO event (eventId, name, tourId, service, state, payload, offline, recordedAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)"""
    t0 = time.perf_counter()
    for row in rows:
        db.execute("BEGIN")
        db.execute(insert, row)
        db.execute("COMMIT")
    peer.append((time.perf_counter() - t0) / len(rows))
    db.close()

ms = lambda s: s * 1000
append, cross, floor = statistics.median(means), statistics.median(pairs), statistics.median(peer)
print(f"append (durable, inside one walkscape process, {appends} events): {ms(append):.3f} ms per event "
      f"(mean of each run, median of {runs} runs; SQLite alone: {ms(floor):.3f} ms, ratio {append / floor:.2f}x) (goal <= 1 ms)")
print(f"  cross-check, whole process: remove with analytics - remove --no-analytics = {ms(cross):.3f} ms per event "
      f"(median of {runs} pairs; coarse: the removal's own noise is in it)")
sys.exit(0 if append <= 0.001 else 1)
PY

python3 - "$walkscape" "$server" "$work" "$base" "$events" "$runs" <<'PY' || status=1
import json, os, shutil, statistics, subprocess, sys, time, uuid
walkscape, server, work, base, count, runs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6])
template, home = os.path.join(work, "flush-home"), os.path.join(work, "flush-run")
env = dict(os.environ, WALKSCAPE_HOME=home, WALKSCAPE_API_URL=base)
points = [f"benchevents-p{i}" for i in (1, 2, 3)]

def made(tag):
    """`count` events of one walker, in the live shape the walk records."""
    return [{"name": "point_triggered", "anonymousId": tag, "tourId": "benchevents-id", "pointId": points[n % 3],
             "language": "en", "device": "Linux x86_64", "osVersion": "Debian GNU/Linux 12 (bookworm)",
             "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(1_800_000_000 + n)) + ".000Z",
             "properties": {"eventId": str(uuid.uuid4()), "triggerType": "gps", "platform": "linux"}}
            for n in range(count)]

def server_admin(*args):
    return json.loads(subprocess.run([server, *args, "--json", "--data", os.path.join(work, "server-data")],
                                     stdout=subprocess.PIPE, check=True).stdout)

def ours():
    shutil.rmtree(home, ignore_errors=True)
    shutil.copytree(template, home, symlinks=True)
    tag = str(uuid.uuid4())
    sent = made(tag)
    os.makedirs(os.path.join(home, "state"), exist_ok=True)
    with open(os.path.join(home, "state", "outbox.jsonl"), "w") as journal:
        for event in sent:
            journal.write(json.dumps(event, separators=(",", ":")) + "\n")
    t0 = time.perf_counter()
    status = json.loads(subprocess.run([walkscape, "analytics", "status", "--json"], env=env, stdout=subprocess.PIPE,
                                       check=True).stdout)
    imported = time.perf_counter() - t0
    if status["waiting"] != count:
        sys.exit(f"bench-analytics: the journal's import left {status['waiting']} events waiting, not {count}")
    batches = server_admin("stats")["eventBatches"]
    # The disk settles first, for both: what the copy and the import left in the page cache is
    # written back now, not during the timed run, where it held up the server's commits.
    os.sync()
    t0 = time.perf_counter()
    report = json.loads(subprocess.run([walkscape, "sync", "--json"], env=env, stdout=subprocess.PIPE, check=True).stdout)
    took = time.perf_counter() - t0
    if report["sent"] != count or report["waiting"] != 0 or report["quarantined"] != 0:
        sys.exit(f"bench-analytics: sync said {report}")
    return took, imported, server_admin("stats")["eventBatches"] - batches, tag, {e["properties"]["eventId"] for e in sent}

def curl(batches):
    tag = str(uuid.uuid4())
    sent = made(tag)
    size = -(-count // batches)
    config = os.path.join(work, "curl.config")
    with open(config, "w") as c:
        for i in range(batches):
            body = os.path.join(work, f"batch-{i}.json")
            with open(body, "w") as b:
                json.dump({"events": [dict(e, offline=False) for e in sent[i * size:(i + 1) * size]]}, b, separators=(",", ":"))
            if i:
                c.write("next\n")
            c.write(f'url = "{base}/analytics/events"\nheader = "Content-Type: application/json"\n'
                    f'data-binary = "@{body}"\noutput = "/dev/null"\nwrite-out = "%{{http_code}}\\n"\n')
    os.sync()
    t0 = time.perf_counter()
    answers = subprocess.run(["curl", "-s", "-K", config], stdout=subprocess.PIPE, check=True).stdout.split()
    took = time.perf_counter() - t0
    if answers != [b"204"] * batches:
        sys.exit(f"bench-analytics: curl's answers were not all 204: {sorted(set(answers))}")
    return took, tag

ours_runs, curl_runs, imports, checks = [], [], [], []
for _ in range(runs):
    took, imported, batches, tag, ids = ours()
    ours_runs.append(took)
    imports.append(imported)
    checks.append((tag, ids))
    took, curl_tag = curl(batches)
    curl_runs.append(took)
    checks.append((curl_tag, None))

received = server_admin("events")["events"]
for tag, ids in checks:
    mine = [r for r in received if r.get("anonymousId") == tag]
    unique = {r["eventId"] for r in mine if not r.get("duplicate")}
    if len(mine) != count or len(unique) != count or (ids is not None and unique != ids):
        sys.exit(f"bench-analytics: the server has {len(mine)} events ({len(unique)} unique) of a run that sent {count}")

a, b, imported = statistics.median(ours_runs), statistics.median(curl_runs), statistics.median(imports)
print(f"flush {count} events over loopback ({batches} batches): walkscape sync {a:.2f} s ({count / a:.0f} events/s), "
      f"curl {b:.2f} s ({count / b:.0f} events/s) (median of {runs}): {b / a:.2f}x curl's rate (goal: <= 5 s); "
      f"the server received each event once")
print(f"  import of the {count}-event journal (one transaction; the whole `analytics status` that does it): "
      f"{imported:.2f} s (median of {runs})")
sys.exit(0 if a <= 5 else 1)
PY

[ $status = 0 ] && echo "bench-analytics: within budget (append <= 1 ms, flush of $events <= 5 s)" \
  || echo "bench-analytics: OVER BUDGET"
exit $status
