# One non-recursive Makefile for the whole project.
#
#   make            build every tool into build/bin (C with gcc, CUDA with nvcc)
#   make test       install missing Debian packages (as root), build, run the Bats suite
#   make demo       the pipeline on examples/coin2: prism2csr | gpu-mec, checked against PRISM
#   make bench      parser and CPU reference benchmarks (bench/)
#   make check-sanitize  the suite on every tool built with ASan and UBSan (build-san/)
#   make fuzz, make fuzz-run SECONDS=N  libFuzzer targets for every reader (build-fuzz/)
#   make deps       only the package check / install
#   make install    the tools and man pages into PREFIX (default /usr/local; DESTDIR honoured);
#                   make uninstall removes them
#   make clean
#
# Variables: NVCC_ARCH (default -arch=sm_90, the device's H100), SKIP_DEPS=1 to
# skip the package check (machines without a package registry), SHARED (the
# shared/ folder with the models, default ../shared).

CC        ?= gcc
NVCC      ?= nvcc
NVCC_ARCH ?= -arch=sm_90
CFLAGS    ?= -O2 -g
WARN      := -Wall -Wextra -Werror
CSTD      := -std=c11
CPPFLAGS  += -D_GNU_SOURCE -Iformat -Icheck -Iref -Igpu -Igpu/common -Igpu/scc -Igpu/scc/peel -Itools/common
LDLIBS    := -larchive -ljansson -ldeflate -lz -lbsd -lm -lpthread
NVCCFLAGS ?= -O2 -g
# Each host thread its own default stream (gpu-vi's properties at once: one
# engine's Prob0/Prob1 and MEC kernels do not wait for another's); the code
# creates only non-blocking streams, which never waited for the legacy one.
NVCC_STREAM := --default-stream per-thread
SHARED    ?= ../shared
export SHARED

BUILD := build
BIN   := $(BUILD)/bin
OBJ   := $(BUILD)/obj
TEST_BIN := $(BUILD)/test-bin
TEST_TOOLS := $(TEST_BIN)/csrpatch $(TEST_BIN)/randmdp $(TEST_BIN)/oracle $(TEST_BIN)/csrcat $(TEST_BIN)/tracmp $(TEST_BIN)/peakrss $(TEST_BIN)/induce $(TEST_BIN)/partcheck $(TEST_BIN)/propcheck $(TEST_BIN)/valcheck $(TEST_BIN)/inflatecheck

DEB_PACKAGES := zlib1g-dev libbsd-dev libarchive-dev libjansson-dev libdeflate-dev bats bats-assert bats-support groff-base \
                xz-utils bzip2

LIB_SRC    := format/csr_common.c format/csr_read.c format/csr_write.c format/csr_validate.c \
              format/textin.c format/prism_text.c format/prism_write.c format/labels.c \
              format/csr_renumber.c format/umb_read.c format/inflate_parallel.c format/umb_write.c format/crc.c format/drn_read.c \
              format/expr.c format/props.c format/prism_rewards.c format/prism_states.c
REF_SRC    := ref/scc_tarjan.c ref/mec_basic.c ref/transpose.c ref/reach_ref.c ref/reach_pi.c ref/acc.c ref/partition.c ref/reach_parts.c
CHECK_SRC  := check/reach.c check/reach_split.c check/reach_subsystem.c check/reach_topological.c check/reach_gauss_seidel.c check/reach_scheduler.c check/reach_cpu.c check/reach_prob01.c check/reach_cache.c check/reach_epochs.c check/check.c check/check_pool.c
COMMON_SRC := tools/common/tool.c
GPU_COMMON_SRC := tools/common/gpu.cu
GPU_SRC    := gpu/common/launch.cu gpu/common/memory.cu gpu/common/model.cu \
              gpu/scc/engine.cu gpu/scc/peel/peel.cu gpu/scc/lp/lp.cu gpu/scc/fb/fb.cu \
              gpu/mec/mec.cu gpu/reach/prob01.cu gpu/reach/compact.cu gpu/reach/iterate.cu gpu/reach/sweep.cu \
              gpu/reach/pi.cu gpu/reach/bounded.cu gpu/reach/engine.cu gpu/acc/acc.cu gpu/multi/parts.cu gpu/multi/reach_parts.cu

