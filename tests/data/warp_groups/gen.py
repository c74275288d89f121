#!/usr/bin/env python3
"""Warp-specialized Gluon kernels whose partitions convert layouts across their own warps, compiled
by Triton 3.6 for sm_90 on the CPU (no GPU), and the first warp Triton gives each partition.

usage (from the repository root): python3 tests/data/warp_groups/gen.py
  writes tests/data/warp_groups/<kernel>.ttgir (the TTGIR `triton.compile` keeps, which does not
  carry the allocation) and start_ids.json: per file, per `ttg.warp_specialize` op (by the line
  its op starts on), the kernel's own partitions ("partitions") and the `warpGroupStartIds` that
  Triton's own TritonGPUAllocateWarpGroups pass (the first pass of its TTGIR -> LLVM pipeline,
  run here alone on the parsed file) sets ("start_ids": the padding partitions it adds last).
  `synth/tests/warp_groups.rs` checks warpforge's reading of each partition's first warp against
  them; `pipeline/tests/warp_specialize.rs` plans and proves the partitions' helpers.
Needs triton==3.6.0 (Gluon). About 30 s on two cores."""
import glob, json, os, re, sys, tempfile

import triton
from triton._C.libtriton import ir, passes, nvidia, amd
from triton.backends.compiler import GPUTarget
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon._runtime import GluonASTSource

HERE = os.path.dirname(os.path.abspath(__file__))


@gluon.jit
def _body(out_ptr, TAG: gl.constexpr):
    # a 32x32 i32 tile, rows over the region's warps -> columns over them: across its warps
    nw: gl.constexpr = gl.num_warps()
    src: gl.constexpr = gl.BlockedLayout([1, 1], [1, 32], [nw, 1], [1, 0])
    dst: gl.constexpr = gl.BlockedLayout([1, 1], [32, 1], [1, nw], [0, 1])
    offs_r = gl.arange(0, 32, layout=gl.SliceLayout(1, src))
    offs_c = gl.arange(0, 32, layout=gl.SliceLayout(0, src))
    x = offs_r[:, None] * 32 + offs_c[None, :] + TAG
    y = gl.convert_layout(x, dst)
    offs_d = gl.arange(0, 32, layout=gl.SliceLayout(0, dst))
    offs_r2 = gl.arange(0, 32, layout=gl.SliceLayout(1, dst))
    gl.store(out_ptr + TAG * 1024 + offs_r2[:, None] * 32 + offs_d[None, :], y)


@gluon.jit
def w0(out_ptr):
    _body(out_ptr, 0)


@gluon.jit
def w1(out_ptr):
    _body(out_ptr, 1)


@gluon.jit
def w2(out_ptr):
    _body(out_ptr, 2)


@gluon.jit
def w3(out_ptr):
    _body(out_ptr, 3)


@gluon.jit
def w4(out_ptr):
    _body(out_ptr, 4)


@gluon.jit
def ws2(out_ptr, A: gl.constexpr, B: gl.constexpr):
    gl.warp_specialize([(w0, (out_ptr, )), (w1, (out_ptr, )), (w2, (out_ptr, ))], [A, B], [48, 48])


@gluon.jit
def ws3(out_ptr, A: gl.constexpr, B: gl.constexpr, C: gl.constexpr):
    gl.warp_specialize([(w0, (out_ptr, )), (w1, (out_ptr, )), (w2, (out_ptr, )), (w3, (out_ptr, ))],
                       [A, B, C], [48, 48, 48])


@gluon.jit
def ws4(out_ptr, A: gl.constexpr, B: gl.constexpr, C: gl.constexpr, D: gl.constexpr):
    gl.warp_specialize([(w0, (out_ptr, )), (w1, (out_ptr, )), (w2, (out_ptr, )), (w3, (out_ptr, )),
                        (w4, (out_ptr, ))], [A, B, C, D], [48, 48, 48, 48])


