#!/usr/bin/env python3
"""Write Triton 3.6's own layout-conversion tests as TTGIR files, by compiling them.

Source of the cases
-------------------
Triton 3.6.0 (the PyPI wheel, `triton.__version__ == "3.6.0"`). Its layout-conversion
tests are the four in python/test/gluon/test_lowerings.py:

    test_convert1d_layouts, test_convert2d_layouts,
    test_convert_mma2mma_layouts, test_convert_warp_local_layouts

That file is, in 3.6, the one at upstream commit 49b74727460f347cd6fc7b73ba2f6e5674bd8ab9
("[LAYOUTS] Make CTALayout an honest-to-goodness LinearLayout (#8770)", 2025-11-19): it was
not touched again before release/3.6.x branched (the wheel's Python sources are identical
to main from e7fb8414217a (2025-11-19) to 4b184cccbb42 (2025-11-21), apart from the
version string and knobs.py), nor on main until after 2025-12-02.
python/test/unit/language/test_core.py of 3.6 has no layout-conversion test left (they
moved to Gluon in #7962/#8049); test_core's only convert_layout mention is a count of
converts in test_trans_reshape's TTGIR, which is not a conversion test. The later
test_regress_warp_shuffle_convert_layout / test_linear_apply_convert_basis_layout /
cross-CTA convert tests are not in 3.6.

Parametrisations, as the tests run them on an NVIDIA Hopper GPU (cuda:90, 32 lanes):
each layout list goes through the test's own `_filter_layouts` (CUDA, Hopper or newer),
which keeps blocked, slice, nvidia_mma v2/v3 and their dot operands and drops AMD layouts.
Note that this filter also drops `None` and the two padded-shared strings from
`_intermediate_layouts`: on CUDA test_convert2d_layouts only runs the four
SwizzledSharedLayout round trips (x -> local_alloc -> local_load(src) -> convert to dst),
never the direct convert. Each of those runs holds the same `ttg.convert_layout`
(src -> dst, the shared layout only changes the local_alloc/local_load around it), so
by default one function is written per distinct conversion with the four runs named in
its comment; `--per-run` writes one function per test run instead.

How the TTGIR is made
---------------------
Each test kernel below is the test's kernel (same body; the tests define them inside the
test functions). Every parametrisation is compiled with Triton's own pipeline for
GPUTarget("cuda", 90, 32): GluonASTSource.make_ir (the Gluon frontend) and then the
CUDA backend's `gluon_to_ttgir` stage (inliner, coalesced/auto encodings, canonicalizer,
SCCP, CSE) - i.e. exactly the TTGIR that `triton.compile` produces for the test before
TTGIR -> LLVM. No GPU and no ptxas are needed. From each compiled module the generator
keeps only the `ttg.convert_layout`: its source and result types, printed by Triton,
with Triton's own `#blocked`/`#mma` aliases expanded to their text, become one
`tt.func` whose argument is the convert's input. Base layouts (blocked, nvidia_mma) are
re-aliased with names unique in the file; dot_op and slice stay inline, as Triton prints
them. The module line is Triton's own (it carries "ttg.num-warps" and
ttg.target = "cuda:90").

Triton keeps every convert, even a no-op one: in test_convert1d_layouts the runs with
src_layout == dst_layout and src_dim == dst_dim convert a type to itself (72 functions), and
Gluon's pipeline (gluon_to_ttgir) leaves them in the TTGIR; they are written as
compiled. (Should a Triton fold one away, the generator would still write it, with both
types taken from the kernel's load, and say so in its comment.)

Files (grouped by test and num_warps; one module each):
    convert1d_w4.ttgir, convert2d_w4.ttgir, mma2mma_w4.ttgir, mma2mma_w16.ttgir,
    warp_local_w1.ttgir
With --amd, the same four tests as they run on an AMD CDNA3 GPU (hip:gfx942, 64 lanes)
go to amd/*.ttgir (warpforge refuses hip targets; they are kept for reference).

Counts (NVIDIA): 2,868 test runs = 864 convert1d + 1,760 convert2d + 96 mma2mma (48 pytest
items, each launching src->dst and dst->src) + 148 warp-local; 2,820 pytest items. They hold
1,548 distinct conversions (convert2d: 1,760 runs / 4 shared layouts = 440), which is what the
files contain: 864 + 440 + 60 + 36 + 148 functions. A function whose src or dst holds more than
256 elements per thread (Triton's to_linear_layout) says so in its comment (30: convert2d at
64x128 with the 3-D wgmma-A slice, mma2mma 256x256 at 4 warps). AMD (--amd, gfx942): 372
runs, 332 functions (the test filter keeps MFMA only; WMMA pairs run nowhere in 3.6).

Every file parses and verifies with Triton's own MLIR parser (triton._C.libtriton.ir.
parse_mlir_module). The parametrisations were checked against the test file itself, executed
with stubbed torch/pytest and is_cuda/is_hopper_or_newer = True: same multiset, per test.

Usage:  python3 gen_triton_tests.py [--out DIR] [--per-run] [--amd]
(about 30-40 s on one core; writes to this directory by default; the files here were made
with --amd; output unchanged by --amd for the NVIDIA files). Deterministic: same Triton, same bytes.
"""

