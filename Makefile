# The commands people type. `make demo` and `make test` need only cargo.
CARGO ?= cargo
BIN := target/release/warpforge
CORPUS := corpus/pairs.mlir $(wildcard corpus/ttgir/*.ttgir)
OUT := out

.PHONY: build test demo verify-gpu bench bench-triton results fmt clean

build:
	$(CARGO) build --release

# Unit, property, corpus (CPU simulator) and CLI tests; GPU tests skip without a GPU.
test:
	$(CARGO) test --workspace
	@echo "GPU check of the bundled pairs (skipped, and said so, without a GPU):"
	$(CARGO) run -q -- verify --ttgir corpus/pairs.mlir > /dev/null

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
# the Triton column); writes results/vs_triton.{jsonl,md,svg}.
bench-triton: build
	$(BIN) bench --ttgir $(CORPUS) --json results/vs_triton.jsonl --md results/vs_triton.md --svg results/vs_triton.svg

# Regenerate results/ (needs a GPU): SASS counts per helper beside Triton 3.6's.
results: build
	./scripts/results.sh

fmt:
	$(CARGO) fmt --all

clean:
	$(CARGO) clean
	rm -rf $(OUT)
