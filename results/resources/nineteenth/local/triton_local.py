#!/usr/bin/env python3
"""Triton 3.6's lowering of one h2h case, compiled here without a GPU (Gluon, sm_90): the loop
kernel of h2h and `warpforge bench` (`x = load; for: y = convert(x); y ^= 1; x = convert(y);
store`), with the pointers' 16-byte divisibility that a launch from PyTorch gives (without it the
prologue and epilogue are scalar and the kernel spills). Writes PREFIX.{ttgir,llir,ptx,cubin} and
prints the registers and the opcode counts of the loop body (cuobjdump of Triton's own wheel).
On `stress_w32`'s transpose it reproduces the device's Triton kernel of `bench` (58 registers,
162 PRMT, 32 STS, 32 LDS in the whole kernel).

usage: python3 -m venv V && V/bin/pip install triton==3.6.0
       V/bin/python triton_local.py CASE_JSON PREFIX
  CASE_JSON: one case of an h2h work folder's cases.json (src/dst bases, shape, warps) with
             "bits" (element width) added
"""
import json, os, re, subprocess, sys, collections
import triton
from triton.backends.compiler import GPUTarget
from triton.experimental.gluon._runtime import GluonASTSource
from triton.experimental import gluon
from triton.experimental.gluon import language as ttgl


# the loop kernel of bench/python/triton_peer.py (and h2h), restated here because that module
# needs PyTorch and a GPU at import
@gluon.jit
def loop(x_ptr, y_ptr, M: ttgl.constexpr, N: ttgl.constexpr, src: ttgl.constexpr, dst: ttgl.constexpr, iters):
    pid = ttgl.program_id(0)
    om = ttgl.arange(0, M, layout=ttgl.SliceLayout(1, src))[:, None]
    on = ttgl.arange(0, N, layout=ttgl.SliceLayout(0, src))[None, :]
    x = ttgl.load(x_ptr + pid * M * N + om * N + on)
    for i in range(iters):
        y = ttgl.convert_layout(x, dst)
        y = y ^ 1
        x = ttgl.convert_layout(y, src)
    ttgl.store(y_ptr + pid * M * N + om * N + on, x)


def layout(side, shape):
    return ttgl.DistributedLinearLayout(side["register"], side["lane"], side["warp"], side.get("block", []), shape)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    c = json.load(open(sys.argv[1]))
    M, N = c["shape"]
    ty = {8: "i8", 16: "i16", 32: "i32", 64: "i64"}[c["bits"]]
    sig = {"x_ptr": "*" + ty, "y_ptr": "*" + ty, "M": "constexpr", "N": "constexpr", "src": "constexpr",
           "dst": "constexpr", "iters": "i32"}
    consts = {"M": M, "N": N, "src": layout(c["src"], [M, N]), "dst": layout(c["dst"], [M, N])}
    attrs = {(0,): [["tt.divisibility", 16]], (1,): [["tt.divisibility", 16]], (6,): [["tt.divisibility", 16]]}
    k = triton.compile(GluonASTSource(fn=loop, signature=sig, constexprs=consts, attrs=attrs),
                       target=GPUTarget("cuda", 90, 32), options={"num_warps": c["warps"]})
    out = sys.argv[2]
    for key in ("ttgir", "llir", "ptx"):
        open(f"{out}.{key}", "w").write(k.asm[key])
    open(f"{out}.cubin", "wb").write(k.asm["cubin"])
    tools = os.path.join(os.path.dirname(triton.__file__), "backends/nvidia/bin")
    res = subprocess.run([os.path.join(tools, "cuobjdump"), "-res-usage", f"{out}.cubin"], capture_output=True, text=True).stdout
    sass = subprocess.run([os.path.join(tools, "cuobjdump"), "-sass", f"{out}.cubin"], capture_output=True, text=True).stdout
    ins = [(int(m.group(1), 16), m.group(2).split(".")[0], m.group(3)) for m in
           re.finditer(r"/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)\s*([^;]*)", sass)]
    back = [(int(re.match(r"\s*(?:0x)?([0-9a-f]+)", a).group(1), 16), at) for at, op, a in ins
            if op == "BRA" and re.match(r"\s*(?:0x)?([0-9a-f]+)", a) and int(re.match(r"\s*(?:0x)?([0-9a-f]+)", a).group(1), 16) < at]
    lo, hi = min(back, key=lambda b: b[1] - b[0])
    body = collections.Counter(op for at, op, _ in ins if lo <= at <= hi and op != "NOP")
    print(json.dumps({"registers": int(re.search(r"REG:(\d+)", res).group(1)), "whole": dict(collections.Counter(op for _, op, _ in ins if op != "NOP")), "loop_body": dict(body)}))


if __name__ == "__main__":
    main()
