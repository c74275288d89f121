# Usage (GPU machine, repository root, with h2h-work/ from ../shared/tools/h2h/prep.py): bash scripts/sass_element_forms.sh
# Output (stdout), as in results/runs/2026-11-22-h100-h2h-registers-2d224f9/sass_element_forms.txt. Counts SHFL/SEL/PRMT of a kernel that only moves words in, calls one 8-bit element form, and moves words out.
# SASS of the 8-bit element forms alone: words in from global memory (uint4), helper, words out.
set -u
D=h2h-work; T=/tmp/se; mkdir -p $T
for spec in "c7_fwd_33 64" "c7_bwd_37 64" "c8_fwd_41 16" "c8_bwd_45 16" "c13_fwd_73 64"; do
  set -- $spec; f=$1; n=$2; q=$((n/16))
  cat > $T/$f.cu <<CU
#include "h2h_w4.cuh"
extern "C" __global__ void k(const uint4* __restrict__ x, uint4* __restrict__ y) {
  unsigned char a[$n], b[$n]; uint4 v[$q];
#pragma unroll
  for (int i = 0; i < $q; ++i) v[i] = x[threadIdx.x * $q + i];
  memcpy(a, v, sizeof(a));
  warpforge::wf_$f<unsigned char>(a, b);
  memcpy(v, b, sizeof(b));
#pragma unroll
  for (int i = 0; i < $q; ++i) y[threadIdx.x * $q + i] = v[i];
}
CU
  nvcc -std=c++17 -O3 -arch=sm_90 -cubin -o $T/$f.cubin $T/$f.cu -I $D 2>&1 | head -5
  cuobjdump -sass $T/$f.cubin > $T/$f.sass
  echo "$f ($n bytes): SHFL $(grep -c 'SHFL' $T/$f.sass) SEL $(grep -c ' SEL ' $T/$f.sass) PRMT $(grep -c 'PRMT' $T/$f.sass) LDL/STL $(grep -cE 'LDL|STL' $T/$f.sass); helper comment: $(grep -B6 "void wf_$f(" $D/h2h_w4.cuh | grep -o 'predicted per thread [0-9a-z +]*')"
done
