#include "h2h_w16.cuh"
extern "C" __global__ void __launch_bounds__(512) bench_loop(const short* __restrict__ in, short* __restrict__ out, int iters) {
  const unsigned long long cta_base = (unsigned long long)blockIdx.x * (64ull * 512ull) + threadIdx.x;
  const short* __restrict__ pin = in + cta_base;
  extern __shared__ __align__(16) unsigned char smem[];
  short a[64];
#pragma unroll
  for (unsigned i = 0; i < 64u; ++i) a[i] = pin[i * 512u];
  for (int it = 0; it < iters; ++it) {
    short b[64];
    __syncthreads();
    warpforge::wf_c29_fwd_7<short>(a, b, smem);
#pragma unroll
    for (unsigned i = 0; i < 64u; ++i) b[i] ^= (short)1;
    __syncthreads();
    warpforge::wf_c29_bwd_11<short>(b, a, smem);
  }
#pragma unroll
  for (unsigned i = 0; i < 64u; ++i) out[cta_base + i * 512u] = a[i];
}