C_TOOLS  := prism2csr csrinfo labelcmp restructure csrexport
CU_TOOLS := gpu-scc gpu-mec gpu-vi gpu-acc
TOOLS    := $(C_TOOLS) $(CU_TOOLS)

LIB_OBJ    := $(LIB_SRC:%.c=$(OBJ)/%.o)
REF_OBJ    := $(REF_SRC:%.c=$(OBJ)/%.o)
CHECK_OBJ  := $(CHECK_SRC:%.c=$(OBJ)/%.o)
COMMON_OBJ := $(COMMON_SRC:%.c=$(OBJ)/%.o)
GPU_COMMON_OBJ := $(GPU_COMMON_SRC:%.cu=$(OBJ)/%.cu.o)
GPU_OBJ    := $(GPU_SRC:%.cu=$(OBJ)/%.cu.o)
LIBGPU     := $(BUILD)/libcsrgpu.a
LIBFORMAT  := $(BUILD)/libcsrformat.a
LIBREF     := $(BUILD)/libcsrref.a
LIBCHECK   := $(BUILD)/libcsrcheck.a
HEADERS    := $(wildcard format/*.h check/*.h ref/*.h gpu/*.h gpu/*/*.h gpu/*/*.cuh gpu/*/*/*.cuh gpu/*/*/*.h tools/common/*.h)
DEPS_STAMP := $(BUILD)/deps.ok

.PHONY: all test test-gpu demo bench deps clean install uninstall
all: $(TOOLS:%=$(BIN)/%) $(BUILD)/bench/grid_barrier $(BUILD)/bench/cuda_start $(BUILD)/bench/csr2egr \
     $(BUILD)/bench/ringmdp

# ---- packages ---------------------------------------------------------------
deps: $(DEPS_STAMP)
$(DEPS_STAMP):
	@mkdir -p $(BUILD)
ifneq ($(SKIP_DEPS),1)
	@missing=""; for p in $(DEB_PACKAGES); do \
	    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	    if [ "$$(id -u)" = 0 ]; then \
	        echo "installing:$$missing"; \
	        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || exit 1; \
	    else \
	        echo "missing Debian packages; run:"; echo "  sudo apt-get install -y$$missing"; exit 1; \
	    fi; \
	fi
	@command -v $(NVCC) >/dev/null 2>&1 || { echo "nvcc not found: install the CUDA toolkit and put its bin/ on PATH"; exit 1; }
endif
	@touch $@

# The project's version (tool --version).
VERSION := 0.9.0
$(OBJ)/tools/common/tool.o: CPPFLAGS += -DTOOL_VERSION='"$(VERSION)"'
$(OBJ)/tools/common/tool.o: Makefile

# Header dependencies from the compilers (-MMD -MP: one .d file beside each
# object, and an empty rule for every header so that a removed one is no error).
DEPFLAGS := -MMD -MP
ALL_OBJ  := $(LIB_OBJ) $(CHECK_OBJ) $(REF_OBJ) $(COMMON_OBJ) $(GPU_COMMON_OBJ) $(GPU_OBJ) \
            $(foreach t,$(C_TOOLS),$(OBJ)/tools/$(t)/$(t).o) $(foreach t,$(CU_TOOLS),$(OBJ)/tools/$(t)/$(t).cu.o)
DEPFILES := $(ALL_OBJ:.o=.d)
# named here, so an object without its .d file yet (built before) is made again
$(DEPFILES):
include $(wildcard $(DEPFILES))

# ---- libraries --------------------------------------------------------------
$(OBJ)/%.o: %.c $(OBJ)/%.d | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(CPPFLAGS) $(CFLAGS) $(WARN) $(DEPFLAGS) -c $< -o $@

$(LIBFORMAT): $(LIB_OBJ)
	rm -f $@ && $(AR) rcs $@ $^
$(LIBREF): $(REF_OBJ)
	rm -f $@ && $(AR) rcs $@ $^
$(LIBCHECK): $(CHECK_OBJ)
	rm -f $@ && $(AR) rcs $@ $^
$(LIBGPU): $(GPU_OBJ)
	rm -f $@ && $(AR) rcs $@ $^

# ---- tools ------------------------------------------------------------------
define c_tool
$(BIN)/$(1): $(OBJ)/tools/$(1)/$(1).o $(COMMON_OBJ) $(LIBCHECK) $(LIBREF) $(LIBFORMAT)
	@mkdir -p $(BIN)
	$(CC) $(CFLAGS) -o $$@ $$^ $(LDLIBS)
endef
define cu_tool
$(BIN)/$(1): $(OBJ)/tools/$(1)/$(1).cu.o $(GPU_COMMON_OBJ) $(COMMON_OBJ) $(LIBGPU) $(LIBCHECK) $(LIBREF) $(LIBFORMAT)
	@mkdir -p $(BIN)
	$(NVCC) $(NVCC_ARCH) $(NVCC_LDFLAGS) -o $$@ $$^ $(LDLIBS)
endef
$(foreach t,$(C_TOOLS),$(eval $(call c_tool,$(t))))
$(foreach t,$(CU_TOOLS),$(eval $(call cu_tool,$(t))))

# (the Makefile too: its nvcc flags, NVCC_STREAM among them, are the objects' as much as their sources)
$(OBJ)/%.cu.o: %.cu $(OBJ)/%.cu.d Makefile | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCC_ARCH) $(NVCC_STREAM) $(NVCCFLAGS) $(CPPFLAGS) -Xcompiler -Wall,-Wextra,-Werror -Werror all-warnings $(DEPFLAGS) -c $< -o $@

# ---- tests, demo, benchmarks ------------------------------------------------
# The cost of one grid barrier of a cooperative kernel (run on the device).
$(BUILD)/bench/grid_barrier: bench/grid_barrier.cu | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCC_ARCH) $(NVCCFLAGS) -Xcompiler -Wall,-Wextra,-Werror -Werror all-warnings -o $@ $<

# What a GPU tool's start costs, by part (run on the device).
$(BUILD)/bench/cuda_start: bench/cuda_start.cu | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCC_ARCH) $(NVCCFLAGS) -Xcompiler -Wall,-Wextra,-Werror -Werror all-warnings -o $@ $< -lpthread

# An MDP of known SCCs and MECs, as large as asked (bench/ringmdp.c).
$(BUILD)/bench/ringmdp: bench/ringmdp.c tests/tools/xorshift.h $(LIBFORMAT) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(CPPFLAGS) -Itests/tools $(CFLAGS) $(WARN) -o $@ $< $(LIBFORMAT) $(LDLIBS)

# A model's state graph in ECL-SCC's input format (bench/large.sh, ECL=).
$(BUILD)/bench/csr2egr: bench/csr2egr.c $(LIBFORMAT) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(CPPFLAGS) $(CFLAGS) $(WARN) -o $@ $< $(LIBFORMAT) $(LDLIBS)

# the tests' helpers (tests/tools), one list for every build tree
test-tools: $(TEST_TOOLS)
.PHONY: test-tools

test: all $(TEST_TOOLS)
	bats tests/

test-gpu: all $(TEST_TOOLS)
	bats --filter 'GPU' tests/

demo: all
	@sh examples/demo.sh $(BIN)

bench: all
	bench/prism2csr.sh
	bench/cpu-ref.sh

# The tools into $(DESTDIR)$(PREFIX)/bin, their man pages into
# $(DESTDIR)$(PREFIX)/share/man/man1 (GNU conventions: DESTDIR for staging).
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man/man1
install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)
	install -m 755 $(TOOLS:%=$(BIN)/%) $(DESTDIR)$(BINDIR)
	install -m 644 $(TOOLS:%=man/%.1) $(DESTDIR)$(MANDIR)

uninstall:
	rm -f $(TOOLS:%=$(DESTDIR)$(BINDIR)/%) $(TOOLS:%=$(DESTDIR)$(MANDIR)/%.1)

clean:
	rm -rf $(BUILD) build-san build-fuzz

# ---- test helpers (not installed) -------------------------------------------
$(TEST_BIN)/%: tests/tools/%.c $(LIBCHECK) $(LIBREF) $(LIBFORMAT) $(HEADERS) $(wildcard tests/tools/*.h)
	@mkdir -p $(TEST_BIN)
	$(CC) $(CSTD) $(CPPFLAGS) $(CFLAGS) $(WARN) -o $@ $< $(LIBCHECK) $(LIBREF) $(LIBFORMAT) $(LDLIBS)

# ---- sanitizers: every tool built with ASan and UBSan, the whole suite on them ----
# (issue 8).  A separate tree, build-san/, so that the normal build stays as it is.
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
SAN_LIST  := -fsanitize=address,-fsanitize=undefined,-fno-omit-frame-pointer,-fno-sanitize-recover=undefined
check-sanitize:
	$(MAKE) BUILD=build-san CFLAGS="-O1 -g $(SAN_FLAGS)" NVCCFLAGS="-O1 -g -Xcompiler=$(SAN_LIST)" \
	    NVCC_LDFLAGS="-Xcompiler=$(SAN_LIST)" all test-tools
	SANITIZED=1 TOOLS_BIN=$(CURDIR)/build-san/bin TEST_TOOLS_BIN=$(CURDIR)/build-san/test-bin \
	    ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:protect_shadow_gap=0 UBSAN_OPTIONS=print_stacktrace=1 bats tests/
.PHONY: check-sanitize

# ---- fuzzing (issue 8): one libFuzzer target per reader, seeds from the shared models ----
#   make fuzz                  build build-fuzz/fuzz-{tra,lab,labels,csr,umb,drn,props,rewards,sta,inflate} and the seed corpora
#   make fuzz-run SECONDS=N    run each target N seconds (default 60); findings in build-fuzz/crashes/
# clang from Debian; not part of make test.
FUZZ_TARGETS := tra tra_parallel lab labels csr umb drn props rewards sta inflate
FUZZ_CC      ?= clang
FUZZ_FLAGS   := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
SECONDS      ?= 60
fuzz: $(FUZZ_TARGETS:%=build-fuzz/fuzz-%) build-fuzz/corpus/.seeded
build-fuzz/fuzz-%: fuzz/%.c fuzz/fuzz.h tests/tools/csr_checksums.h $(LIB_SRC) $(HEADERS)
	@mkdir -p build-fuzz
	$(FUZZ_CC) $(CSTD) $(CPPFLAGS) -Itests/tools $(FUZZ_FLAGS) -o $@ $< $(LIB_SRC) $(LDLIBS)
build-fuzz/corpus/.seeded: fuzz/seeds.sh $(BIN)/prism2csr $(BIN)/restructure
	fuzz/seeds.sh $(BIN) build-fuzz/corpus
	@touch $@
fuzz-run: fuzz
	@for t in $(FUZZ_TARGETS); do \
	    mkdir -p build-fuzz/crashes/$$t tests/data/fuzz/$$t; \
	    echo "== fuzz-$$t, $(SECONDS) s"; \
	    build-fuzz/fuzz-$$t -max_total_time=$(SECONDS) -timeout=5 -rss_limit_mb=2048 -max_len=65536 \
	        $$([ -f fuzz/$$t.dict ] && echo -dict=fuzz/$$t.dict) -artifact_prefix=build-fuzz/crashes/$$t/ -print_final_stats=1 \
	        build-fuzz/corpus/$$t tests/data/fuzz/$$t 2>&1 | tee build-fuzz/$$t.log | \
	        grep -E '^(INFO: Running|#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss|==[0-9]+==ERROR|SUMMARY)' || true; \
	done
.PHONY: fuzz fuzz-run
