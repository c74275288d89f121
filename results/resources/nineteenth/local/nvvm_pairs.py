#!/usr/bin/env python3
"""How NVVM treats a caller's 16-bit array that helpers read and write as words, by access width
(no GPU). The eighteenth pass's model loop (`../../eighteenth/nvvm_words/nvvm_words.py`): `a` (16
shorts) carried across the loop, `fwd(a -> b)`, the caller's `b[i] ^= 1`, `bwd(b -> a)`; each helper
reads its source and writes its destination either element by element (shifts), as 4-byte words
(`memcpy`, what warpforge emitted up to the eighteenth pass), as 8-byte pairs of words (`memcpy`,
the nineteenth pass's `detail::ld_dword`/`st_dword`), or in other spellings. Compiled with NVRTC
13.0 (compute_90) and ptxas 13.0 (sm_90, -O3); prints the opcode counts of one loop iteration and
the PTX xor widths. The ideal is 16 SHFL + 8 LOP3 + 3 loop instructions = 27.

usage: CUDA_TOOLS=out/cuda-tools PTXAS=.../ptxas LD_LIBRARY_PATH=$CUDA_TOOLS/nvidia/cu13/lib \\
       python3 nvvm_pairs.py [ONLY=name,name]
"""
import os, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../seventeenth"))
import local_probe as lp  # nvrtc_ptx, loop_body, ROOT, PTXAS

COMMON = r"""
__device__ __forceinline__ unsigned ldw(const void* p) { unsigned w; memcpy(&w, p, 4); return w; }
"""
LOOP = r"""
__device__ __forceinline__ void wr_{m}(short* p, const unsigned* w) {{ {wr} }}
__device__ __forceinline__ void rd_{m}(const short* p, unsigned* w) {{ {rd} }}
extern "C" __global__ void k_{m}(const short* x, short* y, int iters) {{
  short a[16];
  for (int i = 0; i < 16; i++) a[i] = x[threadIdx.x * 16 + i];
#pragma unroll 1
  for (int it = 0; it < iters; it++) {{
    short b[16];
    unsigned w[8];
    rd_{m}(a, w);
#pragma unroll
    for (int j = 0; j < 8; j++) w[j] = __shfl_xor_sync(~0u, w[j], 1);
    wr_{m}(b, w);
#pragma unroll
    for (int i = 0; i < 16; i++) b[i] ^= (short)1;
    rd_{m}(b, w);
#pragma unroll
    for (int j = 0; j < 8; j++) w[j] = __shfl_xor_sync(~0u, w[j], 1);
    wr_{m}(a, w);
  }}
  for (int i = 0; i < 16; i++) y[threadIdx.x * 16 + i] = a[i];
}}
"""
RD_EL = "for (int j = 0; j < 8; j++) w[j] = (unsigned)(unsigned short)p[2*j] | ((unsigned)(unsigned short)p[2*j+1] << 16);"
RD_W32 = "for (int j = 0; j < 8; j++) w[j] = ldw(p + 2*j);"
RD_W64 = "for (int j = 0; j < 4; j++) { unsigned long long q; memcpy(&q, p + 4*j, 8); w[2*j] = (unsigned)q; w[2*j+1] = (unsigned)(q >> 32); }"
WR_EL = "for (int j = 0; j < 8; j++) { p[2*j] = (short)w[j]; p[2*j+1] = (short)(w[j] >> 16); }"
WR_W32 = "for (int j = 0; j < 8; j++) memcpy(p + 2*j, &w[j], 4);"
WR_W64 = "for (int j = 0; j < 4; j++) { unsigned long long q = (unsigned long long)w[2*j] | ((unsigned long long)w[2*j+1] << 32); memcpy(p + 4*j, &q, 8); }"
# name: (how each helper reads its source, how it writes its destination, what it is)
V = {
    "el_el": (RD_EL, WR_EL, "element by element (words::none)"),
    "w32_w32": (RD_W32, WR_W32, "4-byte words both ways (words::both up to the eighteenth pass)"),
    "w64_w64": (RD_W64, WR_W64, "8-byte pairs both ways (words::both, nineteenth pass)"),
    "el_w32": (RD_EL, WR_W32, "source by element, destination as 4-byte words"),
    "el_w64": (RD_EL, WR_W64, "source by element, destination as 8-byte pairs"),
    "w32_w64": (RD_W32, WR_W64, "source as 4-byte words, destination as 8-byte pairs"),
    "w64_el": (RD_W64, WR_EL, "source as 8-byte pairs, destination by element"),
    "el_w128": (RD_EL, "for (int j = 0; j < 2; j++) { uint4 q = make_uint4(w[4*j], w[4*j+1], w[4*j+2], w[4*j+3]); memcpy(p + 8*j, &q, 16); }", "destination as 16-byte quads"),
    "el_wall": (RD_EL, "memcpy(p, w, 32);", "destination as one 32-byte memcpy"),
    "el_u16x2": (RD_EL, "for (int j = 0; j < 8; j++) { ushort2 q = make_ushort2((unsigned short)w[j], (unsigned short)(w[j] >> 16)); memcpy(p + 2*j, &q, 4); }", "destination as ushort2, memcpy"),
}


def main():
    only = os.environ.get("ONLY")
    v = {k: V[k] for k in only.split(",")} if only else V
    src = COMMON + "".join(LOOP.format(m=m, rd=r, wr=w) for m, (r, w, _) in v.items())
    with tempfile.TemporaryDirectory() as d:
        ptx = lp.nvrtc_ptx(src, d)
        open(os.path.join(d, "k.ptx"), "w").write(ptx)
        subprocess.run([lp.PTXAS, "-arch=sm_90", "-O3", os.path.join(d, "k.ptx"), "-o", os.path.join(d, "k.cubin")], check=True)
        sass = subprocess.run([os.path.join(lp.ROOT, "bin/cuobjdump"), "-sass", os.path.join(d, "k.cubin")],
                              capture_output=True, text=True, check=True).stdout
    funcs = {m.group(1): m.group(2) for m in re.finditer(r"Function : (\w+)\n(.*?)(?=\n\s*\.{10,}|\Z)", sass, re.S)}
    ptxf = {m.group(1): m.group(2) for m in re.finditer(r"\.entry (\w+)\((.*?)\n}\n", ptx, re.S)}
    print("| helpers read / write | what | loop instructions | PRMT | LOP3 | SHF | PTX xor.b16 / xor.b32 |")
    print("|---|---|---|---|---|---|---|")
    for m, (_, _, what) in v.items():
        b = lp.loop_body(funcs["k_" + m]) or {}
        p = ptxf["k_" + m]
        print("| %s | %s | %d | %d | %d | %d | %d / %d |" % (m, what, sum(b.values()), b.get("PRMT", 0), b.get("LOP3", 0),
              b.get("SHF", 0), len(re.findall(r"xor\.b16", p)), len(re.findall(r"xor\.b32", p))))


if __name__ == "__main__":
    main()
