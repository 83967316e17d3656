# The two entry points: `make demo` and `make test`. Each sets up the machine
# (idempotently), builds, then runs. See README.md.
BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc)
PYTHON     := $(CURDIR)/.venv/bin/python
CMAKE      := $(shell command -v cmake)
NANOBIND_DIR = $(shell $(PYTHON) -m nanobind --cmake_dir 2>/dev/null)

.PHONY: setup build demo test test-cpp test-python test-sanitize fuzz clean

setup:
	@bash scripts/setup.sh

$(BUILD)/build.ninja:
	$(CMAKE) -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	  -DTURBOZARR_BUILD_PYTHON=ON -DPython_EXECUTABLE=$(PYTHON) \
	  -Dnanobind_DIR=$(NANOBIND_DIR)

build: setup $(BUILD)/build.ninja
	$(CMAKE) --build $(BUILD) -j $(JOBS)

demo: build
	@PYTHONPATH=$(CURDIR)/python $(PYTHON) examples/demo.py

test-cpp: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-python: build
	PYTHONPATH=$(CURDIR)/python TURBOZARR_CLI=$(CURDIR)/$(BUILD)/cli/turbozarr \
	  $(PYTHON) -m pytest -q python/tests

# The C++ tests again under AddressSanitizer and UndefinedBehaviorSanitizer.
test-sanitize: setup
	$(CMAKE) -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug \
	  -DTURBOZARR_SANITIZE=ON -DTURBOZARR_BUILD_CLI=OFF
	$(CMAKE) --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j $(JOBS)

test: test-cpp test-python test-sanitize

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
