# The two entry points: `make demo` and `make test`. Each sets up the machine
# (idempotently), builds, then runs. See README.md.
BUILD      ?= build
BUILD312   ?= build-py312
BUILD313   ?= build-py313
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
JOBS       ?= $(shell nproc)
PYTHON     := $(CURDIR)/.venv/bin/python
PYTHON312  := $(CURDIR)/.venv312/bin/python
PYTHON313  := $(CURDIR)/.venv313/bin/python
CMAKE      := $(shell command -v cmake)
NANOBIND_DIR = $(shell $(PYTHON) -m nanobind --cmake_dir 2>/dev/null)

# ccache (which setup installs) in front of the compilers, looked up when the
# recipe runs, after setup; without it the launcher is empty and compilers run
# directly. With CCACHE_BASEDIR the tree (unless set already), ccache hashes
# paths inside it relative to the build directory, so build directories at
# the same depth (build, build-py312, the wheels' build-cp3*) share objects.
LAUNCHER = -DCMAKE_C_COMPILER_LAUNCHER="$$(command -v ccache)" \
           -DCMAKE_CXX_COMPILER_LAUNCHER="$$(command -v ccache)"
CCACHE_BASEDIR ?= $(CURDIR)
export CCACHE_BASEDIR

.PHONY: setup setup-demo build build-demo demo wheels test-wheel-bare test-sdist test test-cpp test-python test-install test-wheel test-sanitize \
        tsan-build test-tsan test-concurrency test-integrity test-vcz soak test-zarr-python test-zarr-python-full fuzz fuzz-build \
        fuzz-all fuzz-merge micro-bench bench-ome-env bench-sparse-env fixtures support-table clean

setup:
	@bash scripts/setup.sh

setup-demo:
	@bash scripts/setup.sh --demo

# Configuring every time is cheap and keeps an old build directory's options
# in step with this file. The second and third builds are the extension
# modules for Python 3.12 (.venv312) and 3.13 (.venv313), written next to the
# 3.11 one in python/turbozarr.
PY_BUILD = $(CMAKE) -S . -B $(1) -G Ninja -DCMAKE_BUILD_TYPE=Release $(LAUNCHER) \
	  -DTURBOZARR_BUILD_PYTHON=ON -DPython_EXECUTABLE=$(2) \
	  -DTURBOZARR_BUILD_TESTS=OFF -DTURBOZARR_BUILD_CLI=OFF > /dev/null && \
	$(CMAKE) --build $(1) -j $(JOBS)
build: setup
	$(CMAKE) -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(LAUNCHER) \
	  -DTURBOZARR_BUILD_PYTHON=ON -DPython_EXECUTABLE=$(PYTHON) \
	  -Dnanobind_DIR=$(NANOBIND_DIR) -DTURBOZARR_BUILD_TESTS=ON \
	  -DTURBOZARR_BUILD_BENCHMARKS=ON > /dev/null
	$(CMAKE) --build $(BUILD) -j $(JOBS)
	$(call PY_BUILD,$(BUILD312),$(PYTHON312))
	$(call PY_BUILD,$(BUILD313),$(PYTHON313))

# Only what the demo runs: the library, the extension module for .venv's
# Python and the command-line tool (no tests, benchmarks or fuzz replays, no
# second interpreter), after the set-up's --demo subset. About 9 minutes on a
# fresh 2-core machine with an empty compiler cache (README.md).
build-demo: setup-demo
	$(CMAKE) -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(LAUNCHER) \
	  -DTURBOZARR_BUILD_PYTHON=ON -DPython_EXECUTABLE=$(PYTHON) \
	  -Dnanobind_DIR=$(NANOBIND_DIR) -DTURBOZARR_BUILD_TESTS=OFF \
	  -DTURBOZARR_BUILD_BENCHMARKS=OFF > /dev/null
	$(CMAKE) --build $(BUILD) --target _core turbozarr_cli -j $(JOBS)

demo: build-demo
	@PYTHONPATH=$(CURDIR)/python $(PYTHON) examples/demo.py
	@PYTHONPATH=$(CURDIR)/python:$(CURDIR)/bench $(PYTHON) -m turbozarr_bench run bench/experiments/smoke.toml

