#!/usr/bin/env python3
"""Triton 3.6's shared-memory scratch for the transposes of planning_time.py.

Compiles (no GPU needed: Triton's own backend down to a cubin, its bundled
ptxas) a Gluon kernel that loads a tile in planning_time.py's source blocked
layout, converts it to the destination layout with `gl.convert_layout` and
stores it, for sm_90, and prints the kernel's `metadata.shared` (bytes of
shared memory the launch needs). A kernel whose scratch exceeds the target's
per-block limit (232,448 bytes on sm_90) cannot launch.

Usage: python3 bench/planning/triton_scratch.py [WARPS ROWS COLS DTYPE]...
(default: the four 32-warp f32/f64 tiles warpforge refuses for scratch).
One JSON object per tile on stdout.
"""
import json
import sys

import triton
from triton.backends.compiler import GPUTarget
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon._runtime import GluonASTSource

SM90_SMEM_LIMIT = 232448


@gluon.jit
def cvt(x_ptr, y_ptr, M: gl.constexpr, N: gl.constexpr, SRC: gl.constexpr, DST: gl.constexpr):
    rm = gl.arange(0, M, layout=gl.SliceLayout(1, SRC))
    rn = gl.arange(0, N, layout=gl.SliceLayout(0, SRC))
    x = gl.load(x_ptr + rm[:, None] * N + rn[None, :])
    y = gl.convert_layout(x, DST)
    rm2 = gl.arange(0, M, layout=gl.SliceLayout(1, DST))
    rn2 = gl.arange(0, N, layout=gl.SliceLayout(0, DST))
    gl.store(y_ptr + rm2[:, None] * N + rn2[None, :], y)


def scratch(warps: int, m: int, n: int, dtype: str) -> int:
    # planning_time.py's SRC and DST
    src = gl.BlockedLayout([1, 4], [8, 4], [warps, 1], [1, 0])
    dst = gl.BlockedLayout([4, 1], [4, 8], [1, warps], [0, 1])
    ty = {"f16": "fp16", "f32": "fp32", "f64": "fp64", "i8": "i8"}[dtype]
    sig = {"x_ptr": "*" + ty, "y_ptr": "*" + ty, "M": "constexpr", "N": "constexpr", "SRC": "constexpr",
           "DST": "constexpr"}
    ast = GluonASTSource(cvt, signature=sig, constexprs={"M": m, "N": n, "SRC": src, "DST": dst})
    k = triton.compile(ast, target=GPUTarget("cuda", 90, 32), options={"num_warps": warps})
    return k.metadata.shared


def main() -> None:
    args = sys.argv[1:]
    tiles = [(int(args[i]), int(args[i + 1]), int(args[i + 2]), args[i + 3]) for i in range(0, len(args), 4)] or [
        (32, 512, 512, "f32"), (32, 512, 512, "f64"), (32, 1024, 1024, "f32"), (32, 1024, 1024, "f64")]
    for w, m, n, dt in tiles:
        b = scratch(w, m, n, dt)
        print(json.dumps({"triton": triton.__version__, "target": "cuda:90", "warps": w, "shape": [m, n],
                          "dtype": dt, "shared_bytes": b, "launchable_on_sm90": b <= SM90_SMEM_LIMIT}),
              flush=True)


if __name__ == "__main__":
    main()
