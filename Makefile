# rocetop: one Makefile, everything under build/, quiet unless V=1.
.DELETE_ON_ERROR:
.SUFFIXES:
.SECONDARY:

BUILD     ?= build
PREFIX    ?= /usr/local
DESTDIR   ?=
CC        ?= cc
CLANG     ?= clang
BPFTOOL   ?= bpftool
ARCH_INC   = -I/usr/include/$(shell $(CC) -print-multiarch 2>/dev/null)
VERSION   := 0.1.0

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' '$(1)' '$(2)';
endif

PKGS      := libbpf libpcap ncursesw libmicrohttpd libnl-3.0 libibverbs librdmacm zlib libfixbuf
# pkg-config failing is an error worth seeing: it names the missing package.
# Expanded when a recipe runs, so that 'make deps test' sees what deps installed.
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   = $(shell pkg-config --libs $(PKGS))
ifeq ($(filter deps clean,$(MAKECMDGOALS)),)
ifneq ($(shell pkg-config --exists $(PKGS) || echo missing),)
$(error pkg-config cannot find every one of: $(PKGS); run 'make deps' first)
endif
endif

# The folders of user space: the library rocetop-gen shares (options,
# numbers, logging), the snapshot core, its sources and sinks, the NIC's
# counters, the subcommands (ARCHITECTURE.md tells why this cut).
USER_DIRS := user/lib user/core user/sources user/sinks user/report user/nic user/probe user/cmd tui exporters
INCLUDES  := -I$(BUILD) -Ibpf $(addprefix -I,$(USER_DIRS))

# CFLAGS is the user's (make CFLAGS=-O0 keeps our includes and defines);
# ALL_CFLAGS is what the compiler gets.
CFLAGS    ?= -O2 -g
ALL_CFLAGS = -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -DRT_VERSION='"$(VERSION)"' \
	     $(INCLUDES) $(PKG_CFLAGS) $(CPPFLAGS) $(CFLAGS)
DEPFLAGS   = -MMD -MP
LDLIBS    += $(PKG_LIBS) -lcrypt -lm -lpthread
# UBSan without recovery: undefined behaviour aborts the run, so a test or a
# fuzzer that meets it fails instead of printing a line nobody reads.
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
ifeq ($(SANITIZE),1)
ALL_CFLAGS += $(SAN_FLAGS)
LDFLAGS   += $(SAN_FLAGS)
endif
# -mcpu=v3 (kernels from 5.1): 32-bit ALU and jumps, so the JIT emits no pair
# of shifts to zero-extend each 32-bit value (bench/xdp_bench: a few ns a frame).
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -Wall -Wextra -Werror $(ARCH_INC) -Ibpf

