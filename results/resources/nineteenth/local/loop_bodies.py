#!/usr/bin/env python3
"""The loop body of h2h's element-form loop kernel (fair2 addressing) for one case under each
`warpforge::words` choice, compiled here (no GPU): NVRTC and ptxas 13.0, sm_90, the seventeenth
pass's `local_probe.py`. `automatic` is what the header chooses; `carried` names the loop-carried
tile (`words::src` on the forward call, `::dst` on the reverse), as `bench`'s carried kernel does.

usage: CUDA_TOOLS=out/cuda-tools PTXAS=.../ptxas LD_LIBRARY_PATH=$CUDA_TOOLS/nvidia/cu13/lib \\
       H2H_VAR=fair2 python3 loop_bodies.py H2H_FAIR2_PY WORK_DIR CASE_ID
  H2H_FAIR2_PY: ../shared/tools/h2h/h2h.py patched with ../../eighteenth/h2h_fair2.patch
  WORK_DIR: an h2h work folder made by ../shared/tools/h2h/prep.py with the binary to probe
"""
import json, os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../seventeenth"))
import local_probe as lp  # h2h_module, build


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    h2h, d, cid = lp.h2h_module(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
    c = next(x for x in json.load(open(os.path.join(d, "cases.json"))) if x["id"] == cid)
    T = {"i8": "signed char", "i16": "short"}[c["dtype"]]
    src = h2h["wf_source"](dict(c, _dir=d), c["header"])
    variants = {"automatic": src}
    for w in ("none", "src", "dst", "both"):
        variants[w] = src.replace(f"<{T}>(", f"<{T}, warpforge::words::{w}>(")
    variants["carried"] = src.replace(f"{c['fwd']}<{T}>(", f"{c['fwd']}<{T}, warpforge::words::src>(").replace(
        f"{c['bwd']}<{T}>(", f"{c['bwd']}<{T}, warpforge::words::dst>(")
    print(f"`{c['name']}` ({c['dtype']}, {c['warps']} warps), loop body of `wf_loop` (one round trip):\n")
    print("| words | registers | spill bytes | PRMT | LOP3 | SHF | LEA | STS | LDS | LDL+STL | all |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, s in variants.items():
        r = lp.build(s, d)["wf_loop"]
        b = r["body"] or {}
        g = lambda k: b.get(k, 0)
        print(f"| {name} | {r['regs']} | {r['spill_stores'] + r['spill_loads']} | {g('PRMT')} | {g('LOP3')} | {g('SHF')} | "
              f"{g('LEA')} | {g('STS')} | {g('LDS')} | {g('LDL') + g('STL')} | {sum(b.values())} |")


if __name__ == "__main__":
    main()
