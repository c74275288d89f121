#!/usr/bin/env python3
"""Writes table.md from the rows in corpus/ and triton_tests/ (see README.md)."""
import json, math, os

H = os.path.dirname(os.path.abspath(__file__))


def rows(path):
    return {json.loads(l)["id"]: json.loads(l) for l in open(os.path.join(H, path))}


def gm(v):
    return math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")


def span(v):
    return "-" if not all(v) else (f"{v[0]:.3f}" if min(v) == max(v) else f"{min(v):.3f}-{max(v):.3f}")


def main():
    runs = {k: rows(f"corpus/{k}.jsonl") for k in ("orig1", "orig2", "fair1", "fair2")}
    body = rows("corpus/local_bodies_fair_unroll1.jsonl")
    out = ["# h2h as shipped against h2h with fair addressing (H200, one call)", "",
           "Ratios are warpforge / Triton time (two runs each, min-max); registers are the driver's for the loop",
           "kernels (warpforge as shipped / fair, Triton); `body` is one round trip of the fair loops compiled",
           "here (NVRTC + ptxas 13.0, `#pragma unroll 1`): element / packed instructions, and the element",
           "loop's PRMT + SHF (16-bit pack and unpack around the caller's per-element work).", "",
           "| conversion | dtype | warps | element, shipped | element, fair | packed, shipped | packed, fair | loop registers element shipped/fair, packed, Triton | body element / packed (PRMT+SHF) |",
           "|---|---|---|---|---|---|---|---|---|"]
    acc = {k: [] for k in ("eo", "ef", "po", "pf")}
    for cid, r in runs["orig1"].items():
        g = lambda k, f: runs[k][cid].get(f)
        v = {"eo": [g(k, "ratio_wf_over_triton") for k in ("orig1", "orig2")],
             "ef": [g(k, "ratio_wf_over_triton") for k in ("fair1", "fair2")],
             "po": [g(k, "ratio_packed_over_triton") for k in ("orig1", "orig2")],
             "pf": [g(k, "ratio_packed_over_triton") for k in ("fair1", "fair2")]}
        for k, x in v.items():
            if all(x):
                acc[k].append(sum(x) / 2)
        w = lambda k, f: runs[k][cid]["warpforge"].get(f)
        b = body.get(cid, {})
        be, bp = (b.get("wf_loop") or {}).get("body"), (b.get("wf_loop_packed") or {}).get("body")
        bt = lambda x: sum(n for op, n in x.items() if op not in ("BRA", "ISETP", "UIADD3", "VIADD")) if x else None
        bodys = "-" if not be else (f"{bt(be)} / {bt(bp) if bp else '-'} ({be.get('PRMT', 0) + be.get('SHF', 0)})")
        out.append(f"| `{r['file']}:{r['name']}` | {r['elem']} | {r['warps']} | {span(v['eo'])} | {span(v['ef'])} | "
                   f"{span(v['po'])} | {span(v['pf'])} | {w('orig1', 'loop_regs')}/{w('fair1', 'loop_regs')}, "
                   f"{w('fair1', 'packed_loop_regs') or '-'}, {r['triton'].get('loop_regs') or '-'} | {bodys} |")
    out.append("")
    for k, name in (("eo", "element, shipped"), ("ef", "element, fair"), ("po", "packed, shipped"), ("pf", "packed, fair")):
        x = acc[k]
        out.append(f"- {name} (each row the mean of its two runs): geomean **{gm(x):.3f}x** over {len(x)}, max {max(x):.3f}x, above 1.05x: {sum(y > 1.05 for y in x)}")
    tl = [json.loads(l) for f in ("tl_fair0", "tl_fair1") for l in open(os.path.join(H, f"triton_tests/{f}.jsonl"))]
    e = [r["ratio_wf_over_triton"] for r in tl if r.get("ratio_wf_over_triton")]
    p = [r["ratio_packed_over_triton"] for r in tl if r.get("ratio_packed_over_triton")]
    best = [min(x for x in (r.get("ratio_wf_over_triton"), r.get("ratio_packed_over_triton")) if x) for r in tl
            if r.get("ratio_wf_over_triton") or r.get("ratio_packed_over_triton")]
    e32 = [r["ratio_wf_over_triton"] for r in tl if r["dtype"] == "i32" and r.get("ratio_wf_over_triton")]
    out += ["", f"## Triton's layout tests, fair addressing only ({len(tl)} conversions, `tests/data/triton_lowerings.ttgir`)", "",
            f"- element form: geomean **{gm(e):.3f}x** over {len(e)}, above 1.05x: {sum(x > 1.05 for x in e)} "
            f"(32-bit: {len(e32)} rows, geomean {gm(e32):.3f}x, max {max(e32):.3f}x)",
            f"- packed form: geomean **{gm(p):.3f}x** over {len(p)}, max {max(p):.3f}x, above 1.05x: {sum(x > 1.05 for x in p)}",
            f"- best form: geomean {gm(best):.3f}x over {len(best)}, above 1.05x: {sum(x > 1.05 for x in best)}", "",
            "Rows above 1.05x in the best form:", "", "| conversion | dtype | warps | element | packed | loop registers wf / Triton |", "|---|---|---|---|---|---|"]
    for r in tl:
        e_, p_ = r.get("ratio_wf_over_triton"), r.get("ratio_packed_over_triton")
        b_ = min(x for x in (e_, p_) if x) if (e_ or p_) else None
        if b_ and b_ > 1.05:
            out.append(f"| `{r['name']}` | {r['elem']} | {r['warps']} | {e_ or '-'} | {p_ or '-'} | "
                       f"{r['warpforge'].get('loop_regs')} / {r['triton'].get('loop_regs')} |")
    open(os.path.join(H, "table.md"), "w").write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
