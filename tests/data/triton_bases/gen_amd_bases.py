#!/usr/bin/env python3
"""Ground-truth linear layouts of AMD encodings from Triton 3.6.0's `to_linear_layout`, written to amd_bases.jsonl.

What produced amd_bases.jsonl
-----------------------------
Triton 3.6.0 (the PyPI wheel, as for bases.jsonl; see gen_bases.py). No GPU is used.

API. Same as gen_bases.py: a `triton._C.libtriton.gluon_ir.GluonOpBuilder` over a bare MLIR
context with Triton's dialects loaded; the attribute is built by the builder's `get_*_layout`
methods, its text is MLIR's printer (`str(builder.get_distributed_ty(f16, shape, attr))` is
`tensor<SHAPExf16, ATTR>`, "attr" is that ATTR with nested layouts inline), and the bases are
`builder.to_linear_layout(attr, shape)` (TritonGPU's `toLinearLayout(shape, attr)`).
The AMD attributes are made exactly as Gluon's `AMDMFMALayout._to_ir` / `AMDWMMALayout._to_ir`
(triton/experimental/gluon/language/amd/_layouts.py) make them:
  builder.get_amd_mfma_layout(version, warpsPerCTA, instrShape [M, N, K], isTransposed,
                              cga_layout=[], tilesPerWarp, elementBitWidth)
  builder.get_amd_wmma_layout(version, isTransposed, warpsPerCTA, tilesPerWarp,
                              cga_layout=[], instrShape [M, N, K])
but by the thin classes MFMA / WMMA below, which skip the Gluon classes' Python `verify()`
(so that Triton's C++ attribute verifier, not the Python wrapper, decides what is refused).
dot_op, slice and blocked layouts use Gluon's own DotOperandLayout / SliceLayout /
BlockedLayout classes (whose `_to_ir` forwards to get_dot_operand_layout / get_slice_layout /
get_blocked_layout).

Printed forms (defaults are elided by the printer): MFMA prints
`#ttg.amd_mfma<{version = V, warpsPerCTA = [..], instrShape = [M, N, K], isTransposed = B}>`
plus `, tilesPerWarp = [..]` when not all 1 and `, elementBitWidth = 64` when not 32 (in
that order); WMMA prints `#ttg.amd_wmma<{version = V, isTranspose = B, warpsPerCTA = [..]}>`
(note "isTranspose") plus `, tilesPerWarp = [..]` when not all 1 and `, instrShape = [..]`
when not [16, 16, 16]; dot_op prints `#ttg.dot_op<{opIdx = I, parent = PARENT, kWidth = W}>`.

Each record is as in bases.jsonl, plus "lanes":
  {"kind": "...", "attr": "#ttg....", "shape": [...], "num_warps": N, "lanes": 64|32,
   "bases": {"register": [[...]], "lane": [...], "warp": [...], "block": []},
   "out_dims": ["dim0", ...]}
"lanes" is the threads per warp, 2**len(bases.lane): 64 for MFMA (CDNA wave64) and its
dot_op / slices, 32 for WMMA (RDNA wave32), threadsPerWarp's product for blocked.
num_warps is 2**len(bases.warp). One CTA only (cga_layout = [], block = []).

The sweep (deterministic: fixed lists, no randomness; records in generation order, a
repeated (attr, shape) kept once):
- amd_mfma versions 1..4 with instrShape M x N of 32x32, 16x16, 64x4, 4x64 (the ones the
  verifier accepts) and per version the K values of that architecture's MFMA intrinsics
  (Triton's verifier does not check K; K does not change the result layout, it does change
  the dot_op layouts; extra K values are swept at the tile shape only); isTransposed
  false/true (64x4 only transposed: toLinearLayout asserts "64x4 mfma must be transposed",
  recorded once per version); warpsPerCTA [1,1], [2,2], [4,1], [1,4], [8,1] (not [8,1] for
  64x4 / 4x64); elementBitWidth 32/64 and tilesPerWarp [1,1]/[2,2]/[2,1]/[1,2] on a subset; a few
  rank-3 ones (warpsPerCTA [1,2,2], [2,2,1], [4,1,1]); a few refused on purpose (4x4, 8x8,
  elementBitWidth 16, version 5) to record the verifier's messages.
  Shapes smaller than, equal to and larger than the layout's tile M*tpw0*w0 x N*tpw1*w1.
- amd_wmma versions 1, 2, 3 with instrShape 16x16xK (K = 16 for v1/v2, 32/64/128 for v3,
  plus a few refused ones), isTransposed both, warpsPerCTA [1,1], [2,2], [4,1], [1,4], [2,4],
  tilesPerWarp [1,1]/[2,2] on a subset, and rank 3 ([2,2,1], [1,2,2]).
- dot_op of amd_mfma (opIdx 0/1, kWidth 1, 2, 4, 8, 16, and 32 for v4; every instrShape
  with its main K and the large-K v4 ones; Triton checks no kWidth for MFMA parents, but
  a non-power-of-two one aborts in toLinearLayout) and of amd_wmma (opIdx 0/1,
  kWidth 2, 4, 8, 16), at [M-tile x K] / [K x N-tile] shapes around the tile.
- slices (dim 0 and 1) of amd_mfma, of its dot_op, and of amd_wmma; dim 0..2 of rank-3 mfma.
- blocked layouts with threadsPerWarp products 64 ([8,8], [4,16], [16,4], [2,32], [32,2],
  [1,64], [64,1], and rank 1 [64] / rank 3 [2,4,8]) and 32 ([4,8], [8,4], [1,32], [32,1]).

Triton aborts the process (a C++ assertion: an attribute whose verifier fails aborts in
`get`, a layout `toLinearLayout` cannot handle aborts there) on some candidates, so the
layouts are computed in a worker subprocess that is restarted after a crash; what Triton
refused (Python exception or abort; the message is the "error:" diagnostic line and/or the
failed assertion) goes to amd_bases_rejected.jsonl, not to amd_bases.jsonl.

Usage: python3 gen_amd_bases.py [--out DIR]  (writes DIR/amd_bases.jsonl, DIR/amd_bases_rejected.jsonl)
About 35 s (mostly worker restarts after aborts). This run: 3,072 candidates -> 2,862 records
(after dedupe), 210 rejected by Triton, 144 worker restarts. Records per kind: amd_mfma 908,
amd_mfma(ebw64) 126, amd_mfma(tilesPerWarp) 180, amd_mfma3d 96, amd_wmma 146,
amd_wmma(tilesPerWarp) 90, amd_wmma3d 24, dot_op(amd_mfma) 644, dot_op(amd_mfma3d) 24,
dot_op(amd_wmma) 150, slice(amd_mfma) 120, slice(amd_mfma3d) 36, slice(dot_op(amd_mfma)) 72,
slice(amd_wmma) 18, blocked1d(64) 24, blocked2d(64) 140, blocked3d(64) 8, blocked2d(32) 36,
slice(blocked64) 20. Rejected: 128 WMMA (and its slices / rank-3 / tilesPerWarp) at a shape
smaller than the instruction in a dimension that is not 1 (LinearLayoutConversions.cpp
assertion "Unsupported tensor shape for given wmma layout": each dim must be 1 or >= 16);
66 WMMA dot_op kWidth ("kWidth parameter must be 8/16 for WMMA v1", "4/8/16 for WMMA v2",
"2/8/16 for WMMA v3"); 4 MFMA 64x4 non-transposed ("64x4 mfma must be transposed", in
toLinearLayout); MFMA dot_op kWidth 3 (isPowerOf2 assertion); and the verifier messages of
the on-purpose ones ("invalid (mDim, nDim) combination: (4, 4)", "elementBitWidth must be
32 or 64", "version must be in the [0, 4] range" - so version 0 is accepted too, "invalid
WMMA vN instruction shape" - v1/v2 take only 16x16x16, v3 only 16x16x{32,64,128} here,
"WMMA version must be in the [1, 3] range").
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ next to the data
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_bases import uniq, p2, _prod  # noqa: E402  (shared helpers, no side effects)

from triton.experimental.gluon import language as ttgl  # noqa: E402

BL = ttgl.BlockedLayout
SL = ttgl.SliceLayout
DOT = ttgl.DotOperandLayout

MAX_ELEMS = 1 << 16  # largest tensor in the sweep (elements)


class MFMA:
    """Gluon's AMDMFMALayout without its Python verify(); same builder call as its _to_ir."""

    def __init__(self, version, instr_shape, transposed, warps_per_cta, element_bitwidth=32, tiles_per_warp=None):
        self.version = version
        self.instr_shape = list(instr_shape)
        self.transposed = transposed
        self.warps_per_cta = list(warps_per_cta)
        self.element_bitwidth = element_bitwidth
        self.tiles_per_warp = list(tiles_per_warp) if tiles_per_warp else [1] * len(warps_per_cta)

    @property
    def rank(self):
        return len(self.warps_per_cta)

    def tile(self):
        m, n = self.instr_shape[0], self.instr_shape[1]
        t = [m * self.tiles_per_warp[-2] * self.warps_per_cta[-2], n * self.tiles_per_warp[-1] * self.warps_per_cta[-1]]
        return [self.warps_per_cta[0] * self.tiles_per_warp[0]] + t if self.rank == 3 else t

    def _to_ir(self, builder):
        return builder.get_amd_mfma_layout(self.version, self.warps_per_cta, self.instr_shape, self.transposed, [],
                                           self.tiles_per_warp, self.element_bitwidth)

    def __repr__(self):
        return ("AMDMFMALayout(version=%d, instr_shape=%s, transposed=%s, warps_per_cta=%s, element_bitwidth=%d, "
                "tiles_per_warp=%s)" % (self.version, self.instr_shape, self.transposed, self.warps_per_cta,
                                        self.element_bitwidth, self.tiles_per_warp))


