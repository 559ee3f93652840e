# walkscape: the two commands a newcomer types are `make demo` and `make test`;
# each installs what it needs and builds first.
SHELL := /bin/bash
PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift
CONFIG ?= debug
BUILD_FLAGS ?=
BIN = $(shell $(SWIFT) build -c $(CONFIG) --show-bin-path 2>/dev/null)/walkscape

# Debian packages: the C libraries we link, gpsd for the real-device tests,
# the tools that make test fixtures (espeak-ng, lame) and peers (mpg123, alsa-utils), and python3
# for the tests' small stand-ins (a shell's job control on a pty, a redirecting HTTP service).
APT_PACKAGES = pkg-config libmpg123-dev libasound2-dev libgps-dev libsqlite3-dev gpsd \
               libavformat-dev libavcodec-dev libswresample-dev libebur128-dev \
               espeak-ng lame mpg123 alsa-utils python3 ffmpeg openssl ca-certificates tinyproxy \
               dante-server
# tinyproxy and dante-server are the proxy tests' HTTP and SOCKS proxies: the tests start them on
# free loopback ports, never as the system services.
# gpsdecode (the trace benchmark's peer) lives in gpsd-clients, which pulls in GTK:
# only `make bench` asks for it. nginx and wrk are the server benchmark's peer and load generator
# (nginx is started by the script on a loopback port, never as the system service).
BENCH_APT_PACKAGES = gpsd-clients curl time python3 nginx wrk
# Packaging (make deb, make check-deb): dpkg's tools, fakeroot-free builds, lintian, man's checks.
DEB_APT_PACKAGES = dpkg-dev lintian man-db curl

# Release builds link the Swift runtime and Foundation statically: start-up halves (about 7 ms
# instead of 15 ms for `--version`) and the resident set shrinks by 6 MiB, which is what a walker's
# battery and a curator's `preview --fast` feel.
RELEASE_FLAGS = -c release --static-swift-stdlib

SUDO = $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps deps-bench deps-deb deb check-deb layers lint format build test coverage demo bench install clean fuzz-nmea fuzz-srt fuzz-progress fuzz-tour fuzz-audio fuzz-manifest

all: build

# $(call apt_install,PACKAGES): apt-get install those of PACKAGES not installed yet (one place for
# deps, deps-bench and deps-deb).
apt_install = @missing=$$(for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "Installing:" $$missing; \
	  $(SUDO) apt-get update -q && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q --no-install-recommends $$missing; \
	fi

deps:
	$(call apt_install,$(APT_PACKAGES))

deps-bench: deps
	$(call apt_install,$(BENCH_APT_PACKAGES))

deps-deb: deps
	$(call apt_install,$(DEB_APT_PACKAGES))

# The module layers of docs/architecture.md: no arrow up, no undeclared import, a pure walk core.
layers:
	@scripts/check-layers.py

# What CI checks besides the tests: the layers, and the code's format (`make format` fixes it).
# The format is the toolchain's own formatter with `.swift-format` at the root.
FORMAT_PATHS = Package.swift Sources Tests
lint: layers
	$(SWIFT) format lint --strict --recursive $(FORMAT_PATHS)

format:
	$(SWIFT) format format --in-place --recursive $(FORMAT_PATHS)

build: deps layers
	$(SWIFT) build -c $(CONFIG) $(BUILD_FLAGS)

# One build for everything (products and tests), then run without rebuilding. Three tests at a
# time on the project's two cores: most of the suite waits on real processes and real clocks
# (servers, gpsd fed at a pace, idle timeouts), and a third test fills the time the other two
# wait (2026-11-28: 149-165 s against 195-203 s for two). Tried first on 2026-11-27, three had
# tests that keep time in real time failing now and then; each failure seen since was a test
# feeding a walk past the point it meant to stop at, or a polling margin of 150-500 ms, and was
# mended (a feed bounded by the next point, margins from when the thing measured began). At four
# (146 s) three idle-connection tests failed, their client's sleeps overrunning the server's
# timeouts (since given wider margins; four not tried again).
TEST_FLAGS ?= --parallel --experimental-maximum-parallelization-width 3
test: deps lint
	$(SWIFT) build --build-tests $(BUILD_FLAGS)
	$(SWIFT) test --skip-build $(TEST_FLAGS)

# Line coverage of Sources/ over the whole suite, per module (its own build in .build-cov).
coverage: deps
	@scripts/coverage.sh

# The demo needs the walker's program alone: not the server, the fuzzers or the tests.
demo: deps layers
	$(SWIFT) build -c $(CONFIG) $(BUILD_FLAGS) --product walkscape
	@scripts/demo.sh "$(BIN)"

bench: deps-bench
	$(SWIFT) build $(RELEASE_FLAGS) $(BUILD_FLAGS)
	@scripts/bench.sh "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)"

fuzz-nmea fuzz-srt fuzz-progress fuzz-tour fuzz-audio fuzz-manifest: deps
	@scripts/fuzz.sh $(@:fuzz-%=%) $(FUZZ_SECONDS)

# The programs, their manual pages (section 1 from the commands, 5 and 7 from man/) and their
# bash, zsh and fish completions under PREFIX.
install: deps
	for p in walkscape walkscape-server generate-manual; do $(SWIFT) build $(RELEASE_FLAGS) $(BUILD_FLAGS) --product $$p || exit 1; done
	install -d $(DESTDIR)$(PREFIX)/bin
	for bin in walkscape walkscape-server; do \
	  install -s -m 0755 "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/$$bin" $(DESTDIR)$(PREFIX)/bin/$$bin || exit 1; \
	done
	scripts/install-extras.sh "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)" "$(DESTDIR)" "$(PREFIX)" walkscape walkscape-server

# Debian packages: walkscape_<version>_<arch>.deb and walkscape-server_<version>_<arch>.deb in
# dist/ (scripts/make-deb.sh), and their check in a scratch root (scripts/check-deb.sh: dpkg -i,
# --version, man, Tab, the server, systemd-analyze verify, lintian, dpkg -r and -P). Not part of
# make test: the release build they need is a second build.
deb: deps-deb
	@RELEASE_FLAGS="$(RELEASE_FLAGS)" scripts/make-deb.sh dist

check-deb: deb
	@scripts/check-deb.sh dist

clean:
	rm -rf .build .build-*