test-cpp: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# Python 3.11 (.venv: zarr-python 3.1, the benchmark harness, the fixture
# scripts), then Python 3.12 and 3.13 (.venv312, .venv313: zarr-python 3.4,
# xarray, dask; the tests that need those skip on 3.11). The S3 store tests
# run on 3.11 only:
# their server (moto) is in .venv alone; so do the `turbozarr vcz` tests,
# which test the binary against the peers in .venv-vcz, not the interpreter.
# Every run appends what its passing interop tests proved to
# SUPPORT_RECORDS; test-python then checks that docs/support.md claims
# nothing more (scripts/support_table.py --check), and support-table
# rewrites docs/support.md from them (--write).
SUPPORT_RECORDS = $(CURDIR)/$(BUILD)/support-records.jsonl
SUPPORT_TABLE   = --check
support-table: SUPPORT_TABLE = --write
test-python support-table: build
	rm -f $(SUPPORT_RECORDS)
	PYTHONPATH=$(CURDIR)/python TURBOZARR_CLI=$(CURDIR)/$(BUILD)/cli/turbozarr \
	  TURBOZARR_SUPPORT_RECORD=$(SUPPORT_RECORDS) \
	  $(PYTHON) -m pytest -q python/tests bench/tests scripts/fixtures \
	  scripts/test_support_table.py
	PYTHONPATH=$(CURDIR)/python TURBOZARR_CLI=$(CURDIR)/$(BUILD)/cli/turbozarr \
	  TURBOZARR_SUPPORT_RECORD=$(SUPPORT_RECORDS) \
	  $(PYTHON312) -m pytest -q python/tests --ignore=python/tests/test_s3_store.py \
	  --ignore=python/tests/test_vcz_cli.py
	PYTHONPATH=$(CURDIR)/python TURBOZARR_CLI=$(CURDIR)/$(BUILD)/cli/turbozarr \
	  TURBOZARR_SUPPORT_RECORD=$(SUPPORT_RECORDS) \
	  $(PYTHON313) -m pytest -q python/tests --ignore=python/tests/test_s3_store.py \
	  --ignore=python/tests/test_vcz_cli.py
	PYTHONPATH=$(CURDIR)/python $(PYTHON) scripts/support_table.py $(SUPPORT_TABLE) \
	  $(SUPPORT_RECORDS)

# The whole `turbozarr vcz` matrix against vcztools and bcftools (make test
# runs every third filter case, since vcztools takes a second per query).
test-vcz: build
	TURBOZARR_VCZ_MATRIX=full PYTHONPATH=$(CURDIR)/python \
	  TURBOZARR_CLI=$(CURDIR)/$(BUILD)/cli/turbozarr $(PYTHON) -m pytest -q python/tests/test_vcz_cli.py

# `cmake --install` then a separate project that finds it with find_package.
test-install: build
	rm -rf $(BUILD)/install $(BUILD)/consumer
	$(CMAKE) --install $(BUILD) --prefix $(CURDIR)/$(BUILD)/install > /dev/null
	$(CMAKE) -S examples/cpp_consumer -B $(BUILD)/consumer -G Ninja \
	  -DCMAKE_PREFIX_PATH=$(CURDIR)/$(BUILD)/install > /dev/null
	$(CMAKE) --build $(BUILD)/consumer > /dev/null
	$(BUILD)/consumer/consumer

# The wheels a user installs with pip (docs/install.md): one manylinux wheel
# per supported Python (3.11, 3.12, 3.13), each repaired by auditwheel so that
# it carries every library it links but glibc's, libstdc++'s and libgcc_s's,
# and the sdist, into $(WHEELS)/dist with what `auditwheel show` says of each.
# The wheels' build directories (build-<wheel tag>, see pyproject.toml)
# persist, so a second run recompiles only what changed.
WHEELS ?= build-wheels
wheels: setup
	bash scripts/build_wheels.sh $(WHEELS) $(PYTHON) $(PYTHON312) $(PYTHON313)

# The sdist built from source by pip, as a user without a wheel for their
# platform builds it (scripts/test_sdist.sh; about 10 minutes: everything
# compiles, outside the compiler cache's reach).
test-sdist: wheels
	bash scripts/test_sdist.sh $(WHEELS) $(PYTHON)

