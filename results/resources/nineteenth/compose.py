#!/usr/bin/env python3
"""The kept rule's element-form ratios, per row, from the h2h runs of `h2h_h200/` (no GPU).

The two h2h runs of each set time every row with the earlier rules' headers (A: 4-byte words,
the destination or the source alone, passes six to eighteen) and with both arrays as 8-byte pairs
wherever the packed form has 16 or more elements a side (N). The kept rule
(`synth::plan::element_form_rule`: both arrays where the packed words are the natural pairs on
both sides or an array is over the limit less 16, else element by element) emits, for every
helper, either N's code (where its `automatic` is `both`) or A's (where it is `none`; no row of
these sets held one array alone under the earlier rules with `automatic = none` now): the
headers differ from N's only in that constant (checked with `diff`, nineteenth pass). So each
row's ratio under the kept rule is the A or N row of the same run; this script reads which from
headers emitted by the kept binary and prints the table and its summary.

usage: python3 ../../../../shared/tools/h2h/prep.py target/release/warpforge /tmp/r1 \\
           ../shared/corpus/pairs.mlir ../shared/corpus/ttgir/*.ttgir   (and /tmp/r2 for
           tests/data/triton_lowerings.ttgir), then
       python3 compose.py /tmp/r1 h2h_h200/cA_1.jsonl h2h_h200/cN_2.jsonl
       python3 compose.py /tmp/r2 h2h_h200/tA.jsonl h2h_h200/tN.jsonl
"""
import json, re, statistics, sys


def automatic(work):
    """{case id: (name, [automatic of the forward helper, of the reverse])} for 16-bit cases."""
    out, hd = {}, {}
    for c in json.load(open(f"{work}/cases.json")):
        if c["dtype"] != "i16":
            continue
        s = hd.setdefault(c["header"], open(f"{work}/{c['header']}").read())
        autos = []
        for side in ("fwd", "bwd"):
            m = re.search(r"#define WARPFORGE_HELPER_(\w*%s\w*)" % re.escape(c[side]), s)
            blk = s[s.index(m.group(0)):][:30000] if m else ""
            a = re.search(r"16-bit \(automatic = (\w+)\)", blk)
            autos.append(a.group(1) if a else "-")
        out[c["id"]] = (c["name"], autos)
    return out


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    autos = automatic(sys.argv[1])
    ratio = {}
    for path, v in ((sys.argv[2], "A"), (sys.argv[3], "N")):
        for line in open(path):
            r = json.loads(line)
            if r["warpforge"].get("ns_rt") and r["triton"].get("ns_rt"):
                ratio.setdefault(r["id"], {})[v] = r["warpforge"]["ns_rt"] / r["triton"]["ns_rt"]
    print("| case | conversion | automatic (fwd, bwd) | A | N | kept |")
    print("|---|---|---|---|---|---|")
    a_s, n_s, k_s = [], [], []
    for cid, (name, au) in autos.items():
        r = ratio.get(cid, {})
        if len(r) < 2:
            continue
        k = r["N"] if "both" in au else r["A"]
        a_s.append(r["A"]); n_s.append(r["N"]); k_s.append(k)
        print(f"| {cid} | `{name}` | {', '.join(au)} | {r['A']:.3f} | {r['N']:.3f} | {k:.3f} |")
    g = statistics.geometric_mean
    print()
    print(f"{len(k_s)} rows: geomean A {g(a_s):.3f}, N {g(n_s):.3f}, kept {g(k_s):.3f}; above 1.05x: "
          f"A {sum(x > 1.05 for x in a_s)}, N {sum(x > 1.05 for x in n_s)}, kept {sum(x > 1.05 for x in k_s)}; "
          f"max A {max(a_s):.3f}, N {max(n_s):.3f}, kept {max(k_s):.3f}; kept slower than A by more than "
          f"1%: {sum(k > 1.01 * a for a, k in zip(a_s, k_s))}")


if __name__ == "__main__":
    main()
