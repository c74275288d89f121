#include "h2h_w8.cuh"
__device__ __forceinline__ int src_off(int t) { const int l = t & 31, w = t >> 5; (void)l; (void)w; return ((l >> 0) & 1 ? 2 : 0) ^ ((l >> 1) & 1 ? 4 : 0) ^ ((l >> 2) & 1 ? 128 : 0) ^ ((l >> 3) & 1 ? 256 : 0) ^ ((l >> 4) & 1 ? 512 : 0) ^ ((w >> 0) & 1 ? 8 : 0) ^ ((w >> 1) & 1 ? 16 : 0) ^ ((w >> 2) & 1 ? 2048 : 0); }
__device__ __forceinline__ int dst_off(int t) { const int l = t & 31, w = t >> 5; (void)l; (void)w; return ((l >> 0) & 1 ? 1 : 0) ^ ((l >> 1) & 1 ? 2 : 0) ^ ((l >> 2) & 1 ? 4 : 0) ^ ((l >> 3) & 1 ? 8 : 0) ^ ((l >> 4) & 1 ? 16 : 0) ^ ((w >> 0) & 1 ? 32 : 0) ^ ((w >> 1) & 1 ? 64 : 0) ^ ((w >> 2) & 1 ? 128 : 0); }
extern "C" __global__ void __launch_bounds__(256) wf_once(const short* __restrict__ x, short* __restrict__ y) {
  extern __shared__ __align__(16) unsigned char smem[];
  constexpr int SR[64] = {0, 1, 1024, 1025, 32, 33, 1056, 1057, 64, 65, 1088, 1089, 96, 97, 1120, 1121, 4096, 4097, 5120, 5121, 4128, 4129, 5152, 5153, 4160, 4161, 5184, 5185, 4192, 4193, 5216, 5217, 8192, 8193, 9216, 9217, 8224, 8225, 9248, 9249, 8256, 8257, 9280, 9281, 8288, 8289, 9312, 9313, 12288, 12289, 13312, 13313, 12320, 12321, 13344, 13345, 12352, 12353, 13376, 13377, 12384, 12385, 13408, 13409};
  constexpr int DR[64] = {0, 256, 512, 768, 1024, 1280, 1536, 1792, 2048, 2304, 2560, 2816, 3072, 3328, 3584, 3840, 4096, 4352, 4608, 4864, 5120, 5376, 5632, 5888, 6144, 6400, 6656, 6912, 7168, 7424, 7680, 7936, 8192, 8448, 8704, 8960, 9216, 9472, 9728, 9984, 10240, 10496, 10752, 11008, 11264, 11520, 11776, 12032, 12288, 12544, 12800, 13056, 13312, 13568, 13824, 14080, 14336, 14592, 14848, 15104, 15360, 15616, 15872, 16128};
  const int so = src_off(threadIdx.x), dof = dst_off(threadIdx.x);
  short a[64]; short b[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) a[i] = x[so ^ SR[i]];
  __syncthreads();
    warpforge::wf_c20_fwd_29<short>(a, b, smem);
#pragma unroll
  for (int i = 0; i < 64; ++i) y[dof ^ DR[i]] = b[i];
}
extern "C" __global__ void __launch_bounds__(256) wf_loop(const short* __restrict__ x, short* __restrict__ y, int iters) {
  extern __shared__ __align__(16) unsigned char smem[];
  constexpr int SR[64] = {0, 1, 1024, 1025, 32, 33, 1056, 1057, 64, 65, 1088, 1089, 96, 97, 1120, 1121, 4096, 4097, 5120, 5121, 4128, 4129, 5152, 5153, 4160, 4161, 5184, 5185, 4192, 4193, 5216, 5217, 8192, 8193, 9216, 9217, 8224, 8225, 9248, 9249, 8256, 8257, 9280, 9281, 8288, 8289, 9312, 9313, 12288, 12289, 13312, 13313, 12320, 12321, 13344, 13345, 12352, 12353, 13376, 13377, 12384, 12385, 13408, 13409};
  const long base = (long)blockIdx.x * 16384;
  const int so = src_off(threadIdx.x);
  short a[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) a[i] = (x + base + so)[SR[i]];
  
  for (int it = 0; it < iters; ++it) {
    short b[64];
    __syncthreads();
    warpforge::wf_c20_fwd_29<short>(a, b, smem);
#pragma unroll
    for (int i = 0; i < 64; ++i) b[i] ^= (short)1;
    __syncthreads();
    warpforge::wf_c20_bwd_33<short>(b, a, smem);
  }
  unsigned t2, c2; asm volatile("mov.u32 %0, %%tid.x;" : "=r"(t2)); asm volatile("mov.u32 %0, %%ctaid.x;" : "=r"(c2));
  const long base2 = (long)c2 * 16384; const int so2 = src_off(t2);
#pragma unroll
  for (int i = 0; i < 64; ++i) (y + base2 + so2)[SR[i]] = a[i];
}

extern "C" __global__ void __launch_bounds__(256) wf_loop_packed(const unsigned* __restrict__ x, unsigned* __restrict__ y, int iters) {
  extern __shared__ __align__(16) unsigned char smem[];
  const long base = (long)blockIdx.x * 8192 + threadIdx.x * 32;
  const long base2 = (long)blockIdx.x * 8192 + threadIdx.x;
  unsigned a[32];
#pragma unroll
  for (int i = 0; i < 32; ++i) a[i] = x[base2 + i * 256];
  
  for (int it = 0; it < iters; ++it) {
    unsigned b[32];
    __syncthreads();
    warpforge::wf_c20_fwd_29_packed16(a, b, smem);
#pragma unroll
    for (int i = 0; i < 32; ++i) b[i] ^= 0x00010001u;
    __syncthreads();
    warpforge::wf_c20_bwd_33_packed16(b, a, smem);
  }
#pragma unroll
  for (int i = 0; i < 32; ++i) y[base2 + i * 256] = a[i];
}
