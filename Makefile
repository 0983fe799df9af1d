# SPDX-License-Identifier: GPL-2.0
#
# ext4x: build, test and benchmark the suite against a Debian kernel.
#
#   make                 build every module for $(KVER) in one Kbuild pass
#   make check           build, static checks, host tests, guest tests, on
#                        every supported kernel ($(KVERS))
#   make check-6.1       the same on one series' kernel (check-6.12, ...)
#   make check-long      the long reliability runs, check-trixie,
#                        check-newer, then check-debug (docs/RELIABILITY.md)
#   make check-debug     the suite on KASAN and KCSAN kernels built from the
#                        same Debian source (tests/debug)
#   make check-fs-suite  an outside test suite (stress-ng's filesystem class)
#                        on Debian's ext4 and on the FLAVOUR=ext4 drop-in:
#                        the outcomes must be the same
#   make check-trixie    Debian 13: a trixie chroot installs the .deb through
#                        DKMS, its modules boot on trixie's own kernel
#   make check-newer     the same on trixie-backports' kernels (7.3, 7.2), with the
#                        whole suite, power cuts and low memory
#   make bench-percpu    percpu_stats microbenchmark in the guest
#   make bench-mbcache2  stock mbcache against mbcache2 in the guest
#   make bench-coherence cache-line transfers per I/O, ext4 against ext4x
#   make demo            stock ext4 against ext4x in the guest (docs/COMPARE.md)
#   make bench-ext4x     the same, 5 rounds, xattr get/list only
#   make profile-xattr   where an xattr read's time goes, stock and ext4x
#   make deb             the source package and the .debs (docs/INSTALL.md);
#                        make dkms-test tests DKMS and them on this host
#   make help            this list
#
# KVER defaults to the kernel release that Debian's linux-headers-amd64
# points at (the current 6.1 ABI), not to the running kernel. KVERS, the
# kernels make check builds and boots, defaults to one release per patch
# series, the one a Debian 12 user gets from apt (scripts/kver.sh
# --supported says how it is chosen), or to KVER when KVER is given;
# make check-long adds the newer releases the archive already has
# (kver.sh --long).

ifneq ($(filter command line environment,$(origin KVER)),)
KVERS ?= $(KVER)
endif
# the kernels asked for by name, if any (deps installs what they need)
KVERS_ASKED := $(if $(filter command line environment,$(origin KVERS)),$(KVERS),$(if $(filter command line environment,$(origin KVER)),$(KVER)))
KVER ?= $(shell $(CURDIR)/scripts/kver.sh)
KVERS ?= $(shell $(CURDIR)/scripts/kver.sh --supported)
KVERS_LONG = $(if $(KVERS_ASKED),$(KVERS),$(shell $(CURDIR)/scripts/kver.sh --long))
KDIR ?= /lib/modules/$(KVER)/build
EXT4X_TESTS ?= 1
BUILD_OUT := $(CURDIR)/build/$(KVER)

.PHONY: all modules deps clean check check-run check-static check-host \
	check-guest bench-percpu bench-mbcache2 collect

all: modules

# make help: the targets of the header above, one line each
help:
	@sed -n '/^#   make /,/^#$$/{/^#$$/d;s/^#   //p;}' $(firstword $(MAKEFILE_LIST))

modules:
	@test -n "$(KVER)" || { echo "ext4x: cannot tell the target kernel: install linux-headers-amd64 or set KVER=" >&2; exit 2; }
	@test -d "$(KDIR)" || { echo "ext4x: no headers for $(KVER) at $(KDIR): apt-get install linux-headers-$(KVER)" >&2; exit 2; }
	@if [ -x ext4-backport/prepare.sh ]; then KVER=$(KVER) ext4-backport/prepare.sh; fi
	$(MAKE) -C $(KDIR) M=$(CURDIR) EXT4X_TESTS=$(EXT4X_TESTS) W=1 modules

# The modules of the last Kbuild pass (modules.order), for the guest image.
collect: modules
	rm -rf $(BUILD_OUT)/modules && mkdir -p $(BUILD_OUT)/modules
	sed 's/\.o$$/.ko/' modules.order | xargs -r cp -t $(BUILD_OUT)/modules

