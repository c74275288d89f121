#!/usr/bin/env python3
"""Ground-truth linear layouts from Triton 3.6.0's own `to_linear_layout`, written to bases.jsonl.

What produced bases.jsonl
-------------------------
Triton 3.6.0 (the PyPI wheel; `triton.__version__ == "3.6.0"`, whose Python sources match
upstream main between e7fb8414217a and 4b184cccbb42, 2025-11-19..21). No GPU is used.

API. Gluon's `gl.to_linear_layout(layout, shape)` (triton.experimental.gluon.language) is
`GluonSemantic.to_linear_layout`, which calls the C++ binding
`triton._C.libtriton.gluon_ir.GluonOpBuilder.to_linear_layout(layout._to_ir(builder), shape)`
(TritonGPU's `toLinearLayout(shape, attr)`, turned back into a Gluon
`DistributedLinearLayout`). This script calls that binding directly, on a GluonOpBuilder
over a bare MLIR context with Triton's dialects loaded, for every layout - including
DistributedLinearLayout, for which the Python wrapper would return the layout unchanged
instead of asking Triton to fit it to `shape`. The attribute is made by the Gluon layout
classes' own `_to_ir(builder)` (builder.get_blocked_layout / get_slice_layout /
get_mma_layout / get_dot_operand_layout / get_distributed_linear_layout), and its text is
MLIR's printer: `str(builder.get_distributed_ty(f16, shape, attr))` is
`tensor<SHAPExf16, ATTR>`, and "attr" is that ATTR, nested layouts printed inline.

Each record:
  {"kind": "...", "attr": "#ttg....", "shape": [...], "num_warps": N,
   "bases": {"register": [[...]], "lane": [...], "warp": [...], "block": [...]},
   "out_dims": ["dim0", ...]}
"bases" are Triton's DistributedLinearLayout reg/lane/warp/block bases; each basis lists
the coordinate in every output dimension, dim0 first. num_warps is 2**len(warp) (the
warps the layout spans; for blocked/mma it is prod(warpsPerCTA)). "kind" is a short
category for filtering (not Triton's); "linear(resized)" marks a #ttg.linear used at a
shape other than the one its bases span (Triton's toLinearLayout fits it: bases past the
shape become 0, missing ones are added as registers). One CTA only (block = []), 32 lanes.

The sweep (deterministic: fixed lists, no randomness; records in generation order,
a repeated (attr, shape) kept once): blocked of rank 1, 2 and 3 (every layout Triton's
Gluon convert tests use, plus a grid of sizePerThread x threadsPerWarp x warpsPerCTA x
order) at shapes smaller than, equal to and larger than the layout's tile; slices (dim 0,
1, and 2 for rank-3 parents) of blocked, nvidia_mma v2/v3, dot_op and linear layouts,
including slices of tensors shorter than the parent's tile (shape [1], [2], ...);
nvidia_mma v2.0/v2.1 (2-D and the 3-D [1, 16, 8]) and v3 (instrShape N = 8..256,
K = 16/32; several warpsPerCTA) at shapes smaller/larger than the tile; dot_op of mma v2
(opIdx 0/1, kWidth 1, 2, 4, 8), of mma v3 (opIdx 0, kWidth 1, 2, 4, 8) and of 3-D mma;
a few dot_op of blocked (FMA operands); linear layouts (those of Triton's tests and a
fixed family of permuted / broadcasting / non-power-of-two ones) at their own shape and
at smaller and larger shapes (Triton fits them to the shape).

Triton aborts the process (a C++ assertion) on some layouts, so the layouts are computed in
a worker subprocess that is restarted after a crash; what Triton refused (Python exception
or abort) goes to bases_rejected.jsonl with its message, not to bases.jsonl.

Usage: python3 gen_bases.py [--out DIR]     (writes DIR/bases.jsonl, DIR/bases_rejected.jsonl)
About 10 s. This run: 1,944 candidates -> 1,901 records (after dedupe), 31 rejected by Triton:
plain nvidia_mma v3 of rank 3 and its slices (abort in nvidiaMmaTile: wgmma layouts are 2-D;
its dot_op, which test_convert2d_layouts uses, works), and #ttg.linear layouts that Triton
cannot fit to a smaller shape (non-power-of-two bases such as 96/24, or non-injective ones:
ensureLayoutNotLargerThan assertion / "Invalid basis ... must be less than the out-dim size"),
including slices of those. Multi-dimensional bases (a basis moving in two dims) are refused
by 3.6's #ttg.linear verifier, so the sweep has none.
"""

