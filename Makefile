# Thin wrapper around CMake/CTest for a fresh Debian 12 machine.
#   make run   installs missing Debian packages, builds, runs the seed matrix
#              and writes its HTML report (build/seed-report.html)
#   make notebook  the venv, its Jupyter kernel "nvbench", then the notebook
#   make test  installs missing Debian packages, builds, runs every test
#              (with real NVMe under QEMU: tests/vm, docs/vm.md)
#              (then the whole suite again under ASan + UBSan, then the
#              Windows build under wine: make test-win, docs/windows.md)
#   make dist-win  the Windows package, build-win/nvbench-VERSION-win64.zip
BUILD      ?= build
ASAN_BUILD ?= build-asan
WIN_BUILD  ?= build-win
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
RUNTIME    ?= 1s
VENV       ?= .venv
KERNEL     ?= nvbench
NOTEBOOK   ?= examples/notebooks/seed_matrix.ipynb

# Debian 12 packages, in two lists. What building the library, its
# examples and the Python package needs, and so what `make build` and
# `make run` (the main job) install:
BUILD_PKGS := build-essential cmake pkg-config liburing-dev libaio-dev libblkid-dev \
              python3 python3-dev python3-venv python3-setuptools python3-wheel
# What `make run` prints and writes needs besides: the seed table (pandas)
# and the figures of its HTML report (matplotlib).
RUN_PKGS := python3-numpy python3-pandas python3-matplotlib
# What only the tests need (the Lua module, QEMU for real NVMe, wine and
# mingw for the Windows build, Open MPI, valgrind, clang's fuzzer, fio as
# the reference, Chromium to render the HTML report): installed by `make test`.
TEST_PKGS := check zlib1g-dev fio python3-jsonschema util-linux e2fsprogs fdisk \
             lua5.4 liblua5.4-dev lua-busted \
             python3-pytest python3-numpy python3-pandas python3-matplotlib python3-tqdm \
             python3-nbclient python3-ipykernel python3-nbformat python3-build \
             qemu-system-x86 busybox-static cpio \
             valgrind clang abigail-tools \
             gcc-mingw-w64-x86-64 wine wine64 \
             openmpi-bin libopenmpi-dev python3-mpi4py \
             chromium \
             postgresql-15 python3-psycopg2 sqlite3

# What `make notebook` needs besides the build (Jupyter itself is used when
# installed: Debian's jupyter-notebook).
NOTEBOOK_PKGS := python3-ipykernel python3-numpy python3-pandas python3-matplotlib

.PHONY: all deps deps-run deps-test build build-tests test test-fast test-win dist-win run run-c venv kernel notebook install clean figures

all: build

# Install what is missing of $(PKGS) (as root), or say what to install.
define install_missing
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing:$$missing"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing; \
	  else \
	    echo "missing Debian packages:$$missing"; \
	    echo "run as root:  apt-get install -y$$missing"; \
	    exit 1; \
	  fi; \
	fi
endef

deps:
	$(call install_missing,$(BUILD_PKGS))

deps-run:
	$(call install_missing,$(BUILD_PKGS) $(RUN_PKGS))

deps-test:
	$(call install_missing,$(BUILD_PKGS) $(RUN_PKGS) $(TEST_PKGS))

# The C tests are built when Check is there (make test installs it).
build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DNVB_BUILD_TESTS=$$(pkg-config --exists check && echo ON || echo OFF)
	cmake --build $(BUILD) -j $(JOBS)

build-tests: deps-test
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNVB_BUILD_TESTS=ON
	cmake --build $(BUILD) -j $(JOBS)

test: build-tests
	cd $(BUILD) && ctest --output-on-failure -j 1
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DNVB_SANITIZE=ON
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  NVB_SANITIZER=1 ctest --output-on-failure -j 1 -LE no-sanitizer
	$(MAKE) test-win

