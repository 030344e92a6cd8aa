# SPDX-License-Identifier: LGPL-2.1-or-later
#
#   make demo    install what the demo needs (apt), build the library, the command and the
#                examples, run the event demos (ftrace text output)
#   make test    install what is missing, then build and run every test suite in three trees:
#                build/ (normal), build-asan/ (ASan+UBSan), build-tsan/ (TSan)
#   make bench   install what is missing, build, run every benchmark
#   make kernel-headers         the kernel-header corpus test (tests/kernel_headers/,
#                               docs/events.md); kernel-headers-update records its results
#   make ftracetest             the kernel's ftracetest run against trev's tree (root; also in
#                               make test; docs/ftracetest.md); ftracetest-update records it
#
# Helpers: deps, build, fuzz (FUZZ_SECONDS=300 per target), install (PREFIX=/usr/local),
# uninstall (what the last install from build/ put in place), clean.

SHELL := /bin/bash
MAKEFLAGS += --no-print-directory
JOBS ?= 2
PREFIX ?= /usr/local

DEB_PACKAGES := build-essential cmake pkg-config libcmocka-dev liburcu-dev libtraceevent-dev libtraceevent-doc trace-cmd libtracecmd-dev libtracefs-dev clang libclang-rt-14-dev valgrind libelf-dev libdw-dev libcapstone-dev \
	liblttng-ust-dev lttng-tools babeltrace2 fuse3 libfuse3-dev python3 linux-source-6.1 \
	kernelshark xvfb x11-apps x11-utils strace linux-perf bpftrace uftrace iproute2 iputils-ping jq \
	go-md2man man-db

# tests/browser/: Debian's chromium, driven from Node.js (npm ci of its package-lock.json on the
# first run); Debian's nodejs and npm unless a node with its npm is there already (NodeSource's
# nodejs carries npm and conflicts with Debian's npm package).
DEB_PACKAGES += chromium
NODE_PACKAGES := nodejs npm

# make demo's: the library, the trev command and the examples build with these alone.
DEMO_PACKAGES := build-essential cmake pkg-config liburcu-dev libelf-dev libdw-dev libcapstone-dev fuse3 libfuse3-dev \
	libtraceevent-dev libtracecmd-dev libtracefs-dev trace-cmd

SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)
APT_GET := $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600

# TREV_MAN=ON: the man pages (go-md2man, in DEB_PACKAGES) are built in each tree, and a
# missing go-md2man stops the configure instead of leaving tests/scripts/install.sh nothing.
BUILD_OPTS := -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTREV_MAN=ON -DTREV_TESTS=ON -DTREV_BENCH=ON
# make demo's tree is build/ too, without the tests, benchmarks and man pages (make test,
# make bench and make build put them back).
DEMO_OPTS := -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTREV_MAN=OFF -DTREV_TESTS=OFF -DTREV_BENCH=OFF
ASAN_OPTS := -DTREV_SANITIZE=address -DCMAKE_BUILD_TYPE=Debug -DTREV_MAN=ON
TSAN_OPTS := -DTREV_SANITIZE=thread -DCMAKE_BUILD_TYPE=Debug -DTREV_MAN=ON
# libFuzzer targets in a clang tree (ASan+UBSan); make test runs each briefly.
FUZZ_SECONDS ?= 300
FUZZ_OPTS = -DCMAKE_C_COMPILER=clang -DTREV_SANITIZE=address -DTREV_FUZZ=ON \
	-DCMAKE_BUILD_TYPE=Debug -DTREV_FUZZ_SECONDS=$(1)

# Every recipe runs cmake/ctest with its own -j; the targets themselves run in order.
.NOTPARALLEL:
.PHONY: demo test bench fuzz deps deps-demo build install uninstall clean kernel-headers kernel-headers-update \
	ftracetest ftracetest-update
.DEFAULT_GOAL := build

# $(call configure_build,DIR,CMAKE OPTIONS)
define configure_build
cmake -S . -B $(1) $(2)
cmake --build $(1) -j$(JOBS)
endef

# $(call test_suite,DIR,CMAKE OPTIONS)
define test_suite
@echo "==== $(1): configure, build, test"
$(call configure_build,$(1),$(2))
ctest --test-dir $(1) --output-on-failure -j$(JOBS)
endef