import argparse
import json
import os
import subprocess
import sys
import time

from triton.experimental.gluon import language as ttgl

BL = ttgl.BlockedLayout
SL = ttgl.SliceLayout
NV = ttgl.NVMMADistributedLayout
DOT = ttgl.DotOperandLayout
LIN = ttgl.DistributedLinearLayout

MAX_ELEMS = 1 << 16  # largest tensor in the sweep (elements)


def p2(x):
    return x >= 1 and (x & (x - 1)) == 0


def uniq(xs):
    out = []
    for x in xs:
        if x not in out:
            out.append(x)
    return out


def shapes_around(tile, extra=()):
    """Shapes smaller than, equal to and larger than `tile` (per dimension and mixed)."""
    r = len(tile)
    cands = [
        [max(1, t // 4) for t in tile],
        list(tile),
        [t * 2 for t in tile],
        [1] * r,
    ]
    if r >= 2:
        cands.append([max(1, tile[0] // 2)] + [t * 4 for t in tile[1:]])
        cands.append([tile[0] * 4] + [max(1, t // 2) for t in tile[1:]])
    cands += [list(e) for e in extra]
    return uniq([c for c in cands if all(p2(x) for x in c) and _prod(c) <= MAX_ELEMS])


def _prod(xs):
    out = 1
    for x in xs:
        out *= x
    return out


def blocked_tile(L):
    return [s * t * w for s, t, w in zip(L.size_per_thread, L.threads_per_warp, L.warps_per_cta)]


# ---------------------------------------------------------------------------
# The sweep: a list of (kind, gluon layout, shape)
# ---------------------------------------------------------------------------


def candidates():
    C = []

    def add(kind, L, shapes):
        for s in shapes:
            C.append((kind, L, list(s)))

    # --- blocked, rank 1 -------------------------------------------------
    for spt in [1, 2, 4, 8]:
        for w in [1, 2, 4, 8]:
            L = BL([spt], [32], [w], [0])
            add("blocked1d", L, shapes_around(blocked_tile(L), extra=[[2], [4096]]))

    # --- blocked, rank 2: the layouts of Triton's Gluon convert tests ------
    test_2d = [
        BL([1, 4], [1, 32], [4, 1], [1, 0]),
        BL([1, 4], [1, 32], [2, 2], [1, 0]),
        BL([1, 1], [32, 1], [2, 2], [0, 1]),
        BL([1, 16], [8, 4], [4, 1], [1, 0]),
        BL([1, 4], [4, 8], [4, 1], [0, 1]),
        BL([1, 4], [8, 4], [4, 1], [0, 1]),
        BL([4, 1], [4, 8], [1, 4], [0, 1]),
        BL([2, 2], [4, 8], [2, 2], [0, 1]),
        BL([2, 2], [8, 4], [2, 2], [1, 0]),
        BL([1, 2], [1, 32], [1, 4], [1, 0]),
        BL([2, 4], [16, 2], [2, 2], [1, 0]),
        BL([2, 4], [16, 2], [1, 2], [1, 0]),
    ]
    tpws = [[32, 1], [16, 2], [8, 4], [4, 8], [2, 16], [1, 32]]
    for spt in [[1, 1], [1, 4], [32, 1], [16, 1]]:  # _warp_local_layouts (1 warp)
        for tpw in tpws:
            if spt[0] > 1 and tpw[0] > 2:
                continue
            test_2d.append(BL(spt, tpw, [1, 1], [1, 0]))
    for L in test_2d:
        add("blocked2d", L, shapes_around(blocked_tile(L), extra=[[64, 1], [1, 64], [64, 64], [64, 128]]))

    # --- blocked, rank 2: a grid -------------------------------------------
    spts = [[1, 1], [1, 4], [4, 1], [2, 2], [1, 8], [8, 1]]
    wpcs = [[1, 1], [4, 1], [1, 4], [2, 2], [8, 1], [2, 4], [1, 8], [4, 4]]
    orders = [[1, 0], [0, 1]]
    for i, spt in enumerate(spts):
        for j, tpw in enumerate(tpws):
            L = BL(spt, tpw, wpcs[(i + 2 * j) % len(wpcs)], orders[(i + j) % 2])
            add("blocked2d", L, shapes_around(blocked_tile(L))[:4])

    # --- blocked, rank 3 ---------------------------------------------------
    test_3d = [
        BL([1, 1, 4], [1, 4, 8], [2, 2, 1], [2, 1, 0]),
        BL([1, 1, 4], [2, 2, 8], [1, 1, 4], [2, 1, 0]),
        BL([1, 4, 1], [1, 8, 4], [1, 1, 4], [2, 0, 1]),
        BL([1, 4, 1], [1, 8, 4], [1, 4, 1], [2, 1, 0]),
        BL([2, 1, 2], [4, 4, 2], [4, 1, 1], [0, 1, 2]),
        BL([1, 2, 2], [8, 2, 2], [1, 2, 2], [1, 2, 0]),
        BL([4, 1, 1], [1, 1, 32], [1, 4, 2], [0, 2, 1]),
        BL([1, 1, 1], [32, 1, 1], [1, 1, 1], [2, 1, 0]),
    ]
    for L in test_3d:
        add("blocked3d", L, shapes_around(blocked_tile(L), extra=[[2, 16, 32], [1, 64, 64], [8, 8, 8]]))

    # --- slices of blocked ---------------------------------------------------
    short = [[1], [2], [4], [16], [64], [256], [1024]]
    for L in test_2d[:10] + [BL([4, 4], [2, 16], [2, 4], [0, 1]), BL([8, 1], [4, 8], [1, 8], [1, 0])]:
        for d in [0, 1]:
            add("slice(blocked)", SL(d, L), short)
    for L in test_3d:
        for d in [0, 1, 2]:
            add("slice(blocked3d)", SL(d, L), [[1, 1], [2, 2], [1, 64], [64, 2], [32, 64]])

    # --- nvidia_mma v2 -------------------------------------------------------
    mma_shapes = [[1, 1], [16, 8], [1, 64], [64, 1], [16, 16], [2, 64], [64, 64], [128, 128], [256, 256], [32, 256]]
    v2 = []
    for wpc in [[1, 1], [4, 1], [1, 4], [2, 2], [2, 8], [8, 2], [4, 2], [2, 4], [8, 1], [1, 8]]:
        v2.append(NV(version=[2, 0], warps_per_cta=wpc, instr_shape=[16, 8]))
    for L in v2:
        add("mma_v2", L, mma_shapes)
    for wpc in [[4, 1], [1, 4], [2, 8], [8, 2]]:
        add("mma_v2.1", NV(version=[2, 1], warps_per_cta=wpc, instr_shape=[16, 8]), [[16, 16], [64, 64], [1, 64], [256, 256]])
    mma2_3d = [NV(version=[2, 0], warps_per_cta=[4, 1, 1], instr_shape=[1, 16, 8]),
               NV(version=[2, 0], warps_per_cta=[2, 2, 1], instr_shape=[1, 16, 8]),
               NV(version=[2, 0], warps_per_cta=[1, 2, 2], instr_shape=[1, 16, 8])]
    for L in mma2_3d:
        add("mma_v2_3d", L, [[1, 16, 8], [2, 64, 64], [4, 32, 32], [1, 1, 64], [8, 16, 16]])

    # --- nvidia_mma v3 -------------------------------------------------------
    v3 = []
    for instr in [[16, 8, 16], [16, 16, 16], [16, 32, 16], [16, 64, 16], [16, 128, 16], [16, 256, 16],
                  [16, 32, 32], [16, 64, 32]]:
        for wpc in [[4, 1], [8, 1], [4, 2], [16, 1], [8, 2], [1, 4], [2, 8]]:
            v3.append(NV(version=[3, 0], warps_per_cta=wpc, instr_shape=instr))
    for k, L in enumerate(v3):
        n = L.instr_shape[1]
        tile = [16 * L.warps_per_cta[0], n * L.warps_per_cta[1]]
        shapes = uniq([tile, [64, n], [max(16, tile[0] // 2), max(8, n // 2)], [tile[0] * 2, tile[1] * 2],
                       [[1, 64], [64, 1], [16, 16], [128, 256]][k % 4]])
        add("mma_v3", L, [s for s in shapes if _prod(s) <= MAX_ELEMS])
    mma3_3d = NV(version=[3, 0], warps_per_cta=[4, 1, 1], instr_shape=[16, 32, 16])
    add("mma_v3_3d", mma3_3d, [[64, 1, 32], [64, 2, 64], [16, 1, 16], [128, 1, 128]])

    # --- dot_op of mma v2 ----------------------------------------------------
    v2_par = [NV(version=[2, 0], warps_per_cta=w, instr_shape=[16, 8]) for w in [[4, 1], [2, 2], [1, 4], [8, 2], [1, 1]]]
    for par in v2_par:
        for op in [0, 1]:
            for kw in [1, 2, 4, 8]:
                add("dot_op(mma_v2)", DOT(operand_index=op, parent=par, k_width=kw),
                    [[16, 16], [64, 64], [128, 32] if op == 0 else [32, 128], [1, 64], [64, 1]][:3 if par.warps_per_cta != [4, 1] else 5])
    add("dot_op(mma_v2.1)", DOT(operand_index=0, parent=NV(version=[2, 1], warps_per_cta=[4, 1], instr_shape=[16, 8]),
                                k_width=2), [[64, 64], [16, 16]])
    for par in mma2_3d[:2]:
        for op in [0, 1]:
            add("dot_op(mma_v2_3d)", DOT(operand_index=op, parent=par, k_width=2), [[1, 16, 16], [2, 64, 64], [4, 32, 32]])

    # --- dot_op of mma v3 (only opIdx 0 is a register operand) ---------------
    v3_par = [NV(version=[3, 0], warps_per_cta=w, instr_shape=i)
              for w, i in [([4, 1], [16, 32, 16]), ([8, 1], [16, 128, 16]), ([4, 2], [16, 64, 16]), ([16, 1], [16, 256, 16]),
                           ([4, 1], [16, 64, 32])]]
    for par in v3_par:
        for kw in [1, 2, 4, 8]:
            m = 16 * par.warps_per_cta[0]
            add("dot_op(mma_v3)", DOT(operand_index=0, parent=par, k_width=kw), [[m, 64], [m * 2, 128], [m, 16], [16, 16]])
    add("dot_op(mma_v3_3d)", DOT(operand_index=0, parent=mma3_3d, k_width=2), [[64, 1, 32], [64, 2, 64], [16, 1, 16]])

    # --- dot_op of blocked (FMA operands) ------------------------------------
    for par in [BL([1, 4], [8, 4], [4, 1], [1, 0]), BL([2, 2], [4, 8], [2, 2], [0, 1])]:
        for op in [0, 1]:
            add("dot_op(blocked)", DOT(operand_index=op, parent=par, k_width=0), [[64, 64], [16, 32], [1, 64]])

    # --- slices of mma / dot_op ----------------------------------------------
    short_mma = [[1], [2], [4], [8], [16], [64], [256]]
    for par in [v2[1], v2[3], v2[2], v2[4], NV(version=[2, 1], warps_per_cta=[4, 1], instr_shape=[16, 8]),
                v3[2 * 7 + 0], v3[4 * 7 + 1], v3[3 * 7 + 2], v3[2 * 7 + 5]]:
        for d in [0, 1]:
            add("slice(mma)", SL(d, par), short_mma)
    for par in [DOT(operand_index=0, parent=v2_par[1], k_width=2), DOT(operand_index=1, parent=v2_par[0], k_width=2),
                DOT(operand_index=0, parent=v2_par[0], k_width=8), DOT(operand_index=1, parent=v2_par[0], k_width=4),
                DOT(operand_index=0, parent=v3_par[0], k_width=2), DOT(operand_index=0, parent=v3_par[1], k_width=1)]:
        for d in [0, 1]:
            add("slice(dot_op)", SL(d, par), short_mma)
    for par in [DOT(operand_index=0, parent=mma3_3d, k_width=2), DOT(operand_index=1, parent=mma2_3d[0], k_width=2),
                DOT(operand_index=0, parent=mma2_3d[0], k_width=2)]:
        for d in [0, 1, 2]:
            add("slice(dot_op3d)", SL(d, par), [[1, 64], [64, 1], [2, 2], [64, 64], [64, 128], [16, 16]])
    for par in mma2_3d[:1] + [mma3_3d]:
        for d in [0, 1, 2]:
            add("slice(mma3d)", SL(d, par), [[1, 1], [2, 64], [64, 64], [16, 8]])

    # --- linear --------------------------------------------------------------
    lin = [
        # Triton tests (test_lowerings reduce/histogram, the warp-shuffle regression)
        LIN(reg_bases=[[0, 16], [1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], lane_bases=[[0, 0], [0, 1], [0, 2], [0, 4], [0, 8]],
            warp_bases=[[32, 0], [0, 32]], block_bases=[], shape=[64, 64]),
        LIN(reg_bases=[], lane_bases=[[0], [16], [4], [2], [1]], warp_bases=[[0], [8]], block_bases=[], shape=[32]),
        LIN(reg_bases=[[32], [64], [128]], lane_bases=[[0], [16], [4], [2], [1]], warp_bases=[[0], [8]], block_bases=[],
            shape=[256]),
        LIN(reg_bases=[[0, 1], [0, 2], [0, 4]], lane_bases=[[1, 0], [0, 0], [0, 0], [0, 0], [0, 0]], warp_bases=[],
            block_bases=[], shape=[2, 8]),
        LIN(reg_bases=[[1, 0], [0, 4]], lane_bases=[[0, 0], [0, 0], [0, 1], [0, 2], [0, 0]], warp_bases=[], block_bases=[],
            shape=[2, 8]),
        # non-injective / non-power-of-two 1-D (later Triton tests; 3.6 accepts them)
        LIN(reg_bases=[[1], [2]], lane_bases=[[4], [8], [16], [32], [64]], warp_bases=[[64], [128]], block_bases=[], shape=[256]),
        LIN(reg_bases=[[1], [2], [4]], lane_bases=[[8], [16], [32], [64], [128]], warp_bases=[[4], [256]], block_bases=[],
            shape=[512]),
        LIN(reg_bases=[[1], [2]], lane_bases=[[4], [8], [16], [32], [64]], warp_bases=[[96], [128]], block_bases=[], shape=[256]),
        LIN(reg_bases=[[0, 1], [0, 2], [0, 4], [0, 16], [32, 0]], lane_bases=[[1, 0], [2, 0], [4, 0], [8, 0], [0, 8]],
            warp_bases=[[32, 0], [16, 0]], block_bases=[], shape=[64, 32]),
        LIN(reg_bases=[[1, 0], [0, 1]], lane_bases=[[2, 0], [4, 0], [8, 0], [0, 2], [0, 4]], warp_bases=[[24, 0], [0, 8]],
            block_bases=[], shape=[32, 16]),
        LIN(reg_bases=[[1, 0], [0, 0], [0, 1]], lane_bases=[[2, 0], [4, 0], [8, 0], [0, 2], [0, 4]], warp_bases=[[16, 0], [0, 8]],
            block_bases=[], shape=[32, 16]),
        # permuted transposes / broadcasts
        LIN(reg_bases=[[1, 0], [2, 0], [4, 0], [8, 0]], lane_bases=[[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]],
            warp_bases=[[16, 0], [32, 0]], block_bases=[], shape=[64, 32]),
        LIN(reg_bases=[[0, 8], [0, 1]], lane_bases=[[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp_bases=[[8, 0], [0, 16]],
            block_bases=[], shape=[16, 32]),
        LIN(reg_bases=[[0, 0], [0, 1]], lane_bases=[[1, 0], [2, 0], [0, 0], [4, 0], [8, 0]], warp_bases=[[0, 0]],
            block_bases=[], shape=[16, 2]),
        LIN(reg_bases=[[1], [32], [2]], lane_bases=[[4], [8], [16], [64], [128]], warp_bases=[[256], [512]], block_bases=[],
            shape=[1024]),
        LIN(reg_bases=[[0, 0, 1], [0, 1, 0]], lane_bases=[[0, 0, 2], [0, 0, 4], [0, 2, 0], [1, 0, 0], [2, 0, 0]],
            warp_bases=[[0, 4, 0], [4, 0, 0]], block_bases=[], shape=[8, 8, 8]),
        LIN(reg_bases=[[0, 0, 1]], lane_bases=[[0, 1, 0], [0, 2, 0], [1, 0, 0], [0, 0, 2], [0, 0, 0]], warp_bases=[[2, 0, 0]],
            block_bases=[], shape=[4, 4, 4]),
    ]
    for L in lin:
        s = list(L.shape)
        smaller = [max(1, x // 2) for x in s]
        larger = [x * 2 for x in s]
        add("linear", L, [s])
        add("linear(resized)", L, uniq([smaller, larger]))
    for L in lin:
        r = len(L.shape)
        if r == 1:
            continue
        for d in range(r):
            rest = [x for i, x in enumerate(L.shape) if i != d]
            add("slice(linear)", SL(d, L), uniq([rest, [1] * (r - 1), [2] + rest[1:], [x * 2 for x in rest]]))
    return C


# ---------------------------------------------------------------------------
# Worker: Triton on each candidate, one JSON line each
# ---------------------------------------------------------------------------


def worker(start):
    from triton._C.libtriton import ir, gluon_ir
    ctx = ir.context()
    ir.load_dialects(ctx)
    b = gluon_ir.GluonOpBuilder(ctx)
    f16 = b.get_half_ty()
    C = candidates()
    out = sys.stdout
    for i in range(start, len(C)):
        kind, L, shape = C[i]
        out.write(json.dumps({"i": i, "start": True}) + "\n")
        out.flush()
        try:
            attr = L._to_ir(b)
            ty = str(b.get_distributed_ty(f16, shape, attr))
            ll = b.to_linear_layout(attr, shape)
            head = "tensor<%sxf16, " % "x".join(str(x) for x in shape)
            assert ty.startswith(head) and ty.endswith(">"), ty
            rec = {
                "kind": kind,
                "attr": ty[len(head):-1],
                "shape": shape,
                "num_warps": 1 << len(ll.warp_bases),
                "bases": {
                    "register": ll.reg_bases,
                    "lane": ll.lane_bases,
                    "warp": ll.warp_bases,
                    "block": ll.block_bases,
                },
                "out_dims": ["dim%d" % d for d in range(len(shape))],
            }
            assert list(ll.shape) == shape, (ll.shape, shape)
            out.write(json.dumps({"i": i, "rec": rec}) + "\n")
        except Exception as e:
            out.write(json.dumps({"i": i, "err": "%s: %s" % (type(e).__name__, str(e).strip())}) + "\n")
        out.flush()
    out.write(json.dumps({"done": True}) + "\n")
    out.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--worker", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker is not None:
        worker(args.worker)
        return

    import triton
    assert triton.__version__ == "3.6.0", "written for Triton 3.6.0, found " + triton.__version__
    t0 = time.time()
    C = candidates()
    results = {}
    rejected = []
    start, restarts = 0, 0
    while start < len(C):
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", str(start)], capture_output=True,
                           text=True)
        last_started, done = None, False
        for line in p.stdout.splitlines():
            m = json.loads(line)
            if m.get("done"):
                done = True
            elif m.get("start"):
                last_started = m["i"]
            elif "rec" in m:
                results[m["i"]] = m["rec"]
            else:
                kind, L, shape = C[m["i"]]
                rejected.append({"kind": kind, "layout": repr(L), "shape": shape, "error": m["err"]})
        if done:
            break
        # the worker died inside Triton on candidate `last_started`
        assert last_started is not None, p.stderr[-2000:]
        kind, L, shape = C[last_started]
        msg = " | ".join(l.strip() for l in p.stderr.strip().splitlines()[-3:])
        rejected.append({"kind": kind, "layout": repr(L), "shape": shape,
                         "error": "process aborted (rc %d): %s" % (p.returncode, msg)})
        start = last_started + 1
        restarts += 1

    seen = set()
    recs = []
    for i in range(len(C)):
        r = results.get(i)
        if r is None:
            continue
        key = (r["attr"], tuple(r["shape"]))
        if key in seen:
            continue
        seen.add(key)
        recs.append(r)
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "bases.jsonl")
    with open(path, "w") as f:
        for r in recs:
            f.write(json.dumps(r, separators=(", ", ": ")) + "\n")
    rpath = os.path.join(args.out, "bases_rejected.jsonl")
    with open(rpath, "w") as f:
        for r in rejected:
            f.write(json.dumps(r) + "\n")
    kinds = {}
    for r in recs:
        kinds[r["kind"]] = kinds.get(r["kind"], 0) + 1
    print("candidates %d, records %d (after dedupe), rejected %d, worker restarts %d, %.1f s" %
          (len(C), len(recs), len(rejected), restarts, time.time() - t0))
    for k in sorted(kinds):
        print("  %-20s %d" % (k, kinds[k]))
    print("wrote %s (%d bytes), %s" % (path, os.path.getsize(path), rpath))


if __name__ == "__main__":
    main()
