#!/usr/bin/env python3
"""How NVVM keeps a caller's 16-bit array across a loop, by how helpers touch it (no GPU).

A model of the element form in `bench`'s and h2h's loop: `a` (16 shorts) is carried across the
loop, `fwd(a -> b)`, the caller's `b[i] ^= 1`, `bwd(b -> a)`. Each helper packs its source into
8 words, moves them (one shfl.bfly per word, standing in for the conversion) and unpacks them
into its destination. A helper touches each array either element by element (shifts, as the
emitted element form does with `words::none`) or as natural 32-bit words (a 4-byte `memcpy`,
as `words::src` / `::dst` do). Compiled with NVRTC 13.0 (compute_90) and ptxas 13.0 (sm_90,
-O3); prints the opcode counts of one loop iteration and the PTX xor widths.

The ideal loop is 16 SHFL + 8 LOP3 (one 32-bit xor per word) + 3 loop instructions = 27.

usage: CUDA_TOOLS=out/cuda-tools PTXAS=.../ptxas python3 nvvm_words.py [--keep DIR] [--nvrtc OPTION ...]
  --nvrtc: further NVRTC options (e.g. --extra-device-vectorization), after the defaults
  (the tools of results/resources/seventeenth/local_probe.py; LD_LIBRARY_PATH must hold
   $CUDA_TOOLS/nvidia/cu13/lib for NVRTC's builtins)
"""
import itertools, os, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../seventeenth"))
import local_probe as lp  # nvrtc_ptx, loop_body, ROOT, PTXAS

HEADER = r"""
__device__ __forceinline__ unsigned ldw(const void* p) { unsigned w; memcpy(&w, p, 4); return w; }
__device__ __forceinline__ void stw(void* p, unsigned w) { memcpy(p, &w, 4); }
// RS: read the source as words (memcpy) or element by element (shifts);
// WD: write the destination as words (memcpy) or element by element (shifts)
template <int RS, int WD>
__device__ __forceinline__ void helper(const short (&s)[16], short (&d)[16]) {
  unsigned w[8];
#pragma unroll
  for (int j = 0; j < 8; j++)
    w[j] = RS ? ldw(&s[2 * j]) : ((unsigned)(unsigned short)s[2 * j] | ((unsigned)(unsigned short)s[2 * j + 1] << 16));
#pragma unroll
  for (int j = 0; j < 8; j++) w[j] = __shfl_xor_sync(~0u, w[j], 1);
#pragma unroll
  for (int j = 0; j < 8; j++) {
    if (WD) stw(&d[2 * j], w[j]);
    else { d[2 * j] = (short)w[j]; d[2 * j + 1] = (short)(w[j] >> 16); }
  }
}
"""

LOOP = r"""
extern "C" __global__ void k_{name}(const short* x, short* y, int iters) {{
  short a[16];
  for (int i = 0; i < 16; i++) a[i] = x[threadIdx.x * 16 + i];
#pragma unroll 1
  for (int it = 0; it < iters; it++) {{
    short b[16];
    helper<{fs}, {fd}>(a, b);
#pragma unroll
    for (int i = 0; i < 16; i++) b[i] ^= (short)1;
    helper<{bs}, {bd}>(b, a);
  }}
  for (int i = 0; i < 16; i++) y[threadIdx.x * 16 + i] = a[i];
}}
"""

# What SROA's integer widening would make of `b[2j] ^= 1; b[2j+1] ^= 1` on a word: the
# masked insert of each half into an i32 (NVVM instead makes each word a <2 x i16>).
WIDENED = r"""
extern "C" __global__ void k_integer_widened(const unsigned* x, unsigned* y, int iters) {
  unsigned w[8];
  for (int i = 0; i < 8; i++) w[i] = x[threadIdx.x * 8 + i];
#pragma unroll 1
  for (int it = 0; it < iters; it++) {
#pragma unroll
    for (int j = 0; j < 8; j++) w[j] = __shfl_xor_sync(~0u, w[j], 1);
#pragma unroll
    for (int j = 0; j < 8; j++) {
      unsigned short lo = (unsigned short)w[j]; lo ^= 1; w[j] = (w[j] & 0xffff0000u) | lo;
      unsigned short hi = (unsigned short)(w[j] >> 16); hi ^= 1; w[j] = (w[j] & 0xffffu) | ((unsigned)hi << 16);
    }
#pragma unroll
    for (int j = 0; j < 8; j++) w[j] = __shfl_xor_sync(~0u, w[j], 1);
  }
  for (int i = 0; i < 8; i++) y[threadIdx.x * 8 + i] = w[i];
}
"""

# Other spellings of "write the destination as words" (both calls; sources read element by
# element): which of them lets the caller's `b[i] ^= 1` fold into one 32-bit xor.
WRITES = {
    1: ("memcpy of the word (as emitted)", "memcpy(p, &w, 4);"),
    2: ("reinterpret_cast store (aliasing-unsafe; experiment only)", "*reinterpret_cast<unsigned*>(p) = w;"),
    3: ("struct of two halves, memcpy", "struct __align__(4) H { unsigned short x, y; } h; h.x = (unsigned short)w; h.y = (unsigned short)(w >> 16); memcpy(p, &h, 4);"),
    4: ("memcpy, then a byte store of the same value", "memcpy(p, &w, 4); *reinterpret_cast<unsigned char*>(p) = (unsigned char)w;"),
    5: ("a byte store, then memcpy", "*reinterpret_cast<unsigned char*>(p) = (unsigned char)w; memcpy(p, &w, 4);"),
    6: ("two 2-byte memcpy", "unsigned short lo = (unsigned short)w, hi = (unsigned short)(w >> 16); memcpy(p, &lo, 2); memcpy(p + 1, &hi, 2);"),
    7: ("memcpy of four bytes from a byte array", "unsigned char q[4] = {(unsigned char)w, (unsigned char)(w >> 8), (unsigned char)(w >> 16), (unsigned char)(w >> 24)}; memcpy(p, q, 4);"),
}

