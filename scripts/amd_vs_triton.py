#!/usr/bin/env python3
"""warpforge's AMD helpers against Triton 3.6's AMD lowering, per conversion.

Inputs:
  - warpforge's side: `warpforge verify --json --ttgir FILES` of the AMD
    corpus (run here per target, or read from --warpforge JSONL files): every
    HIP check kernel's amdgcn counts (`hip.kernels`, verify/src/hip.rs), with
    a baseline kernel (the check kernel's loads and stores, no helper);
  - Triton's side: `scripts/amd_triton_counts.py`'s `triton_amd.jsonl`
    (Triton's conversion kernel less its load/store baseline, `diff`).

Per conversion (joined on file and line), for the conversion's own element
width (8 -> i8, 16 -> f16, 32 -> i32, 64 -> i64 kernels): warpforge's element
form and, where the helper has one, its packed form, each less the baseline
kernel; Triton's `diff`.

data movement = ds_bpermute/ds_permute + ds_swizzle + DPP + v_permlane +
v_perm_b32 + LDS reads + LDS writes + s_barrier (exact on both sides: the
baselines have none). `total`, `valu` and `v_cndmask` are differences of
whole kernels on both sides (noisy: addressing and scheduling around the
conversion change too).

Writes OUT/rows.jsonl, OUT/table.md (per conversion) and OUT/summary.md.
"""

import argparse
import gzip
import json
import os
import subprocess
import sys
from collections import defaultdict

DM_WF = ["bpermute", "swizzle", "dpp", "permlane", "perm", "lds_read", "lds_write", "barrier"]
DM_TRITON = ["ds_bpermute_b32", "ds_permute_b32", "ds_swizzle_b32", "dpp", "v_permlane",
             "v_perm_b32", "lds_read", "lds_write", "s_barrier"]
BITS = {"i1": 8, "i8": 8, "f8E4M3FN": 8, "f8E5M2": 8, "f8E4M3FNUZ": 8, "f8E5M2FNUZ": 8,
        "i16": 16, "f16": 16, "bf16": 16, "i32": 32, "f32": 32, "i64": 64, "f64": 64}
DTYPE_OF_BITS = {8: "i8", 16: "f16", 32: "i32", 64: "i64"}


