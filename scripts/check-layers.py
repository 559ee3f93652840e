#!/usr/bin/env python3
"""The layers of docs/architecture.md, checked: fails (exit 1, one line per breach) when

- a target depends on a target of its own layer or a higher one (an arrow pointing up), or a
  target is missing from the table below (a new module must be given its place);
- a source file imports a module its target does not declare (SwiftPM lets a module import what
  its dependencies depend on; the layers would then hold by habit only);
- the walk's rules (`Walk`) or the tour model import anything but Foundation and the modules below
  them (no C library, no Glibc, no Playback, no files: the core is pure).

Run by `make build`, `make test` and `make lint`, before compiling.
"""
import json
import os
import re
import subprocess
import sys

# Lower numbers are lower layers; a dependency must point strictly down.
LAYERS = {
    # C libraries and the file rules
    "CGPS": 0, "CMPG123": 0, "CALSA": 0, "CFFmpeg": 0, "CEBUR128": 0, "CFuzzerShim": 0, "CSampleKernels": 0,
    "FileAccess": 0,
    # what this build is (version, commit)
    "BuildInfo": 0,
    # the tour itself
    "TourModel": 1,
    # positions, sound, the service's wire
    "Positioning": 2, "Playback": 2, "TourAPI": 2,
    # the walk's rules; gpsd; the content store; analytics; the server's core
    "Walk": 3, "GPSD": 3, "TourStore": 3, "Analytics": 3, "WalkscapeServer": 3,
    # the walk run live and simulated
    "WalkRuntime": 4,
    # what a curator sees
    "Curation": 5,
    # walkscape's application layer: settings, credentials, installation, analytics wiring
    "WalkscapeKit": 6,
    # programs
    "walkscape": 9, "walkscape-server": 9,
    "FuzzNMEA": 9, "FuzzSRT": 9, "FuzzProgress": 9, "FuzzTour": 9, "FuzzAudio": 9, "FuzzManifest": 9,
    "TestSupport": 9, "ServiceTestSupport": 9,
}

# Modules any target may import: the platform's.
SYSTEM = {"Foundation", "FoundationEssentials", "Glibc", "Darwin", "Dispatch", "Synchronization", "_Concurrency"}

# Pure layers: Foundation (and the modules declared below them) only.
PURE = {"Walk": {"Foundation"}, "TourModel": {"Foundation", "Glibc", "Darwin"}}

IMPORT = re.compile(r"^\s*(?:@testable\s+|@_exported\s+|@preconcurrency\s+)*(?:public\s+|internal\s+|package\s+|private\s+|fileprivate\s+)?"
                    r"import\s+(?:(?:struct|class|enum|protocol|typealias|func|var|let)\s+)?([A-Za-z_][A-Za-z0-9_]*)")


def main() -> int:
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    dump = subprocess.run(["swift", "package", "dump-package"], cwd=root, capture_output=True, text=True)
    if dump.returncode != 0:
        print("check-layers: swift package dump-package failed: " + dump.stderr.strip().splitlines()[-1], file=sys.stderr)
        return 2
    package = json.loads(dump.stdout)
    breaches = []
    for target in package["targets"]:
        name, kind = target["name"], target["type"]
        if kind in ("test", "plugin"):
            continue
        if name not in LAYERS:
            breaches.append(f"{name}: not in the layer table of scripts/check-layers.py (and docs/architecture.md)")
            continue
        declared = set()
        for dependency in target["dependencies"]:
            (how, value), = dependency.items()
            dep = value[0]
            declared.add(dep)
            if how in ("byName", "target") and dep in LAYERS and LAYERS[dep] >= LAYERS[name]:
                breaches.append(f"{name} (layer {LAYERS[name]}) depends on {dep} (layer {LAYERS[dep]}): an arrow up or sideways")
        if kind == "system":
            continue
        folder = os.path.join(root, target.get("path") or os.path.join("Sources", name))
        for directory, _, files in os.walk(folder):
            for file in sorted(files):
                if not file.endswith(".swift"):
                    continue
                path = os.path.join(directory, file)
                with open(path, encoding="utf-8") as handle:
                    for number, line in enumerate(handle, 1):
                        match = IMPORT.match(line)
                        if not match:
                            continue
                        module = match.group(1)
                        where = f"{os.path.relpath(path, root)}:{number}"
                        if name in PURE and module not in PURE[name] and module not in declared:
                            breaches.append(f"{where}: {name} is pure and imports {module}")
                        elif module not in declared and module not in SYSTEM:
                            breaches.append(f"{where}: {name} imports {module}, which it does not declare in Package.swift")
    for breach in breaches:
        print("check-layers: " + breach, file=sys.stderr)
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
