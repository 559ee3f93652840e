#!/usr/bin/env bash
# Runs every benchmark piece (scripts/bench-*.sh) against the release binary folder given as $1.
# Each piece measures walkscape and its named peer in the same run and prints ratios.
set -euo pipefail
bindir="$1"
cd "$(dirname "$0")/.."
status=0
for piece in scripts/bench-*.sh; do
  [ -e "$piece" ] || continue
  echo "== $(basename "$piece" .sh)"
  bash "$piece" "$bindir" || status=1
done
exit $status