def run_warpforge(binary, files):
    cmd = [binary, "verify", "--json", "--dtypes", "i8,f16,i32,i64", "--ttgir"] + files
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd[:6])} ...: exit {p.returncode}\n{p.stderr[-2000:]}")
    return [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")], p.stderr


def less(a, b):
    return {k: a[k] - b.get(k, 0) for k in a}


def wf_dm(c):
    return sum(c[k] for k in DM_WF)


def tr_dm(c):
    return sum(c.get(k, 0) for k in DM_TRITON)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default="target/release/warpforge")
    ap.add_argument("--triton", required=True, help="triton_amd.jsonl")
    ap.add_argument("--warpforge", nargs="*",
                    help="saved `verify --json` outputs, .jsonl or .jsonl.gz (else run --bin and save them)")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)

    triton = {}
    for l in open(a.triton):
        r = json.loads(l)
        triton[(r["file"], r["line"])] = r

    rows = []
    if a.warpforge:
        for f in a.warpforge:
            with (gzip.open(f, "rt") if f.endswith(".gz") else open(f)) as fh:
                rows += [json.loads(l) for l in fh if l.startswith("{")]
    else:
        by_target = defaultdict(list)
        for (f, _l), r in triton.items():
            by_target[r["target"]].append(f)
        for t in sorted(by_target):
            files = sorted(set(by_target[t]))
            got, err = run_warpforge(a.bin, files)
            rows += got
            with gzip.open(os.path.join(a.out, f"verify_{t.split(':')[1]}.jsonl.gz"), "wt") as w:
                for r in got:
                    w.write(json.dumps(r) + "\n")
            with open(os.path.join(a.out, f"verify_{t.split(':')[1]}.stderr.txt"), "w") as w:
                w.write(err)

    wf = {}
    for r in rows:
        if "hip" not in r:
            continue
        line = int(r["name"].rsplit(":", 1)[1])
        wf[(r["file"], line)] = r

    out = []
    for key, t in sorted(triton.items(), key=lambda kv: (kv[1]["target"], kv[0])):
        row = {"file": key[0], "line": key[1], "target": t["target"], "dtype": t["dtype"],
               "shape": t["shape"], "num_warps": t["num_warps"]}
        w = wf.get(key)
        if w is None:
            row["missing"] = "no warpforge HIP result"
            out.append(row)
            continue
        bits = BITS.get(t["dtype"], 32)
        dt = DTYPE_OF_BITS[bits]
        ks = {(k["dtype"], k["form"]): k for k in w["hip"]["kernels"]}
        base = ks.get((dt, "baseline"))
        forms = {}
        for form in ("elements", "packed"):
            k = ks.get((dt, form))
            if k is None or base is None:
                continue
            d = less(k["counts"], base["counts"])
            forms[form] = {"counts": d, "dm": wf_dm(k["counts"]), "vgpr": k["vgpr"],
                           "scratch": k["scratch_bytes"]}
        if t.get("status") != "ok":
            row["triton_error"] = t.get("error") or t.get("reason")
        else:
            row["triton"] = {"counts": t["diff"], "dm": tr_dm(t["diff"]), "vgpr": t["conv"]["vgpr"],
                             "mechanism": t.get("mechanism")}
        row["warpforge"] = forms
        if forms:
            best = min(forms.items(), key=lambda kv: (kv[1]["dm"], kv[1]["counts"]["total"]))
            row["best_form"] = best[0]
            row["best_dm"] = best[1]["dm"]
        row["spilled"] = w["hip"]["spilled"]
        out.append(row)

    with open(os.path.join(a.out, "rows.jsonl"), "w") as f:
        for r in out:
            f.write(json.dumps(r) + "\n")

    # summary per target
    lines = ["# warpforge vs Triton 3.6 on AMD: data-movement instructions per conversion", "",
             "data movement = ds_bpermute/ds_permute + ds_swizzle + DPP + v_permlane + v_perm_b32 + LDS reads + LDS writes + s_barrier",
             "(static amdgcn counts per wave; warpforge: its own element width's check kernel, element form and packed form, the better of the two;",
             "Triton: its conversion kernel less its load/store kernel).", "",
             "| target | conversions | compared | warpforge <= Triton | warpforge < Triton | equal | warpforge > Triton | sum wf | sum Triton | wf element form <= Triton |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    worse = []
    for tgt in sorted({r["target"] for r in out}):
        rs = [r for r in out if r["target"] == tgt]
        cmp = [r for r in rs if "triton" in r and "best_dm" in r]
        le = sum(r["best_dm"] <= r["triton"]["dm"] for r in cmp)
        lt = sum(r["best_dm"] < r["triton"]["dm"] for r in cmp)
        eq = sum(r["best_dm"] == r["triton"]["dm"] for r in cmp)
        el = sum(r["warpforge"]["elements"]["dm"] <= r["triton"]["dm"] for r in cmp if "elements" in r["warpforge"])
        lines.append(f"| {tgt} | {len(rs)} | {len(cmp)} | {le} ({100*le/max(1,len(cmp)):.1f}%) | {lt} | {eq} | {len(cmp)-le} | "
                     f"{sum(r['best_dm'] for r in cmp)} | {sum(r['triton']['dm'] for r in cmp)} | {el} |")
        worse += [r for r in cmp if r["best_dm"] > r["triton"]["dm"]]
    allc = [r for r in out if "triton" in r and "best_dm" in r]
    le = sum(r["best_dm"] <= r["triton"]["dm"] for r in allc)
    lines += ["", f"All targets: warpforge at or below Triton's data-movement count on **{le} of {len(allc)}** "
              f"({100*le/max(1,len(allc)):.1f}%).", ""]
    if worse:
        lines += ["## Conversions where warpforge moves more than Triton", "",
                  "| target | file:line | dtype | warpforge (form: bpermute/perm/LDS r+w/barrier) | Triton (mechanism: bpermute/permlane/dpp/perm/LDS r+w/barrier) |",
                  "|---|---|---|---|---|"]
        for r in worse:
            b = r["warpforge"][r["best_form"]]["counts"]
            t = r["triton"]["counts"]
            lines.append(
                f"| {r['target']} | {os.path.basename(r['file'])}:{r['line']} | {r['dtype']} | {r['best_form']}: "
                f"{b['bpermute']}/{b['perm']}/{b['lds_read']}+{b['lds_write']}/{b['barrier']} = {r['best_dm']} | "
                f"{r['triton']['mechanism']}: {t['ds_bpermute_b32']}/{t['v_permlane']}/{t['dpp']}/{t['v_perm_b32']}/"
                f"{t['lds_read']}+{t['lds_write']}/{t['s_barrier']} = {r['triton']['dm']} |")
    missing = [r for r in out if "missing" in r]
    if missing:
        lines += ["", f"{len(missing)} conversion(s) without a warpforge HIP result."]
    open(os.path.join(a.out, "summary.md"), "w").write("\n".join(lines) + "\n")

    tab = ["| target | file:line | dtype | warps | wf dm (elements / packed) | Triton dm | wf total-base (elements) | Triton total diff | Triton mechanism |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in out:
        if "triton" not in r or "warpforge" not in r:
            continue
        e = r["warpforge"].get("elements")
        p = r["warpforge"].get("packed")
        tab.append(f"| {r['target']} | {os.path.basename(r['file'])}:{r['line']} | {r['dtype']} | {r['num_warps']} | "
                   f"{e['dm'] if e else '-'} / {p['dm'] if p else '-'} | {r['triton']['dm']} | "
                   f"{e['counts']['total'] if e else '-'} | {r['triton']['counts']['total']} | {r['triton']['mechanism']} |")
    open(os.path.join(a.out, "table.md"), "w").write("\n".join(tab) + "\n")
    print("\n".join(lines[:12 + len({r['target'] for r in out})]))


if __name__ == "__main__":
    main()