# The Windows build (mingw-w64 cross compiler) and its tests under wine
# (docs/windows.md); skipped with a note where either is missing. They
# include the package (win_dist*: built, unpacked, run under wine, its
# results compared with a Linux run through the venv's nvbench command).
test-win: deps-test venv
	@if command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 && command -v wine >/dev/null 2>&1; then \
	  cmake -S . -B $(WIN_BUILD) -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64-x86_64.cmake -DCMAKE_BUILD_TYPE=RelWithDebInfo && \
	  cmake --build $(WIN_BUILD) -j $(JOBS) && \
	  cd $(WIN_BUILD) && NVB_PYTHON=$(abspath $(VENV))/bin/python ctest --output-on-failure -j 1; \
	else \
	  echo "test-win: x86_64-w64-mingw32-gcc or wine not installed: the Windows build was not tested"; \
	fi

# The package for Windows users: $(WIN_BUILD)/nvbench-VERSION-win64.zip
# (seed_matrix.exe, run_workload.exe, libnvbench.dll, its import library,
# nvbench.h, README-windows.txt, run-seed-matrix.ps1; docs/windows.md).
dist-win:
	$(call install_missing,$(BUILD_PKGS) gcc-mingw-w64-x86-64)
	cmake -S . -B $(WIN_BUILD) -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64-x86_64.cmake -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build $(WIN_BUILD) -j $(JOBS) --target dist-win
	@ls $(WIN_BUILD)/nvbench-*-win64.zip

test-fast: build-tests
	cd $(BUILD) && ctest --output-on-failure -j 1

# The Python package in a venv from Debian's interpreter (the documented,
# offline install), then the seed matrix through the nvbench command.
venv: deps
	test -x $(VENV)/bin/python || /usr/bin/python3 -m venv --system-site-packages $(VENV)
	$(VENV)/bin/pip install --no-build-isolation --no-deps --force-reinstall --quiet --disable-pip-version-check .

# The seed table is printed; the results and their HTML report (one file to
# share, tests/python/test_report_html.py) go to $(BUILD), and it says where;
# the runs are saved in the results store too ($$NVBENCH_DB, else
# ~/.local/share/nvbench/results.db: nvbench history lists them, docs/history.md).
run: deps-run build venv
	$(VENV)/bin/nvbench matrix --runtime $(RUNTIME) --json $(BUILD)/seed-matrix.json --save
	$(VENV)/bin/nvbench report $(BUILD)/seed-matrix.json -o $(BUILD)/seed-report.html

# The venv's Jupyter kernel, under the name the notebook asks for, written
# into the venv itself (--sys-prefix: $(VENV)/share/jupyter/kernels/$(KERNEL)),
# so nothing outside the checkout changes. Needs the package in $(VENV)
# (make venv) and ipykernel (python3-ipykernel).
kernel:
	$(VENV)/bin/python -m ipykernel install --sys-prefix --name $(KERNEL) --display-name "Python (nvbench)"

# The notebook, opened in Jupyter with the venv's kernel: the one command.
notebook: venv
	$(call install_missing,$(NOTEBOOK_PKGS))
	@$(MAKE) --no-print-directory kernel
	@if $(VENV)/bin/python -c 'import notebook' 2>/dev/null; then \
	  echo "opening $(NOTEBOOK) with kernel $(KERNEL)"; \
	  JUPYTER_PATH=$(abspath $(VENV))/share/jupyter exec $(VENV)/bin/python -m notebook $(NOTEBOOK); \
	else \
	  echo "kernel '$(KERNEL)' registered in $(VENV); Jupyter is not installed (Debian: apt-get install jupyter-notebook)."; \
	  echo "Then run make notebook again, or open $(NOTEBOOK) in any Jupyter started with"; \
	  echo "  JUPYTER_PATH=$(abspath $(VENV))/share/jupyter"; \
	fi

# The same matrix from the C example program.
run-c: build
	./$(BUILD)/examples/c/seed_matrix --runtime $(RUNTIME)

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(WIN_BUILD) $(VENV)

# docs/result.schema.json and the generated tables of docs/json-schema.md,
# from the table of figures (libnvbench/core/figures.c); test_figures_current
# fails until they are written again after a change to it.
figures: build-tests
	$(BUILD)/tests/nvb_figures_dump > $(BUILD)/figures.json
	python3 tools/gen_figures.py $(BUILD)/figures.json .