BPF_SRCS  := $(wildcard bpf/*.bpf.c)
BPF_OBJS  := $(patsubst bpf/%.bpf.c,$(BUILD)/%.bpf.o,$(BPF_SRCS))
SKELS     := $(patsubst bpf/%.bpf.c,$(BUILD)/%.skel.h,$(BPF_SRCS))
BPF_HDRS  := $(wildcard bpf/*.h)

MAIN_SRC  := user/cmd/main.c
LIB_SRCS  := $(filter-out $(MAIN_SRC),$(wildcard $(addsuffix /*.c,$(USER_DIRS))))
LIB_OBJS  := $(patsubst %.c,$(BUILD)/obj/%.o,$(LIB_SRCS))

# rocetop-gen parses its command line with rocetop's option engine and links
# user/lib/ and nothing else of rocetop (it is the tests' independent tally).
GEN_SRCS  := $(wildcard gen/*.c user/lib/*.c)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
BENCH_SRCS := $(wildcard bench/*.c)
BENCH_BINS := $(patsubst bench/%.c,$(BUILD)/bench/%,$(BENCH_SRCS))

# Debian packages to build and to test.
DEPS := make gcc clang llvm pkg-config libbpf-dev bpftool libelf-dev zlib1g-dev \
	libibverbs-dev librdmacm-dev libncurses-dev libpcap-dev libnl-3-dev libnl-route-3-dev \
	libmicrohttpd-dev libcrypt-dev linux-libc-dev iproute2 ethtool python3 python3-scapy \
	tshark tcpdump tmux strace prometheus prometheus-alertmanager curl python3-prometheus-client procps \
	debhelper dpkg-dev lintian bash-completion systemd util-linux apache2-utils openssl \
	qemu-system-x86 busybox-static kmod cpio xz-utils zstd debian-archive-keyring \
	rdma-core ibverbs-providers ibverbs-utils rdmacm-utils perftest \
	libjs-dygraphs chromium chromium-driver python3-selenium libfixbuf-dev pmacct \
	universal-ctags groff-base buildah podman runc python3-yaml nftables

.PHONY: all deps test test-vm bench fuzz install uninstall clean tests deb options image image-test
all: $(BUILD)/rocetop $(BUILD)/rocetop-gen $(BUILD)/rocetop-entrypoint tests $(BENCH_BINS)

$(BUILD)/%.bpf.o: bpf/%.bpf.c | $(BUILD)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

# Objects depend on the headers they include (-MMD -MP) and, since some
# include a skeleton, on the skeletons.
$(BUILD)/obj/%.o: %.c $(SKELS) | $(BUILD)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c $< -o $@

# report --html inlines the chart library (Debian's libjs-dygraphs) and the
# page's script and style: each file becomes the bytes of a C array.
DYGRAPHS ?= /usr/share/javascript/dygraphs
HTML_INCS := $(addprefix $(BUILD)/gen/,dygraph.min.js.inc dygraph.min.css.inc report_html.js.inc report_html.css.inc)

# A static pattern rule: its prerequisites are explicit, so make looks for
# them when it builds, not in the directory listing it read at start (make
# deps all on a new machine installs them after that).
$(filter $(BUILD)/gen/dygraph.%,$(HTML_INCS)): $(BUILD)/gen/dygraph.%.inc: $(DYGRAPHS)/dygraph.% | $(BUILD)
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)od -An -v -tx1 $< | sed -e 's/ \([0-9a-f][0-9a-f]\)/0x\1,/g' > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/report_html.%.inc: user/report/report_html.% | $(BUILD)
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)od -An -v -tx1 $< | sed -e 's/ \([0-9a-f][0-9a-f]\)/0x\1,/g' > $@.tmp && mv $@.tmp $@

# The page's Content-Security-Policy allows its two inline scripts by their
# SHA-256 (report_html.c writes each between a newline before and after), and
# no other inline script or handler.
$(BUILD)/gen/report_html_csp.h: $(DYGRAPHS)/dygraph.min.js user/report/report_html.js | $(BUILD)
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q){ printf '#define RT_HTML_SCRIPT_HASHES "'; \
	  for js in $(DYGRAPHS)/dygraph.min.js user/report/report_html.js; do \
	    h=$$({ echo; cat $$js; echo; } | openssl dgst -sha256 -binary | openssl base64 -A) || exit 1; \
	    [ -n "$$h" ] || exit 1; printf "'sha256-%s' " "$$h"; done; \
	  printf '"\n'; } > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/user/report/report_html.o $(BUILD)/fuzz/obj/user/report/report_html.o: $(HTML_INCS) $(BUILD)/gen/report_html_csp.h

$(BUILD)/librocetop.a: $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/rocetop: $(BUILD)/obj/user/cmd/main.o $(BUILD)/librocetop.a
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(BUILD)/rocetop-gen: $(GEN_SRCS) $(wildcard gen/*.h user/lib/*.h) | $(BUILD)
	$(call msg,BINARY,$@)
	$(Q)$(CC) -std=gnu11 -Wall -Wextra -Werror -Iuser/lib $(filter -fsanitize%,$(ALL_CFLAGS)) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $(GEN_SRCS) -lz -lm -o $@

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/librocetop.a
	$(call msg,TEST-CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -MF $@.d -Itests/unit $(LDFLAGS) $< $(BUILD)/librocetop.a $(LDLIBS) -o $@

$(BUILD)/bench/%: bench/%.c $(BUILD)/librocetop.a $(BPF_OBJS)
	$(call msg,BENCH-CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -MF $@.d $(LDFLAGS) $< $(BUILD)/librocetop.a $(LDLIBS) -o $@

tests: $(UNIT_BINS) $(BPF_OBJS)

# libFuzzer harnesses (clang), over the library built with ASan and UBSan.
FUZZ_SRCS  := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS  := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRCS))
FUZZ_OBJS  := $(patsubst %.c,$(BUILD)/fuzz/obj/%.o,$(LIB_SRCS))
FUZZ_CFLAGS = -g -O1 -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -DRT_VERSION='"$(VERSION)"' \
	      $(INCLUDES) $(PKG_CFLAGS) $(SAN_FLAGS) -fno-sanitize-recover=all
# Each harness runs FUZZ_RUNS executions; FUZZ_SECONDS caps its time (a
# harness that stops short of FUZZ_RUNS fails).
FUZZ_RUNS ?= 1000000
FUZZ_SECONDS ?= 1800

$(BUILD)/fuzz/obj/%.o: %.c $(SKELS) | $(BUILD)
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) $(DEPFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(BUILD)/fuzz/%: tests/fuzz/%.c $(FUZZ_OBJS)
	$(call msg,FUZZER,$@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) $(DEPFLAGS) -MF $@.d -Itests/fuzz -fsanitize=fuzzer $< $(FUZZ_OBJS) $(LDLIBS) -o $@

# Run each harness FUZZ_RUNS times on seeds made from generated traffic.
fuzz: $(FUZZ_BINS) $(BUILD)/rocetop $(BUILD)/rocetop-gen $(BUILD)/tests/test_sflow
	@tests/fuzz/run $(BUILD) $(FUZZ_SECONDS) $(FUZZ_RUNS)

$(BUILD):
	$(Q)mkdir -p $@

# The header dependencies that -MMD wrote.
-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# Installs what is missing, and nothing when everything is there.
deps:
	@missing=$$(for p in $(DEPS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	else echo "all build and test dependencies are installed"; fi

test: all
	@tests/run $(BUILD)

# A real RDMA stack (rdma_rxe) in QEMU VMs on Debian's kernels (tests/vm/vm.sh);
# KERNELS="5.10 6.1" chooses the kernels.
KERNELS ?= 5.10 6.1 6.12
test-vm: all
	@KERNELS="$(KERNELS)" tests/vm/run $(BUILD)

bench: all
	@bench/run $(BUILD)

# The container image (dist/image/build.sh: rocetop, its entrypoint and
# libraries, no shell), reproducible from SOURCE_DATE_EPOCH; image-test runs
# it without privileges on generated traffic (tests/image/).
IMAGE ?= localhost/rocetop:$(VERSION)
$(BUILD)/rocetop-entrypoint: dist/image/entrypoint.c | $(BUILD)
	$(call msg,BINARY,$@)
	$(Q)$(CC) -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $< -o $@

image: $(BUILD)/rocetop $(BUILD)/rocetop-entrypoint
	$(call msg,IMAGE,$(IMAGE))
	$(Q)dist/image/build.sh $(BUILD) $(IMAGE) $(VERSION)

image-test: all $(BUILD)/rocetop-entrypoint
	@tests/run $(BUILD) tests/image/

# The man pages' option lists and the bash completion's are made from the
# commands' option tables: run after changing one (tests/cli/test_options.sh
# fails until they agree).
options: $(BUILD)/rocetop $(BUILD)/rocetop-gen
	@tools/gen-options --build $(BUILD)

# bash completion goes where bash-completion looks for it under PREFIX
# (/usr/share/... for the package, /usr/local/share/... for make install).
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions

install: $(BUILD)/rocetop $(BUILD)/rocetop-gen
	install -D -m 0755 $(BUILD)/rocetop $(DESTDIR)$(PREFIX)/bin/rocetop
	install -D -m 0755 $(BUILD)/rocetop-gen $(DESTDIR)$(PREFIX)/bin/rocetop-gen
	install -D -m 0644 man/rocetop.8 $(DESTDIR)$(PREFIX)/share/man/man8/rocetop.8
	install -D -m 0644 man/rocetop-gen.1 $(DESTDIR)$(PREFIX)/share/man/man1/rocetop-gen.1
	install -D -m 0644 dist/rocetop.bash-completion $(DESTDIR)$(BASHCOMPDIR)/rocetop
	ln -sf rocetop $(DESTDIR)$(BASHCOMPDIR)/rocetop-gen

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/rocetop $(DESTDIR)$(PREFIX)/bin/rocetop-gen \
	      $(DESTDIR)$(PREFIX)/share/man/man8/rocetop.8 $(DESTDIR)$(PREFIX)/share/man/man1/rocetop-gen.1 \
	      $(DESTDIR)$(BASHCOMPDIR)/rocetop $(DESTDIR)$(BASHCOMPDIR)/rocetop-gen

# The Debian package, built by dpkg-buildpackage from a copy of the tree in
# BUILD/deb/src (the .deb lands beside it, not in the parent of the checkout),
# then checked by lintian: its errors stop the build (LINTIAN=true leaves it
# to the caller: tests/pkg/test_deb.sh runs its own, stricter, beside other
# work). The package is built with Debian's flags alone, whatever this make
# was given (SANITIZE=1, -j).
LINTIAN  ?= lintian --fail-on error
DEB_ARCH  = $(shell dpkg-architecture -qDEB_HOST_ARCH)
DEB_FILE  = $(BUILD)/deb/rocetop_$(VERSION)_$(DEB_ARCH).deb
DEB_SRCS := Makefile README.md $(wildcard bpf/* gen/* man/* dist/* exporters/* tui/* \
	    $(addsuffix /*,$(USER_DIRS)) debian/* debian/source/*)
deb: $(DEB_FILE)

$(DEB_FILE): $(DEB_SRCS)
	$(call msg,DEB,$@)
	$(Q)grep -q '^rocetop ($(VERSION))' debian/changelog || \
		{ echo "debian/changelog's newest entry is not version $(VERSION) (the Makefile's)"; exit 1; }
	$(Q)rm -rf $(BUILD)/deb && mkdir -p $(BUILD)/deb/src
	$(Q)tar -c --exclude=./.git --exclude='./build*' --exclude='./$(BUILD)' -f - . | tar -x -C $(BUILD)/deb/src
	$(Q)cd $(BUILD)/deb/src && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u SANITIZE -u BUILD \
		dpkg-buildpackage -us -uc -b -J2 >../build.log 2>&1 || \
		{ tail -40 ../build.log; echo "dpkg-buildpackage failed: the whole log is $(BUILD)/deb/build.log"; exit 1; }
	$(Q)$(LINTIAN) $@

clean:
	rm -rf $(BUILD)
