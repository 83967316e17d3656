# The two entry points: `make demo` and `make test`. Each sets up the machine
# (idempotently), builds, then runs. See README.md.
BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc)
PYTHON     := $(CURDIR)/.venv/bin/python
CMAKE      := $(shell command -v cmake)
NANOBIND_DIR = $(shell $(PYTHON) -m nanobind --cmake_dir 2>/dev/null)

.PHONY: setup build demo test test-cpp test-python test-install test-sanitize fuzz \
        micro-bench fixtures clean

setup:
	@bash scripts/setup.sh

# Configuring every time is cheap and keeps an old build directory's options
# in step with this file.
build: setup
	$(CMAKE) -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	  -DTURBOZARR_BUILD_PYTHON=ON -DPython_EXECUTABLE=$(PYTHON) \
	  -Dnanobind_DIR=$(NANOBIND_DIR) -DTURBOZARR_BUILD_BENCHMARKS=ON > /dev/null
	$(CMAKE) --build $(BUILD) -j $(JOBS)

demo: build
	@PYTHONPATH=$(CURDIR)/python $(PYTHON) examples/demo.py
	@PYTHONPATH=$(CURDIR)/python:$(CURDIR)/bench $(PYTHON) -m turbozarr_bench run bench/experiments/smoke.toml

test-cpp: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-python: build
	PYTHONPATH=$(CURDIR)/python TURBOZARR_CLI=$(CURDIR)/$(BUILD)/cli/turbozarr \
	  $(PYTHON) -m pytest -q python/tests bench/tests scripts/fixtures

# `cmake --install` then a separate project that finds it with find_package.
test-install: build
	rm -rf $(BUILD)/install $(BUILD)/consumer
	$(CMAKE) --install $(BUILD) --prefix $(CURDIR)/$(BUILD)/install > /dev/null
	$(CMAKE) -S examples/cpp_consumer -B $(BUILD)/consumer -G Ninja \
	  -DCMAKE_PREFIX_PATH=$(CURDIR)/$(BUILD)/install > /dev/null
	$(CMAKE) --build $(BUILD)/consumer > /dev/null
	$(BUILD)/consumer/consumer

# The C++ tests again under AddressSanitizer and UndefinedBehaviorSanitizer.
test-sanitize: setup
	$(CMAKE) -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug \
	  -DTURBOZARR_SANITIZE=ON -DTURBOZARR_BUILD_CLI=OFF
	$(CMAKE) --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j $(JOBS)

test: test-cpp test-python test-install test-sanitize

# The C++ micro-benchmarks (codecs, copy kernels, per-chunk cost), on demand:
#   make micro-bench FILTER=DecodeInto
FILTER ?= .
micro-bench: build
	$(BUILD)/bench/micro/tz_micro_bench --benchmark_filter='$(FILTER)' \
	  --benchmark_repetitions=3 --benchmark_report_aggregates_only=true

# Runs one libFuzzer target for SECONDS seconds (see docs/fuzzing.md):
#   make fuzz FUZZER=codec_fuzzer SECONDS=60
FUZZ_BUILD ?= build-fuzz
FUZZER     ?= codec_fuzzer
SECONDS    ?= 60
fuzz: setup
	CC=clang CXX=clang++ $(CMAKE) -S . -B $(FUZZ_BUILD) -G Ninja \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTURBOZARR_BUILD_FUZZERS=ON \
	  -DTURBOZARR_BUILD_TESTS=OFF -DTURBOZARR_BUILD_CLI=OFF
	$(CMAKE) --build $(FUZZ_BUILD) --target $(FUZZER) -j $(JOBS)
	mkdir -p $(FUZZ_BUILD)/corpus/$(FUZZER) $(FUZZ_BUILD)/artifacts
	$(FUZZ_BUILD)/fuzz/$(FUZZER) -max_total_time=$(SECONDS) -timeout=10 \
	  -print_final_stats=1 -artifact_prefix=$(FUZZ_BUILD)/artifacts/$(FUZZER)- \
	  $(if $(wildcard fuzz/$(FUZZER).dict),-dict=fuzz/$(FUZZER).dict) \
	  $(FUZZ_BUILD)/corpus/$(FUZZER) $(FUZZ_BUILD)/fuzz/seeds/$(FUZZER)

# Rewrites the test fixtures that zarr-python and numcodecs wrote
# (src/testing/zarr_python_testdata.h, compressor_fixtures.h) with the versions
# pinned in requirements-dev.txt; test-python checks they are up to date.
fixtures: setup
	$(PYTHON) scripts/fixtures/regenerate.py

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
