#!/usr/bin/env python3
"""Ground truth for the registers Triton 3.6 gives each partition of a warp-specialized kernel: the
`actualRegisters` that its TritonGPUAllocateWarpGroups pass (run alone on the parsed file, as
gen.py runs it for the start ids) sets from each op's `requestedRegisters`, for the kernels of this
folder with their requests replaced by the variants below (equal requests, different ones within
one 4-warp group, requests too large for the register file, and a module `ttg.maxnreg`).

usage (from the repository root): python3 tests/data/warp_groups/gen_registers.py
  writes tests/data/warp_groups/registers.json: per case, the file, the requests per op (in op
  order), the module's `ttg.maxnreg` if set, and per op Triton's `actualRegisters` (the default
  group's first, then one per partition, padding included), or null where the pass sets none.
  `synth/tests/warp_groups.rs` checks warpforge's reading of each partition's registers against
  them. Needs triton==3.6.0. A few seconds."""
import json, os, re, sys, tempfile

import triton
from triton._C.libtriton import ir, passes, nvidia, amd

HERE = os.path.dirname(os.path.abspath(__file__))

# (file, requests of each op (one list per op, in op order), ttg.maxnreg or None)
CASES = [
    ("ws3_w1_4_2_def4.ttgir", [[48, 48, 48]], None),
    ("ws3_w1_4_2_def4.ttgir", [[24, 40, 56]], None),
    ("ws3_w1_4_2_def4.ttgir", [[100, 24, 24]], None),
    ("ws3_w1_4_2_def4.ttgir", [[200, 200, 200]], None),
    ("ws3_w1_4_2_def4.ttgir", [[240, 232, 240]], None),
    ("ws3_w1_4_2_def4.ttgir", [[48, 48, 48]], 128),
    ("ws3_w1_4_2_def4.ttgir", [[48, 120, 64]], 96),
    ("ws2_w2_1_def8.ttgir", [[33, 71]], None),
    ("ws2_w2_1_def8.ttgir", [[160, 24]], None),
    ("ws2_w8_1_def4.ttgir", [[72, 152]], None),
    ("ws2_w4_4_def8.ttgir", [[24, 232]], None),
    ("ws2_w4_4_def8.ttgir", [[152, 152]], None),
    ("ws2_w4_4_def8.ttgir", [[240, 240]], None),
    ("ws2_w4_4_def8.ttgir", [[200, 48]], 64),
    ("ws4_w1_1_1_1_def4.ttgir", [[24, 56, 32, 40]], None),
    ("ws4_w1_2_1_2_def4.ttgir", [[64, 24, 88, 32]], None),
    ("ws3_w2_1_1_def16.ttgir", [[40, 48, 56]], None),
    ("ws3_w2_1_1_def16.ttgir", [[120, 48, 56]], None),
    ("ws_twice_w1_1_4_2_def4.ttgir", [[24, 64], [80, 40]], None),
    ("ws_twice_w1_1_4_2_def4.ttgir", [[48, 48], [48, 48]], None),
]


def variant(text, requests, maxnreg):
    """`text` with each op's requestedRegisters replaced by `requests` (in op order) and, with
    `maxnreg`, a module attribute `"ttg.maxnreg" = maxnreg`."""
    ops = iter(requests)
    text = re.sub(r"requestedRegisters = array<i32: [0-9, ]+>",
                  lambda m: "requestedRegisters = array<i32: %s>" % ", ".join(map(str, next(ops))), text)
    if maxnreg is not None:
        text = text.replace('module attributes {', 'module attributes {"ttg.maxnreg" = %d : i32, ' % maxnreg, 1)
    return text


def actual(text):
    """Per op, in op order, Triton's `actualRegisters` after its allocation pass, or None."""
    with tempfile.NamedTemporaryFile("w", suffix=".ttgir", delete=False) as f:
        f.write(text)
    try:
        ctx = ir.context()
        ir.load_dialects(ctx)
        nvidia.load_dialects(ctx)
        amd.load_dialects(ctx)
        m = ir.parse_mlir_module(f.name, ctx)
        m.context = ctx
        pm = ir.pass_manager(ctx)
        passes.ttgpuir.add_allocate_warp_groups(pm)
        pm.run(m, "allocate_warp_groups")
    finally:
        os.unlink(f.name)
    out = []
    for op in re.findall(r"ttg\.warp_specialize\(.*", str(m)):
        a = re.search(r"actualRegisters = array<i32: ([0-9, ]+)>", op)
        out.append([int(x) for x in a.group(1).split(",")] if a else None)
    return out


def main():
    assert triton.__version__.startswith("3.6"), triton.__version__
    rows = []
    for name, requests, maxnreg in CASES:
        text = variant(open(os.path.join(HERE, name)).read(), requests, maxnreg)
        rows.append({"file": name, "requests": requests, "maxnreg": maxnreg, "actual": actual(text)})
        print(rows[-1], flush=True)
    with open(os.path.join(HERE, "registers.json"), "w") as f:
        json.dump(rows, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    sys.exit(main())
