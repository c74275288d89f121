#!/usr/bin/env python3
"""Compare `warpforge plan --json` predictions with Triton 3.6's SASS counts
(../shared/corpus/triton36_h200.jsonl) for every corpus conversion.

usage: vs_triton_counts.py WARPFORGE_BIN TRITON_JSONL CORPUS_DIR
Prints one row per conversion; exit 1 when a shared-memory conversion of
Triton's predicts more STS+LDS+STSM+LDSM or BAR than Triton, or conflicts."""
import json, os, subprocess, sys

wf, tj, corpus = sys.argv[1], sys.argv[2], sys.argv[3]
plans = {}
files = ["pairs.mlir"] + ["ttgir/" + f for f in sorted(os.listdir(os.path.join(corpus, "ttgir")))]
for f in files:
    r = subprocess.run([wf, "plan", "--json", "--ttgir", os.path.join(corpus, f)], capture_output=True, text=True)
    for line in r.stdout.splitlines():
        p = json.loads(line)
        plans[os.path.basename(f) + ":" + p["name"]] = p
bad = 0
for line in open(tj):
    t = json.loads(line)
    ts = t.get("triton_sass")
    for name in t["conversions"]:
        p = plans.get(name)
        if p is None:
            print(f"{name}: not planned"); bad += 1; continue
        c = p["cost"]
        acc = c["sts"] + c["lds"] + c["stsm"] + c["ldsm"]
        row = f"{name:58} {p['strategy']:28} sts {c['sts']:3} lds {c['lds']:3} stsm {c['stsm']:3} ldsm {c['ldsm']:3} bar {c['bar']} prmt {c['prmt']:3} shfl {c['shfl']:3} sel {c['sel']:3} conf {p['bank_conflicts']}/{p['wavefronts']}"
        if ts is None:
            print(row + "   | triton: rejected"); continue
        tacc = ts["sts"] + ts["lds"] + ts["stsm"] + ts["ldsm"]
        flag = ""
        if tacc > 0 and (acc > tacc or c["bar"] > ts["bar"] or p["bank_conflicts"] > 0):
            flag = "  <-- MISS"; bad += 1
        print(row + f"   | triton sts {ts['sts']} lds {ts['lds']} stsm {ts['stsm']} ldsm {ts['ldsm']} bar {ts['bar']} prmt {ts['prmt']} shfl {ts['shfl']} sel {ts['sel']}" + flag)
sys.exit(1 if bad else 0)
