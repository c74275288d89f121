"""Time h2h's warpforge loop for variant header dirs, and Triton's, in one process.
usage: python3 variant.py CASES(comma) DIR [DIR...]"""
import json, os, re, subprocess, sys
sys.path.insert(0, os.path.abspath("h2h-work"))
import h2h
ids = sys.argv[1].split(",")
dirs = [os.path.abspath(d) for d in sys.argv[2:]]
res = {}
for c0 in json.load(open(os.path.join(dirs[0], "cases.json"))):
    if c0["id"] not in ids: continue
    row = {"id": c0["id"], "name": c0["name"], "dtype": c0["dtype"]}
    try:
        row["triton"] = h2h.run_triton(c0)["ns_rt"]
    except Exception as e:
        row["triton"] = None
    for d in dirs:
        c = next(x for x in json.load(open(os.path.join(d, "cases.json"))) if x["id"] == c0["id"])
        cu = os.path.join(d, c["id"] + ".cu"); open(cu, "w").write(h2h.wf_source(c, c["header"]))
        cub = os.path.join(d, c["id"] + ".cubin")
        p = subprocess.run(["nvcc", "-std=c++17", "-O3", "-arch=sm_90", "-cubin", "-o", cub, cu, "-I", d, "-Xptxas", "-v"], capture_output=True, text=True)
        if p.returncode:
            row[os.path.basename(d)] = {"err": p.stderr[-400:]}; continue
        regs = dict(re.findall(r"Compiling entry function '(\w+)'.*?Used (\d+) registers", p.stderr, re.S))
        hdr = open(os.path.join(d, c["header"])).read()
        r = h2h.run_wf(c, cub, hdr)
        row[os.path.basename(d)] = {"regs": int(regs.get("wf_loop", -1)), "ns": round(r["ns_rt"], 1), "ok": r["ok"] and r["loop_ok"],
                                    "ratio": round(r["ns_rt"] / row["triton"], 3) if row["triton"] else None}
    print(json.dumps(row), flush=True)