# Each wheel installed into a fresh virtual environment on this machine that
# holds only it and numpy, then checked from outside the source tree by
# scripts/check_wheel.py: the module, the command-line tools, the stub and the
# entry points.
test-wheel: wheels
	bash scripts/test_wheel.sh $(WHEELS) $(PYTHON) requirements-dev.txt
	bash scripts/test_wheel.sh $(WHEELS) $(PYTHON312) requirements-py312.txt
	bash scripts/test_wheel.sh $(WHEELS) $(PYTHON313) requirements-py312.txt

# The wheels on machines that never saw the set-up: minimal Debian 12 and 13
# roots made by debootstrap (kept in $(WHEELS)/roots), each wheel installed
# from it with its dependencies from PyPI, and every layer run there
# (scripts/bare_root/test_wheels.sh says what; docs/install.md has the figures).
test-wheel-bare: wheels
	bash scripts/bare_root/test_wheels.sh $(WHEELS)/dist $(WHEELS)/roots

# The C++ tests again under AddressSanitizer and UndefinedBehaviorSanitizer.
test-sanitize: setup
	$(CMAKE) -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug $(LAUNCHER) \
	  -DTURBOZARR_SANITIZE=ON -DTURBOZARR_BUILD_CLI=OFF
	$(CMAKE) --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j $(JOBS)

