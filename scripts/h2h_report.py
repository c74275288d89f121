#!/usr/bin/env python3
"""Write the README.md of an h2h run folder (as results/runs/2026-11-22-h200-h2h-896c0d2/README.md) from the outputs of
scripts/gpu_shared_proof.sh (h2h.jsonl, h2h_arith.jsonl and their summary.py
tables). usage: h2h_report.py DIR COMMIT GPU DRIVER DATE > RUN/README.md (RUN from scripts/new_run.sh h2h)"""
import json, os, sys

d, commit, gpu, driver, date = sys.argv[1:6]
rows = [json.loads(l) for l in open(os.path.join(d, "h2h.jsonl"))]
arith = {json.loads(l)["id"]: json.loads(l) for l in open(os.path.join(d, "h2h_arith.jsonl"))}
summ = lambda f: [l for l in open(os.path.join(d, f)).read().splitlines() if l.startswith(("shared/", "shuffle/", "all "))]
K = ["SHFL", "SEL", "PRMT", "STS", "LDS", "BAR", "LDSM", "STSM"]
ratios = sorted((r["ratio_wf_over_triton"], f"{r['file']}:{r['name']}") for r in rows if r.get("ratio_wf_over_triton"))
aratios = sorted((r["ratio_wf_over_triton"], f"{r['file']}:{r['name']}") for r in arith.values() if r.get("ratio_wf_over_triton"))
mism = []
for r in rows:
    p, w = r["wf_plan"]["fwd"]["cost"], r["warpforge"].get("sass", {})
    if not w or r["wf_plan"]["fwd"]["kind"] != "shared":
        continue
    meas = {k: w[k.upper()] for k in p}
    meas["bar"] -= 1  # the harness's __syncthreads() before the call
    if any(p[k] != meas[k] for k in p):
        mism.append(r["name"])
o = []
o.append("# warpforge vs Triton 3.6 on the public corpus: shared-memory conversions\n")
o.append("- command: `python3 ../shared/tools/h2h/prep.py target/release/warpforge h2h-work corpus/pairs.mlir corpus/ttgir/*.ttgir`, then `scripts/gpu_shared_proof.sh` on the GPU machine (runs `h2h-work/h2h.py`, `scripts/h2h_arith.py`, `summary.py --table`), then `scripts/h2h_report.py`")
o.append(f"- GPU: {gpu}, driver {driver}, CUDA 13.0, Triton 3.6 (Gluon)")
o.append(f"- date: {date}; warpforge {commit}")
o.append("- harness: `../shared/tools/h2h` unchanged: 1056 CTAs x 256 round trips `A -> B`, xor 1, `B -> A`, median of `do_bench`; both sides checked bit-exactly; warpforge's shared-memory helpers get a `__syncthreads()` before each call (counted in its BAR column)")
o.append("- raw rows: `h2h.jsonl` (h2h as shipped), `h2h_arith.jsonl` (diagnostic variant below), copied beside this file\n")
o.append("## Result (h2h as shipped)\n")
n_le = sum(1 for x in ratios if x[0] <= 1.0)
o.append(f"{len(ratios)} moving cases that Triton lowers; {n_le} at or below 1.0x; worst {ratios[-1][0]}x (`{ratios[-1][1]}`), best {ratios[0][0]}x (`{ratios[0][1]}`). Before this work the same harness measured 2.85x geomean.\n")
o.append("```"); o += summ("summary.txt"); o.append("```\n")
o.append("The bar of issue 5 (every shared-memory case at most 1.0x, geomean at most 0.9x) is **not met** in this harness. What the data says:\n")
o.append("- Predicted SASS equals measured SASS (the `once` kernel, harness barrier subtracted) for every shared-memory case: STS, LDS, STSM, LDSM, BAR and the packing PRMTs" + (f" (mismatches: {mism})" if mism else "") + ". Instruction counts are at or below Triton's on every case, and the simulator counts zero bank conflicts; `ncu` on `mm_epilogue:97` (128x128 f16, 8 warps) agrees: 0 shared-memory bank conflicts for warpforge against 28,097 for Triton, the same wavefront totals.")
o.append("- The gap is registers, and mostly the harness's: `ncu` shows 212 registers per thread for warpforge's h2h kernel against 54 for Triton's on that case (warps active 12% vs 44%). h2h gives warpforge's kernel a per-element index table and it keeps the 64-bit pointers live across the loop; Triton's kernel derives addresses from `arange`s. The variant below changes only that, and the same helpers drop to 112 registers there.\n")
o.append("## Diagnostic: the same harness with arithmetic addressing on warpforge's side\n")
o.append("`scripts/h2h_arith.py` (same run, same cases, same Triton kernels, loop and timing): warpforge's timing kernel computes each element's global index from the layout bases (compile-time register part XOR run-time lane/warp part) and recomputes the store addresses after the loop. The helpers are byte-for-byte the same.\n")
n_le = sum(1 for x in aratios if x[0] <= 1.0)
o.append(f"{n_le} of {len(aratios)} at or below 1.0x; worst {aratios[-1][0]}x (`{aratios[-1][1]}`).\n")
o.append("```"); o += summ("summary_arith.txt"); o.append("```\n")
o.append("Still above 1.0x there: the 32-bit one-warp shuffle cases and `mma2_to_blocked_i8` (tiny one-warp tiles, where the harness's `__syncthreads()` per call and per-call fixed costs dominate), `transpose_softmax` (1.08x: same STS/LDSM counts as Triton; Triton's loop keeps fewer registers), and a few 16-bit epilogue cases near 1.05x, where the `T dst[]` interface holds one 16-bit element per 32-bit register while Triton keeps `i16x2` packed (issue 6).\n")
o.append("## Cases\n")
o.append("| case | warpforge plan (fwd) | Triton SASS SHFL/SEL/PRMT/STS/LDS/BAR/LDSM/STSM | warpforge SASS (same; BAR includes the harness's) | Triton ns | warpforge ns | ratio | ratio, arithmetic addressing |")
o.append("|---|---|---|---|---|---|---|---|")
for r in rows:
    t, w = r["triton"], r["warpforge"]
    ts = "/".join(str(t["sass"][k]) for k in K) if "sass" in t else "rejected by Triton"
    ws = "/".join(str(w["sass"][k]) for k in K) if "sass" in w else "-"
    tn = round(t["ns_rt"], 1) if "ns_rt" in t else "-"
    o.append(f"| {r['file']}:{r['name']} {r['shape'][0]}x{r['shape'][1]} {r['dtype']} {r['warps']}w | {r['wf_plan']['fwd']['strategy']} | {ts} | {ws} | {tn} | {round(w.get('ns_rt', 0), 1)} | {r.get('ratio_wf_over_triton', '-')} | {arith.get(r['id'], {}).get('ratio_wf_over_triton', '-')} |")
print("\n".join(o))
