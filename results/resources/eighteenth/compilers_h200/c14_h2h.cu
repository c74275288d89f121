#include "h2h_w4.cuh"
__device__ __forceinline__ int src_off(int t) { const int l = t & 31, w = t >> 5; (void)l; (void)w; return ((l >> 0) & 1 ? 2 : 0) ^ ((l >> 1) & 1 ? 4 : 0) ^ ((l >> 2) & 1 ? 64 : 0) ^ ((l >> 3) & 1 ? 128 : 0) ^ ((l >> 4) & 1 ? 256 : 0) ^ ((w >> 0) & 1 ? 1024 : 0) ^ ((w >> 1) & 1 ? 2048 : 0); }
__device__ __forceinline__ int dst_off(int t) { const int l = t & 31, w = t >> 5; (void)l; (void)w; return ((l >> 0) & 1 ? 1 : 0) ^ ((l >> 1) & 1 ? 2 : 0) ^ ((l >> 2) & 1 ? 4 : 0) ^ ((l >> 3) & 1 ? 8 : 0) ^ ((l >> 4) & 1 ? 16 : 0) ^ ((w >> 0) & 1 ? 32 : 0) ^ ((w >> 1) & 1 ? 64 : 0); }
extern "C" __global__ void __launch_bounds__(128) wf_once(const short* __restrict__ x, short* __restrict__ y) {
  extern __shared__ __align__(16) unsigned char smem[];
  constexpr int SR[64] = {0, 1, 512, 513, 8, 9, 520, 521, 16, 17, 528, 529, 24, 25, 536, 537, 32, 33, 544, 545, 40, 41, 552, 553, 48, 49, 560, 561, 56, 57, 568, 569, 4096, 4097, 4608, 4609, 4104, 4105, 4616, 4617, 4112, 4113, 4624, 4625, 4120, 4121, 4632, 4633, 4128, 4129, 4640, 4641, 4136, 4137, 4648, 4649, 4144, 4145, 4656, 4657, 4152, 4153, 4664, 4665};
  constexpr int DR[64] = {0, 128, 256, 384, 512, 640, 768, 896, 1024, 1152, 1280, 1408, 1536, 1664, 1792, 1920, 2048, 2176, 2304, 2432, 2560, 2688, 2816, 2944, 3072, 3200, 3328, 3456, 3584, 3712, 3840, 3968, 4096, 4224, 4352, 4480, 4608, 4736, 4864, 4992, 5120, 5248, 5376, 5504, 5632, 5760, 5888, 6016, 6144, 6272, 6400, 6528, 6656, 6784, 6912, 7040, 7168, 7296, 7424, 7552, 7680, 7808, 7936, 8064};
  const int so = src_off(threadIdx.x), dof = dst_off(threadIdx.x);
  short a[64]; short b[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) a[i] = x[so ^ SR[i]];
  __syncthreads();
    warpforge::wf_c14_fwd_83<short>(a, b, smem);
#pragma unroll
  for (int i = 0; i < 64; ++i) y[dof ^ DR[i]] = b[i];
}
extern "C" __global__ void __launch_bounds__(128) wf_loop(const short* __restrict__ x, short* __restrict__ y, int iters) {
  extern __shared__ __align__(16) unsigned char smem[];
  constexpr int SR[64] = {0, 1, 512, 513, 8, 9, 520, 521, 16, 17, 528, 529, 24, 25, 536, 537, 32, 33, 544, 545, 40, 41, 552, 553, 48, 49, 560, 561, 56, 57, 568, 569, 4096, 4097, 4608, 4609, 4104, 4105, 4616, 4617, 4112, 4113, 4624, 4625, 4120, 4121, 4632, 4633, 4128, 4129, 4640, 4641, 4136, 4137, 4648, 4649, 4144, 4145, 4656, 4657, 4152, 4153, 4664, 4665};
  const long base = (long)blockIdx.x * 8192;
  const int so = src_off(threadIdx.x);
  short a[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) a[i] = (x + base + so)[SR[i]];
  
  for (int it = 0; it < iters; ++it) {
    short b[64];
    __syncthreads();
    warpforge::wf_c14_fwd_83<short>(a, b, smem);
#pragma unroll
    for (int i = 0; i < 64; ++i) b[i] ^= (short)1;
    __syncthreads();
    warpforge::wf_c14_bwd_87<short>(b, a, smem);
  }
  unsigned t2, c2; asm volatile("mov.u32 %0, %%tid.x;" : "=r"(t2)); asm volatile("mov.u32 %0, %%ctaid.x;" : "=r"(c2));
  const long base2 = (long)c2 * 8192; const int so2 = src_off(t2);
#pragma unroll
  for (int i = 0; i < 64; ++i) (y + base2 + so2)[SR[i]] = a[i];
}

extern "C" __global__ void __launch_bounds__(128) wf_loop_packed(const unsigned* __restrict__ x, unsigned* __restrict__ y, int iters) {
  extern __shared__ __align__(16) unsigned char smem[];
  const long base = (long)blockIdx.x * 4096 + threadIdx.x * 32;
  const long base2 = (long)blockIdx.x * 4096 + threadIdx.x;
  unsigned a[32];
#pragma unroll
  for (int i = 0; i < 32; ++i) a[i] = x[base2 + i * 128];
  
  for (int it = 0; it < iters; ++it) {
    unsigned b[32];
    __syncthreads();
    warpforge::wf_c14_fwd_83_packed16(a, b, smem);
#pragma unroll
    for (int i = 0; i < 32; ++i) b[i] ^= 0x00010001u;
    __syncthreads();
    warpforge::wf_c14_bwd_87_packed16(b, a, smem);
  }
#pragma unroll
  for (int i = 0; i < 32; ++i) y[base2 + i * 128] = a[i];
}