import argparse
import collections
import math
import os
import re
import sys
import time

import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as ttgl
from triton.experimental.gluon._runtime import GluonASTSource
from triton.backends.compiler import GPUTarget
from triton.compiler.compiler import make_backend
from triton._C.libtriton import ir

TRITON_COMMIT = "49b74727460f347cd6fc7b73ba2f6e5674bd8ab9"
TEST_FILE = "python/test/gluon/test_lowerings.py"

# ---------------------------------------------------------------------------
# The test kernels (bodies as in test_lowerings.py at TRITON_COMMIT)
# ---------------------------------------------------------------------------


@gluon.jit
def convert1d_kernel(x_ptr, y_ptr, M: ttgl.constexpr, src_layout: ttgl.constexpr, dst_layout: ttgl.constexpr,
                     src_dim: ttgl.constexpr, dst_dim: ttgl.constexpr):
    offs_src = ttgl.arange(0, M, layout=ttgl.SliceLayout(src_dim, src_layout))
    x = ttgl.load(x_ptr + offs_src)
    y = ttgl.convert_layout(x, layout=ttgl.SliceLayout(dst_dim, dst_layout))
    offs_dst = ttgl.arange(0, M, layout=ttgl.SliceLayout(dst_dim, dst_layout))
    ttgl.store(y_ptr + offs_dst, y)


@gluon.jit
def convert2d_kernel(x_ptr, y_ptr, M: ttgl.constexpr, N: ttgl.constexpr, src_layout: ttgl.constexpr,
                     dst_layout: ttgl.constexpr, interm_layout: ttgl.constexpr):
    offs_m_src = ttgl.arange(0, M, layout=ttgl.SliceLayout(1, src_layout))[:, None]
    offs_n_src = ttgl.arange(0, N, layout=ttgl.SliceLayout(0, src_layout))[None, :]
    x = ttgl.load(x_ptr + offs_m_src * N + offs_n_src)
    if interm_layout is None:
        y = ttgl.convert_layout(x, layout=dst_layout)
    else:
        shared_desc = ttgl.allocate_shared_memory(x.dtype, (M, N), interm_layout, value=x)
        x_shared = shared_desc.load(src_layout)
        y = ttgl.convert_layout(x_shared, layout=dst_layout)
    offs_m_dst = ttgl.arange(0, M, layout=ttgl.SliceLayout(1, dst_layout))[:, None]
    offs_n_dst = ttgl.arange(0, N, layout=ttgl.SliceLayout(0, dst_layout))[None, :]
    ttgl.store(y_ptr + offs_m_dst * N + offs_n_dst, y)


@gluon.jit
def convert_plain_kernel(x_ptr, y_ptr, M: ttgl.constexpr, N: ttgl.constexpr, src_layout: ttgl.constexpr,
                         dst_layout: ttgl.constexpr):
    # test_convert_mma2mma_layouts and test_convert_warp_local_layouts (same body)
    offs_m_src = ttgl.arange(0, M, layout=ttgl.SliceLayout(1, src_layout))[:, None]
    offs_n_src = ttgl.arange(0, N, layout=ttgl.SliceLayout(0, src_layout))[None, :]
    x = ttgl.load(x_ptr + offs_m_src * N + offs_n_src)
    y = ttgl.convert_layout(x, layout=dst_layout)
    offs_m_dst = ttgl.arange(0, M, layout=ttgl.SliceLayout(1, dst_layout))[:, None]
    offs_n_dst = ttgl.arange(0, N, layout=ttgl.SliceLayout(0, dst_layout))[None, :]
    ttgl.store(y_ptr + offs_m_dst * N + offs_n_dst, y)


# ---------------------------------------------------------------------------
# The tests' layout lists and filters, for one platform
# ---------------------------------------------------------------------------

NV = ttgl.NVMMADistributedLayout
DOT = ttgl.DotOperandLayout
BL = ttgl.BlockedLayout
SL = ttgl.SliceLayout


