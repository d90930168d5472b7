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

PKGS      := libbpf libpcap ncursesw libmicrohttpd libnl-3.0 libibverbs zlib
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)

CFLAGS    ?= -O2 -g
CFLAGS    += -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -DRT_VERSION='"$(VERSION)"' \
	     -I$(BUILD) -Ibpf -Iuser $(PKG_CFLAGS)
LDLIBS    += $(PKG_LIBS) -lm -lpthread
ifeq ($(SANITIZE),1)
CFLAGS    += -fsanitize=address,undefined -fno-omit-frame-pointer
LDFLAGS   += -fsanitize=address,undefined
endif
BPF_CFLAGS := -g -O2 -target bpf -Wall -Wextra -Werror $(ARCH_INC) -Ibpf

BPF_SRCS  := $(wildcard bpf/*.bpf.c)
BPF_OBJS  := $(patsubst bpf/%.bpf.c,$(BUILD)/%.bpf.o,$(BPF_SRCS))
SKELS     := $(patsubst bpf/%.bpf.c,$(BUILD)/%.skel.h,$(BPF_SRCS))
BPF_HDRS  := $(wildcard bpf/*.h)

LIB_SRCS  := $(filter-out user/main.c,$(wildcard user/*.c tui/*.c exporters/*.c))
LIB_OBJS  := $(patsubst %.c,$(BUILD)/obj/%.o,$(LIB_SRCS))
HDRS      := $(wildcard user/*.h tui/*.h exporters/*.h) $(BPF_HDRS)

GEN_SRCS  := $(wildcard lab/*.c)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
BENCH_SRCS := $(wildcard bench/*.c)
BENCH_BINS := $(patsubst bench/%.c,$(BUILD)/bench/%,$(BENCH_SRCS))

# Debian packages to build and to test.
DEPS := make gcc clang llvm pkg-config libbpf-dev bpftool libelf-dev zlib1g-dev \
	libibverbs-dev libncurses-dev libpcap-dev libnl-3-dev libnl-route-3-dev \
	libmicrohttpd-dev linux-libc-dev iproute2 ethtool python3 python3-scapy \
	tshark tcpdump tmux prometheus curl python3-prometheus-client procps

.PHONY: all deps test bench fuzz install uninstall clean tests
all: $(BUILD)/rocetop $(BUILD)/rocetop-gen tests

$(BUILD)/%.bpf.o: bpf/%.bpf.c $(BPF_HDRS) | $(BUILD)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

$(BUILD)/obj/%.o: %.c $(HDRS) $(SKELS) | $(BUILD)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/librocetop.a: $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/rocetop: $(BUILD)/obj/user/main.o $(BUILD)/librocetop.a
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(BUILD)/rocetop-gen: $(GEN_SRCS) $(wildcard lab/*.h) | $(BUILD)
	$(call msg,BINARY,$@)
	$(Q)$(CC) -O2 -g -Wall -Wextra -Werror $(filter -fsanitize%,$(CFLAGS)) $(LDFLAGS) $(GEN_SRCS) -lz -lm -o $@

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/librocetop.a $(wildcard tests/unit/*.h)
	$(call msg,TEST-CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -Itests/unit $(LDFLAGS) $< $(BUILD)/librocetop.a $(LDLIBS) -o $@

$(BUILD)/bench/%: bench/%.c $(BUILD)/librocetop.a $(BPF_OBJS)
	$(call msg,BENCH-CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< $(BUILD)/librocetop.a $(LDLIBS) -o $@

tests: $(UNIT_BINS) $(BPF_OBJS)

# libFuzzer harnesses (clang), over the library built with ASan and UBSan.
FUZZ_SRCS  := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS  := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRCS))
FUZZ_OBJS  := $(patsubst %.c,$(BUILD)/fuzz/obj/%.o,$(LIB_SRCS))
FUZZ_CFLAGS = -g -O1 -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -DRT_VERSION='"$(VERSION)"' \
	      -I$(BUILD) -Ibpf -Iuser $(PKG_CFLAGS) -fsanitize=address,undefined -fno-omit-frame-pointer
FUZZ_SECONDS ?= 60

$(BUILD)/fuzz/obj/%.o: %.c $(HDRS) $(SKELS) | $(BUILD)
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(BUILD)/fuzz/%: tests/fuzz/%.c $(FUZZ_OBJS)
	$(call msg,FUZZER,$@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer $< $(FUZZ_OBJS) $(LDLIBS) -o $@

# Run each harness for FUZZ_SECONDS on seeds made from generated traffic.
fuzz: $(FUZZ_BINS) $(BUILD)/rocetop $(BUILD)/rocetop-gen
	@tests/fuzz/run $(BUILD) $(FUZZ_SECONDS)

$(BUILD):
	$(Q)mkdir -p $@

# Installs what is missing, and nothing when everything is there.
deps:
	@missing=$$(for p in $(DEPS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	else echo "all build and test dependencies are installed"; fi

test: all
	@tests/run $(BUILD)

bench: all $(BENCH_BINS)
	@bench/run $(BUILD)

install: $(BUILD)/rocetop $(BUILD)/rocetop-gen
	install -D -m 0755 $(BUILD)/rocetop $(DESTDIR)$(PREFIX)/bin/rocetop
	install -D -m 0755 $(BUILD)/rocetop-gen $(DESTDIR)$(PREFIX)/bin/rocetop-gen
	install -D -m 0644 man/rocetop.8 $(DESTDIR)$(PREFIX)/share/man/man8/rocetop.8

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/rocetop $(DESTDIR)$(PREFIX)/bin/rocetop-gen \
	      $(DESTDIR)$(PREFIX)/share/man/man8/rocetop.8

clean:
	rm -rf $(BUILD)
