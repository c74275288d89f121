# The commands people type. `make demo` and `make test` need only cargo.
CARGO ?= cargo
BIN := target/release/warpforge
CORPUS := corpus/pairs.mlir $(wildcard corpus/ttgir/*.ttgir)
OUT := out

FUZZ_EXECS ?= 10000000

.PHONY: cli-docs check-all corpus-real triton-bases-real build test demo verify-gpu verify-resources bench bench-triton results results-table fuzz fmt clean examples

build:
	$(CARGO) build --release

# Unit, property, corpus (CPU simulator) and CLI tests; GPU tests skip without
# a GPU. Each GPU test writes `GPU-TEST ran <name>` or `GPU-TEST SKIPPED
# <name>: <why>` past the test harness's capture; the counts are summed at
# the end (anywhere on a line: the harness's own `test ... ok` lines of
# parallel tests can land on the same line). With cargo-nextest installed
# the tests run under it (every test its own process, both cores busy across
# test binaries; .config/nextest.toml shows the GPU and HIP tests' lines),
# then the doc tests, which nextest does not run; else under `cargo test`.
test:
	@mkdir -p $(OUT)
	@( if $(CARGO) nextest --version > /dev/null 2>&1; then \
	     { $(CARGO) nextest run --workspace --no-fail-fast; n=$$?; \
	       $(CARGO) test --workspace --doc; d=$$?; [ $$n -eq 0 ] && [ $$d -eq 0 ]; } 2>&1; \
	   else $(CARGO) test --workspace 2>&1; fi; echo $$? > $(OUT)/test.rc ) | tee $(OUT)/test.log
	@ran=$$(grep -o 'GPU-TEST ran' $(OUT)/test.log | wc -l); \
	 skipped=$$(grep -o 'GPU-TEST SKIPPED' $(OUT)/test.log | wc -l); \
	 echo "GPU tests: $$ran ran, $$skipped skipped"; \
	 grep -o 'GPU-TEST SKIPPED.*' $(OUT)/test.log | sed -n 1p; \
	 exit $$(cat $(OUT)/test.rc)
	@echo "GPU check of the bundled pairs (skipped, and said so, without a GPU):"
	@# the binary the tests ran: `cargo run` would build it again (40 s on 2
	@# cores), with the dependency features of a build without tests
	target/debug/warpforge verify --ttgir corpus/pairs.mlir > /dev/null
	@./scripts/verify_resources.sh target/debug/warpforge $(OUT) $(RESOURCES_TEST)
	@./scripts/verify_hip.sh target/debug/warpforge $(OUT) $(AMD_TEST)

# No GPU needed: every corpus, stress, Triton-test (tests/data/triton_lowerings.ttgir)
# and random (tests/data/random_s*.ttgir, scripts/random_conversions.py) helper's
# check and loop kernels compiled by NVRTC 13.0 for sm_90
# (`verify --compile-only`, one process per file, JOBS at a time, each
# compiling its module in parallel parts; the files that take longest, the
# stress and Triton-test files, first), failing a
# helper whose loop body or one-shot kernel spills where its data leaves room
# (unless ptxas spilled by choice and the kernel has no spill under
# `__launch_bounds__(threads, 1)`) or whose scratch exceeds the target's. Fetches NVIDIA's NVRTC, header, cuobjdump
# and nvdisasm wheels into $(OUT)/cuda-tools once (CUDA_TOOLS=DIR to use
# another copy); without network, a visible skip.
# `make test` checks the corpus and the stress files (about 1,500 cases) with
# the debug binary it has just built; `make verify-resources` and `make
# check-all` add Triton's layout tests and the random files (about 7,600).
RESOURCES_TEST := $(wildcard tests/data/stress_w*.ttgir) $(CORPUS)
# AMD: every helper of the generated AMD corpus (gfx942, gfx950, gfx1100; 400
# conversions) and of tests/data/amd_archs (real kernels for gfx908, gfx90a,
# gfx1101, gfx1102, gfx1200 and gfx1201) compiled as HIP for its target by clang (the ziglang wheel,
# fetched into $(OUT)/hip-tools once; without network, a visible skip):
# scripts/verify_hip.sh. `make check-all` adds Triton's AMD layout tests.
AMD_TEST := $(wildcard corpus/real/amd/*/*.ttgir) $(wildcard tests/data/amd_archs/*/*.ttgir)
AMD_ALL := $(AMD_TEST) $(wildcard tests/data/triton_tests/amd/*.ttgir)
RESOURCES_ALL := tests/data/triton_lowerings.ttgir $(wildcard tests/data/random_s*.ttgir) $(RESOURCES_TEST)
verify-resources: build
	@mkdir -p $(OUT)
	@./scripts/verify_resources.sh $(BIN) $(OUT) $(RESOURCES_ALL)
	@./scripts/verify_hip.sh $(BIN) $(OUT) $(AMD_ALL)

# Everything `make test` samples, whole (WF_SAMPLE=1, release build): every
# conversion of Triton 3.6's own layout-conversion tests (tests/data/triton_tests,
# 1,548 distinct) and of the generated real-kernel corpus (corpus/real, 2,911
# NVIDIA conversions) planned, emitted and proven on the CPU simulator at every
# width (tests/triton_tests.rs); the blocked/mma shared-memory families
# (synth/tests/families.rs) whole, not every 8th case; the CLI's sweeps at
# sm_90 as well as sm_86, and verify --cpu of the random and Triton-lowering
# files. Then the resource check of `make test`. Run before a release.
check-all: build
	WF_SAMPLE=1 $(CARGO) test --workspace --release
	@$(MAKE) --no-print-directory verify-resources

# docs/CLI.md: every subcommand's --help (tests/cli/help.rs checks it is current).
cli-docs: build
	./scripts/cli_docs.sh $(BIN) > docs/CLI.md

# Regenerate the real-kernel corpus with Triton 3.6 (pip install triton==3.6.0;
# no GPU): whole TTGIR per kernel, then shrunk to the lines warpforge reads.
corpus-real:
	python3 corpus/generate/gen_real.py
	python3 corpus/generate/extract.py corpus/real

# tests/data/triton_bases/real_bases.jsonl again: Triton 3.6's own bases of every encoding that
# corpus/real, the three fresh kernel sets under results/runs and the third set's kernels compiled for the
# other AMD architectures convert (needs triton==3.6.0, no GPU).
FRESH_TTGIR = results/runs/2026-11-28-h200-fresh-kernels-aafb245/gen/ttgir.tar.xz \
	results/runs/2026-11-28-h200-fresh-kernels-2-c5f9dc9/gen/ttgir.tar.xz \
	results/runs/2026-11-29-cpu-fresh-kernels-3-c8e9a0f/gen/ttgir.tar.xz \
	results/runs/2026-11-29-cpu-amd-architectures-8674161/gen/ttgir.tar.xz
triton-bases-real:
	@rm -rf $(OUT)/fresh && mkdir -p $(OUT)/fresh/1 $(OUT)/fresh/2 $(OUT)/fresh/3 $(OUT)/fresh/4
	tar -xJf $(word 1,$(FRESH_TTGIR)) -C $(OUT)/fresh/1
	tar -xJf $(word 2,$(FRESH_TTGIR)) -C $(OUT)/fresh/2
	tar -xJf $(word 3,$(FRESH_TTGIR)) -C $(OUT)/fresh/3
	tar -xJf $(word 4,$(FRESH_TTGIR)) -C $(OUT)/fresh/4
	python3 tests/data/triton_bases/gen_real_bases.py tests/data/triton_bases/real_bases.jsonl \
	  $$(ls $(OUT)/fresh/1/out/*/*.ttgir $(OUT)/fresh/2/out/*/*.ttgir $(OUT)/fresh/3/out/*/*.ttgir $(OUT)/fresh/4/out/*/*.ttgir) \
	  $$(find corpus/real -name '*.ttgir' | sort)

# The structured fuzzer of every parser (TTGIR files, attributes, shapes,
# toString, JSON and Gluon layouts, format detection):
# FUZZ_EXECS executions (default 10 million), crashes kept in fuzz/crashes/
# (replayed by `cargo test -p wf-fuzz`). Not part of `make test` or CI.
fuzz:
	$(CARGO) build --profile fuzz -p wf-fuzz
	./target/fuzz/wf-fuzz $(FUZZ_EXECS)

# Plan, emit and prove every conversion of a real attention kernel (Hopper, fp8 V).
# Uses the GPU when one is present, the CPU simulator otherwise.
demo: build
	@mkdir -p $(OUT)
	$(BIN) plan --ttgir corpus/ttgir/attn_vfp8e4nv_sm90.ttgir --verbose
	$(BIN) emit --ttgir corpus/ttgir/attn_vfp8e4nv_sm90.ttgir -o $(OUT)/attn_vfp8e4nv_sm90.cuh
	$(BIN) verify --ttgir corpus/ttgir/attn_vfp8e4nv_sm90.ttgir

# Every corpus conversion on the GPU (i8, f16, i32, i64; packed forms too), with SASS counts; fails without a GPU.
verify-gpu: build
	@mkdir -p $(OUT)
	@for f in $(CORPUS); do \
	  $(BIN) verify --gpu --ttgir $$f --report $(OUT)/$$(basename $$f).md || exit 1; \
	done

# criterion benches of the planner (CPU).
bench:
	$(CARGO) bench -p bench

# Every candidate plan of every corpus conversion and Triton's own lowering,
# timed in one loop shape on the GPU (needs python3 with Triton >= 3.6 for
# the Triton column); writes bench.{jsonl,md,svg} and command.txt into a new
# run folder results/runs/<date>-<gpu>-bench-<commit>/ (scripts/new_run.sh).
bench-triton: build
	@D=$$(./scripts/new_run.sh bench) && \
	 echo '$(BIN) bench --ttgir $(CORPUS) --json bench.jsonl --md bench.md --svg bench.svg' > $$D/command.txt && \
	 $(BIN) bench --ttgir $(CORPUS) --json $$D/bench.jsonl --md $$D/bench.md --svg $$D/bench.svg && \
	 echo "wrote $$D"

# A new results/runs/ folder (needs a GPU): SASS counts per helper beside Triton 3.6's.
results: build
	./scripts/results.sh

# The headline tables of results/README.md, recomputed from the run folders they cite (no GPU).
results-table:
	python3 scripts/results_table.py

# Two CUDA programs built with CUTLASS 4.2's headers (examples/): a CuTe
# TiledMMA GEMM tile with a warpforge epilogue and the Linear Layouts paper's
# figure 3 (fp16 accumulators to fp8 operand order), each checked against a
# host reference and timed against the same kernel through shared memory.
# Needs nvcc and a GPU (sm_89 or later); not part of `make test`. Regenerates
# the committed headers under examples/ with WF (default: the release binary,
# built if missing); CUTLASS headers from CUTLASS_INCLUDE, by default unpacked
# from CUTLASS_WHL into $(OUT)/cutlass. Prints into $(OUT)/examples.txt too.
WF ?= $(BIN)
NVCC ?= nvcc
CUTLASS_WHL ?= .whl/nvidia_cutlass-4.2.0.0-py3-none-any.whl
CUTLASS_DEFAULT := $(OUT)/cutlass/cutlass_library/source/include
CUTLASS_INCLUDE ?= $(CUTLASS_DEFAULT)

examples:
	@command -v $(NVCC) > /dev/null || { echo "make examples: needs nvcc (a CUDA toolkit) and a GPU; no '$(NVCC)' here"; exit 1; }
	@[ -x "$(WF)" ] || $(CARGO) build --release
	@if [ ! -d "$(CUTLASS_INCLUDE)/cute" ]; then \
	  if [ "$(CUTLASS_INCLUDE)" != "$(CUTLASS_DEFAULT)" ] || [ ! -f "$(CUTLASS_WHL)" ]; then \
	    echo "make examples: no CuTe headers in $(CUTLASS_INCLUDE); set CUTLASS_INCLUDE, or CUTLASS_WHL to the nvidia-cutlass wheel"; exit 1; fi; \
	  echo "unpacking $(CUTLASS_WHL) into $(OUT)/cutlass"; \
	  python3 -m zipfile -e $(CUTLASS_WHL) $(OUT)/cutlass || exit 1; fi
	@mkdir -p $(OUT)
	@( $(MAKE) --no-print-directory -C examples run WF=$(abspath $(WF)) NVCC=$(NVCC) \
	  CUTLASS_INCLUDE=$(abspath $(CUTLASS_INCLUDE)) BUILD=$(abspath $(OUT))/examples 2>&1; \
	  echo $$? > $(OUT)/examples.rc ) | tee $(OUT)/examples.txt; exit $$(cat $(OUT)/examples.rc)

fmt:
	$(CARGO) fmt --all

clean:
	$(CARGO) clean
	rm -rf $(OUT)
