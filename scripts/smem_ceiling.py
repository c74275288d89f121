#!/usr/bin/env python3
"""How close the shared-memory conversions of `warpforge bench` run to the
SM's shared-memory bandwidth, for warpforge's chosen plan and for Triton.

Reads `results/runs/2026-11-22-h100-bench-180de76/bench.jsonl` (the bench rows: 1056 CTAs = 8 per SM on an
H100's 132 SMs, one round trip `A -> B`, `B -> A` = every element stored and
loaded twice) and the peak measured by `scripts/smem_bandwidth.py`
(`results/runs/2026-11-22-h100-smem-ceiling-3b1fa18/smem_bandwidth.txt`, STS.128 line). Writes markdown to stdout.
"""
import json, math, re, sys

rows = [json.loads(l) for l in open(sys.argv[1] if len(sys.argv) > 1 else "results/runs/2026-11-22-h100-bench-180de76/bench.jsonl")]
peak_txt = open(sys.argv[2] if len(sys.argv) > 2 else "results/runs/2026-11-22-h100-smem-ceiling-3b1fa18/smem_bandwidth.txt").read()
peak = json.loads(re.search(r"^sts128 (\{.*\})$", peak_txt, re.M).group(1))["smem_B_per_ns_per_SM"]
CTAS_PER_SM = 8

def shared_by_triton(r):
    s = (r.get("triton") or {}).get("sass") or {}
    return sum(s.get(k, 0) for k in ("sts", "lds", "ldsm", "stsm")) > 0

print(f"Shared-memory bandwidth ceiling: STS.128 peak {peak:.0f} B/ns per SM (scripts/smem_bandwidth.py).")
print()
print("| conversion | dtype | warps | bytes/CTA/direction | warpforge ns | % of peak | Triton ns | % of peak | chosen / Triton |")
print("|---|---|---|---|---|---|---|---|---|")
bound = []
for r in rows:
    if not shared_by_triton(r) or not r.get("ratio_chosen_over_triton"):
        continue
    n = math.prod(r["shape"])
    b = n * r["bits"] // 8
    moved = CTAS_PER_SM * 4 * b  # store + load, both directions, per SM
    wf = r["chosen"]["ns"]
    tr = r["triton"]["ns"]
    uw, ut = moved / wf / peak, moved / tr / peak
    if ut > 0.85:
        bound.append(r["ratio_chosen_over_triton"])
    print(f"| `{r['file'].split('/')[-1]}:{r['name']}` | {r['dtype']} | {r['warps']} | {b} | {wf:.0f} | {100*uw:.0f}% | {tr:.0f} | {100*ut:.0f}% | {r['ratio_chosen_over_triton']:.3f} |")
print()
g = math.exp(sum(map(math.log, bound)) / len(bound)) if bound else float("nan")
print(f"{len(bound)} conversions where Triton already runs above 85% of the peak: warpforge/Triton geomean {g:.3f}.")
