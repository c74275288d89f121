#!/usr/bin/env python3
"""Old (9889471) against new element forms of the 20 conversions of triton_lowerings' 16-bit tests
whose helper text the change altered, from run.sh's rows (scripts/h2h_pair.py: Triton once, then the
old and the new helper of each case, one call): per harness (`vec`: h2h patched with
../2026-11-28-h200-h2h-tile-io-bbf471f/h2h_variants.patch, H2H_VEC=1, the element loop's tile I/O
vectorised as Triton's kernel has it; `def`: h2h as shipped), each case's new / old element-form
time, both over Triton, and the packed forms (unchanged helpers: a check of the harness's spread).
The final change (the commit that adds this folder) folds only where the element form would
otherwise go element by element; 8 of the 20 timed conversions (natural pairs, whose element form
went through the packed form with the caller's `warpforge::words` choice) are back to the old
helpers there, and their rows show the harness's spread on near-identical code. `changed_final.json`
lists the 12 the final change alters; each table's first line gives both sets.
usage: python3 compare.py > summary.md"""
import json, math, os

R = os.path.dirname(os.path.abspath(__file__))
FINAL = set(json.load(open(os.path.join(R, "changed_final.json"))))
gm = lambda x: math.exp(sum(map(math.log, x)) / len(x))


def load(f):
    return {json.loads(l)["id"]: json.loads(l) for l in open(os.path.join(R, f))}


for tag, what in (("vec", "H2H_VEC=1 (tile I/O as Triton's kernel)"), ("def", "h2h as shipped (fair2)")):
    o, n = load(f"{tag}_old.jsonl"), load(f"{tag}_new.jsonl")
    rows, wrong = [], []
    for k, a in o.items():
        b = n[k]
        wb = b["warpforge"]
        if not (wb.get("ok") and wb.get("loop_ok") and wb.get("packed_loop_ok") is not False):
            wrong.append(k)
        ea, eb = a["ratio_wf_over_triton"], b["ratio_wf_over_triton"]
        pa, pb = a.get("ratio_packed_over_triton"), b.get("ratio_packed_over_triton")
        rows.append((eb / ea, k, a["name"], ea, eb, pa, pb, a["warpforge"].get("loop_regs"), wb.get("loop_regs"),
                     a["triton"].get("loop_regs"), a["wf_plan"]["fwd"]["strategy"], a["wf_plan"]["bwd"]["strategy"]))
    rows.sort()
    print(f"## {what}\n")
    fin = [r for r in rows if r[1] in FINAL]
    print(f"The {len(fin)} the final change alters: element form new / old geomean **{gm([r[0] for r in fin]):.3f}**; "
          f"over Triton {gm([r[3] for r in fin]):.3f} -> {gm([r[4] for r in fin]):.3f}; "
          f">2% slower: {', '.join(f'{r[1]} ({r[0]:.3f})' for r in fin if r[0] > 1.02) or 'none'}; "
          f">2% faster: {sum(r[0] < 0.98 for r in fin)}.\n")
    print(f"All {len(rows)} timed. Element form new / old geomean **{gm([r[0] for r in rows]):.3f}**; "
          f"over Triton {gm([r[3] for r in rows]):.3f} -> {gm([r[4] for r in rows]):.3f}; "
          f">2% slower: {sum(r[0] > 1.02 for r in rows)}, >2% faster: {sum(r[0] < 0.98 for r in rows)}; "
          f"packed form new / old geomean {gm([r[6] / r[5] for r in rows if r[5] and r[6]]):.3f}; "
          f"wrong results: {wrong or 'none'}\n")
    print("| case | conversion | plans (fwd, bwd) | element new / old | element / Triton old, new | packed / Triton old, new | loop regs old, new (Triton) |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r[1]}{'' if r[1] in FINAL else ' (reverted)'} | {r[2]} | {r[10]}, {r[11]} | {r[0]:.3f} | {r[3]}, {r[4]} | {r[5]}, {r[6]} | {r[7]}, {r[8]} ({r[9]}) |")
    print()