@gluon.jit
def ws_twice(out_ptr, A: gl.constexpr, B: gl.constexpr, C: gl.constexpr, D: gl.constexpr):
    # two ops in one module: the one with fewer partition warps is padded to the other's warp groups
    gl.warp_specialize([(w0, (out_ptr, )), (w1, (out_ptr, )), (w2, (out_ptr, ))], [A, B], [48, 48])
    gl.warp_specialize([(w0, (out_ptr, )), (w3, (out_ptr, )), (w4, (out_ptr, ))], [C, D], [48, 48])


# (kernel, partition warps, default warps)
CASES = [
    (ws3, (1, 4, 2), 4),
    (ws2, (2, 1), 8),
    (ws2, (8, 1), 4),
    (ws2, (2, 2), 4),
    (ws4, (1, 1, 1, 1), 4),
    (ws4, (1, 2, 1, 2), 4),
    (ws2, (4, 4), 8),
    (ws3, (2, 1, 1), 16),
    (ws_twice, (1, 1, 4, 2), 4),
]


def ttgir(src, num_warps):
    """The TTGIR Triton keeps for `src` on sm_90. Read from a fresh cache folder, where Triton
    writes each stage's IR as it goes: a later stage may fail (Triton 3.6 sets a default group's
    register count above 256 in `ws_twice` at 4 default warps), the TTGIR is kept all the same."""
    with tempfile.TemporaryDirectory() as cache:
        os.environ["TRITON_CACHE_DIR"] = cache
        try:
            return triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": num_warps}).asm["ttgir"]
        except RuntimeError as e:
            found = glob.glob(os.path.join(cache, "*", "*.ttgir"))
            if len(found) != 1:
                raise
            print(f"  (a stage after TTGIR failed: {str(e)[:80]})", flush=True)
            return open(found[0]).read()


def start_ids(path, partitions):
    """{op line: {"partitions": n, "start_ids": warpGroupStartIds}} from Triton's allocation pass
    on the parsed file; `partitions`: each op's own partition count, in op order."""
    ctx = ir.context()
    ir.load_dialects(ctx)
    nvidia.load_dialects(ctx)
    amd.load_dialects(ctx)
    m = ir.parse_mlir_module(path, ctx)
    m.context = ctx
    pm = ir.pass_manager(ctx)
    passes.ttgpuir.add_allocate_warp_groups(pm)
    pm.run(m, "allocate_warp_groups")
    ids = [[int(x) for x in a.split(",")] for a in re.findall(r"warpGroupStartIds = array<i32: ([0-9, ]+)>", str(m))]
    lines = [i + 1 for i, l in enumerate(open(path).read().splitlines()) if "ttg.warp_specialize(" in l]
    assert len(ids) == len(lines) == len(partitions), (path, ids, lines, partitions)
    return {str(l): {"partitions": n, "start_ids": a} for l, a, n in zip(lines, ids, partitions)}


def main():
    assert triton.__version__.startswith("3.6"), triton.__version__
    truth = {}
    for fn, warps, nw in CASES:
        name = f"{fn.__name__}_w{'_'.join(map(str, warps))}_def{nw}"
        names = ["A", "B", "C", "D"][:len(warps)]
        sig = {"out_ptr": "*i32", **{n: "constexpr" for n in names}}
        src = GluonASTSource(fn=fn, signature=sig, constexprs=dict(zip(names, warps)))
        path = os.path.join(HERE, f"{name}.ttgir")
        with open(path, "w") as f:
            f.write(ttgir(src, nw))
        # ws_twice: two ops of two partitions each
        ops = [2, 2] if fn is ws_twice else [len(warps)]
        truth[f"{name}.ttgir"] = start_ids(path, ops)
        print(name, truth[f"{name}.ttgir"], flush=True)
    with open(os.path.join(HERE, "start_ids.json"), "w") as f:
        json.dump(truth, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    sys.exit(main())
