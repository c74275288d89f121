"""One row per architecture: files, conversions served and proven, refused, failed, layouts unlike
Triton's (llcheck), HIP check kernels compiled and spilled. usage: cpu/summ_all.py ARCH... (from the
run folder, after cpu/run.sh)"""
import json, sys, collections
print("| target | files with conversions | conversions | served and proven | refused or failed | layouts checked against Triton | unlike Triton's | HIP: conversions compiled | check kernels | spilled | compile errors |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for t in sys.argv[1:]:
    files, st = set(), collections.Counter()
    for l in open(f"res/verify_{t}.jsonl"):
        r = json.loads(l); files.add(r["file"]); st[r.get("status") == "served" and r.get("verified") is True] += 1
    conv = lc = mism = 0
    for l in open(f"res/llcheck_{t}.jsonl"):
        r = json.loads(l); lc += r.get("helpers", 0); mism += len(r.get("mismatch", [])) + (r.get("converts") != r.get("helpers")) + ("error" in r)
    hc = hk = hs = 0
    for l in open(f"res/hip_{t}.jsonl"):
        r = json.loads(l)
        if "hip" in r:
            hc += 1; hk += len(r["hip"]["kernels"]); hs += bool(r["hip"]["spilled"])
    errs = sum(1 for l in open(f"res/hip_{t}.err") if "FAILED" in l)
    print(f"| {t.replace('hip_', '')} | {len(files)} | {sum(st.values())} | {st[True]} | {st[False]} | {lc} | {mism} | {hc} | {hk} | {hs} | {errs} |")
