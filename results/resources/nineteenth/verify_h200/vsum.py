import json, glob, os, sys
tot = dict(files=0, convs=0, cases=0, mismatches=0, errors=0, failed=0)
bad = []
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.jsonl"))):
    tot["files"] += 1
    for l in open(f):
        try: r = json.loads(l)
        except Exception: continue
        tot["convs"] += 1
        for g in r.get("gpu") or []:
            tot["cases"] += 1
            tot["mismatches"] += g.get("mismatches") or 0
            if g.get("first_error"): tot["errors"] += 1; bad.append((os.path.basename(f), r.get("name"), g.get("dtype"), g.get("form"), str(g.get("first_error"))[:120]))
        if r.get("ok") is False or r.get("error"): tot["failed"] += 1; bad.append((os.path.basename(f), r.get("name"), str(r.get("error"))[:160]))
print(json.dumps(tot)); [print(b) for b in bad[:40]]
