#!/usr/bin/env python3
"""Every number the twentieth pass quotes, recomputed from the rows committed beside this script.

usage: python3 summary.py   (prints markdown; no GPU, no third-party modules)
"""
import glob, json, math, os

H = os.path.dirname(os.path.abspath(__file__))


def rows(path):
    return [json.loads(l) for l in open(os.path.join(H, path)) if l.strip()]


def gmean(v):
    return math.exp(sum(map(math.log, v)) / len(v))


def bench_forms(d):
    """(chosen strategy, {form: (ratio over Triton, registers)}) of one `bench` row's chosen plan."""
    tri = d["triton"]["ns"]
    s = d["chosen"]["strategy"].replace(" (packed)", "")
    f = {c["form"]: (c["ns"] / tri, c["registers"]) for c in d["candidates"] if c["strategy"] == s}
    return s, f


def main():
    print("## e1: the transpose's candidates, reverse plan as chosen (A) or v2+v4/swz-st (B)\n")
    print("| reverse plan | forward candidate | elements | carried | packed |")
    print("|---|---|---|---|---|")
    for tag in ("A", "B"):
        d = rows(f"e1_tiebreak_probe/bench_{tag}.jsonl")[0]
        tri = d["triton"]["ns"]
        by = {}
        for c in d["candidates"]:
            by.setdefault(c["strategy"], {})[c["form"]] = c["ns"] / tri
        for s, f in sorted(by.items(), key=lambda kv: kv[1].get("elements", 9)):
            print(f"| {d['bwd']} | {s} | {f.get('elements', 0):.3f} | {f.get('carried', 0):.3f} | {f.get('packed', 0):.3f} |")

    print("\n## e2: the conversions whose plan changed, before (A) and after (N)\n")
    ok = cases = bad = 0
    for f in glob.glob(os.path.join(H, "e2_changed/verify/v*.jsonl")):
        for r in rows(os.path.relpath(f, H)):
            ok += r["verified"] is True
            for g in r["gpu"]:
                cases += 1
                bad += g["mismatches"] != 0 or g["first_error"] is not None
    print(f"- verify --gpu (wf_new, i8/i16/f16/i32/i64): {ok} conversions verified, {cases} GPU cases, {bad} with a mismatch or error")
    h = {}
    for f in sorted(glob.glob(os.path.join(H, "e2_changed/h_*.jsonl"))):
        v = os.path.basename(f).split("_")[1]
        for r in rows(os.path.relpath(f, H)):
            h.setdefault(r["name"], {}).setdefault(v, []).append(r)
    print("\n| conversion (h2h fair2, 256 round trips) | elements A -> N | packed A -> N | element loop registers A -> N (Triton) |")
    print("|---|---|---|---|")
    for n, d in h.items():
        m = lambda v, k: sum(r[k] for r in d[v]) / len(d[v])
        print(f"| `{n}` | {m('A', 'ratio_wf_over_triton'):.3f} -> {m('N', 'ratio_wf_over_triton'):.3f} | "
              f"{m('A', 'ratio_packed_over_triton'):.3f} -> {m('N', 'ratio_packed_over_triton'):.3f} | "
              f"{d['A'][0]['warpforge']['loop_regs']} -> {d['N'][0]['warpforge']['loop_regs']} ({d['A'][0]['triton']['loop_regs']}) |")
    print("\n| conversion (`bench`, 1024 round trips) | plan A -> N | elements A -> N | carried A -> N | packed A -> N |")
    print("|---|---|---|---|---|")
    for k in (1, 2, 3, 4):
        (a,), (n,) = rows(f"e2_changed/bench_A_{k}.jsonl"), rows(f"e2_changed/bench_N_{k}.jsonl")
        (sa, fa), (sn, fn) = bench_forms(a), bench_forms(n)
        cell = lambda form: f"{fa[form][0]:.3f} ({fa[form][1]}r) -> {fn[form][0]:.3f} ({fn[form][1]}r)"
        print(f"| `{a['file'].split('/')[-1]}:{a['name']}` | {sa} -> {sn} | {cell('elements')} | {cell('carried')} | {cell('packed')} |")

    print("\n## e3: the kept binary as a whole\n")
    b = rows("e3_whole/bench_all.jsonl")
    ch = [d["chosen"]["ns"] / d["triton"]["ns"] for d in b if d.get("triton", {}).get("ns") and d.get("chosen")]
    print(f"- bench, chosen plan / Triton: geomean {gmean(ch):.3f}x over {len(ch)} conversions, max {max(ch):.3f}x")
    worst = {}
    for d in b:
        if d.get("bits") in (8, 16) and d.get("triton", {}).get("ns"):
            s, f = bench_forms(d)
            for form, (r, regs) in f.items():
                if r > worst.get(form, (0,))[0]:
                    worst[form] = (r, f"{d['file'].split('/')[-1]}:{d['name']}")
            if "stress" in d["file"]:
                print(f"  - `{d['file'].split('/')[-1]}:{d['name']}` ({s}): " + ", ".join(
                    f"{form} {r:.3f}x/{regs}r" for form, (r, regs) in sorted(f.items())))
    for form, (r, n) in sorted(worst.items()):
        print(f"- bench, worst 8/16-bit {form} form: {r:.3f}x (`{n}`)")
    hr = rows("e3_whole/h2h_corpus816.jsonl")
    el = [r["ratio_wf_over_triton"] for r in hr if r.get("ratio_wf_over_triton")]
    pk = [r["ratio_packed_over_triton"] for r in hr if r.get("ratio_packed_over_triton")]
    spill = sum((r["warpforge"].get(k) or {}).get("LDL", 0) + (r["warpforge"].get(k) or {}).get("STL", 0) > 0
                for r in hr for k in ("loop_sass", "packed_loop_sass"))
    print(f"- h2h fair2, corpus 8/16-bit rows ({len(hr)}): element geomean {gmean(el):.3f}x, above 1.05x: "
          + ", ".join(f"`{r['name']}` {r['ratio_wf_over_triton']}" for r in hr if (r.get("ratio_wf_over_triton") or 0) > 1.05)
          + f"; packed geomean {gmean(pk):.3f}x, max {max(pk)}; warpforge loop kernels with LDL/STL: {spill}")

    print("\n## e4: h2h fair2, every 16-bit conversion of Triton's layout tests, the kept binary\n")
    t = rows("e4_triton_tests16/h2h_tl16.jsonl")
    el = [r["ratio_wf_over_triton"] for r in t if r.get("ratio_wf_over_triton")]
    pk = [r["ratio_packed_over_triton"] for r in t if r.get("ratio_packed_over_triton")]
    print(f"- {len(t)} rows: element geomean {gmean(el):.3f}x, {sum(x > 1.05 for x in el)} above 1.05x (max {max(el)}); "
          f"packed ({len(pk)} rows) geomean {gmean(pk):.3f}x, {sum(x > 1.05 for x in pk)} above 1.05x (max {max(pk)})")
    for r in sorted(t, key=lambda r: -(r.get("ratio_wf_over_triton") or 0)):
        if (r.get("ratio_wf_over_triton") or 0) > 1.05:
            print(f"  - `{r['name']}` ({r['warps']} warps, {r['wf_plan']['fwd']['strategy']}): {r['ratio_wf_over_triton']}")
    for r in t:
        s, tr = r["warpforge"].get("loop_sass") or {}, r["triton"].get("loop_sass") or {}
        if s.get("LDL", 0) + s.get("STL", 0) > 0 and tr.get("LDL", 0) + tr.get("STL", 0) == 0:
            print(f"- element loop spilling where Triton's does not: `{r['name']}` ({s['LDL']} LDL, {s['STL']} STL, "
                  f"{r['warpforge']['loop_regs']} registers against {r['triton']['loop_regs']})")

    print("\n## e5: verify --gpu of Triton's layout tests\n")
    v = rows("e5_verify_triton_tests/cases.jsonl")
    print(f"- {len(v)} conversions, {sum(r['verified'] is True for r in v)} verified, {sum(r['gpu_cases'] for r in v)} GPU cases, "
          f"{sum(r['mismatches'] for r in v)} mismatching slots, {sum(r['errors'] for r in v)} errors")

    print("\n## e6: verify --gpu of every corpus and stress file (4df2e2b's code), sanitizers\n")
    v = rows("e6_verify_corpus/cases.jsonl")
    print(f"- {len(v)} conversions, {sum(r['verified'] is True for r in v)} verified, {sum(r['gpu_cases'] for r in v)} GPU cases, "
          f"{sum(r['mismatches'] for r in v)} mismatching slots, {sum(r['errors'] for r in v)} errors")
    for f in sorted(glob.glob(os.path.join(H, "e6_verify_corpus/san/*.txt"))):
        last = [l.strip() for l in open(f) if "SUMMARY" in l]
        print(f"  - {os.path.basename(f)}: {last[-1] if last else 'no summary'}")

    print("\n## e7: h2h (as shipped) over the whole corpus, 974b3c5 (before issue 23) against 4df2e2b's code\n")
    t = open(os.path.join(H, "e7_before_issue/table.md")).read().splitlines()
    print("\n".join(l for l in t if l.startswith("- ")))

    print("\n## e8: 8-bit natural words one at a time (w8) against two at a time (cur)\n")
    t = open(os.path.join(H, "e8_words8/table.md")).read().splitlines()
    print("\n".join(l for l in t if l.startswith("|") or l.startswith("- ")))
    v = rows("e8_words8/verify_i8.jsonl")
    print(f"- verify --gpu --dtypes i8 (w8): {len(v)} conversions, {sum(r['verified'] is True for r in v)} verified, "
          f"{sum(r['gpu_cases'] for r in v)} GPU cases, {sum(r['mismatches'] for r in v)} mismatching slots, {sum(r['errors'] for r in v)} errors")


if __name__ == "__main__":
    main()
