#!/usr/bin/env python3
"""Before/after table of runs of the reference harness h2h (jsonl rows of
../shared/tools/h2h/h2h.py): per conversion, warpforge / Triton time in the
element form and the packed form (8/16-bit), the change of after over before,
both sides' loop registers against Triton's, the after side's loop LDL+STL,
and whether warpforge's loop SASS (instruction counts by class, registers) is
the same on both sides.

Each side takes one or more runs (e.g. alternating old, new, old, new in one
device call): a ratio is the median over that side's runs and the table gives
the range; a change is flagged "more than 2% slower" when the after median is
over 1.02x the before median, and "(ranges overlap or touch)" says when some
before run was as slow as some after run. Rows are the union over every run
of either side (a conversion only one side has shows "-" for the other).

usage: h2h_compare.py BEFORE.jsonl AFTER.jsonl > table.md
       h2h_compare.py --before B1.jsonl B2.jsonl ... --after A1.jsonl A2.jsonl ... > table.md"""
import argparse, json, math, statistics, sys


def load(path):
    return {f"{r['file']}:{r['name']}": r for r in map(json.loads, open(path))}


def spills(sass):
    return (sass or {}).get("LDL", 0) + (sass or {}).get("STL", 0)


def fmt(x):
    return "-" if x is None else f"{x:.3f}"


def change(a, b):
    return "-" if a is None or b is None else f"{(b / a - 1) * 100:+.1f}%"


def side(runs, key, field):
    """Median and range of `field` over the runs that have it for `key`."""
    v = [r[key][field] for r in runs if key in r and r[key].get(field)]
    if not v:
        return None, None
    return statistics.median(v), (min(v), max(v))


def cell(m, rng, many):
    if m is None:
        return "-"
    return f"{m:.3f} ({rng[0]:.3f}-{rng[1]:.3f})" if many else f"{m:.3f}"


def same_code(before, after, key):
    """Whether warpforge's loop kernels have the same registers and SASS counts
    in every run of both sides (None where a run lacks the row or the row timed
    nothing: no loop kernel to compare)."""
    sig = set()
    for r in before + after:
        if key not in r or not r[key].get("ratio_wf_over_triton"):
            return None
        w = r[key].get("warpforge", {})
        sig.add(json.dumps([w.get("loop_regs"), w.get("loop_sass"),
                            w.get("packed_loop_regs"), w.get("packed_loop_sass")], sort_keys=True))
    return len(sig) == 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pair", nargs="*", help="BEFORE.jsonl AFTER.jsonl (one run each)")
    ap.add_argument("--before", nargs="+", default=[])
    ap.add_argument("--after", nargs="+", default=[])
    a = ap.parse_args()
    if a.pair:
        if len(a.pair) != 2 or a.before or a.after:
            ap.error("give BEFORE AFTER, or --before ... --after ...")
        a.before, a.after = [a.pair[0]], [a.pair[1]]
    if not a.before or not a.after:
        ap.error("both sides need at least one run")
    before = [load(p) for p in a.before]
    after = [load(p) for p in a.after]
    many = len(before) > 1 or len(after) > 1
    print("| conversion | element before | element after | change | packed before | packed after | change "
          "| loop registers element before/after (packed after) / Triton | LDL+STL after (element, packed) "
          "| same loop SASS |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    worst, logs = [], {"element": [], "packed": []}
    keys = list(dict.fromkeys(k for r in after + before for k in r))
    for k in keys:
        wa = next((r[k].get("warpforge", {}) for r in after if k in r), {})
        wb = next((r[k].get("warpforge", {}) for r in before if k in r), {})
        t = next((r[k].get("triton", {}) for r in after + before if k in r), {})
        ea, era = side(after, k, "ratio_wf_over_triton")
        eb, erb = side(before, k, "ratio_wf_over_triton")
        pa, pra = side(after, k, "ratio_packed_over_triton")
        pb, prb = side(before, k, "ratio_packed_over_triton")
        same = same_code(before, after, k)
        for form, x in (("element", ea), ("packed", pa)):
            if x:
                logs[form].append(math.log(x))
        for form, x, y, rx, ry in (("element", eb, ea, erb, era), ("packed", pb, pa, prb, pra)):
            if x and y and y / x > 1.02:
                overlap = " (ranges overlap or touch)" if many and rx[1] >= ry[0] else ""
                code = {True: ", same loop SASS", False: ", loop SASS differs", None: ""}[same]
                worst.append(f"`{k}` {form} {fmt(x)} -> {fmt(y)}{overlap}{code}")
        print(f"| `{k}` | {cell(eb, erb, many)} | {cell(ea, era, many)} | {change(eb, ea)} "
              f"| {cell(pb, prb, many)} | {cell(pa, pra, many)} | {change(pb, pa)} "
              f"| {wb.get('loop_regs', '-')}/{wa.get('loop_regs', '-')} ({wa.get('packed_loop_regs') or '-'}) / {t.get('loop_regs', '-')} "
              f"| {spills(wa.get('loop_sass'))}, {spills(wa.get('packed_loop_sass')) if wa.get('packed_loop_sass') else '-'} "
              f"| {'-' if same is None else 'yes' if same else 'no'} |")
    print()
    runs = f" (median of {len(after)} runs)" if many else ""
    for form, v in logs.items():
        if v:
            print(f"- after, {form} form: geomean {math.exp(sum(v) / len(v)):.3f}x Triton over {len(v)} conversions{runs}")
    print(f"- more than 2% slower after than before: {'; '.join(worst) if worst else 'none'}")


if __name__ == "__main__":
    sys.exit(main())
