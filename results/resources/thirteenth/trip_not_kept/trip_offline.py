"""Offline replay of the shared-memory trip weight that was tried and not kept
(issue 23, thirteenth pass). From the repository root:

  python3 results/resources/thirteenth/trip_not_kept/trip_offline.py

Same rows and choice rule as ../floor/floor_offline.py (built-in weights with
the latency floor), plus `Lt` per shared-memory round (trips = the `/rN` of
the strategy, else 1) divided by the CTA's warps, added to the throughput.
Prints regret and selection for each Lt, the rows whose choice changes at
Lt = 25 with every form of the old and new plan, and Lt chosen leaving each
conversion out. The replay holds each row's backward plan fixed; measured
with both directions changed the weight was slower (bench_*.jsonl, h2h_*.jsonl
beside this script).
"""
import json, math, os, re, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from replay_rows import ROOT, load_rows, ranked_candidates  # noqa: E402

rows = load_rows()
W = json.load(open(f"{ROOT}/synth/cost_models/default.json"))["weights"]
LIN = [k for k in W if not k.startswith("floor_")]


def trips(c):
    if c["kind"] != "shared":
        return 0
    m = re.search(r"/r(\d+)", c["strategy"])
    return int(m.group(1)) if m else 1


def per_row(Lt):
    out = []
    for r in rows:
        cs = ranked_candidates(r)

        def score(c):
            f = c["features"]
            t = sum(W[k] * f[k] for k in LIN) + Lt * trips(c) / r["warps"]
            sh = f["wavefront"] > 0 or f["stsm"] > 0
            return (max(t, (W["floor_smem"] if sh else W["floor_shfl"]) / r["warps"]), t)

        ch = min(cs, key=score)
        fa = min(cs, key=lambda c: c["ns"])
        out.append((math.log(ch["ns"] / fa["ns"]), ch, r))
    return out


grid = [0, 5, 10, 15, 20, 25, 30, 40, 60, 80]
M = {}
for Lt in grid:
    res = per_row(Lt)
    M[Lt] = [x[0] for x in res]
    print(f"Lt={Lt:3d}: regret {sum(M[Lt]):.2f}, chosen within 5% of the fastest "
          f"{sum(x <= math.log(1.05) for x in M[Lt])} of {len(res)}")
base, new = per_row(0), per_row(25)
print("changed at Lt=25 (ratio to Triton per form, old -> new):")
for a, b in zip(base, new):
    if a[1] is b[1]:
        continue
    r = b[2]
    T = r["triton"]["ns"]

    def forms(ch):
        return {c["form"]: round(c["ns"] / T, 3) for c in r["candidates"]
                if c["strategy"] == ch["strategy"] and c.get("plan") == ch.get("plan")}
    print(f"  {r['name']} ({r['warps']} warp(s)): {a[1]['strategy']} {forms(a[1])} -> {b[1]['strategy']} {forms(b[1])}")
loo = []
for j in range(len(rows)):
    best = min(grid, key=lambda g: (sum(M[g]) - M[g][j], g))
    loo.append(M[best][j])
print(f"leaving each conversion out: regret {sum(loo):.2f}, within 5% {sum(x <= math.log(1.05) for x in loo)}")
