#!/usr/bin/env bash
# Line coverage of Sources/, per module and in all, over the whole suite: `make coverage`.
# Builds in its own scratch folder (.build-cov, a full build: about 12 min on 2 cores the first
# time) so the normal build is untouched. Processes the tests start (walkscape, walkscape-server)
# write their own profiles there too, so what only a process exercises counts.
# --report-only: summarise the profiles of the last run without running the suite again.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=.build-cov
if [ "${1:-}" != "--report-only" ]; then
  rm -rf "$scratch"/*/debug/codecov
  log=$(mktemp)
  # SwiftPM merges the profiles itself after the run and fails the command when a process a test
  # killed left a truncated one; the suite's own verdict is its closing line. The merge below skips
  # such profiles.
  swift test --enable-code-coverage --scratch-path "$scratch" --no-parallel 2>&1 | tee "$log" || true
  if ! grep -q "Test run with .* passed" "$log"; then
    rm -f "$log"
    echo "coverage: the suite did not pass" >&2
    exit 1
  fi
  rm -f "$log"
fi
bin=$(swift build --scratch-path "$scratch" --show-bin-path)
tools=$(dirname "$(readlink -f "$(command -v swift)")")
profile=$(mktemp)
trap 'rm -f "$profile" "$profile.json"' EXIT
# A process killed by a test (SIGKILL on purpose) may leave a truncated profile: skip those.
"$tools/llvm-profdata" merge -sparse -failure-mode=all "$bin"/codecov/*.profraw -o "$profile" 2>/dev/null
"$tools/llvm-cov" export -summary-only -instr-profile "$profile" "$bin/walkscapePackageTests.xctest" \
  -object "$bin/walkscape" -object "$bin/walkscape-server" > "$profile.json"
python3 scripts/coverage-summary.py "$profile.json" "$(pwd)"
