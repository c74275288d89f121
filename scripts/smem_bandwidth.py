#!/usr/bin/env python3
# Microbenchmark: shared-memory bandwidth (LDS.128/STS.128) and whether
# SHFL contends with it (same MIO/crossbar) on this GPU. 8 CTAs x 128 threads
# per SM, as warpforge bench's loop.
import cupy as cp, json, sys
src = r'''
extern "C" __global__ void k(unsigned* out, int iters, int mode) {
  __shared__ uint4 buf[2048];
  unsigned t = threadIdx.x;
  for (int i = t; i < 2048; i += blockDim.x) buf[i] = make_uint4(i, i+1, i+2, i+3);
  __syncthreads();
  unsigned a0=t,a1=t+1,a2=t+2,a3=t+3,a4=t+4,a5=t+5,a6=t+6,a7=t+7;
  uint4 acc = make_uint4(0,0,0,0);
  for (int i = 0; i < iters; ++i) {
    if (mode & 1) {
      #pragma unroll
      for (int j = 0; j < 8; ++j) {
        unsigned idx = (t + 128u * j + (unsigned)i * 7u) & 2047u;
        uint4 v; unsigned addr = (unsigned)__cvta_generic_to_shared(&buf[idx]);
        asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x),"=r"(v.y),"=r"(v.z),"=r"(v.w) : "r"(addr));
        acc.x ^= v.x; acc.y += v.y; acc.z ^= v.z; acc.w += v.w;
      }
    }
    if (mode & 2) {
      a0 = __shfl_xor_sync(0xffffffffu, a0, 1) + 1; a1 = __shfl_xor_sync(0xffffffffu, a1, 2) + 1;
      a2 = __shfl_xor_sync(0xffffffffu, a2, 4) + 1; a3 = __shfl_xor_sync(0xffffffffu, a3, 8) + 1;
      a4 = __shfl_xor_sync(0xffffffffu, a4, 16) + 1; a5 = __shfl_xor_sync(0xffffffffu, a5, 3) + 1;
      a6 = __shfl_xor_sync(0xffffffffu, a6, 5) + 1; a7 = __shfl_xor_sync(0xffffffffu, a7, 9) + 1;
      a0 = __shfl_xor_sync(0xffffffffu, a0, 1) + 1; a1 = __shfl_xor_sync(0xffffffffu, a1, 2) + 1;
      a2 = __shfl_xor_sync(0xffffffffu, a2, 4) + 1; a3 = __shfl_xor_sync(0xffffffffu, a3, 8) + 1;
      a4 = __shfl_xor_sync(0xffffffffu, a4, 16) + 1; a5 = __shfl_xor_sync(0xffffffffu, a5, 3) + 1;
      a6 = __shfl_xor_sync(0xffffffffu, a6, 5) + 1; a7 = __shfl_xor_sync(0xffffffffu, a7, 9) + 1;
    }
    if (mode & 4) {
      #pragma unroll
      for (int j = 0; j < 8; ++j) {
        unsigned idx = (t + 128u * j + (unsigned)i * 5u) & 2047u;
        unsigned addr = (unsigned)__cvta_generic_to_shared(&buf[idx]);
        asm volatile("st.shared.v4.u32 [%0], {%1,%2,%3,%4};" :: "r"(addr), "r"(a0+i), "r"(acc.x), "r"(a2), "r"(acc.y) : "memory");
      }
    }
  }
  out[blockIdx.x * blockDim.x + t] = acc.x + acc.y + acc.z + acc.w + a0+a1+a2+a3+a4+a5+a6+a7;
}
'''
m = cp.RawModule(code=src, options=("-arch=sm_90",))
k = m.get_function("k")
dev = cp.cuda.Device()
sms = dev.attributes["MultiProcessorCount"]
blocks = sms * 8
out = cp.zeros(blocks * 128, dtype=cp.uint32)
iters = 4096
res = {}
for name, mode in [("lds128", 1), ("shfl", 2), ("lds128+shfl", 3), ("sts128", 4), ("sts128+shfl", 6)]:
    ts = []
    for rep in range(7):
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record(); k((blocks,), (128,), (out, cp.int32(iters), cp.int32(mode))); e.record(); e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e) * 1e6)
    ns = sorted(ts)[3]
    per_sm_iter = ns / iters
    lds_bytes = 8 * 16 * 128 * 8 if mode & 1 else 0
    sts_bytes = 8 * 16 * 128 * 8 if mode & 4 else 0
    shfl_words = 16 * 128 * 8 if mode & 2 else 0
    res[name] = dict(ns_per_iter=per_sm_iter, smem_B_per_ns_per_SM=(lds_bytes + sts_bytes) / per_sm_iter, shfl_words_per_ns_per_SM=shfl_words / per_sm_iter)
    print(name, json.dumps(res[name]))
print("clock MHz", dev.attributes.get("ClockRate", 0) / 1000)
