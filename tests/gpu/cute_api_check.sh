#!/bin/bash
# The CuTe overloads of `warpforge emit --api cute` on a GPU (sm_90; nvcc and
# a CUDA device needed; not part of `make test`). From the repository root:
#
#   tests/gpu/cute_api_check.sh CUTLASS [WARPFORGE]
#
# CUTLASS: CUTLASS's include directory (the one holding cute/tensor.hpp, e.g.
# .../cutlass_library/source/include of the nvidia-cutlass wheel), or the
# wheel file itself (unpacked with python3 into the work directory).
# WARPFORGE: the binary (default target/release/warpforge).
# Work directory: $OUT/cute_api_check if OUT is set, else a mktemp directory.
#
# It emits the two headers tests/gpu/cute_api_check.cu includes, builds and
# runs it (every slot of the CuTe overloads equal to the array forms'), checks
# that each -DWF_NEGATIVE=N build is refused with its static_assert message,
# and that a header emitted with --api cute still compiles (array forms only)
# without CUTLASS on the include path. Exit 0 only if everything held.
set -u
here=$(cd "$(dirname "$0")" && pwd)
CUTLASS=${1:?usage: $0 CUTLASS_INCLUDE_DIR_OR_WHEEL [WARPFORGE]}
B=${2:-target/release/warpforge}
if [ -n "${OUT:-}" ]; then D=$OUT/cute_api_check; else D=$(mktemp -d); fi
mkdir -p "$D"
NVCC=(nvcc -std=c++17 -arch=sm_90 -O3)
fail=0
if [ -f "$CUTLASS" ]; then
  python3 -m zipfile -e "$CUTLASS" "$D/cutlass" || { echo "cannot unpack $CUTLASS"; exit 1; }
  CUTLASS=$D/cutlass/cutlass_library/source/include
fi
[ -f "$CUTLASS/cute/tensor.hpp" ] || { echo "no cute/tensor.hpp under $CUTLASS"; exit 1; }

"$B" emit --api cute --src 'ptx:mma.m16n8k16.c.f32' --dst 'ptx:mma.m16n8k32.a.e4m3' \
  --shape 16x32 --warps 1 --dtype f8E4M3FN --name fig3 -o "$D/wf_cute_fig3.cuh" || exit 1
"$B" emit --api cute --strategy shared \
  --src '#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>' \
  --dst '#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [0, 1]}>' \
  --shape 32x32 --dtype f16 --warps 4 --name tr32 -o "$D/wf_cute_tr32.cuh" || exit 1

echo "== build: ${NVCC[*]} -I $CUTLASS -I $D $here/cute_api_check.cu"
if "${NVCC[@]}" -Xptxas -v -I "$CUTLASS" -I "$D" "$here/cute_api_check.cu" -o "$D/cute_api_check" > "$D/build.log" 2>&1; then
  grep -E "spill|Used" "$D/build.log" | sed 's/^/  /'
  "$D/cute_api_check" || fail=1
else
  cat "$D/build.log"; echo "cute_api_check.cu does not compile"; fail=1
fi

# each negative build must fail with its message
declare -A want=(
  [1]='wf_fig3: src must have cute::size(layout) == 16'
  [2]='wf_fig3: src must be a CuTe register fragment'
  [3]='wf_fig3: src and dst fragments must hold the same element type'
  [4]='wf_fig3_packed16: elements must be 16-bit'
  [5]='wf_fig3: src must be a CuTe register fragment'
)
for n in 1 2 3 4 5; do
  if "${NVCC[@]}" -DWF_NEGATIVE=$n -I "$CUTLASS" -I "$D" -c "$here/cute_api_check.cu" -o "$D/neg$n.o" > "$D/neg$n.log" 2>&1; then
    echo "negative $n: compiled, but must not"; fail=1
  elif grep -qF "${want[$n]}" "$D/neg$n.log"; then
    echo "negative $n: refused with \"${want[$n]}\""
  else
    echo "negative $n: refused, but without \"${want[$n]}\":"; head -20 "$D/neg$n.log"; fail=1
  fi
done

# without CUTLASS (and with WARPFORGE_NO_CUTE) the array forms still compile
cat > "$D/no_cute.cu" <<'CU'
#include "wf_cute_tr32.cuh"
#ifdef WARPFORGE_HAS_CUTE
#error "CuTe was included although it should not have been"
#endif
__global__ void k(float* p) {
  __shared__ __align__(16) unsigned char smem[warpforge::wf_tr32_smem_bytes<float>];
  float a[8], b[8];
  for (int i = 0; i < 8; ++i) a[i] = p[threadIdx.x * 8 + i];
  warpforge::wf_tr32<float>(a, b, smem);
  for (int i = 0; i < 8; ++i) p[threadIdx.x * 8 + i] = b[i];
}
CU
if "${NVCC[@]}" -I "$D" -c "$D/no_cute.cu" -o "$D/no_cute.o" > "$D/no_cute.log" 2>&1; then
  echo "no CUTLASS on the include path: array forms compile"
else
  cat "$D/no_cute.log"; fail=1
fi
if "${NVCC[@]}" -DWARPFORGE_NO_CUTE -I "$CUTLASS" -I "$D" -c "$D/no_cute.cu" -o "$D/no_cute2.o" > "$D/no_cute2.log" 2>&1; then
  echo "WARPFORGE_NO_CUTE: array forms compile, CuTe not included"
else
  cat "$D/no_cute2.log"; fail=1
fi
[ $fail = 0 ] && echo "cute_api_check.sh: PASSED" || echo "cute_api_check.sh: FAILED"
exit $fail