# The packages of the bench and, for each kernel of KVERS (or every
# supported one when none is known yet), its headers and linux-source.
deps:
	scripts/install-deps.sh $(KVERS_ASKED)

# deps runs first and alone: on a fresh machine KVER and KVERS are only
# known once the package lists are, so the rest runs in a new make.
check: deps
	$(MAKE) check-run

check-run:
	@test -n "$(KVERS)" || { echo "ext4x: no target kernel: set KVER= or KVERS=" >&2; exit 2; }
	tests/check.sh $(KVERS)

# make check-6.1, make check-6.12: make check on that series' kernel only.
check-6.%:
	scripts/install-deps.sh
	$(MAKE) check-run KVERS="$$(scripts/kver.sh --series 6.$*)"

check-static: modules
	tests/static/run.sh $(KVER)

check-host:
	tests/host/run.sh $(KVER)

# One guest run; TESTS=a,b picks test files (tests/guest/<name>.sh).
check-guest: collect
	tests/vm/run-guest.sh --kver $(KVER) --modules $(BUILD_OUT)/modules \
		$(if $(TESTS),--tests $(TESTS)) --results $(BUILD_OUT)/results/guest

# The benchmarks and the profile: deps first and alone, as for check and
# demo (KVER and BUILD_OUT are only known once the headers are installed),
# then TARGET-run in a new make.
.PHONY: bench-percpu bench-mbcache2 bench-ext4x bench-coherence profile-xattr \
	bench-percpu-run bench-mbcache2-run bench-ext4x-run bench-coherence-run \
	profile-xattr-run help
bench-percpu bench-mbcache2 bench-ext4x bench-coherence profile-xattr: deps
	$(MAKE) $@-run

# Microbenchmarks in the guest, booted without slub_debug; each prints its
# table at the end. They report numbers and never fail on them.
bench-percpu-run bench-mbcache2-run: collect
	tests/vm/run-guest.sh --kver $(KVER) --modules $(BUILD_OUT)/modules \
		--bench --tests $(@:-run=) --results $(BUILD_OUT)/$(@:-run=)
	@echo; cat $(BUILD_OUT)/$(@:-run=)/$(@:-run=).md

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean || true
	rm -rf build ext4-backport/build

# make demo: ext4x-compare (tools/ext4x-compare, docs/COMPARE.md) in the guest on
# the emulated NVDIMM, stock ext4 against ext4x; the results directory comes
# back to $(BUILD_OUT)/demo, the chart is drawn here. deps first and alone,
# as for check: KVER is only known once the headers are installed.
.PHONY: demo demo-run
demo: deps
	$(MAKE) demo-run

demo-run: collect
	tools/ext4x-compare/run-demo.sh $(KVER) $(BUILD_OUT)/modules $(BUILD_OUT)/demo

# The ext4x benchmark of docs/PERFORMANCE.md: like the demo, with 5 rounds
# and an xattr load of getxattr/listxattr only (no setxattr), the path
# that patch 0002 changes.
bench-ext4x-run: collect
	tools/ext4x-compare/run-demo.sh $(KVER) $(BUILD_OUT)/modules \
		$(BUILD_OUT)/bench-ext4x bench

# Cache-line transfers per I/O, stock ext4 against ext4x, counted by a QEMU
# plugin in one guest boot (tests/coherence/README.md): a figure of how the
# file system scales that 2 emulated CPUs cannot time. Needs a quiet host.
bench-coherence-run: collect
	tests/coherence/bench.sh $(KVER) $(BUILD_OUT)/modules $(BUILD_OUT)/bench-coherence

# Where an xattr read's time goes (function_graph, stock ext4 and ext4x)
# and the xattr load with more threads than CPUs: numbers, no verdict.
profile-xattr-run: collect
	tests/vm/run-guest.sh --kver $(KVER) --modules $(BUILD_OUT)/modules \
		--bench --tests $(@:-run=) --results $(BUILD_OUT)/$(@:-run=)
	@echo; cat $(BUILD_OUT)/$(@:-run=)/$(@:-run=).md

