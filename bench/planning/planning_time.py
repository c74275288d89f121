#!/usr/bin/env python3
"""Planning time of `warpforge plan` per conversion, over tile sizes.

For every warps in {1,2,4,8,16,32}, elements per thread in {16,64,256,512,1024}
and element type in {i8, f16, f32, f64}: a blocked -> transposed blocked
conversion (the shape chosen so each thread holds that many elements), timed
as the wall time of one `warpforge plan --json` process (every element width
the helper serves is planned, as `plan`, `emit` and `verify` do).

Usage: python3 bench/planning/planning_time.py BIN OUTDIR [--quick]
Writes OUTDIR/raw.jsonl (one row per conversion) and OUTDIR/summary.md.
"""
import json
import math
import os
import subprocess
import sys
import time

SRC = "#ttg.blocked<{{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [{w}, 1], order = [1, 0]}}>"
DST = "#ttg.blocked<{{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, {w}], order = [0, 1]}}>"


def shape_for(elems: int, warps: int):
    total = elems * 32 * warps
    r = 2 ** math.ceil(math.log2(total) / 2)
    r = max(r, 8 * warps, 8)
    c = total // r
    return r, c


def main() -> None:
    binary, out = sys.argv[1], sys.argv[2]
    quick = "--quick" in sys.argv
    os.makedirs(out, exist_ok=True)
    rows = []
    warps_list = [1, 4, 32] if quick else [1, 2, 4, 8, 16, 32]
    elems_list = [16, 256, 1024] if quick else [16, 64, 256, 512, 1024]
    for w in warps_list:
        for e in elems_list:
            for dt in ["i8", "f16", "f32", "f64"]:
                r, c = shape_for(e, w)
                cmd = [binary, "plan", "--json", "--src", SRC.format(w=w), "--dst", DST.format(w=w),
                       "--shape", f"{r}x{c}", "--dtype", dt, "--warps", str(w), "--name", f"t{w}_{e}_{dt}"]
                t0 = time.perf_counter()
                p = subprocess.run(cmd, capture_output=True, text=True)
                secs = time.perf_counter() - t0
                row = {"warps": w, "elems_target": e, "dtype": dt, "shape": [r, c], "seconds": round(secs, 3),
                       "rc": p.returncode}
                if p.returncode == 0 and p.stdout.strip():
                    v = json.loads(p.stdout.strip().splitlines()[0])
                    row.update({"src_regs": v["src_regs"], "dst_regs": v["dst_regs"], "kind": v["kind"],
                                "strategy": v["strategy"], "candidates": v["candidates"]})
                else:
                    row["error"] = p.stderr.strip().splitlines()[0] if p.stderr.strip() else ""
                rows.append(row)
                print(json.dumps(row), flush=True)
    with open(os.path.join(out, "raw.jsonl"), "w") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    ok = [r for r in rows if r["rc"] == 0]
    over = [r for r in ok if r["seconds"] > 2.0]
    secs = sorted(r["seconds"] for r in ok)
    lines = ["# Planning time per conversion", "",
             f"{len(ok)} of {len(rows)} conversions planned; median {secs[len(secs)//2]:.2f} s, "
             f"max {secs[-1]:.2f} s; {len(over)} over 2 s.", "",
             "| warps | elements/thread (src, dst) | dtype | shape | seconds | kind | candidates |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        regs = f"{r.get('src_regs', '-')}, {r.get('dst_regs', '-')}"
        lines.append(f"| {r['warps']} | {regs} | {r['dtype']} | {r['shape'][0]}x{r['shape'][1]} | "
                     f"{r['seconds']:.2f} | {r.get('kind', r.get('error', ''))} | {r.get('candidates', '')} |")
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
