#include "h2h_w4.cuh"
extern "C" __global__ void __launch_bounds__(128) bench_loop(const short* __restrict__ in, short* __restrict__ out, int iters) {
  const unsigned long long cta_base = (unsigned long long)blockIdx.x * (64ull * 128ull) + threadIdx.x;
  const short* __restrict__ pin = in + cta_base;
  extern __shared__ __align__(16) unsigned char smem[];
  short a[64];
#pragma unroll
  for (unsigned i = 0; i < 64u; ++i) a[i] = pin[i * 128u];
  for (int it = 0; it < iters; ++it) {
    short b[64];
    __syncthreads();
    warpforge::wf_c14_fwd_83<short>(a, b, smem);
#pragma unroll
    for (unsigned i = 0; i < 64u; ++i) b[i] ^= (short)1;
    __syncthreads();
    warpforge::wf_c14_bwd_87<short>(b, a, smem);
  }
#pragma unroll
  for (unsigned i = 0; i < 64u; ++i) out[cta_base + i * 128u] = a[i];
}
