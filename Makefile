# Thin wrapper: CMake does the building.  `make run` and `make test` first
# install any missing Debian packages (scripts/install-deps.sh is a no-op
# when everything is present).
BUILD  ?= build
TBUILD ?= build-test
JOBS   ?= 2

.PHONY: all deps build build-test run test bench fuzz clean

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

test: build-test
	@cd $(TBUILD) && ./ddiosim_tests --jobs=$(JOBS)

bench: build
	./$(BUILD)/ddiosim_bench

clean:
	rm -rf $(BUILD) $(TBUILD) build-fuzz
