"""Offline check of the cost model's latency floor (issue 23, thirteenth pass).

Replays the H100 `warpforge bench` rows of the eleventh and twelfth passes
(every candidate's features and time): for each conversion, the candidate a
model would choose in the ranked form (packed where timed, else elements)
against the fastest candidate of that form and against Triton.

  python3 results/resources/thirteenth/floor/floor_offline.py   (from the repo root)

Prints: the built-in weights without a floor; with shared-trip / shuffle-stage
floors (Ls, Lf) divided by the CTA's warps, as `synth::cost_model::Weights::dot`
scores; and a roofline model (max over issue, ALU and MIO pipes) searched on a
grid, in sample and leaving each conversion out (not kept: no better than the
floor out of sample).

Caveat: a row's time is a round trip, the candidate forward and the chosen
plan of the reverse conversion back; the replay holds that backward plan
fixed. A model that changes both directions of a row (the reverse
conversion's plan too) must be measured: the shared-memory trip weight tried
in this pass looked 9-25% faster here and ran slower on the GPU
(`../trip_not_kept/`).
"""
import itertools, json, math, os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from replay_rows import ROOT, load_rows, ranked_candidates  # noqa: E402

rows = load_rows()
W0 = json.load(open(f"{ROOT}/synth/cost_models/default.json"))["weights"]
LIN = [k for k in W0 if not k.startswith("floor_")]


def lin(f):
    return sum(W0[k] * f[k] for k in LIN)


def shared(f):
    return f["wavefront"] > 0 or f["stsm"] > 0


def per_row(model):
    """ln(chosen/fastest), ln(chosen/Triton), chosen, per conversion; model(f, warps) -> (score, tie)."""
    out = []
    for r in rows:
        cs = ranked_candidates(r)
        ch = min(cs, key=lambda c: model(c["features"], r["warps"]))
        fa = min(cs, key=lambda c: c["ns"])
        out.append((math.log(ch["ns"] / fa["ns"]), math.log(ch["ns"] / r["triton"]["ns"]), ch, r))
    return out


def report(name, res):
    reg = sum(x[0] for x in res)
    w5 = sum(x[0] <= math.log(1.05) for x in res)
    t = [x[1] for x in res]
    print(f"{name:34s} n={len(res)} regret={reg:.2f} within5%={w5} chosen/Triton geomean={math.exp(sum(t)/len(t)):.3f} "
          f"worst={math.exp(max(t)):.3f} above 1.05: {sum(v > math.log(1.05) for v in t)}")


def floored(Ls, Lf):
    return lambda f, w: (max(lin(f), (Ls if shared(f) else Lf) / w), lin(f))


base = per_row(lambda f, w: (lin(f), 0))
report("no floor", base)
for Ls, Lf in [(30, 20), (50, 30), (80, 30), (120, 30)]:
    res = per_row(floored(Ls, Lf))
    report(f"floor smem {Ls}, shfl {Lf}", res)
    for a, b in zip(base, res):
        if a[2] is not b[2]:
            r = a[3]
            print(f"    {r['name']}: {a[2]['strategy']} {math.exp(a[1]):.3f} -> {b[2]['strategy']} {math.exp(b[1]):.3f} of Triton")


def roof(a_alu, a_shfl, a_wf, bar, barw, mix):
    def m(f, w):
        issue = f["shfl"] + f["sel"] + f["prmt"] + f["smem"] + f["stsm"] + f["ldsm"]
        pipes = [issue, a_alu * (f["sel"] + f["prmt"]), a_shfl * f["shfl"] + a_wf * f["wavefront"]]
        return (max(pipes) + mix * sum(pipes) + bar * f["bar"] + barw * f["bar_warp"] + W0["spill"] * f["spill"], 0)
    return m


cfgs = list(itertools.product([0.5, 0.75, 1, 1.25, 1.5], [1, 2, 3, 4, 5], [2, 3, 4, 5, 6], [5, 10, 20], [1, 2, 4], [0, 0.1]))
M = [[x[0] for x in per_row(roof(*c))] for c in cfgs]
tot = [sum(m) for m in M]
best = min(range(len(cfgs)), key=lambda i: tot[i])
print(f"roofline, best of {len(cfgs)} on the grid in sample {cfgs[best]}: regret {tot[best]:.2f}")
loo = []
for j in range(len(rows)):
    i = min(range(len(cfgs)), key=lambda i: tot[i] - M[i][j])
    loo.append(M[i][j])
print(f"roofline, leaving each conversion out: regret {sum(loo):.2f}, within 5% {sum(x <= math.log(1.05) for x in loo)}"
      f" (no floor: regret {sum(x[0] for x in base):.2f}, within 5% {sum(x[0] <= math.log(1.05) for x in base)})")
