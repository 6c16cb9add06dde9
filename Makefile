# Thin wrapper: CMake does the building.  `make run` and `make test` first
# install any missing Debian packages (scripts/install-deps.sh is a no-op
# when everything is present).
BUILD  ?= build
TBUILD ?= build-test
RBUILD ?= build-rel
CBUILD ?= build-clang
FBUILD ?= build-fuzz
JOBS   ?= 2
# make fuzz: seconds per target, the targets, the compiler (libFuzzer is clang's).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= pcap config din npf pcm perf experiment sweep results
FUZZ_CC      ?= clang
# make install: where (the binary in PREFIX/bin, its data in PREFIX/share/ddiosim).
PREFIX       ?= /usr/local

.PHONY: all deps fuzz-deps clang-deps build build-test build-rel build-clang run test check bench validate install fuzz clean

# cmake --build runs make under this one, which would print "Entering
# directory" around everything it does.
MAKEFLAGS += --no-print-directory

# $(call configure,DIR,OPTIONS): cmake's output goes to DIR/configure.log,
# shown only when configuring fails.
configure = mkdir -p $(1) && cmake -S . -B $(1) $(2) >$(1)/configure.log 2>&1 || \
	{ cat $(1)/configure.log; echo "make: configuring $(1) failed (log: $(1)/configure.log)" >&2; exit 1; }

all: build

deps:
	@bash scripts/install-deps.sh

build: deps
	@$(call configure,$(BUILD),-DCMAKE_BUILD_TYPE=Release -DDDIOSIM_TESTS=OFF)
	@cmake --build $(BUILD) -j $(JOBS)

build-test: deps
	@$(call configure,$(TBUILD),-DCMAKE_BUILD_TYPE=Debug -DDDIOSIM_SANITIZE=ON)
	@cmake --build $(TBUILD) -j $(JOBS)

# The test suite in the Release build: what ships (asserts on, no sanitizer).
build-rel: deps
	@$(call configure,$(RBUILD),-DCMAKE_BUILD_TYPE=Release -DDDIOSIM_TESTS=ON)
	@cmake --build $(RBUILD) -j $(JOBS)

# Everything, tests included, with clang under the same -Werror (CI).
clang-deps:
	@bash scripts/install-deps.sh --clang

build-clang: clang-deps
	@$(call configure,$(CBUILD),-DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Release -DDDIOSIM_TESTS=ON)
	@cmake --build $(CBUILD) -j $(JOBS)

# The default job on built-in defaults: skylake-6140 running l2fwd on the
# sample MAWI-style trace.
run: build
	./$(BUILD)/ddiosim simulate

# Both builds: ASan + UBSan (with the expensive invariant checks), then
# Release.  ctest runs one Criterion suite per process, JOBS suites side by
# side, each suite's tests one at a time (--jobs=1, tests/ctest-suites.cmake):
# with --jobs=2 Criterion's runner (libcriterion 2.4) sometimes keeps a
# 48-byte allocation alive at exit, which LeakSanitizer reports; a
# suppression for it would also hide leaks in our tests, whose stacks run
# through libcriterion.
test: build-test build-rel
	@echo "test: ASan + UBSan build ($(TBUILD))"
	@cd $(TBUILD) && ctest -j $(JOBS) --output-on-failure
	@echo "test: Release build ($(RBUILD))"
	@cd $(RBUILD) && ctest -j $(JOBS) --output-on-failure

# The tier to run while working: the Release build's suites labelled fast
# (tests/slow-suites.txt lists the others), a few minutes on 2 cores.
check: build-rel
	@cd $(RBUILD) && ctest -j $(JOBS) -L fast --output-on-failure

bench: build
	./$(BUILD)/ddiosim_bench
	scripts/bench-vs-rev.sh --if-history --bin ./$(BUILD)/ddiosim

install: build
	@cmake --install $(BUILD) --prefix $(PREFIX)

# Accuracy against the measured experiments in validate/data: regenerates the
# tables and the figure of docs/validation.md (scripts/validation-doc.sh).
validate: build
	@bash scripts/validation-doc.sh ./$(BUILD)/ddiosim

# libFuzzer targets (docs/fuzzing.md).  Each runs FUZZ_SECONDS from its seeds
# and regression corpus; new inputs go to $(FBUILD)/corpus/NAME, crashes to
# $(FBUILD)/artifacts/.  Copy a crash into tests/fuzz/corpus/NAME/ once fixed.
fuzz-deps:
	@bash scripts/install-deps.sh --fuzz

fuzz: fuzz-deps
	@$(call configure,$(FBUILD),-DCMAKE_C_COMPILER=$(FUZZ_CC) -DCMAKE_BUILD_TYPE=Release -DDDIOSIM_FUZZ=ON -DDDIOSIM_TESTS=OFF)
	@cmake --build $(FBUILD) -j $(JOBS) --target $(addprefix fuzz_,$(FUZZ_TARGETS))
	@mkdir -p $(FBUILD)/artifacts
	@rc=0; for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FBUILD)/corpus/$$t; \
	  dict=""; [ -f tests/fuzz/$$t.dict ] && dict="-dict=tests/fuzz/$$t.dict"; \
	  echo "fuzz: $$t for $(FUZZ_SECONDS) s"; \
	  ./$(FBUILD)/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 $$dict \
	    -artifact_prefix=$(FBUILD)/artifacts/$$t- \
	    $(FBUILD)/corpus/$$t tests/fuzz/seeds/$$t tests/fuzz/corpus/$$t || rc=1; \
	done; exit $$rc

clean:
	rm -rf $(BUILD) $(TBUILD) $(RBUILD) $(CBUILD) $(FBUILD)
