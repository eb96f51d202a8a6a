# Front door. `make demo` and `make test` each do everything from a fresh Debian 12 machine.
BUILD_DIR ?= build
DEPS := cmake ninja-build g++ pkg-config clang \
        libfmt-dev libexpected-dev libcli11-dev libtraceevent-dev libtracefs-dev \
        libelf-dev libdw-dev libdebuginfod-dev libcapstone-dev libzstd-dev \
        nlohmann-json3-dev libprotobuf-dev protobuf-compiler libncurses-dev \
        libbpf-dev bpftool libgtest-dev libgmock-dev libbenchmark-dev \
        linux-perf strace
SONDE := $(BUILD_DIR)/sonde

.PHONY: all deps configure build demo test bench clean

all: build

# Installs only what is missing; silent when everything is present.
deps:
	@missing=$$(for p in $(DEPS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "Installing:" $$missing; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi

configure: deps
	@[ -f $(BUILD_DIR)/build.ninja ] || cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo

build: configure
	@cmake --build $(BUILD_DIR) --target sonde workloads

demo: build
	@scripts/demo.sh $(BUILD_DIR)

test: configure
	@cmake --build $(BUILD_DIR)
	@cd $(BUILD_DIR) && ctest --output-on-failure --timeout 600

bench: build
	@bench/run_all.sh $(BUILD_DIR)

clean:
	rm -rf $(BUILD_DIR)
