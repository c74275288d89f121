#!/usr/bin/env python3
"""Diagnostic variant of ../shared/tools/h2h: the same cases, the same Triton
kernels, the same timing, but warpforge's timing kernel computes each
element's global index from the layout bases (an XOR of a compile-time
register part and run-time lane and warp parts, as Triton's kernel does from
its aranges) instead of reading the per-element index table h2h gives it,
which keeps ~90-100 registers live across the loop (results/runs/2026-11-22-h200-h2h-896c0d2/README.md).
Everything else is h2h's own code, imported from the prepared directory.

usage: python3 scripts/h2h_arith.py H2H_DIR OUT.jsonl   (on the GPU machine)
"""
import os, sys

d = os.path.abspath(sys.argv[1])
sys.path.insert(0, d)
import h2h  # noqa: E402


def row_major(v, n):
    return (v[0] << (n.bit_length() - 1)) | v[1]


def xor_expr(var, cols):
    terms = [f"((({var} >> {j}) & 1) ? {c} : 0)" for j, c in enumerate(cols) if c]
    return " ^ ".join(terms) if terms else "0"


def index_code(b, n, name):
    regs = []
    for i in range(1 << len(b["register"])):
        x = 0
        for k, v in enumerate(b["register"]):
            if i >> k & 1:
                x ^= row_major(v, n)
        regs.append(str(x))
    lane = xor_expr("lane", [row_major(v, n) for v in b["lane"]])
    warp = xor_expr("warp", [row_major(v, n) for v in b["warp"]])
    return (f"const int {name}_reg[{len(regs)}] = {{{', '.join(regs)}}};\n"
            f"  const int {name}_thr = ({lane}) ^ ({warp});")


orig = h2h.wf_source


def wf_source(c, hdr):
    src = orig(c, hdr)
    rs = 1 << len(c["src"]["register"])
    n = c["shape"][1]
    code = index_code(c["src"], n, "sx")
    head = "extern \"C\" __global__ void wf_loop("
    i = src.index(head)
    body = src[i:]
    body = body.replace("extern __shared__ __align__(16) unsigned char smem[];",
                        "extern __shared__ __align__(16) unsigned char smem[];\n"
                        "  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;\n  " + code, 1)
    body = body.replace(f"a[i] = x[base + si[threadIdx.x * {rs} + i]];", "a[i] = x[base + (sx_reg[i] ^ sx_thr)];")
    # the store after the loop recomputes its addresses from an opaque copy
    # of the thread part, so the load's 64-bit pointers die before the loop
    body = body.replace("#pragma unroll\n  for (int i = 0; i < %d; ++i) y[base + si[threadIdx.x * %d + i]] = a[i];" % (rs, rs),
                        "int sy_thr = sx_thr;\n  asm volatile(\"\" : \"+r\"(sy_thr));\n"
                        "#pragma unroll\n  for (int i = 0; i < %d; ++i) y[base + (sx_reg[i] ^ sy_thr)] = a[i];" % rs)
    assert "si[" not in body, "every index computed"
    return src[:i] + body


h2h.wf_source = wf_source
sys.argv = [h2h.__file__, d, sys.argv[2]]
h2h.main()
