#!/usr/bin/env python3
"""Registers of h2h's loop kernels (warpforge as is, with an arithmetic final store, and Triton), for results/runs/2026-11-22-h100-h2h-registers-2d224f9/README.md. Run on the GPU machine from the repository root, with h2h-work/ made by ../shared/tools/h2h/prep.py; writes $OUT/regs.json. DUMP="c7 c20" also dumps SASS/PTX."""
import json, os, sys, subprocess, re
sys.path.insert(0, "h2h-work")
import h2h, torch, triton, cupy
from triton.experimental.gluon import language as ttgl
d = os.path.abspath("h2h-work"); out = os.environ["OUT"]
cases = json.load(open(os.path.join(d, "cases.json")))
rows = []
for c in cases:
    M, N = c["shape"]
    r = {"id": c["id"], "name": c["name"], "dtype": c["dtype"], "warps": c["warps"]}
    # warpforge
    cu = os.path.join(d, c["id"] + ".cu"); open(cu, "w").write(h2h.wf_source(c, c["header"]))
    cub = os.path.join(d, c["id"] + ".cubin")
    p = subprocess.run(["nvcc", "-std=c++17", "-O3", "-arch=sm_90", "-cubin", "-o", cub, cu, "-I", d, "-Xptxas", "-v"], capture_output=True, text=True)
    m = re.findall(r"Compiling entry function '(\w+)'.*?Used (\d+) registers", p.stderr, re.S)
    r["wf_regs"] = {k: int(v) for k, v in m}
    src = open(cu).read()
    src2 = re.sub(r"y\[base \+ si\[threadIdx.x \* (\d+) \+ i\]\] = a\[i\]", r"y[base + i * blockDim.x + threadIdx.x] = a[i]", src)
    cu2 = cu.replace(".cu", "_b.cu"); open(cu2, "w").write(src2)
    p = subprocess.run(["nvcc", "-std=c++17", "-O3", "-arch=sm_90", "-cubin", "-o", cub.replace(".cubin", "_b.cubin"), cu2, "-I", d, "-Xptxas", "-v"], capture_output=True, text=True)
    if c["id"] in tuple(os.environ.get("DUMP","c7 c20").split()):
        subprocess.run(f"cuobjdump -sass {cub.replace('.cubin','_b.cubin')} > {out}/{c['id']}_wfb.sass; nvcc -std=c++17 -O3 -arch=sm_90 -ptx -o {out}/{c['id']}_wfb.ptx {cu2} -I {d}", shell=True)
    m = re.findall(r"Compiling entry function '(\w+)'.*?Used (\d+) registers", p.stderr, re.S)
    r["wf_regs_arith"] = {k: int(v) for k, v in m}
    if c["id"] in tuple(os.environ.get("DUMP","c7 c20").split()):
        subprocess.run(f"cuobjdump -sass {cub} > {out}/{c['id']}_wf.sass", shell=True)
    try:
        if c["id"] == "c9": raise RuntimeError("triton aborts")
        lay = lambda b: ttgl.DistributedLinearLayout(b["register"], b["lane"], b["warp"], [], [M, N])
        src_l, dst_l = lay(c["src"]), lay(c["dst"])
        xs = torch.zeros((1, M, N), dtype=h2h.DT[c["dtype"]], device="cuda"); ys = torch.empty_like(xs)
        k = h2h.loop[(1,)](xs, ys, M, N, src_l, dst_l, 256, num_warps=c["warps"])
        r["tr_regs"] = k.n_regs; r["tr_spills"] = k.n_spills
        if c["id"] in tuple(os.environ.get("DUMP","c7 c20").split()):
            open(f"{out}/{c['id']}_tr.sass", "w").write(h2h.sass_of_bytes(k.asm["cubin"]))
            open(f"{out}/{c['id']}_tr.ptx", "w").write(k.asm["ptx"])
    except Exception as e:
        r["tr_err"] = repr(e)[:200]
    print(json.dumps(r), flush=True)
    rows.append(r)
json.dump(rows, open(f"{out}/regs.json", "w"))
