#!/usr/bin/env bash
# The main job on the bundled demo tour. Until the preview lands, the machine check.
set -euo pipefail
bin="$1"
"$bin" --version
"$bin" doctor || true