# Concurrent writers of one array (src/array/concurrent_write_test.cc): the
# threaded cases under ThreadSanitizer, at the small sizes.
CONCURRENT_TEST = src/array/tz_concurrent_write_test
tsan-build: setup
	$(CMAKE) -S . -B $(TSAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(LAUNCHER) \
	  -DTURBOZARR_SANITIZE_THREAD=ON -DTURBOZARR_BUILD_CLI=OFF
	$(CMAKE) --build $(TSAN_BUILD) --target tz_concurrent_write_test -j $(JOBS)

test-tsan: tsan-build
	TSAN_OPTIONS=halt_on_error=1 $(TSAN_BUILD)/$(CONCURRENT_TEST) --gtest_filter='*Threads*'

# The full campaign: 8 writers x 1,000 random region writes over 16 shards,
# threads and processes, local directory and S3 (moto), then the threaded
# cases again under ThreadSanitizer; and 100 writes killed with SIGKILL per
# layout. About 4 minutes on 2 cores.
test-concurrency: build tsan-build
	TURBOZARR_CONCURRENT_WRITES=full $(BUILD)/$(CONCURRENT_TEST)
	TURBOZARR_CRASH_KILLS=100 $(BUILD)/src/array/tz_crash_write_test
	TURBOZARR_CONCURRENT_WRITES=full TSAN_OPTIONS=halt_on_error=1 \
	  $(TSAN_BUILD)/$(CONCURRENT_TEST) --gtest_filter='*Threads*'

# The integrity campaign (scripts/integrity, docs/guarantees.md "Damage: the
# integrity campaign"): INTEGRITY_TRIALS trials of damage to every layout,
# read through every path, on JOBS worker processes (about 9 minutes on 2
# cores); writes the table into docs/guarantees.md and fails on a crash, a
# hang, an unexpected exception or a silently wrong read of a checksummed
# layout. `make test` runs 400 (python/tests/test_integrity_campaign.py).
INTEGRITY_TRIALS ?= 100000
test-integrity: build
	PYTHONPATH=$(CURDIR)/scripts:$(CURDIR)/python TURBOZARR_CLI=$(CURDIR)/$(BUILD)/cli/turbozarr \
	  $(PYTHON312) -m integrity --trials $(INTEGRITY_TRIALS) --jobs $(JOBS) \
	  --write-doc docs/guarantees.md --command "make test-integrity"

# 30 minutes (SOAK_SECONDS) of reads and writes from 8 threads over the S3 and
# HTTP test server with faults on: 0 wrong, memory and descriptors flat; the
# samples go to $(BUILD)/soak.log (docs/guarantees.md). `make test` runs 15 s.
SOAK_SECONDS ?= 1800
soak: build
	TURBOZARR_SOAK_SECONDS=$(SOAK_SECONDS) $(BUILD)/src/array/tz_soak_test \
	  > $(BUILD)/soak.log 2>&1; status=$$?; cat $(BUILD)/soak.log; exit $$status

# zarr-python's own test suite (its release's tests/) with turbozarr's codec
# pipeline switched on, against the saved run of its default pipeline
# (docs/zarr-pipeline.md); the -full target runs both pipelines and compares.
test-zarr-python: build
	$(PYTHON312) scripts/zarr_suite/run.py --baseline

test-zarr-python-full: build
	$(PYTHON312) scripts/zarr_suite/run.py

test: test-cpp test-python test-install test-wheel test-zarr-python test-sanitize test-tsan

# The C++ micro-benchmarks (codecs, copy kernels, per-chunk cost), on demand:
#   make micro-bench FILTER=DecodeInto
FILTER ?= .
# Workload E's OME-Zarr peers beyond ngio and ome-zarr-py (tensorstore,
# ngff-zarr, bioio, iohub, acquire-zarr) in .venv-ome; run workload E with
# .venv-ome/bin/python to time them (bench/experiments/workload-e.toml).
bench-ome-env: setup
	@bash scripts/setup.sh --ome-peers

bench-sparse-env: setup
	@bash scripts/setup.sh --sparse-peers

micro-bench: build
	$(BUILD)/bench/micro/tz_micro_bench --benchmark_filter='$(FILTER)' \
	  --benchmark_repetitions=3 --benchmark_report_aggregates_only=true

# Runs one libFuzzer target for SECONDS seconds (see docs/fuzzing.md):
#   make fuzz FUZZER=codec_fuzzer SECONDS=60
# `make fuzz-all` runs every target, one after another, for RUNS executions
# each and appends a line per target to FUZZ_LOG; `make fuzz-merge` then
# folds what they found into the committed corpora (fuzz/corpus/), which
# ctest replays (fuzz_replay_<target>).
FUZZ_BUILD ?= build-fuzz
FUZZER     ?= codec_fuzzer
SECONDS    ?= 60
RUNS       ?= 10000000
FUZZ_LOG   ?= $(FUZZ_BUILD)/fuzz-all.log
FUZZERS    := metadata_fuzzer codec_fuzzer zip_fuzzer shard_index_fuzzer \
              http_response_fuzzer s3_xml_fuzzer vcz_text_fuzzer
# What fuzz-build builds: every target, or the one `make fuzz` runs.
FUZZ_TARGETS = $(FUZZERS)

fuzz-build: setup
	CC=clang CXX=clang++ $(CMAKE) -S . -B $(FUZZ_BUILD) -G Ninja $(LAUNCHER) \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTURBOZARR_BUILD_FUZZERS=ON \
	  -DTURBOZARR_BUILD_TESTS=OFF -DTURBOZARR_BUILD_CLI=OFF
	$(CMAKE) --build $(FUZZ_BUILD) --target $(FUZZ_TARGETS) -j $(JOBS)

# The corpus a run grows comes first; the seeds (committed, generated) after.
fuzz: FUZZ_TARGETS = $(FUZZER)
fuzz: fuzz-build
	mkdir -p $(FUZZ_BUILD)/corpus/$(FUZZER) $(FUZZ_BUILD)/artifacts
	$(FUZZ_BUILD)/fuzz/$(FUZZER) -max_total_time=$(SECONDS) -timeout=10 \
	  -print_final_stats=1 -artifact_prefix=$(FUZZ_BUILD)/artifacts/$(FUZZER)- \
	  $(if $(wildcard fuzz/$(FUZZER).dict),-dict=fuzz/$(FUZZER).dict) \
	  $(FUZZ_BUILD)/corpus/$(FUZZER) $(wildcard fuzz/corpus/$(FUZZER)) \
	  $$(test -d $(FUZZ_BUILD)/fuzz/seeds/$(FUZZER) && echo $(FUZZ_BUILD)/fuzz/seeds/$(FUZZER))

fuzz-all: fuzz-build
	bash fuzz/campaign.sh run $(FUZZ_BUILD) $(RUNS) $(FUZZ_LOG) $(FUZZERS)

fuzz-merge: fuzz-build
	bash fuzz/campaign.sh merge $(FUZZ_BUILD) $(FUZZERS)

# Rewrites the test fixtures that zarr-python and numcodecs wrote
# (src/testing/zarr_python_testdata.h, compressor_fixtures.h) with the versions
# pinned in requirements-dev.txt; test-python checks they are up to date.
fixtures: setup
	$(PYTHON) scripts/fixtures/regenerate.py

clean:
	rm -rf $(BUILD) $(BUILD312) $(BUILD313) $(ASAN_BUILD) $(TSAN_BUILD) $(WHEELS) build-cp3*
