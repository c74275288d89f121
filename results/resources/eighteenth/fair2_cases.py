#!/usr/bin/env python3
"""Which cases of h2h work folders `h2h_fair2.patch` addresses through one pointer (no GPU).

`H2H_VAR=fair2` loads and stores the element loop's tile through `x + base + so` with immediate
register offsets only where the source layout's register offsets and lane/warp offsets touch
disjoint bits; the rows it writes do not say which cases those were. This prints, per work
folder, each case's id and name and `one-pointer` or `xor`, with the same test as the patch.

usage: fair2_cases.py H2H_PY WORK_DIR ...   (H2H_PY: h2h.py patched with h2h_fair2.patch)
"""
import json, os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../seventeenth"))
import local_probe as lp  # h2h_module

if len(sys.argv) < 3:
    sys.exit(__doc__)
h2h = lp.h2h_module(sys.argv[1])
for d in sys.argv[2:]:
    n = 0
    for c in json.load(open(os.path.join(d, "cases.json"))):
        reg, lane, warp = h2h["offsets"](c["src"], c["shape"])
        lw = rg = 0
        for v in lane + warp:
            lw |= v
        for v in reg:
            rg |= v
        one = (lw & rg) == 0
        n += one
        print(f"{os.path.basename(os.path.normpath(d))}\t{c['id']}\t{c['name']}\t{'one-pointer' if one else 'xor'}")
    print(f"# {d}: {n} one-pointer", file=sys.stderr)
