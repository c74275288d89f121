#!/bin/sh
# `make verify-resources`: every corpus and stress helper's registers and
# spills, without a GPU (`warpforge verify --compile-only`). Fetches NVRTC,
# the CUDA headers (cuda_fp16.h), cuobjdump and nvdisasm as NVIDIA's PyPI
# wheels into $CUDA_TOOLS (pinned: NVRTC 13.0, the release the H100 checks
# in results/ used, so ptxas allocates registers as it did there), unless
# CUDA_TOOLS already holds them. Without network and without a cached
# copy, says so and exits 0 (a visible skip, as the GPU tests do); a
# helper that fails its register budget (a loop body or one-shot kernel
# that spills while its data leaves 16 registers spare, unless ptxas spilled
# by choice and the kernel has no spill under __launch_bounds__(threads, 1))
# exits non-zero. The Makefile passes Triton's layout tests
# (tests/data/triton_lowerings.ttgir), the corpus, the stress files and the
# random conversions (tests/data/random_s*.ttgir).
#
# usage: scripts/verify_resources.sh WARPFORGE_BINARY OUTDIR FILE...
set -u
wf=$1; out=$2; shift 2
tools=${CUDA_TOOLS:-$out/cuda-tools}
root=$tools/nvidia/cu13
if [ ! -e "$root/lib/libnvrtc.so.13" ] || [ ! -x "$root/bin/cuobjdump" ]; then
  mkdir -p "$tools"
  if ! python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$tools" \
      nvidia-cuda-nvrtc==13.0.88 nvidia-cuda-runtime==13.0.96 \
      nvidia-cuda-cuobjdump==13.2.51 nvidia-cuda-nvdisasm==13.5.37 > "$out/cuda-tools.log" 2>&1; then
    echo "RESOURCE CHECK SKIPPED: could not fetch NVIDIA's NVRTC wheels (see $out/cuda-tools.log)"
    exit 0
  fi
fi
chmod +x "$root"/bin/* 2>/dev/null || true
export LD_LIBRARY_PATH="$root/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$root/bin:$PATH"
export CUDA_HOME="$root"
# NVRTC results by module source, options and NVRTC version (verify/src/compile.rs
# NvrtcCache): a rerun in the same tree recompiles only the helpers that changed;
# a fresh clone (CI) starts empty. WARPFORGE_NVRTC_CACHE= (empty) turns it off.
export WARPFORGE_NVRTC_CACHE="${WARPFORGE_NVRTC_CACHE-$out/nvrtc-cache}"
mkdir -p "$out/resources"
# one process per file, $JOBS at a time (default: the cores), reported in the
# order given; each process compiles its module in RAYON_NUM_THREADS parts at
# once (default here 2: with JOBS processes, about twice the cores compiling)
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
export RAYON_NUM_THREADS="${RAYON_NUM_THREADS:-2}"
export wf out
status=0
for f in "$@"; do
  b=$(basename "$f")
  rm -f "$out/resources/$b.status" "$out/resources/$b.jsonl" "$out/resources/$b.err"
done
printf '%s\n' "$@" | xargs -P "$jobs" -I{} sh -c '
  f="$1"; b=$(basename "$f")
  if "$wf" verify --compile-only --ttgir "$f" --dtypes i8,i16,f16,i32,i64 \
      --json > "$out/resources/$b.jsonl" 2> "$out/resources/$b.err"; then
    echo ok > "$out/resources/$b.status"
  else
    echo failed > "$out/resources/$b.status"
  fi' sh {} || status=1
for f in "$@"; do
  b=$(basename "$f")
  if [ "$(cat "$out/resources/$b.status" 2>/dev/null)" = ok ]; then
    echo "resources ok: $f"
  else
    echo "resources FAILED: $f (see $out/resources/$b.jsonl and .err)"
    grep -h '"verified":false' "$out/resources/$b.jsonl" | head -3 | cut -c1-400
    tail -3 "$out/resources/$b.err"
    status=1
  fi
done
these() { for f in "$@"; do cat "$out/resources/$(basename "$f").jsonl" 2>/dev/null; done; }
rechecked=$(these "$@" | grep -o '"min_blocks_registers":' | wc -l)
cases=$(these "$@" | grep -o '"compiled_only":true' | wc -l)
echo "RESOURCE CHECK ran: $cases cases (helper x element type x form), registers and spills by NVRTC 13.0 for each conversion's target (its ttg.target, else sm_90), across $# files ($rechecked kernels spilled with registers to spare and were compiled again under __launch_bounds__(threads, 1))"
exit $status
