#include "h2h_w16.cuh"
__device__ __forceinline__ int src_off(int t) { const int l = t & 31, w = t >> 5; (void)l; (void)w; return ((l >> 0) & 1 ? 2 : 0) ^ ((l >> 1) & 1 ? 4 : 0) ^ ((l >> 2) & 1 ? 128 : 0) ^ ((l >> 3) & 1 ? 256 : 0) ^ ((l >> 4) & 1 ? 512 : 0) ^ ((w >> 0) & 1 ? 2048 : 0) ^ ((w >> 1) & 1 ? 4096 : 0) ^ ((w >> 2) & 1 ? 8192 : 0) ^ ((w >> 3) & 1 ? 16384 : 0); }
__device__ __forceinline__ int dst_off(int t) { const int l = t & 31, w = t >> 5; (void)l; (void)w; return ((l >> 0) & 1 ? 8 : 0) ^ ((l >> 1) & 1 ? 16 : 0) ^ ((l >> 2) & 1 ? 32 : 0) ^ ((l >> 3) & 1 ? 128 : 0) ^ ((l >> 4) & 1 ? 256 : 0) ^ ((w >> 0) & 1 ? 512 : 0) ^ ((w >> 1) & 1 ? 1024 : 0) ^ ((w >> 2) & 1 ? 2048 : 0) ^ ((w >> 3) & 1 ? 4096 : 0); }
extern "C" __global__ void __launch_bounds__(512) wf_once(const short* __restrict__ x, short* __restrict__ y) {
  extern __shared__ __align__(16) unsigned char smem[];
  constexpr int SR[64] = {0, 1, 1024, 1025, 8, 9, 1032, 1033, 16, 17, 1040, 1041, 24, 25, 1048, 1049, 32, 33, 1056, 1057, 40, 41, 1064, 1065, 48, 49, 1072, 1073, 56, 57, 1080, 1081, 64, 65, 1088, 1089, 72, 73, 1096, 1097, 80, 81, 1104, 1105, 88, 89, 1112, 1113, 96, 97, 1120, 1121, 104, 105, 1128, 1129, 112, 113, 1136, 1137, 120, 121, 1144, 1145};
  constexpr int DR[64] = {0, 1, 2, 3, 4, 5, 6, 7, 64, 65, 66, 67, 68, 69, 70, 71, 8192, 8193, 8194, 8195, 8196, 8197, 8198, 8199, 8256, 8257, 8258, 8259, 8260, 8261, 8262, 8263, 16384, 16385, 16386, 16387, 16388, 16389, 16390, 16391, 16448, 16449, 16450, 16451, 16452, 16453, 16454, 16455, 24576, 24577, 24578, 24579, 24580, 24581, 24582, 24583, 24640, 24641, 24642, 24643, 24644, 24645, 24646, 24647};
  const int so = src_off(threadIdx.x), dof = dst_off(threadIdx.x);
  short a[64]; short b[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) a[i] = x[so ^ SR[i]];
  __syncthreads();
    warpforge::wf_c29_fwd_7<short>(a, b, smem);
#pragma unroll
  for (int i = 0; i < 64; ++i) y[dof ^ DR[i]] = b[i];
}
extern "C" __global__ void __launch_bounds__(512) wf_loop(const short* __restrict__ x, short* __restrict__ y, int iters) {
  extern __shared__ __align__(16) unsigned char smem[];
  constexpr int SR[64] = {0, 1, 1024, 1025, 8, 9, 1032, 1033, 16, 17, 1040, 1041, 24, 25, 1048, 1049, 32, 33, 1056, 1057, 40, 41, 1064, 1065, 48, 49, 1072, 1073, 56, 57, 1080, 1081, 64, 65, 1088, 1089, 72, 73, 1096, 1097, 80, 81, 1104, 1105, 88, 89, 1112, 1113, 96, 97, 1120, 1121, 104, 105, 1128, 1129, 112, 113, 1136, 1137, 120, 121, 1144, 1145};
  const long base = (long)blockIdx.x * 32768;
  const int so = src_off(threadIdx.x);
  short a[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) a[i] = (x + base + so)[SR[i]];
  
  for (int it = 0; it < iters; ++it) {
    short b[64];
    __syncthreads();
    warpforge::wf_c29_fwd_7<short>(a, b, smem);
#pragma unroll
    for (int i = 0; i < 64; ++i) b[i] ^= (short)1;
    __syncthreads();
    warpforge::wf_c29_bwd_11<short>(b, a, smem);
  }
  unsigned t2, c2; asm volatile("mov.u32 %0, %%tid.x;" : "=r"(t2)); asm volatile("mov.u32 %0, %%ctaid.x;" : "=r"(c2));
  const long base2 = (long)c2 * 32768; const int so2 = src_off(t2);
#pragma unroll
  for (int i = 0; i < 64; ++i) (y + base2 + so2)[SR[i]] = a[i];
}

extern "C" __global__ void __launch_bounds__(512) wf_loop_packed(const unsigned* __restrict__ x, unsigned* __restrict__ y, int iters) {
  extern __shared__ __align__(16) unsigned char smem[];
  const long base = (long)blockIdx.x * 16384 + threadIdx.x * 32;
  const long base2 = (long)blockIdx.x * 16384 + threadIdx.x;
  unsigned a[32];
#pragma unroll
  for (int i = 0; i < 32; ++i) a[i] = x[base2 + i * 512];
  
  for (int it = 0; it < iters; ++it) {
    unsigned b[32];
    __syncthreads();
    warpforge::wf_c29_fwd_7_packed16(a, b, smem);
#pragma unroll
    for (int i = 0; i < 32; ++i) b[i] ^= 0x00010001u;
    __syncthreads();
    warpforge::wf_c29_bwd_11_packed16(b, a, smem);
  }
#pragma unroll
  for (int i = 0; i < 32; ++i) y[base2 + i * 512] = a[i];
}
