# Front door. `make demo` and `make test` each do everything from a fresh Debian 12 machine.
BUILD_DIR ?= build
DEPS := cmake ninja-build g++ pkg-config clang \
        libfmt-dev libexpected-dev libcli11-dev libtraceevent-dev libtracefs-dev \
        libelf-dev libdw-dev libdebuginfod-dev libcapstone-dev libzstd-dev \
        nlohmann-json3-dev libprotobuf-dev protobuf-compiler libncurses-dev \
        libbpf-dev bpftool libgtest-dev libgmock-dev libbenchmark-dev \
        linux-perf strace trace-cmd systemtap-sdt-dev libc6-dbg python3-dev pybind11-dev bzip2
SONDE := $(BUILD_DIR)/sonde
# Only the tests need these (not make demo): the flame graph tests load pages in headless Chromium;
# the format check runs clang-format; the data convert tests read sonde's pprof files with
# `go tool pprof` and its CTF with babeltrace2, the oracles users would use; the Python module's
# tests run under pytest with NumPy and pandas (what `import sonde` hands its columns to); blkparse
# (blktrace) reads sonde's blktrace files and prints what `sonde blk parse` must print.
TEST_DEPS := chromium clang-format golang-go babeltrace2 tmux python3-pytest python3-numpy python3-pandas blktrace

.PHONY: all deps test-deps configure build demo test bench clean fuzz install-python

all: build

# Installs only what is missing; silent when everything is present.
deps:
	@missing=$$(for p in $(DEPS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "Installing:" $$missing; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi

test-deps:
	@missing=$$(for p in $(TEST_DEPS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "Installing (for the tests):" $$missing; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	@# speedscope's offline build (npm, tests only): the --to-speedscope files are loaded in it.
	@command -v npm >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends npm; }
	@[ -d tests/fixtures/speedscope/node_modules/speedscope ] || npm ci --prefix tests/fixtures/speedscope --no-audit --no-fund --silent

configure: deps
	@[ -f $(BUILD_DIR)/build.ninja ] || cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo

build: configure
	@cmake --build $(BUILD_DIR) --target sonde workloads

demo: build
	@scripts/demo.sh $(BUILD_DIR)

test: configure test-deps
	@cmake --build $(BUILD_DIR)
	@cd $(BUILD_DIR) && ctest --output-on-failure --timeout 600

bench: build
	@bench/run_all.sh $(BUILD_DIR)

# `import sonde` without PYTHONPATH: the module into the system python3's user site-packages.
install-python: build
	@site=$$(/usr/bin/python3 -m site --user-site) && mkdir -p "$$site" && \
	  cp $(BUILD_DIR)/python/sonde.so "$$site/" && echo "installed $$site/sonde.so"

clean:
	rm -rf $(BUILD_DIR)

# The readers' libFuzzer targets (tests/fuzz/, their own CMake project built with clang): each
# replays its saved crashes, then fuzzes a copy of its seed corpus for FUZZ_SECONDS. Exits
# non-zero on a crash, a leak, a timeout or running out of memory; the input is left in
# $(FUZZ_BUILD_DIR)/artifacts/. FUZZ_TARGETS picks some: make fuzz FUZZ_TARGETS=tracedat_reader
FUZZ_BUILD_DIR ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= perfdata_reader tracedat_reader payload_printer script_text folded_stacks event_spec probe_spec \
                probe_binary
FUZZ_DEPS := cmake ninja-build pkg-config clang libclang-rt-14-dev libfmt-dev libexpected-dev libzstd-dev \
             zlib1g-dev libtraceevent-dev libtracefs-dev libelf-dev libdw-dev libcapstone-dev libbpf-dev \
             systemtap-sdt-dev
FUZZ_FLAGS := -max_len=65536 -rss_limit_mb=2560 -timeout=30 -print_final_stats=1 \
              -artifact_prefix=$(FUZZ_BUILD_DIR)/artifacts/
# Seeds and saved crashes per target: perfdata_reader's in tests/fuzz/corpus/ and crashes/, the
# others' in corpus_<name>/ and crashes_<name>/ (tracedat_reader: corpus_tracedat/); the text
# targets' seeds are the collapse fixtures, probe_binary's the test workloads built with -g
# (tests/fuzz/run_fuzz.sh says which).

fuzz:
	@missing=$$(for p in $(FUZZ_DEPS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "Installing:" $$missing; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	@[ -f $(FUZZ_BUILD_DIR)/build.ninja ] || cmake -S tests/fuzz -B $(FUZZ_BUILD_DIR) -G Ninja -DCMAKE_CXX_COMPILER=clang++
	@cmake --build $(FUZZ_BUILD_DIR)
	@FUZZ_FLAGS="$(FUZZ_FLAGS)" tests/fuzz/run_fuzz.sh $(FUZZ_BUILD_DIR) $(FUZZ_SECONDS) $(FUZZ_TARGETS)