class WMMA:
    """Gluon's AMDWMMALayout without its Python verify(); same builder call as its _to_ir."""

    def __init__(self, version, transposed, warps_per_cta, instr_shape=(16, 16, 16), tiles_per_warp=None):
        self.version = version
        self.transposed = transposed
        self.warps_per_cta = list(warps_per_cta)
        self.instr_shape = list(instr_shape)
        self.tiles_per_warp = list(tiles_per_warp) if tiles_per_warp else [1] * len(warps_per_cta)

    @property
    def rank(self):
        return len(self.warps_per_cta)

    def tile(self):
        m, n = self.instr_shape[0], self.instr_shape[1]
        t = [m * self.tiles_per_warp[-2] * self.warps_per_cta[-2], n * self.tiles_per_warp[-1] * self.warps_per_cta[-1]]
        return [self.warps_per_cta[0] * self.tiles_per_warp[0]] + t if self.rank == 3 else t

    def _to_ir(self, builder):
        return builder.get_amd_wmma_layout(self.version, self.transposed, self.warps_per_cta, self.tiles_per_warp, [],
                                           self.instr_shape)

    def __repr__(self):
        return "AMDWMMALayout(version=%d, transposed=%s, warps_per_cta=%s, instr_shape=%s, tiles_per_warp=%s)" % (
            self.version, self.transposed, self.warps_per_cta, self.instr_shape, self.tiles_per_warp)


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
        cands.append([max(1, tile[-2] // 2) if i == r - 2 else (t * 4 if i == r - 1 else t) for i, t in enumerate(tile)])
        cands.append([tile[-2] * 4 if i == r - 2 else (max(1, t // 2) if i == r - 1 else t) for i, t in enumerate(tile)])
    cands += [list(e) for e in extra]
    return uniq([c for c in cands if all(p2(x) for x in c) and _prod(c) <= MAX_ELEMS])


def blocked_tile(L):
    return [s * t * w for s, t, w in zip(L.size_per_thread, L.threads_per_warp, L.warps_per_cta)]


# K values of each CDNA generation's MFMA intrinsics, per (M, N) (Triton's MfmaGroup table, roughly:
# f32 / xf32 / f16 / bf16 / bf16_1k / i8 / fp8 / f8f6f4). The verifier does not check K.
MFMA_INSTR = {
    1: [[32, 32, 2], [32, 32, 4], [32, 32, 8], [16, 16, 4], [16, 16, 8], [16, 16, 16], [64, 4, 4], [4, 64, 4]],
    2: [[32, 32, 2], [32, 32, 8], [16, 16, 4], [16, 16, 16], [64, 4, 4], [4, 64, 4]],
    3: [[32, 32, 4], [32, 32, 8], [32, 32, 16], [16, 16, 8], [16, 16, 16], [16, 16, 32], [64, 4, 4], [4, 64, 4]],
    4: [[32, 32, 8], [32, 32, 16], [32, 32, 64], [16, 16, 16], [16, 16, 32], [16, 16, 128], [64, 4, 4], [4, 64, 4]],
}
MAIN_K = {(1, 32): 8, (2, 32): 8, (3, 32): 8, (4, 32): 16, (1, 16): 16, (2, 16): 16, (3, 16): 16, (4, 16): 32}
WPCS = [[1, 1], [2, 2], [4, 1], [1, 4], [8, 1]]


# ---------------------------------------------------------------------------
# The sweep: a list of (kind, layout, shape)
# ---------------------------------------------------------------------------


def candidates():
    C = []

    def add(kind, L, shapes):
        for s in shapes:
            C.append((kind, L, list(s)))

    # --- amd_mfma, rank 2 -----------------------------------------------------
    mfma_all = []
    for v in [1, 2, 3, 4]:
        for ins in MFMA_INSTR[v]:
            for tr in [False, True]:
                for wi, wpc in enumerate(WPCS):
                    L = MFMA(v, ins, tr, wpc)
                    mfma_all.append(L)
                    shapes = shapes_around(L.tile())
                    # a K variant changes nothing in the result layout: fewer shapes for the extra K values
                    if ins[0] in (4, 64) and wpc == [8, 1]:
                        continue
                    if ins[0] == 64 and not tr:  # toLinearLayout asserts "64x4 mfma must be transposed"
                        add("amd_mfma", L, shapes[1:2] if wi == 0 else [])
                    elif ins[2] == MAIN_K.get((v, ins[0]), ins[2]):
                        add("amd_mfma", L, shapes)
                    else:  # another K: the same result layout, so the tile shape only
                        add("amd_mfma", L, shapes[1:2])
    # elementBitWidth 64 and tilesPerWarp
    for v, ins in [(3, [32, 32, 8]), (3, [16, 16, 16]), (4, [16, 16, 32]), (4, [32, 32, 16]), (2, [32, 32, 8])]:
        for tr in [False, True]:
            for wpc in [[1, 1], [2, 2], [4, 1]]:
                add("amd_mfma(ebw64)", MFMA(v, ins, tr, wpc, element_bitwidth=64), shapes_around(MFMA(v, ins, tr, wpc).tile())[:4])
                if wpc == [4, 1]:
                    continue
                for tpw in [[2, 2], [2, 1], [1, 2]]:
                    L = MFMA(v, ins, tr, wpc, tiles_per_warp=tpw)
                    add("amd_mfma(tilesPerWarp)", L, shapes_around(L.tile())[:3])
    for v, ins in [(3, [16, 16, 16]), (4, [32, 32, 16])]:
        L = MFMA(v, ins, True, [2, 2], element_bitwidth=64, tiles_per_warp=[2, 2])
        add("amd_mfma(ebw64)", L, shapes_around(L.tile())[:3])
    # refused on purpose (to record the verifier's messages)
    for L in [MFMA(3, [4, 4, 4], False, [1, 1]), MFMA(3, [8, 8, 8], False, [1, 1]), MFMA(3, [32, 16, 8], False, [1, 1]),
              MFMA(3, [32, 32, 8], False, [1, 1], element_bitwidth=16), MFMA(5, [32, 32, 8], False, [1, 1])]:
        add("amd_mfma", L, [[64, 64]])

    # --- amd_mfma, rank 3 -----------------------------------------------------
    mfma3d = []
    for v, ins in [(3, [32, 32, 8]), (3, [16, 16, 16]), (4, [16, 16, 32]), (2, [32, 32, 8])]:
        for tr in [False, True]:
            for wpc in [[1, 2, 2], [2, 2, 1], [4, 1, 1]]:
                L = MFMA(v, ins, tr, wpc)
                mfma3d.append(L)
                add("amd_mfma3d", L, shapes_around(L.tile(), extra=[[2, 64, 64]])[:4])

    # --- amd_wmma -------------------------------------------------------------
    wmma_instr = {1: [[16, 16, 16]], 2: [[16, 16, 16]], 3: [[16, 16, 32], [16, 16, 64], [16, 16, 128]]}
    wmma_all = []
    for v in [1, 2, 3]:
        for ins in wmma_instr[v]:
            for tr in [False, True]:
                for wpc in [[1, 1], [2, 2], [4, 1], [1, 4], [2, 4]]:
                    L = WMMA(v, tr, wpc, instr_shape=ins)
                    wmma_all.append(L)
                    add("amd_wmma", L, shapes_around(L.tile()) if ins[2] in (16, 32) else shapes_around(L.tile())[:2])
                for wpc in [[2, 2], [4, 1]]:
                    for tpw in [[2, 2], [2, 1]]:
                        L = WMMA(v, tr, wpc, instr_shape=ins, tiles_per_warp=tpw)
                        add("amd_wmma(tilesPerWarp)", L, shapes_around(L.tile())[:3])
    for L in [WMMA(1, False, [2, 2], instr_shape=[16, 16, 32]), WMMA(2, False, [2, 2], instr_shape=[32, 32, 16]),
              WMMA(3, False, [2, 2], instr_shape=[32, 32, 32]), WMMA(3, False, [2, 2], instr_shape=[16, 16, 8]),
              WMMA(3, False, [2, 2], instr_shape=[16, 16, 16]),
              WMMA(4, False, [2, 2])]:
        add("amd_wmma", L, [[64, 64]])
    wmma3d = []
    for v, ins in [(1, [16, 16, 16]), (2, [16, 16, 16]), (3, [16, 16, 32])]:
        for tr in [False, True]:
            for wpc in [[2, 2, 1], [1, 2, 2]]:
                L = WMMA(v, tr, wpc, instr_shape=ins)
                wmma3d.append(L)
                add("amd_wmma3d", L, shapes_around(L.tile())[:3])

    # --- dot_op of amd_mfma -----------------------------------------------------
    def dot_shapes(par, op, kw):
        k = max(par.instr_shape[2], kw)  # K of one instruction / kWidth group
        t = par.tile()
        if op == 0:
            base = [[t[0], k], [t[0], 4 * k], [2 * t[0], 64], [16, 16], [1, 64]]
        else:
            base = [[k, t[1]], [4 * k, t[1]], [64, 2 * t[1]], [16, 16], [64, 1]]
        return uniq([s for s in base if all(p2(x) for x in s) and _prod(s) <= MAX_ELEMS])

    mfma_dot_par = []
    for v in [1, 2, 3, 4]:
        for ins in MFMA_INSTR[v]:
            if ins[0] == 64 or ins[0] == 4:  # 64x4 only transposed (see above)
                mfma_dot_par.append(MFMA(v, ins, True, [2, 2]))
            elif ins[2] == MAIN_K[(v, ins[0])] or ins[2] >= 64:
                for tr, wpc in [(False, [2, 2]), (True, [4, 1])]:
                    mfma_dot_par.append(MFMA(v, ins, tr, wpc))
    mfma_dot_par += [MFMA(3, [32, 32, 8], True, [2, 2], tiles_per_warp=[2, 2]),
                     MFMA(4, [16, 16, 32], False, [4, 1], tiles_per_warp=[2, 1])]
    for par in mfma_dot_par:
        for op in [0, 1]:
            for kw in [1, 2, 4, 8, 16] + ([32] if par.version == 4 else []):
                ss = dot_shapes(par, op, kw)
                add("dot_op(amd_mfma)", DOT(operand_index=op, parent=par, k_width=kw), ss[:2])
    for par in mfma3d[:3]:
        for op in [0, 1]:
            for kw in [4, 8]:
                t = par.tile()
                add("dot_op(amd_mfma3d)", DOT(operand_index=op, parent=par, k_width=kw),
                    [[t[0], t[1], 32] if op == 0 else [t[0], 32, t[2]], [2, 64, 64]])
    add("dot_op(amd_mfma)", DOT(operand_index=0, parent=MFMA(3, [32, 32, 8], False, [2, 2]), k_width=3), [[64, 64]])

    # --- dot_op of amd_wmma -------------------------------------------------------
    wmma_dot_par = [WMMA(v, tr, wpc, instr_shape=ins) for v in [1, 2, 3] for ins in wmma_instr[v][:2]
                    for tr, wpc in [(False, [2, 2]), (True, [4, 1])]]
    wmma_dot_par.append(WMMA(2, False, [2, 2], tiles_per_warp=[2, 2]))
    for par in wmma_dot_par:
        for op in [0, 1]:
            for kw in [2, 4, 8, 16]:
                add("dot_op(amd_wmma)", DOT(operand_index=op, parent=par, k_width=kw), dot_shapes(par, op, kw)[:3])

    # --- slices ---------------------------------------------------------------------
    short = [[1], [2], [4], [16], [64], [256]]
    for par in [MFMA(3, [32, 32, 8], False, [2, 2]), MFMA(3, [32, 32, 8], True, [4, 1]), MFMA(3, [16, 16, 16], False, [1, 4]),
                MFMA(4, [16, 16, 32], True, [2, 2]), MFMA(1, [32, 32, 8], False, [8, 1]), MFMA(2, [16, 16, 16], True, [1, 1]),
                MFMA(3, [4, 64, 4], False, [2, 2]), MFMA(3, [64, 4, 4], True, [1, 1]),
                MFMA(3, [16, 16, 16], False, [2, 2], tiles_per_warp=[2, 2]), MFMA(4, [32, 32, 16], True, [2, 2], element_bitwidth=64)]:
        for d in [0, 1]:
            add("slice(amd_mfma)", SL(d, par), short)
    for par in mfma3d[:3]:
        for d in [0, 1, 2]:
            add("slice(amd_mfma3d)", SL(d, par), [[1, 1], [2, 64], [64, 64], [32, 32]])
    for par in [DOT(0, MFMA(3, [32, 32, 8], False, [2, 2]), 4), DOT(1, MFMA(3, [32, 32, 8], False, [2, 2]), 4),
                DOT(0, MFMA(3, [16, 16, 16], True, [4, 1]), 8), DOT(1, MFMA(3, [16, 16, 16], True, [4, 1]), 8),
                DOT(0, MFMA(4, [16, 16, 32], False, [2, 2]), 16), DOT(1, MFMA(4, [32, 32, 16], False, [1, 4]), 8)]:
        for d in [0, 1]:
            add("slice(dot_op(amd_mfma))", SL(d, par), short)
    for par in [WMMA(1, False, [2, 2]), WMMA(2, True, [4, 1]), WMMA(3, False, [2, 2], instr_shape=[16, 16, 32])]:
        for d in [0, 1]:
            add("slice(amd_wmma)", SL(d, par), short[:5])

    # --- blocked with 64 (and 32) threads per warp ---------------------------------------
    tpw64 = [[8, 8], [4, 16], [16, 4], [2, 32], [32, 2], [1, 64], [64, 1]]
    spts = [[1, 1], [1, 4], [4, 1], [2, 2], [1, 8]]
    for i, tpw in enumerate(tpw64):
        for j, spt in enumerate(spts):
            wpc = WPCS[(i + j) % len(WPCS)]
            order = [[1, 0], [0, 1]][(i + j) % 2]
            L = BL(spt, tpw, wpc, order)
            add("blocked2d(64)", L, shapes_around(blocked_tile(L))[:4])
    for spt in [1, 4]:
        for w in [1, 4]:
            L = BL([spt], [64], [w], [0])
            add("blocked1d(64)", L, shapes_around(blocked_tile(L), extra=[[2], [4096]]))
    for L in [BL([1, 1, 4], [2, 4, 8], [1, 2, 2], [2, 1, 0]), BL([1, 2, 1], [4, 4, 4], [2, 1, 2], [0, 1, 2])]:
        add("blocked3d(64)", L, shapes_around(blocked_tile(L))[:4])
    for i, tpw in enumerate([[4, 8], [8, 4], [1, 32], [32, 1]]):
        for j, spt in enumerate(spts[:3]):
            L = BL(spt, tpw, WPCS[(i + j) % len(WPCS)], [[1, 0], [0, 1]][(i + j) % 2])
            add("blocked2d(32)", L, shapes_around(blocked_tile(L))[:3])
    for L in [BL([1, 4], [8, 8], [4, 1], [1, 0]), BL([1, 1], [1, 64], [2, 2], [1, 0])]:
        for d in [0, 1]:
            add("slice(blocked64)", SL(d, L), short[:5])
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
                "lanes": 1 << len(ll.lane_bases),
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


def abort_message(stderr):
    """The diagnostic ("error: ...") and the failed assertion of a crashed worker, shortened."""
    parts = []
    for line in stderr.splitlines():
        line = line.strip()
        if line.startswith("error:") or line.startswith("loc("):
            parts.append(line)
        m = re.search(r"^[^:]*python[^:]*: (\S+?):(\d+): .*?(Assertion `.*' failed\.)", line)
        if m:
            parts.append("%s:%s: %s" % (os.path.basename(m.group(1)), m.group(2), m.group(3)))
    if not parts:
        parts = [l.strip()[:300] for l in stderr.strip().splitlines()[-3:]]
    return " | ".join(parts)


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
        rejected.append({"kind": kind, "layout": repr(L), "shape": shape,
                         "error": "process aborted (rc %d): %s" % (p.returncode, abort_message(p.stderr))})
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
    path = os.path.join(args.out, "amd_bases.jsonl")
    with open(path, "w") as f:
        for r in recs:
            f.write(json.dumps(r, separators=(", ", ": ")) + "\n")
    rpath = os.path.join(args.out, "amd_bases_rejected.jsonl")
    with open(rpath, "w") as f:
        for r in rejected:
            f.write(json.dumps(r) + "\n")
    kinds = {}
    for r in recs:
        kinds[r["kind"]] = kinds.get(r["kind"], 0) + 1
    rkinds = {}
    for r in rejected:
        rkinds[r["kind"]] = rkinds.get(r["kind"], 0) + 1
    print("candidates %d, records %d (after dedupe), rejected %d, worker restarts %d, %.1f s" %
          (len(C), len(recs), len(rejected), restarts, time.time() - t0))
    for k in sorted(kinds):
        print("  %-28s %d" % (k, kinds[k]))
    print("rejected:")
    for k in sorted(rkinds):
        print("  %-28s %d" % (k, rkinds[k]))
    print("wrote %s (%d bytes), %s" % (path, os.path.getsize(path), rpath))


if __name__ == "__main__":
    main()
