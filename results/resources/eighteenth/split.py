#!/usr/bin/env python3
"""Split h2h's time per launch into a fixed cost and a per-round-trip cost from two trip counts.

A launch of n round trips takes F + n * t (nanoseconds per round trip times n; h2h reports
`ns_rt` = launch time / n). With rows at n = 256 and n = 1024 of the same case,
t = (1024 * ns_1024 - 256 * ns_256) / 768 and F = 256 * (ns_256 - t), for warpforge's element
loop and Triton's loop. Rows of one run are paired by case id (and by the part a file name's
last `_<k>` names, with --parts, for work folders run in parts); runs of the same trip count are
averaged.

usage: split.py 'GLOB_256' 'GLOB_1024' [--parts]
  e.g. split.py 'trips_h200/fair2/fair2_256_*.jsonl' 'trips_h200/fair2/fair2_1024_*.jsonl'
       split.py 'triton_tests_h200/tl_fair2_256_*.jsonl' 'triton_tests_h200/tl_fair2_1024_*.jsonl' --parts
"""
import glob, json, math, re, sys
from collections import defaultdict


def load(pattern, parts):
    """{key: [(wf ns, triton ns, ratio, name, warps)]} over every file the pattern matches."""
    out = defaultdict(list)
    files = sorted(glob.glob(pattern))
    if not files:
        sys.exit(f"split.py: no file matches {pattern}")
    for f in files:
        part = re.search(r"_(\d+)\.jsonl$", f).group(1) if parts else ""
        for line in open(f):
            r = json.loads(line)
            w, t = r.get("warpforge", {}).get("ns_rt"), r.get("triton", {}).get("ns_rt")
            if w and t:
                out[(part, r["id"])].append((w, t, r.get("ratio_wf_over_triton"), r["name"], r["warps"]))
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    parts = "--parts" in sys.argv
    a, b = load(sys.argv[1], parts), load(sys.argv[2], parts)
    mean = lambda xs: sum(xs) / len(xs)
    rows = []
    for k in sorted(set(a) & set(b)):
        w1, t1 = mean([x[0] for x in a[k]]), mean([x[1] for x in a[k]])
        w4, t4 = mean([x[0] for x in b[k]]), mean([x[1] for x in b[k]])
        tw, tt = (1024 * w4 - 256 * w1) / 768, (1024 * t4 - 256 * t1) / 768
        fw, ft = 256 * (w1 - tw), 256 * (t1 - tt)
        rows.append(dict(name=a[k][0][3], warps=a[k][0][4], r256=w1 / t1, r1024=w4 / t4,
                         rt=tw / tt if tt > 0 and tw > 0 else None, fw=fw / 1e3, ft=ft / 1e3))
    ok = [r["rt"] for r in rows if r["rt"]]
    g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
    print(f"{len(rows)} cases; per round trip: geomean {g(ok):.3f}, max {max(ok):.3f}, "
          f"{sum(x > 1.05 for x in ok)} above 1.05x; {len(rows) - len(ok)} without a split "
          f"(a 1024-round-trip launch not longer than the 256 one: no per-round-trip cost to compare)")
    print(f"at 256: geomean {g([r['r256'] for r in rows]):.3f}, {sum(r['r256'] > 1.05 for r in rows)} above 1.05x; "
          f"at 1024: geomean {g([r['r1024'] for r in rows]):.3f}, {sum(r['r1024'] > 1.05 for r in rows)} above 1.05x")
    print()
    print("| conversion | warps | element / Triton at 256 | at 1024 | per round trip | F warpforge / Triton (us) |")
    print("|---|---|---|---|---|---|")
    for r in sorted(rows, key=lambda r: -(r["rt"] or 0)):
        rt = f"{r['rt']:.3f}" if r["rt"] else "-"
        print(f"| `{r['name']}` | {r['warps']} | {r['r256']:.3f} | {r['r1024']:.3f} | {rt} | {r['fw']:.1f} / {r['ft']:.1f} |")


if __name__ == "__main__":
    main()
