#!/usr/bin/env python3
"""Where an h2h element loop kernel's registers go (no GPU).

For each case of an h2h work folder, compiles (NVRTC 13.0 + ptxas 13.0, sm_90, as
../seventeenth/local_probe.py does) h2h's element loop kernel `wf_loop` in the variant named by
H2H_VAR, and a kernel shaped like `warpforge bench`'s (kernels/templates/bench_kernel.cu.j2:
the tile CTA-blocked through one pointer, immediate offsets) around the same two helper calls
of the same header. For both it prints ptxas's register count, the highest register index used
inside the timed loop and outside it (prologue and epilogue), the number of distinct registers
the loop names, whether the loop rereads a special register (`S2R`), and the loop body's
opcodes.

usage: H2H_VAR=fair CUDA_TOOLS=out/cuda-tools PTXAS=.../ptxas \
       python3 prologue_regs.py H2H_PY WORK_DIR CASE_ID ... [--write DIR]
  --write DIR: compile nothing; write `<id>_h2h.cu`, `<id>_bench.cu` and their header into DIR
               (the sources compilers_h200/run.sh compiles on the GPU machine)
"""
import collections, json, os, re, shutil, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../seventeenth"))
import local_probe as lp  # compile_sm90, kernel_sass, sass_instructions, h2h_module

CT = {"i8": "signed char", "i16": "short", "i32": "int", "i64": "long long"}


def bench_shaped(c):
    """`bench`'s timing kernel around h2h's helper calls (the template's loop, h2h's header)."""
    T, th = CT[c["dtype"]], 32 * c["warps"]
    rs, rd = 1 << len(c["src"]["register"]), 1 << len(c["dst"]["register"])
    call = lambda fn, a, b, sm: ("__syncthreads();\n    " if sm else "") + \
        f"warpforge::{fn}<{T}>({a}, {b}{', smem' if sm else ''});"
    return f"""#include "{c['header']}"
extern "C" __global__ void __launch_bounds__({th}) bench_loop(const {T}* __restrict__ in, {T}* __restrict__ out, int iters) {{
  const unsigned long long cta_base = (unsigned long long)blockIdx.x * ({rs}ull * {th}ull) + threadIdx.x;
  const {T}* __restrict__ pin = in + cta_base;
  extern __shared__ __align__(16) unsigned char smem[];
  {T} a[{rs}];
#pragma unroll
  for (unsigned i = 0; i < {rs}u; ++i) a[i] = pin[i * {th}u];
  for (int it = 0; it < iters; ++it) {{
    {T} b[{rd}];
    {call(c['fwd'], 'a', 'b', c['fwd_smem'])}
#pragma unroll
    for (unsigned i = 0; i < {rd}u; ++i) b[i] ^= ({T})1;
    {call(c['bwd'], 'b', 'a', c['bwd_smem'])}
  }}
#pragma unroll
  for (unsigned i = 0; i < {rs}u; ++i) out[cta_base + i * {th}u] = a[i];
}}
"""


def analyse(src, inc, kernel):
    with tempfile.TemporaryDirectory() as d:
        regs = lp.compile_sm90(src, inc, d).get(kernel, {}).get("regs")
        ins = lp.sass_instructions(lp.kernel_sass(d, kernel))
    # the timed loop: the backward branch that spans the most instructions (it holds the helpers)
    best = None
    for a, op, arg in ins:
        t = re.match(r"\s*(?:0x)?([0-9a-f]+)", arg) if op == "BRA" else None
        if t and int(t.group(1), 16) < a and (best is None or a - int(t.group(1), 16) > best[1] - best[0]):
            best = (int(t.group(1), 16), a)
    inside = [x for x in ins if best and best[0] <= x[0] <= best[1]]
    outside = [x for x in ins if not (best and best[0] <= x[0] <= best[1])]
    rnum = lambda xs: [int(m) for _, _, arg in xs for m in re.findall(r"\bR(\d+)\b", arg)]
    body = collections.Counter(op for _, op, _ in inside if op != "NOP")
    return {"regs": regs, "loop_max_R": max(rnum(inside), default=None),
            "outside_max_R": max(rnum(outside), default=None),
            "loop_distinct_R": len(set(rnum(inside))), "loop_S2R": body.get("S2R", 0),
            "loop_body": dict(sorted(body.items(), key=lambda kv: -kv[1]))}


def main():
    args = sys.argv[1:]
    out = None
    if "--write" in args:
        i = args.index("--write")
        if i + 1 >= len(args):
            sys.exit("prologue_regs: --write needs a directory")
        out = args[i + 1]
        del args[i:i + 2]
        os.makedirs(out, exist_ok=True)
    if len(args) < 3:
        sys.exit(__doc__)
    h2h, d = lp.h2h_module(args[0]), os.path.abspath(args[1])
    cases = {c["id"]: c for c in json.load(open(os.path.join(d, "cases.json")))}
    for cid in args[2:]:
        if cid not in cases:
            sys.exit(f"prologue_regs: {cid}: no such case in {d}/cases.json")
        c = cases[cid]
        if out:
            open(os.path.join(out, f"{cid}_h2h.cu"), "w").write(h2h["wf_source"](dict(c, _dir=d), c["header"]))
            open(os.path.join(out, f"{cid}_bench.cu"), "w").write(bench_shaped(c))
            shutil.copy(os.path.join(d, c["header"]), out)
            continue
        row = {"id": cid, "name": c["name"], "dtype": c["dtype"], "warps": c["warps"],
               "variant": os.environ.get("H2H_VAR", "shipped"),
               "h2h": analyse(h2h["wf_source"](dict(c, _dir=d), c["header"]), d, "wf_loop"),
               "bench_shaped": analyse(bench_shaped(c), d, "bench_loop")}
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
