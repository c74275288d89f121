#!/usr/bin/env python3
"""Planning time per conversion of whole TTGIR files (`plan --json --timings`).

Runs `warpforge plan --json --timings --ttgir FILE` once per file (one process
per file, conversions planned one after another, every element width a helper
serves) and reads each served conversion's `plan_seconds`. A conversion
identical to one planned earlier in the same file reuses its plans
(`plan_reused`, about 0 s); the summary gives the median over every
conversion and over the distinct ones (first occurrences) apart.

Usage: python3 bench/planning/file_time.py BIN OUTDIR FILE...
Writes OUTDIR/raw.jsonl (one row per conversion record) and OUTDIR/summary.md.
"""
import json
import os
import subprocess
import sys
import time


def median(xs):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def main() -> None:
    binary, out, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(out, exist_ok=True)
    rows, per_file = [], []
    for f in files:
        t0 = time.perf_counter()
        p = subprocess.run([binary, "plan", "--json", "--timings", "--ttgir", f], capture_output=True, text=True)
        wall = time.perf_counter() - t0
        recs = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
        for r in recs:
            rows.append({
                "file": f,
                "name": r.get("name"),
                "status": r.get("status"),
                "plan_seconds": r.get("plan_seconds"),
                "plan_reused": r.get("plan_reused"),
                "dtype": r.get("dtype"),
                "shape": r.get("shape"),
                "kind": r.get("kind"),
                "candidates": r.get("candidates"),
            })
        per_file.append((f, len(recs), wall, p.returncode))
        print(f"{f}: {len(recs)} records, {wall:.1f} s, rc {p.returncode}", file=sys.stderr, flush=True)
    with open(os.path.join(out, "raw.jsonl"), "w") as fh:
        for r in rows:
            fh.write(json.dumps(r) + "\n")
    served = [r for r in rows if r["status"] == "served"]
    distinct = [r for r in served if not r["plan_reused"]]
    secs = [r["plan_seconds"] for r in served]
    dsecs = [r["plan_seconds"] for r in distinct]
    slow = sorted(distinct, key=lambda r: -r["plan_seconds"])[:10]
    lines = [
        "# Planning time per conversion of whole files", "",
        f"{len(rows)} records, {len(served)} served, {len(rows) - len(served)} refused; "
        f"{len(distinct)} distinct conversions planned, {len(served) - len(distinct)} reused.", "",
        f"- median over every served conversion: {median(secs):.3f} s",
        f"- median over the distinct ones: {median(dsecs):.3f} s; max {max(dsecs, default=0):.2f} s; "
        f"{sum(1 for s in dsecs if s > 2.0)} over 2 s",
        f"- total planning {sum(secs):.1f} s", "",
        "| file | records | wall seconds (whole process) | exit |", "|---|---|---|---|",
    ]
    lines += [f"| {f} | {n} | {w:.1f} | {rc} |" for f, n, w, rc in per_file]
    lines += ["", "Slowest distinct conversions:", "", "| file | name | dtype | shape | seconds | kind | candidates |",
              "|---|---|---|---|---|---|---|"]
    lines += [f"| {r['file']} | {r['name']} | {r['dtype']} | {r['shape']} | {r['plan_seconds']:.2f} | {r['kind']} | "
              f"{r['candidates']} |" for r in slow]
    with open(os.path.join(out, "summary.md"), "w") as fh:
        fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