# $(call apt_missing,PACKAGES): install those of PACKAGES that are not installed.
define apt_missing
	@missing=""; \
	for pkg in $(1); do \
		dpkg-query -W -f='$${Status}' "$$pkg" 2>/dev/null | grep -q 'install ok installed' \
			|| missing="$$missing $$pkg"; \
	done; \
	$(2) \
	if [ -n "$$missing" ]; then \
		echo "deps: installing:$$missing"; \
		$(APT_GET) update -qq && \
		$(APT_GET) install -y -qq --no-install-recommends $$missing; \
	else \
		echo "deps: all packages installed"; \
	fi
endef

deps:
	$(call apt_missing,$(DEB_PACKAGES),command -v npm >/dev/null || missing="$$missing $(NODE_PACKAGES)";)

deps-demo:
	$(call apt_missing,$(DEMO_PACKAGES),)

build:
	$(call configure_build,build,$(BUILD_OPTS))

test: deps
	$(call test_suite,build,$(BUILD_OPTS))
	$(call test_suite,build-asan,$(ASAN_OPTS))
	$(call test_suite,build-tsan,$(TSAN_OPTS))
	$(call configure_build,build-fuzz,$(call FUZZ_OPTS,10))
	ctest --test-dir build-fuzz -R '^fuzz_' --output-on-failure -j$(JOBS)
	@echo "all test suites passed"

# Seed 004's te_test as a program, then a multi-threaded program with every kind of field;
# events enabled through TREV_EVENTS, the trace printed at exit through TREV_OUTPUT.
demo: deps-demo
	$(call configure_build,build,$(DEMO_OPTS))
	@echo "==== TREV_EVENTS='xhr_test:*' TREV_OUTPUT=stdout ./build/examples/te_test"
	@TREV_EVENTS='xhr_test:*' TREV_OUTPUT=stdout ./build/examples/te_test
	@echo
	@echo "==== TREV_EVENTS='demo:*' TREV_OUTPUT=stdout ./build/examples/demo_events"
	@TREV_EVENTS='demo:*' TREV_OUTPUT=stdout ./build/examples/demo_events
	@echo
	@echo "Next: ./build/tools/trev/trev record -e 'demo:*' -- ./build/examples/demo_events,"
	@echo "then trace-cmd report trace.dat (README, \"A five-minute tour\"); make install PREFIX=...;"
	@echo "make test builds and runs every test (it installs their packages)."

bench: deps build
	@found=0; \
	for b in build/bench/bench_*; do \
		[ -f "$$b" ] && [ -x "$$b" ] || continue; \
		found=1; \
		echo "==== $$b"; \
		"$$b" || exit 1; \
	done; \
	[ $$found -eq 1 ] || echo "bench: no benchmarks in build/bench"; \
	bench/instructions.sh build

# Debian's kernel event headers compiled with trev, formats and text compared with the kernel's
# stages and trace-cmd report; fails when a result differs from tests/kernel_headers/expected.txt.
# It installs linux-source-6.1 itself (tests/kernel_headers/extract.sh).
kernel-headers: deps build
	tests/kernel_headers/kernel_headers.sh

kernel-headers-update: deps build
	tests/kernel_headers/kernel_headers.sh --update

# The kernel's ftrace selftests, unmodified, against a program's tree through trev mount in a
# private mount namespace; fails when a result differs from tests/ftracetest/expected.txt.
# Root only (ftracetest's own rule). It installs linux-source-6.1 itself, as kernel-headers.
ftracetest: deps build
	tests/ftracetest/ftracetest.sh

ftracetest-update: deps build
	tests/ftracetest/ftracetest.sh --update

# The fuzz targets for longer (FUZZ_SECONDS each); the corpus stays in build-fuzz.
fuzz: deps
	$(call configure_build,build-fuzz,$(call FUZZ_OPTS,$(FUZZ_SECONDS)))
	ctest --test-dir build-fuzz -R '^fuzz_' --output-on-failure -j$(JOBS)

# The library, headers, pkg-config file, CMake package, the command and its man pages
# (README.md, "Install"); build/install_manifest.txt lists what went where.
install: build
	$(SUDO) cmake --install build --prefix $(PREFIX)

# Removes the files build/install_manifest.txt lists (cmake/trev_uninstall.cmake).
uninstall:
	$(SUDO) cmake -DTREV_MANIFEST=build/install_manifest.txt -P cmake/trev_uninstall.cmake

clean:
	rm -rf build build-asan build-tsan build-fuzz