class Platform:
    """is_cuda / is_hip / is_hopper_or_newer / THREADS_PER_WARP of the machine the tests run on."""

    def __init__(self, name, target, cuda, hopper):
        self.name = name
        self.target = target
        self.cuda = cuda
        self.hip = not cuda
        self.hopper = hopper
        self.tpw = target.warp_size

    # test_lowerings._is_layout_applicable, verbatim logic (3.6)
    def applicable(self, layout):
        if isinstance(layout, (ttgl.BlockedLayout, ttgl.SwizzledSharedLayout, ttgl.DistributedLinearLayout)):
            return True
        elif isinstance(layout, ttgl.SliceLayout):
            return self.applicable(layout.parent)
        elif self.cuda:
            if isinstance(layout, ttgl.NVMMASharedLayout):
                return True
            mma_layout = layout.parent if isinstance(layout, ttgl.DotOperandLayout) else layout
            if not isinstance(mma_layout, ttgl.NVMMADistributedLayout):
                return False
            if mma_layout.version[0] >= 3 and not self.hopper:
                return False
            return True
        elif self.hip:
            if layout in ["padded_shared_layout_single_interval", "padded_shared_layout_multi_interval"]:
                return True
            return isinstance(layout, ttgl.amd.AMDMFMALayout)
        return True

    def filt(self, layouts):
        return [l for l in layouts if self.applicable(l)]

    # ---- layout lists (unfiltered, with their index in the test's list) ----
    def layouts_1d(self):
        T = self.tpw
        return [
            BL([1, 4], [1, T], [4, 1], [1, 0]),
            BL([1, 4], [1, T], [2, 2], [1, 0]),
            NV(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, 32, 16]),
            NV(version=[2, 0], warps_per_cta=[4, 1], instr_shape=[16, 8]),
            DOT(parent=NV(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, 32, 16]), operand_index=0, k_width=2),
            DOT(parent=NV(version=[2, 0], warps_per_cta=[2, 2], instr_shape=[16, 8]), operand_index=0, k_width=2),
        ]

    def layouts_2d(self):
        T = self.tpw
        return [
            BL([1, 1], [T, 1], [2, 2], [0, 1]),
            BL([1, 16], [8, T // 8], [4, 1], [1, 0]),
            NV(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, 32, 16]),
            DOT(parent=NV(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, 32, 16]), operand_index=0, k_width=2),
            DOT(parent=NV(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, 32, 16]), operand_index=0, k_width=1),
            NV(version=[2, 0], warps_per_cta=[4, 1], instr_shape=[16, 8]),
            DOT(parent=NV(version=[2, 0], warps_per_cta=[4, 1], instr_shape=[16, 8]), operand_index=1, k_width=2),
            DOT(parent=NV(version=[2, 0], warps_per_cta=[2, 2], instr_shape=[16, 8]), operand_index=0, k_width=2),
            DOT(parent=NV(version=[2, 0], warps_per_cta=[4, 1], instr_shape=[16, 8]), operand_index=0, k_width=8),
            SL(dim=1, parent=DOT(parent=NV(version=[3, 0], warps_per_cta=[4, 1, 1], instr_shape=[16, 32, 16]),
                                 operand_index=0, k_width=2)),
            SL(dim=1, parent=DOT(parent=NV(version=[2, 0], warps_per_cta=[4, 1, 1], instr_shape=[1, 16, 8]),
                                 operand_index=1, k_width=2)),
        ]

    def interm_layouts(self):
        return [
            None,
            ttgl.SwizzledSharedLayout(vec=1, per_phase=1, max_phase=1, order=[0, 1]),
            ttgl.SwizzledSharedLayout(vec=1, per_phase=1, max_phase=1, order=[1, 0]),
            ttgl.SwizzledSharedLayout(vec=4, per_phase=2, max_phase=4, order=[1, 0]),
            ttgl.SwizzledSharedLayout(vec=2, per_phase=2, max_phase=4, order=[1, 0]),
            "padded_shared_layout_single_interval",
            "padded_shared_layout_multi_interval",
        ]

    def mma_pairs(self):
        M = ttgl.amd.AMDMFMALayout
        W = ttgl.amd.AMDWMMALayout
        return [
            [NV(version=[2, 0], warps_per_cta=[1, 4], instr_shape=[16, 8]),
             NV(version=[2, 0], warps_per_cta=[4, 1], instr_shape=[16, 8])],
            [NV(version=[2, 0], warps_per_cta=[2, 8], instr_shape=[16, 8]),
             NV(version=[2, 0], warps_per_cta=[8, 2], instr_shape=[16, 8])],
            [NV(version=[2, 1], warps_per_cta=[1, 4], instr_shape=[16, 8]),
             NV(version=[2, 1], warps_per_cta=[4, 1], instr_shape=[16, 8])],
            [NV(version=[2, 1], warps_per_cta=[2, 8], instr_shape=[16, 8]),
             NV(version=[2, 1], warps_per_cta=[8, 2], instr_shape=[16, 8])],
            [NV(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, 32, 32]),
             NV(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, 64, 32])],
            [NV(version=[3, 0], warps_per_cta=[1, 4], instr_shape=[16, 32, 32]),
             NV(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, 64, 32])],
            [NV(version=[3, 0], warps_per_cta=[2, 8], instr_shape=[16, 64, 32]),
             NV(version=[3, 0], warps_per_cta=[8, 2], instr_shape=[16, 32, 32])],
            [NV(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, 128, 16]),
             NV(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, 64, 16])],
            [M(version=1, instr_shape=[32, 32, 8], transposed=True, warps_per_cta=[2, 2]),
             M(version=1, instr_shape=[32, 32, 8], transposed=True, warps_per_cta=[4, 1])],
            [M(version=1, instr_shape=[16, 16, 8], transposed=True, warps_per_cta=[4, 4]),
             M(version=1, instr_shape=[16, 16, 8], transposed=True, warps_per_cta=[16, 1])],
            [M(version=2, instr_shape=[32, 32, 8], transposed=True, warps_per_cta=[2, 2]),
             M(version=2, instr_shape=[32, 32, 8], transposed=True, warps_per_cta=[4, 1])],
            [M(version=2, instr_shape=[16, 16, 16], transposed=True, warps_per_cta=[4, 4]),
             M(version=2, instr_shape=[16, 16, 16], transposed=True, warps_per_cta=[16, 1])],
            [M(version=3, instr_shape=[32, 32, 8], transposed=True, warps_per_cta=[2, 2]),
             M(version=3, instr_shape=[32, 32, 8], transposed=True, warps_per_cta=[4, 1])],
            [M(version=3, instr_shape=[16, 16, 16], transposed=True, warps_per_cta=[4, 4]),
             M(version=3, instr_shape=[16, 16, 16], transposed=True, warps_per_cta=[16, 1])],
            [M(version=4, instr_shape=[32, 32, 16], transposed=True, warps_per_cta=[2, 2]),
             M(version=4, instr_shape=[32, 32, 16], transposed=True, warps_per_cta=[4, 1])],
            [M(version=4, instr_shape=[16, 16, 32], transposed=True, warps_per_cta=[4, 4]),
             M(version=4, instr_shape=[16, 16, 32], transposed=True, warps_per_cta=[16, 1])],
            [W(version=1, transposed=True, warps_per_cta=[4, 4]),
             W(version=1, transposed=True, warps_per_cta=[16, 1])],
            [W(version=2, transposed=True, warps_per_cta=[4, 4]),
             W(version=2, transposed=True, warps_per_cta=[16, 1])],
        ]

    def warp_local_layouts(self):
        T = self.tpw
        return [
            BL([1, 1], [T, 1], [1, 1], [1, 0]),
            BL([1, 1], [T // 2, 2], [1, 1], [1, 0]),
            BL([1, 1], [T // 4, 4], [1, 1], [1, 0]),
            BL([1, 1], [T // 8, 8], [1, 1], [1, 0]),
            BL([1, 1], [T // 16, 16], [1, 1], [1, 0]),
            BL([1, 1], [T // 32, 32], [1, 1], [1, 0]),
            BL([32, 1], [1, T], [1, 1], [1, 0]),
            BL([16, 1], [2, T // 2], [1, 1], [1, 0]),
            BL([1, 4], [T, 1], [1, 1], [1, 0]),
            BL([1, 4], [T // 2, 2], [1, 1], [1, 0]),
            BL([1, 4], [T // 4, 4], [1, 1], [1, 0]),
            BL([1, 4], [T // 8, 8], [1, 1], [1, 0]),
            BL([1, 4], [T // 16, 16], [1, 1], [1, 0]),
            BL([1, 4], [T // 32, 32], [1, 1], [1, 0]),
        ]


def indexed_filter(plat, layouts):
    """[(index in the test's unfiltered list, layout)] of the layouts the test keeps."""
    return [(i, l) for i, l in enumerate(layouts) if plat.applicable(l)]


# ---------------------------------------------------------------------------
# Compiling and reading back Triton's TTGIR
# ---------------------------------------------------------------------------


class Compiler:

    def __init__(self, target):
        self.target = target
        self.backend = make_backend(target)
        self.count = 0

    def ttgir(self, fn, signature, constexprs, num_warps):
        """The module after the backend's gluon_to_ttgir stage, as Triton prints it."""
        src = GluonASTSource(fn, signature, constexprs)
        options = self.backend.parse_options({"num_warps": num_warps})
        ctx = ir.context()
        ir.load_dialects(ctx)
        self.backend.load_dialects(ctx)
        codegen_fns = self.backend.get_codegen_implementation(options)
        module_map = self.backend.get_module_map()
        mod = src.make_ir(self.target, options, codegen_fns, module_map, ctx)
        stages = {}
        self.backend.add_stages(stages, options, src.language)
        mod = stages["ttgir"](mod, {})
        self.count += 1
        return str(mod)


class PerThread:
    """Elements per thread of a layout at a shape, from Triton's to_linear_layout (2**#register bases)."""

    def __init__(self):
        from triton._C.libtriton import gluon_ir
        self.ctx = ir.context()
        ir.load_dialects(self.ctx)
        self.b = gluon_ir.GluonOpBuilder(self.ctx)

    def __call__(self, layout, shape):
        return 1 << len(self.b.to_linear_layout(layout._to_ir(self.b), list(shape)).reg_bases)


def case_layouts(case):
    """(src layout, dst layout, shape) of the convert a case runs."""
    k = case.constexprs
    if case.group == "convert1d":
        return (ttgl.SliceLayout(k["src_dim"], k["src_layout"]), ttgl.SliceLayout(k["dst_dim"], k["dst_layout"]), [k["M"]])
    return k["src_layout"], k["dst_layout"], [k["M"], k["N"]]


ALIAS_DEF = re.compile(r"^#([A-Za-z_][\w]*) = (.*)$")
ALIAS_REF = re.compile(r"#([A-Za-z_][\w]*)(?![\w.])")


def balanced(text, start, open_c="<", close_c=">"):
    """End index (exclusive) of the bracket group whose opener is at text[start]."""
    assert text[start] == open_c, (text, start)
    depth = 0
    for i in range(start, len(text)):
        c = text[i]
        if c == open_c:
            depth += 1
        elif c == close_c:
            depth -= 1
            if depth == 0:
                return i + 1
    raise ValueError("unbalanced: " + text[start:start + 80])


def tensor_types(s):
    """All `tensor<...>` groups in s, in order."""
    out, i = [], 0
    while True:
        j = s.find("tensor<", i)
        if j < 0:
            return out
        k = balanced(s, j + len("tensor"))
        out.append(s[j:k])
        i = k


class Module:
    """What the generator needs from one compiled module."""

    def __init__(self, text):
        self.text = text
        self.aliases = {}
        self.module_line = None
        self.converts = []  # (src_type, dst_type), aliases expanded
        self.loads = []  # result types of tt.load, aliases expanded
        for line in text.splitlines():
            m = ALIAS_DEF.match(line)
            if m and not m.group(2).startswith("loc("):
                self.aliases[m.group(1)] = m.group(2)
        for line in text.splitlines():
            l = line.strip()
            if l.startswith("module attributes"):
                self.module_line = l[:l.rindex("{")].rstrip()
            if " = ttg.convert_layout " in l:
                tys = tensor_types(l.split(" : ", 1)[1])
                assert len(tys) == 2, l
                self.converts.append((self.expand(tys[0]), self.expand(tys[1])))
            if " = tt.load " in l:
                tys = tensor_types(l.split(" : ", 1)[1])
                # tt.load %ptrs : tensor<...x!tt.ptr<T>, #l>  (result type is implied)
                self.loads.append(self.expand(tys[0]))

    def expand(self, s, depth=0):
        assert depth < 16
        t = ALIAS_REF.sub(lambda m: self.aliases.get(m.group(1), m.group(0)), s)
        return t if t == s else self.expand(t, depth + 1)


def ptr_tensor_to_value(ty):
    """tensor<64x!tt.ptr<i32>, #l> -> tensor<64xi32, #l>"""
    m = re.match(r"tensor<((?:\d+x)+)!tt\.ptr<(\w+)>, (.*)>$", ty)
    assert m, ty
    return "tensor<%s%s, %s>" % (m.group(1), m.group(2), m.group(3))


# ---------------------------------------------------------------------------
# Aliases for the output files
# ---------------------------------------------------------------------------

BASE_ATTRS = ("#ttg.blocked<", "#ttg.nvidia_mma<", "#ttg.linear<", "#ttg.amd_mfma<", "#ttg.amd_wmma<")


def _ints(text, key):
    m = re.search(key + r" = \[([^\]]*)\]", text)
    return "x".join(x.strip() for x in m.group(1).split(",")) if m else ""


def _int(text, key):
    m = re.search(key + r" = (\w+)", text)
    return m.group(1) if m else ""


def alias_name(attr):
    if attr.startswith("#ttg.blocked<"):
        return "blk_s%s_t%s_w%s_o%s" % (_ints(attr, "sizePerThread"), _ints(attr, "threadsPerWarp"),
                                        _ints(attr, "warpsPerCTA"), _ints(attr, "order"))
    if attr.startswith("#ttg.nvidia_mma<"):
        return "mma%s%s_w%s_i%s" % (_int(attr, "versionMajor"), _int(attr, "versionMinor"),
                                    _ints(attr, "warpsPerCTA"), _ints(attr, "instrShape"))
    if attr.startswith("#ttg.amd_mfma<"):
        return "mfma%s_w%s_i%s%s" % (_int(attr, "version"), _ints(attr, "warpsPerCTA"), _ints(attr, "instrShape"),
                                     "_t" if "isTransposed = true" in attr else "")
    if attr.startswith("#ttg.amd_wmma<"):
        return "wmma%s_w%s%s" % (_int(attr, "version"), _ints(attr, "warpsPerCTA"),
                                 "_t" if "isTransposed = true" in attr else "")
    return "linear"


class AliasTable:

    def __init__(self):
        self.by_text = {}
        self.names = set()

    def name(self, attr):
        if attr not in self.by_text:
            base = alias_name(attr)
            n, k = base, 1
            while n in self.names:
                n = "%s_%d" % (base, k)
                k += 1
            self.names.add(n)
            self.by_text[attr] = n
        return self.by_text[attr]

    def shorten(self, ty):
        """Replace every base layout in a type by its alias (dot_op/slice stay inline)."""
        out, i = [], 0
        while i < len(ty):
            hit = None
            for p in BASE_ATTRS:
                if ty.startswith(p, i):
                    hit = p
                    break
            if hit is None:
                out.append(ty[i])
                i += 1
                continue
            j = balanced(ty, i + len(hit) - 1)
            out.append("#" + self.name(ty[i:j]))
            i = j
        return "".join(out)

    def defs(self):
        return ["#%s = %s" % (n, t) for t, n in sorted(self.by_text.items(), key=lambda kv: kv[1])]


# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------

Case = collections.namedtuple("Case", "test group func params num_warps kernel signature constexprs")


def short(layout):
    """A compact, stable Gluon repr for comments."""
    return repr(layout).replace("cga_layout=[], ", "").replace(", cga_layout=[]", "")


def cases_convert1d(plat):
    L = indexed_filter(plat, plat.layouts_1d())
    for M in [64, 128, 256]:
        for si, src in L:
            for di, dst in L:
                for src_dim in [0, 1]:
                    for dst_dim in [0, 1]:
                        for is_bool in [True, False]:
                            ety = "i1" if is_bool else "i32"
                            yield Case(
                                "test_convert1d_layouts", "convert1d",
                                "c1d_%d_s%dd%d_t%dd%d_%s" % (M, si, src_dim, di, dst_dim, ety),
                                "M=%d, src_layout=_1d_layouts[%d], src_dim=%d, dst_layout=_1d_layouts[%d], dst_dim=%d, "
                                "is_bool=%s" % (M, si, src_dim, di, dst_dim, is_bool), 4, convert1d_kernel,
                                {"x_ptr": "*" + ety, "y_ptr": "*i32", "M": "constexpr", "src_layout": "constexpr",
                                 "dst_layout": "constexpr", "src_dim": "constexpr", "dst_dim": "constexpr"},
                                {"M": M, "src_layout": src, "dst_layout": dst, "src_dim": src_dim, "dst_dim": dst_dim})


def cases_convert2d(plat):
    L = indexed_filter(plat, plat.layouts_2d())
    I = indexed_filter(plat, plat.interm_layouts())
    for M, N in [[64, 1], [64, 64], [64, 128], [1, 64]]:
        for si, src in L:
            for ii, interm in I:
                for di, dst in L:
                    if str(src) == str(dst):
                        continue  # pytest.skip("Source and destination layouts are the same")
                    if isinstance(interm, str):
                        # padded shared (HIP only): built per shape as the test does
                        pairs = [[32, 8]] if "single" in interm else [[64, 4], [128, 8]]
                        interm = ttgl.PaddedSharedLayout.with_identity_for(pairs, [M, N], [1, 0])
                    yield Case(
                        "test_convert2d_layouts", "convert2d", "c2d_%dx%d_s%d_t%d" % (M, N, si, di),
                        "M=%d, N=%d, dtype=float16, src_layout=_2d_layouts[%d], dst_layout=_2d_layouts[%d], "
                        "interm_layout=_intermediate_layouts[%d]" % (M, N, si, di, ii), 4, convert2d_kernel,
                        {"x_ptr": "*fp16", "y_ptr": "*fp16", "M": "constexpr", "N": "constexpr",
                         "src_layout": "constexpr", "dst_layout": "constexpr", "interm_layout": "constexpr"},
                        {"M": M, "N": N, "src_layout": src, "dst_layout": dst, "interm_layout": interm})


def cases_mma2mma(plat):
    pairs = [(i, p) for i, p in enumerate(plat.mma_pairs()) if all(plat.applicable(l) for l in p)]
    for M, N in [[16, 16], [64, 1], [1, 64], [64, 64], [128, 128], [256, 256]]:
        for pi, (a, b) in pairs:
            nw = math.prod(ttgl._layouts.warps_per_cta(a, (M, N)))
            for d, (src, dst) in enumerate([(a, b), (b, a)]):
                yield Case(
                    "test_convert_mma2mma_layouts", "mma2mma", "m2m_%dx%d_p%d_%s" % (M, N, pi, "ab" if d == 0 else "ba"),
                    "M=%d, N=%d, dtype=float16, mma_pair=_mma_pairs[%d], %s" %
                    (M, N, pi, "src=pair[0] -> dst=pair[1]" if d == 0 else "second launch: src=pair[1] -> dst=pair[0]"),
                    nw, convert_plain_kernel,
                    {"x_ptr": "*fp16", "y_ptr": "*fp16", "M": "constexpr", "N": "constexpr",
                     "src_layout": "constexpr", "dst_layout": "constexpr"},
                    {"M": M, "N": N, "src_layout": src, "dst_layout": dst})


def cases_warp_local(plat):
    L = indexed_filter(plat, plat.warp_local_layouts())
    for M, N in [[32, 32], [64, 64]]:
        for si, src in L:
            for di, dst in L:
                if str(src) == str(dst):
                    continue
                # a, b = list(torch.tensor(src.tpw) // torch.tensor(dst.tpw)); c = a if a != 0 else b
                a, b = [s // d for s, d in zip(src.threads_per_warp, dst.threads_per_warp)]
                c = a if a != 0 else b
                if c > 2:
                    continue  # pytest.skip("Layout pair too complex for warp-local conversion")
                nw = math.prod(ttgl._layouts.warps_per_cta(src, (M, N)))
                yield Case(
                    "test_convert_warp_local_layouts", "warp_local", "wl_%dx%d_s%d_t%d" % (M, N, si, di),
                    "M=%d, N=%d, dtype=float16, src_layout=_warp_local_layouts[%d], dst_layout=_warp_local_layouts[%d]" %
                    (M, N, si, di), nw, convert_plain_kernel,
                    {"x_ptr": "*fp16", "y_ptr": "*fp16", "M": "constexpr", "N": "constexpr",
                     "src_layout": "constexpr", "dst_layout": "constexpr"},
                    {"M": M, "N": N, "src_layout": src, "dst_layout": dst})


TESTS = [cases_convert1d, cases_convert2d, cases_mma2mma, cases_warp_local]

LIST_OF_GROUP = {
    "convert1d": [("_1d_layouts", "layouts_1d")],
    "convert2d": [("_2d_layouts", "layouts_2d"), ("_intermediate_layouts", "interm_layouts")],
    "mma2mma": [("_mma_pairs", "mma_pairs")],
    "warp_local": [("_warp_local_layouts", "warp_local_layouts")],
}

TEST_PARAMS = {
    "convert1d": "M in [64, 128, 256] x src_layout x dst_layout (both _1d_layouts, src == dst included) x src_dim in [0, 1] "
                 "x dst_dim in [0, 1] x is_bool in [True, False] (i1 / i32); num_warps=4",
    "convert2d": "M, N in [[64, 1], [64, 64], [64, 128], [1, 64]] x dtype float16 x src_layout x interm_layout x dst_layout "
                 "(str(src) == str(dst) skipped); num_warps=4 (the launch default)",
    "mma2mma": "M, N in [[16, 16], [64, 1], [1, 64], [64, 64], [128, 128], [256, 256]] x dtype float16 x mma_pair "
               "(both directions: the test launches src->dst then dst->src); num_warps = prod(warps_per_cta)",
    "warp_local": "M, N in [[32, 32], [64, 64]] x dtype float16 x src_layout x dst_layout (same skipped; pairs whose "
                  "threadsPerWarp ratio c > 2 skipped, as the test does); num_warps = 1",
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--per-run", action="store_true",
                    help="one function per test run (convert2d: 4 identical converts per pair and shape)")
    ap.add_argument("--amd", action="store_true", help="also write the AMD (hip:gfx942, wave64) runs to OUT/amd/")
    args = ap.parse_args()
    assert triton.__version__ == "3.6.0", "written for Triton 3.6.0, found " + triton.__version__

    platforms = [Platform("nvidia", GPUTarget("cuda", 90, 32), cuda=True, hopper=True)]
    if args.amd:
        platforms.append(Platform("amd", GPUTarget("hip", "gfx942", 64), cuda=False, hopper=False))

    t0 = time.time()
    grand = collections.Counter()
    for plat in platforms:
        comp = Compiler(plat.target)
        per_thread = PerThread()
        outdir = args.out if plat.name == "nvidia" else os.path.join(args.out, "amd")
        os.makedirs(outdir, exist_ok=True)
        # (group, num_warps) -> ordered {key: entry}
        files = collections.OrderedDict()
        module_lines = {}
        stats = collections.Counter()
        for gen in TESTS:
            for case in gen(plat):
                stats["runs", case.group] += 1
                text = comp.ttgir(case.kernel, case.signature, case.constexprs, case.num_warps)
                mod = Module(text)
                assert len(mod.converts) <= 1, (case, mod.converts)
                if mod.converts:
                    src_ty, dst_ty = mod.converts[0]
                    folded = False
                else:
                    # Triton folded a no-op convert: both sides are the loaded value's type.
                    assert len(mod.loads) == 1, text
                    src_ty = dst_ty = ptr_tensor_to_value(mod.loads[0])
                    folded = True
                    stats["folded", case.group] += 1
                fkey = (case.group, case.num_warps)
                module_lines.setdefault(fkey, mod.module_line)
                assert module_lines[fkey] == mod.module_line, (module_lines[fkey], mod.module_line)
                entries = files.setdefault(fkey, collections.OrderedDict())
                key = (src_ty, dst_ty) if not args.per_run else (src_ty, dst_ty, case.params)
                if key in entries:
                    entries[key]["params"].append(case.params)
                else:
                    name = case.func
                    if args.per_run and case.group == "convert2d":
                        name += "_i" + case.params.rsplit("[", 1)[1].rstrip("]")
                    sl, dl, shape = case_layouts(case)
                    entries[key] = dict(case=case, name=name, src=src_ty, dst=dst_ty, params=[case.params],
                                        folded=folded, per_thread=(per_thread(sl, shape), per_thread(dl, shape)))

        for (group, nw), entries in files.items():
            write_file(plat, outdir, group, nw, entries, module_lines[(group, nw)], stats, args)
            grand[plat.name, "funcs"] += len(entries)
        grand[plat.name, "runs"] = sum(v for k, v in stats.items() if k[0] == "runs")
        grand[plat.name, "folded"] = sum(v for k, v in stats.items() if k[0] == "folded")
        grand[plat.name, "compiles"] = comp.count
        for k in sorted(stats):
            print("%s %s %s: %d" % (plat.name, k[1], k[0], stats[k]))
    for k in sorted(grand):
        print("%s %s: %d" % (k[0], k[1], grand[k]))
    print("time: %.1f s" % (time.time() - t0))


def write_file(plat, outdir, group, nw, entries, module_line, stats, args):
    aliases = AliasTable()
    body = []
    test = next(iter(entries.values()))["case"].test
    n_runs = sum(len(e["params"]) for e in entries.values())
    n_folded = sum(len(e["params"]) for e in entries.values() if e["folded"])
    n_ident = sum(1 for e in entries.values() if e["src"] == e["dst"])
    n_big = sum(1 for e in entries.values() if max(e["per_thread"]) > 256)
    for e in entries.values():
        src, dst = aliases.shorten(e["src"]), aliases.shorten(e["dst"])
        params = e["params"]
        if len(params) == 1:
            body.append("  // %s: %s" % (test, params[0]))
        else:
            # convert2d: the same convert in every intermediate-layout run
            common = params[0].rsplit(", interm_layout=", 1)[0]
            ims = [p.rsplit("[", 1)[1].rstrip("]") for p in params]
            assert all(p.rsplit(", interm_layout=", 1)[0] == common for p in params), params
            body.append("  // %s: %s, interm_layout=_intermediate_layouts[%s] (%d runs, one convert)" %
                        (test, common, "|".join(ims), len(params)))
        big = max(e["per_thread"])
        if big > 256:
            body.append("  // %d elements per thread (src %d, dst %d; Triton's to_linear_layout): more than 256" %
                        (big, e["per_thread"][0], e["per_thread"][1]))
        if e["folded"]:
            body.append("  // Triton folded this no-op convert away (no ttg.convert_layout in the compiled "
                        "TTGIR); both types are the kernel's loaded value")
        body.append("  tt.func @%s(%%x: %s) {" % (e["name"], src))
        body.append("    %%0 = ttg.convert_layout %%x : %s -> %s" % (src, dst))
        body.append("    tt.return")
        body.append("  }")

    filt = []
    for listname, meth in LIST_OF_GROUP[group]:
        filt.append("//   %s (the test's list; [i] = index used below, '-' = dropped by _filter_layouts on %s):" %
                    (listname, plat.target.backend))
        for i, l in enumerate(getattr(plat, meth)()):
            if meth == "mma_pairs":
                mark = "%d" % i if all(plat.applicable(x) for x in l) else "-"
                filt.append("//     [%s] %s" % (mark, " <-> ".join(short(x) for x in l)))
            else:
                mark = "%d" % i if plat.applicable(l) else "-"
                filt.append("//     [%s] %s" % (mark, short(l) if not isinstance(l, str) else repr(l)))

    tgt = "%s:%s" % (plat.target.backend, plat.target.arch)
    head = [
        "// Triton %s's own layout-conversion test cases, compiled by Triton to TTGIR." % triton.__version__,
        "// Test: %s, %s (github.com/triton-lang/triton, %s; in 3.6 this file is" % (test, TEST_FILE, TRITON_COMMIT[:12]),
        "//   the one at commit %s)." % TRITON_COMMIT,
        "// Platform: %s as the tests see it (THREADS_PER_WARP = %d%s), num_warps = %d." %
        (tgt, plat.tpw, ", is_hopper_or_newer" if plat.hopper else "", nw),
        "// Parameters: %s." % TEST_PARAMS[group],
    ]
    head += filt
    head += [
        "// Generated by tests/data/triton_tests/gen_triton_tests.py%s: every parametrisation was compiled with" %
        (" --per-run" if args.per_run else ""),
        "//   Triton %s's Gluon frontend (GluonASTSource.make_ir) and the %s backend's gluon_to_ttgir stage" %
        (triton.__version__, "CUDA" if plat.cuda else "HIP"),
        "//   for GPUTarget%r;" % ((plat.target.backend, plat.target.arch, plat.target.warp_size), ),
        "//   each function is the compiled kernel's ttg.convert_layout (types as Triton printed them, its",
        "//   #blocked/#mma aliases renamed), its input made a function argument.",
        "// %d test runs -> %d functions; %d of them convert a type to itself (src == dst, kept by Triton)%s." %
        (n_runs, len(entries), n_ident, "; %d folded away by Triton, written from the load's type" % n_folded
         if n_folded else ""),
        "// %d functions hold more than 256 elements per thread on one side (marked; Triton runs them)." % n_big,
    ]
    if group == "convert2d":
        head += [
            "// On %s _filter_layouts drops None%s from _intermediate_layouts, so every run goes" %
            (plat.target.backend, "" if plat.hip else " and the padded-shared strings"),
            "// through shared memory and then converts src -> dst; the runs differing only in interm_layout",
            "// hold the same convert and share one function%s." % (" (--per-run: one each)" if args.per_run else ""),
        ]
    lines = head + [""] + aliases.defs() + ["", module_line + " {"] + body + ["}", ""]
    path = os.path.join(outdir, "%s_w%d.ttgir" % (group, nw))
    with open(path, "w") as f:
        f.write("\n".join(lines))
    print("wrote %s: %d functions, %d runs" % (path, len(entries), n_runs))


if __name__ == "__main__":
    main()