# ---- DKMS and the Debian package (docs/INSTALL.md) ----------------------------
# The version lives in VERSION only: dkms.conf, the .deb and these targets read it.
VERSION := $(shell cat $(CURDIR)/VERSION)
DKMS_SRC := /usr/src/ext4x-$(VERSION)
DEB_OUT ?= $(CURDIR)/build/deb

.PHONY: dkms-src dkms-install dkms-remove deb dkms-test

# Stage the DKMS source tree in /usr/src/ext4x-VERSION (only what a build needs).
dkms-src:
	packaging/mkdkmssrc.sh $(DKMS_SRC)

# Register, build and install for KVER (not the running kernel unless KVER is it).
dkms-install: dkms-src
	dkms add -m ext4x -v $(VERSION)
	dkms build -m ext4x -v $(VERSION) -k $(KVER)
	dkms install -m ext4x -v $(VERSION) -k $(KVER)

dkms-remove:
	if [ -n "$$(dkms status -m ext4x -v $(VERSION))" ]; then dkms remove -m ext4x -v $(VERSION) --all; fi
	rm -rf $(DKMS_SRC)

# The source package ext4x_VERSION (.dsc, .tar.xz, .changes) and, built from
# it, ext4x-dkms_VERSION_all.deb and ext4x-tools_VERSION_ARCH.deb in DEB_OUT
# (needs debhelper and dh-dkms: make deps).
deb:
	packaging/mkdeb.sh $(DEB_OUT)

# The DKMS flow and the .deb, each on this host and self-cleaning (KTAP).
dkms-test: deps
	tests/host/test-dkms.sh $(KVER)
	tests/host/test-deb.sh $(KVER)
	tests/host/test-tools-deb.sh
	tests/host/test-source-package.sh

# make check-long: the long variants of the reliability tests (100 power
# cuts, 300 hostile images, 300 module cycles, 300 s stress and hotplug),
# docs/RELIABILITY.md, on every kernel of KVERS and on the newer releases
# the archive already has (scripts/kver.sh --long; KVER= or KVERS= to
# choose), then check-trixie and check-newer (Debian 13's kernels, 7.3
# and 7.2 among them), then the debug-kernel lane of check-debug for each
# kernel. Hours on
# the 2-core bench: docs/RELIABILITY.md has the measured figures.
.PHONY: check-long check-long-run
check-long:
	EXT4X_DEPS_DEBUG=1 scripts/install-deps.sh $(KVERS_ASKED)
	$(MAKE) check-long-run

check-long-run:
	tests/check.sh --long $(KVERS_LONG)

# make check-fs-suite: tests/host/test-dropin.sh --suite for KVER: the
# drop-in flavour built in a copy of the tree, booted, and stress-ng's
# filesystem class run on Debian's ext4.ko and on it (tests/standalone/
# fs-suite.sh); make check-long runs it for every kernel.
.PHONY: check-fs-suite
check-fs-suite: deps
	KVER=$(KVER) tests/host/test-dropin.sh --suite

# make check-debug: the debug-kernel lane (tests/debug/run.sh,
# docs/RELIABILITY.md): KVER's own Debian source built as a KASAN and a KCSAN
# kernel (cached in build/debug), our modules against them, the guest suite
# with a kmemleak scan, the power cuts and the low-memory guest on each.
.PHONY: check-debug check-debug-run
check-debug:
	EXT4X_DEPS_DEBUG=1 scripts/install-deps.sh $(KVERS_ASKED)
	$(MAKE) check-debug-run

check-debug-run:
	tests/debug/run.sh $(KVER)

# make check-trixie: the suite on Debian 13 as a trixie user gets it
# (tests/trixie/README.md): a cached trixie chroot in build/trixie, the
# ext4x-dkms .deb installed in it, its DKMS modules booted on trixie's own
# kernel. REBUILD=1 makes the chroot anew (a newer trixie kernel).
.PHONY: check-trixie
check-trixie: deps
	tests/trixie/run.sh $(if $(REBUILD),--rebuild)

# make check-newer: the same on the kernels of trixie-backports (7.3 and
# 7.2), each in a chroot of its own (build/trixie-backports, -7.2).
.PHONY: check-newer
check-newer: deps
	tests/trixie/newer.sh $(if $(REBUILD),--rebuild)