WRITE_LOOP = r"""
__device__ __forceinline__ void st_{m}(short* p, unsigned w) {{ {body} }}
extern "C" __global__ void w_{m}(const short* x, short* y, int iters) {{
  short a[16];
  for (int i = 0; i < 16; i++) a[i] = x[threadIdx.x * 16 + i];
#pragma unroll 1
  for (int it = 0; it < iters; it++) {{
    short b[16];
    unsigned w[8];
#pragma unroll
    for (int j = 0; j < 8; j++) w[j] = __shfl_xor_sync(~0u, (unsigned)(unsigned short)a[2 * j] | ((unsigned)(unsigned short)a[2 * j + 1] << 16), 1);
#pragma unroll
    for (int j = 0; j < 8; j++) st_{m}(&b[2 * j], w[j]);
#pragma unroll
    for (int i = 0; i < 16; i++) b[i] ^= (short)1;
#pragma unroll
    for (int j = 0; j < 8; j++) w[j] = __shfl_xor_sync(~0u, (unsigned)(unsigned short)b[2 * j] | ((unsigned)(unsigned short)b[2 * j + 1] << 16), 1);
#pragma unroll
    for (int j = 0; j < 8; j++) st_{m}(&a[2 * j], w[j]);
  }}
  for (int i = 0; i < 16; i++) y[threadIdx.x * 16 + i] = a[i];
}}
"""

NAMES = {
    (0, 0, 0, 0): "none (emitted words::none)",
    (1, 0, 0, 1): "carried a as words (words::src fwd, ::dst bwd)",
    (0, 0, 0, 1): "a written as words only",
    (1, 0, 0, 0): "a read as words only",
    (0, 1, 0, 1): "dst as words on both calls (words::dst)",
    (1, 0, 1, 0): "src as words on both calls (words::src)",
    (1, 1, 1, 1): "both on both calls (words::both)",
    (0, 1, 1, 0): "b as words (the array the caller works on)",
}


def main():
    keep = sys.argv[sys.argv.index("--keep") + 1] if "--keep" in sys.argv else None
    extra = sys.argv[sys.argv.index("--nvrtc") + 1:] if "--nvrtc" in sys.argv else []
    src = HEADER + WIDENED + "".join(
        LOOP.format(name="fs%dfd%dbs%dbd%d" % k, fs=k[0], fd=k[1], bs=k[2], bd=k[3])
        for k in itertools.product((0, 1), repeat=4)) + "".join(
        WRITE_LOOP.format(m=m, body=b) for m, (_, b) in WRITES.items())
    with tempfile.TemporaryDirectory() as d:
        d = keep or d
        os.makedirs(d, exist_ok=True)
        ptx = lp.nvrtc_ptx(src, d, extra)
        open(os.path.join(d, "k.ptx"), "w").write(ptx)
        subprocess.run([lp.PTXAS, "-arch=sm_90", "-O3", os.path.join(d, "k.ptx"), "-o",
                        os.path.join(d, "k.cubin")], check=True, capture_output=True)
        sass = subprocess.run([os.path.join(lp.ROOT, "bin/cuobjdump"), "-sass", os.path.join(d, "k.cubin")],
                              capture_output=True, text=True, check=True).stdout
    funcs = {m.group(1): m.group(2) for m in re.finditer(r"Function : (\w+)\n(.*?)(?=\n\s*\.{10,}|\Z)", sass, re.S)}
    ptxf = {m.group(1): m.group(2) for m in re.finditer(r"\.entry (\w+)\((.*?)\n}\n", ptx, re.S)}
    print("| fwd reads a | fwd writes b | bwd reads b | bwd writes a | what | loop instructions | PRMT | LOP3 | SHF | PTX xor.b16 / xor.b32 |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    wd = lambda v: "words" if v else "elements"
    rows = [("k_integer_widened", None)] + [("k_fs%dfd%dbs%dbd%d" % k, k) for k in itertools.product((0, 1), repeat=4)]
    for name, k in rows:
        body = lp.loop_body(funcs[name]) or {}
        p = ptxf.get(name, "")
        x16, x32 = len(re.findall(r"xor\.b16", p)), len(re.findall(r"xor\.b32", p))
        cols = ["-"] * 4 if k is None else [wd(v) for v in k]
        what = "integer-widened words (what SROA could make of b)" if k is None else NAMES.get(k, "")
        print("| %s | %s | %d | %d | %d | %d | %d / %d |" % (" | ".join(cols), what, sum(body.values()),
              body.get("PRMT", 0), body.get("LOP3", 0), body.get("SHF", 0), x16, x32))
    print()
    print("| destination written as words by | loop instructions | PRMT | LOP3 | SHF | PTX xor.b16 / xor.b32 |")
    print("|---|---|---|---|---|---|")
    for m, (what, _) in WRITES.items():
        name = "w_%d" % m
        body = lp.loop_body(funcs[name]) or {}
        p = ptxf.get(name, "")
        print("| %s | %d | %d | %d | %d | %d / %d |" % (what, sum(body.values()), body.get("PRMT", 0),
              body.get("LOP3", 0), body.get("SHF", 0), len(re.findall(r"xor\.b16", p)), len(re.findall(r"xor\.b32", p))))


if __name__ == "__main__":
    main()
