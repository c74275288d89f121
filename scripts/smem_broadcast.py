#!/usr/bin/env python3
"""Microbenchmark: shared-memory wavefronts of ld.shared.{b32,v2,v4} when lanes
share addresses (broadcast), on this GPU.

For each address pattern (a byte offset per lane), one warp runs ITERS loads
through inline PTX; run under `ncu --metrics
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed_op_shared_ld.sum`
to get wavefronts per instruction, and on its own for a throughput check
(8 CTAs x 128 threads per SM, ns per instruction per SM).
Usage: python3 scripts/smem_broadcast.py [--ncu-one NAME]
"""
import json, sys

PATTERNS = {
    # name: (bytes per lane, offset expression in `lane`)
    "b32_unique":        (4,  "lane*4"),
    "b32_bcast4":        (4,  "(lane>>2)*4"),
    "v2_unique":         (8,  "lane*8"),
    "v2_bcast2":         (8,  "(lane>>1)*8"),
    "v2_bcast4":         (8,  "(lane>>2)*8"),
    "v2_lo16":           (8,  "(lane&15)*8"),
    "v2_same":           (8,  "0"),
    "v4_unique":         (16, "lane*16"),
    "v4_bcast2":         (16, "(lane>>1)*16"),
    "v4_bcast4":         (16, "(lane>>2)*16"),
    "v4_lo8":            (16, "(lane&7)*16"),
    "v4_quarter_same":   (16, "(lane>>3)*16"),
    "v4_same":           (16, "0"),
    "v4_bcast8_pairs":   (16, "(lane>>3)*32 + (lane&1)*16"),
    # the two half warps (v2) or quarter warps (v4) read the same words
    "v2_halves_same8":   (8,  "((lane>>1)&7)*8"),
    "v2_half_uniform":   (8,  "lane < 16 ? lane*8 : 0"),
    "v2_bcast16":        (8,  "(lane>>4)*8"),
    "v4_quarters_same4": (16, "((lane>>1)&3)*16"),
    "v4_q1_uniform":     (16, "(lane>>3)==1 ? 0 : (lane&7)*16"),
    "v4_halves_disjoint":(16, "(lane>>4)*64 + ((lane>>1)&3)*16"),
    "v4_bank_disjoint_q":(16, "(lane>>3)*32 + ((lane>>2)&1)*16"),
    "b32_two_words_bank":(4,  "(lane&1)*128 + (lane>>1)*4"),
    # stores: lanes writing the same address (a broadcast source layout)
    "st_b32_bcast4":     (-4, "(lane>>2)*4"),
    "st_v2_bcast2":      (-8, "(lane>>1)*8"),
    "st_v2_unique":      (-8, "lane*8"),
    "st_v4_bcast4":      (-16, "(lane>>2)*16"),
    "st_v4_unique":      (-16, "lane*16"),
}

def kernel_src(bytes_, expr):
    if bytes_ < 0:
        return store_src(-bytes_, expr)
    ld = {4: 'ld.volatile.shared.b32 {%0}, [%1];', 8: 'ld.volatile.shared.v2.b32 {%0,%1}, [%2];',
          16: 'ld.volatile.shared.v4.b32 {%0,%1,%2,%3}, [%4];'}[bytes_]
    n = bytes_ // 4
    outs = ",".join(f'"=r"(v{i})' for i in range(n))
    decl = "unsigned " + ",".join(f"v{i}" for i in range(n)) + ";"
    acc = " ".join(f"acc ^= v{i} + {i};" for i in range(n))
    return r'''
extern "C" __global__ void k(unsigned* out, int iters) {
  __shared__ uint4 buf[512];
  unsigned t = threadIdx.x, lane = t & 31u;
  for (int i = t; i < 512; i += blockDim.x) buf[i] = make_uint4(i, i+1, i+2, i+3);
  __syncthreads();
  unsigned base = (unsigned)__cvta_generic_to_shared(buf) + (((t >> 5) * 512u) & 4095u);
  unsigned off = (unsigned)(EXPR);
  unsigned acc = 0;
  for (int i = 0; i < iters; ++i) {
    #pragma unroll
    for (int j = 0; j < 8; ++j) {
      DECL
      unsigned a = base + ((off + (unsigned)j * 1024u) & 4095u);
      asm volatile("LD" : OUTS : "r"(a));
      ACC
    }
  }
  out[blockIdx.x * blockDim.x + t] = acc;
}
'''.replace("EXPR", expr).replace("LD", ld).replace("OUTS", outs).replace("DECL", decl).replace("ACC", acc)

def store_src(bytes_, expr):
    n = bytes_ // 4
    vec = {1: "", 2: ".v2", 4: ".v4"}[n]
    regs = ",".join(f"%{i + 1}" for i in range(n))
    ins = ",".join(f'"r"(acc + {i})' for i in range(n))
    body = f'asm volatile("st.volatile.shared{vec}.b32 [%0], {{{regs}}};" :: "r"(a), {ins} : "memory"); acc = acc * 3u + 1u;'
    return r'''
extern "C" __global__ void k(unsigned* out, int iters) {
  __shared__ uint4 buf[512];
  unsigned t = threadIdx.x, lane = t & 31u;
  unsigned base = (unsigned)__cvta_generic_to_shared(buf) + (((t >> 5) * 512u) & 4095u);
  unsigned off = (unsigned)(EXPR);
  unsigned acc = t;
  for (int i = 0; i < iters; ++i) {
    #pragma unroll
    for (int j = 0; j < 8; ++j) {
      unsigned a = base + ((off + (unsigned)j * 1024u) & 4095u);
      BODY
    }
  }
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = acc + ((volatile unsigned*)buf)[t];
}
'''.replace("EXPR", expr).replace("BODY", body)

def main():
    import cupy as cp
    only = sys.argv[2] if len(sys.argv) > 2 and sys.argv[1] == "--ncu-one" else None
    dev = cp.cuda.Device()
    sms = dev.attributes["MultiProcessorCount"]
    for name, (b, expr) in PATTERNS.items():
        if only and name != only:
            continue
        k = cp.RawModule(code=kernel_src(b, expr), options=("-arch=sm_90",)).get_function("k")
        if only:
            out = cp.zeros(32, dtype=cp.uint32)
            k((1,), (32,), (out, cp.int32(16)))
            cp.cuda.Device().synchronize()
            continue
        blocks = sms * 8
        out = cp.zeros(blocks * 128, dtype=cp.uint32)
        iters = 2048
        ts = []
        for _ in range(7):
            s, e = cp.cuda.Event(), cp.cuda.Event()
            s.record(); k((blocks,), (128,), (out, cp.int32(iters))); e.record(); e.synchronize()
            ts.append(cp.cuda.get_elapsed_time(s, e) * 1e6)
        ns = sorted(ts)[3]
        insts_per_sm = 8 * 4 * iters * 8  # CTAs x warps x iters x unroll
        print(json.dumps(dict(pattern=name, bytes=abs(b), op="st" if b < 0 else "ld", offset=expr,
                              ns_per_warp_inst_per_sm=ns / insts_per_sm,
                              clk_per_warp_inst=ns / insts_per_sm * dev.attributes["ClockRate"] / 1e6)))

if __name__ == "__main__":
    main()
