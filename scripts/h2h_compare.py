#!/usr/bin/env python3
"""Before/after table of two runs of the reference harness h2h (jsonl rows
of ../shared/tools/h2h/h2h.py): per conversion, warpforge / Triton time in
the element form and the packed form (8/16-bit) in each run, the change of
the after run over the before run, both runs' loop registers against
Triton's, and the after run's loop LDL+STL.

usage: h2h_compare.py BEFORE.jsonl AFTER.jsonl > table.md"""
import json, math, sys


def load(path):
    return {f"{r['file']}:{r['name']}": r for r in map(json.loads, open(path))}


def spills(sass):
    return (sass or {}).get("LDL", 0) + (sass or {}).get("STL", 0)


def fmt(x):
    return "-" if x is None else f"{x:.3f}"


def change(a, b):
    return "-" if a is None or b is None else f"{(b / a - 1) * 100:+.1f}%"


before, after = load(sys.argv[1]), load(sys.argv[2])
print("| conversion | element before | element after | change | packed before | packed after | change "
      "| loop registers element before/after (packed after) / Triton | LDL+STL after (element, packed) |")
print("|---|---|---|---|---|---|---|---|---|")
worst, logs = [], {"element": [], "packed": []}
for k, a in after.items():
    b = before.get(k, {})
    ea, eb = a.get("ratio_wf_over_triton"), b.get("ratio_wf_over_triton")
    pa, pb = a.get("ratio_packed_over_triton"), b.get("ratio_packed_over_triton")
    wa, wb, t = a.get("warpforge", {}), b.get("warpforge", {}), a.get("triton", {})
    for form, x in (("element", ea), ("packed", pa)):
        if x:
            logs[form].append(math.log(x))
    for form, x, y in (("element", eb, ea), ("packed", pb, pa)):
        if x and y and y / x > 1.02:
            worst.append(f"`{k}` {form} {fmt(x)} -> {fmt(y)}")
    print(f"| `{k}` | {fmt(eb)} | {fmt(ea)} | {change(eb, ea)} | {fmt(pb)} | {fmt(pa)} | {change(pb, pa)} "
          f"| {wb.get('loop_regs', '-')}/{wa.get('loop_regs', '-')} ({wa.get('packed_loop_regs') or '-'}) / {t.get('loop_regs', '-')} "
          f"| {spills(wa.get('loop_sass'))}, {spills(wa.get('packed_loop_sass')) if wa.get('packed_loop_sass') else '-'} |")
print()
for form, v in logs.items():
    if v:
        print(f"- after, {form} form: geomean {math.exp(sum(v) / len(v)):.3f}x Triton over {len(v)} conversions")
print(f"- more than 2% slower after than before: {', '.join(worst) if worst else 'none'}")
