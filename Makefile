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
# and the tools that make test fixtures (espeak-ng, lame) and peers (mpg123, alsa-utils).
APT_PACKAGES = pkg-config libmpg123-dev libasound2-dev libgps-dev libsqlite3-dev gpsd \
               espeak-ng lame mpg123 alsa-utils
# gpsdecode (the trace benchmark's peer) lives in gpsd-clients, which pulls in GTK:
# only `make bench` asks for it.
BENCH_APT_PACKAGES = gpsd-clients curl time python3

SUDO = $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps deps-bench build test demo bench install clean fuzz-nmea fuzz-srt

all: build

deps:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "Installing:" $$missing; \
	  $(SUDO) apt-get update -q && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q --no-install-recommends $$missing; \
	fi

deps-bench: deps
	@missing=$$(for p in $(BENCH_APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  $(SUDO) apt-get update -q && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q --no-install-recommends $$missing; \
	fi

build: deps
	$(SWIFT) build -c $(CONFIG) $(BUILD_FLAGS)

# One build for everything (products and tests), then run without rebuilding.
test: deps
	$(SWIFT) build --build-tests $(BUILD_FLAGS)
	$(SWIFT) test --skip-build $(TEST_FLAGS)

demo: build
	@scripts/demo.sh "$(BIN)"

bench: deps-bench
	$(SWIFT) build -c release $(BUILD_FLAGS)
	@scripts/bench.sh "$$($(SWIFT) build -c release --show-bin-path)"

fuzz-nmea fuzz-srt: deps
	@scripts/fuzz.sh $(@:fuzz-%=%) $(FUZZ_SECONDS)

install:
	$(SWIFT) build -c release $(BUILD_FLAGS)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 "$$($(SWIFT) build -c release --show-bin-path)/walkscape" $(DESTDIR)$(PREFIX)/bin/walkscape

clean:
	rm -rf .build .build-*
