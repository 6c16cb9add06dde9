# Thin wrapper: CMake does the building.  `make run` and `make test` first
# install any missing Debian packages (scripts/install-deps.sh is a no-op
# when everything is present).
BUILD  ?= build
TBUILD ?= build-test
FBUILD ?= build-fuzz
JOBS   ?= 2
# make fuzz: seconds per target, the targets, the compiler (libFuzzer is clang's).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= pcap config din
FUZZ_CC      ?= clang
# make install: where (the binary in PREFIX/bin, its data in PREFIX/share/ddiosim).
PREFIX       ?= /usr/local

.PHONY: all deps fuzz-deps build build-test run test bench validate install fuzz clean

all: build

deps:
	@bash scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DDDIOSIM_TESTS=OFF >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

build-test: deps
	@cmake -S . -B $(TBUILD) -DCMAKE_BUILD_TYPE=Debug -DDDIOSIM_SANITIZE=ON >/dev/null
	@cmake --build $(TBUILD) -j $(JOBS)

# The default job on built-in defaults: skylake-6140 running l2fwd on the
# sample MAWI-style trace.
run: build
	./$(BUILD)/ddiosim simulate

# One test at a time: with --jobs=2 Criterion's runner (libcriterion 2.4)
# sometimes keeps a 48-byte allocation alive at exit, which LeakSanitizer
# reports; a suppression for it would also hide leaks in our tests, whose
# stacks run through libcriterion.
test: build-test
	@cd $(TBUILD) && ./ddiosim_tests --jobs=1

bench: build
	./$(BUILD)/ddiosim_bench

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
	@CC=$(FUZZ_CC) cmake -S . -B $(FBUILD) -DCMAKE_BUILD_TYPE=Release -DDDIOSIM_FUZZ=ON -DDDIOSIM_TESTS=OFF >/dev/null
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
	rm -rf $(BUILD) $(TBUILD) $(FBUILD)
