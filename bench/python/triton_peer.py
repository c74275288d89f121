#!/usr/bin/env python3
"""Triton's own lowering of layout conversions, timed the way `warpforge
bench` times warpforge's helpers (shipped inside the warpforge binary; run by
`warpforge bench`, not by hand).

usage: triton_peer.py CASES.json START ITERS RUNS CTAS OUTDIR

For each case from index START of CASES.json (a list of {id, shape (any rank:
a 1-D tensor is timed as [1, N], a rank above 2 with its last dims folded, as_2d),
warps, bits, ctas, src, dst}, layouts as {register, lane, warp, block}
bases; `ctas` > 1: the tensor spans the CTAs of a cluster, compiled with
`num_ctas`), builds
Gluon kernels whose tensors are `DistributedLinearLayout`s of those bases:
`once` (load in src, convert_layout to dst, store) checked bit-exactly, and
`loop` (CTAS CTAs x ITERS round trips src -> dst, xor 1, dst -> src, as
warpforge's timing kernel), checked bit-exactly too. With RUNS > 0 the loop
is timed here, with CUDA events around each of RUNS launches enqueued back
to back after two warm-up launches (the median is reported); with RUNS = 0
it is not, and `loop_launch` (the kernel's name, dynamic shared bytes,
warps, PTX parameter types and hidden scratch sizes) lets warpforge launch
the loop cubin itself, interleaved with its own kernels. Writes each
kernel's cubin to OUTDIR (warpforge counts its SASS the same way as its own)
and prints one JSON line per case. A layout Triton rejects may abort the
process; warpforge restarts it after that case.
"""
import json, os, re, sys

import torch
import triton  # noqa: F401  (the Gluon front end needs it loaded)
from triton.experimental import gluon
from triton.experimental.gluon import language as ttgl

DT = {8: torch.int8, 16: torch.int16, 32: torch.int32, 64: torch.int64}


@gluon.jit
def once(x_ptr, y_ptr, M: ttgl.constexpr, N: ttgl.constexpr, src: ttgl.constexpr, dst: ttgl.constexpr):
    om = ttgl.arange(0, M, layout=ttgl.SliceLayout(1, src))[:, None]
    on = ttgl.arange(0, N, layout=ttgl.SliceLayout(0, src))[None, :]
    x = ttgl.load(x_ptr + om * N + on)
    y = ttgl.convert_layout(x, dst)
    dm = ttgl.arange(0, M, layout=ttgl.SliceLayout(1, dst))[:, None]
    dn = ttgl.arange(0, N, layout=ttgl.SliceLayout(0, dst))[None, :]
    ttgl.store(y_ptr + dm * N + dn, y)


@gluon.jit
def loop(x_ptr, y_ptr, M: ttgl.constexpr, N: ttgl.constexpr, src: ttgl.constexpr, dst: ttgl.constexpr, iters):
    pid = ttgl.program_id(0)
    om = ttgl.arange(0, M, layout=ttgl.SliceLayout(1, src))[:, None]
    on = ttgl.arange(0, N, layout=ttgl.SliceLayout(0, src))[None, :]
    x = ttgl.load(x_ptr + pid * M * N + om * N + on)
    for i in range(iters):  # a run-time trip count: the loop is not folded
        y = ttgl.convert_layout(x, dst)
        y = y ^ 1
        x = ttgl.convert_layout(y, src)
    ttgl.store(y_ptr + pid * M * N + om * N + on, x)


def as_2d(bases, shape):
    """Bases of a layout of `shape` (any rank) as bases of the 2-D harness tensor `shape_2d`:
    [N] -> [1, N]; a rank above 2 folds its last two dims into one while it is above 2
    ([.., P, Q] -> [.., P * Q], coordinate (.., p, q) -> (.., p * Q + q)): with power-of-two
    dims the row-major offset is linear over GF(2), so the folded layout moves the same
    elements between the same registers, lanes and warps."""
    out = []
    for b in bases:
        v, dims = list(b), list(shape)
        if len(v) == 1:
            v = [0, v[0]]
        while len(v) > 2:
            *head, p, q = v
            *hd, _, dq = dims
            v, dims = head + [p * dq + q], hd + [dims[-2] * dq]
        out.append(v)
    return out


def shape_2d(shape):
    """The 2-D harness shape of a tensor of `shape` ([`as_2d`])."""
    if len(shape) == 1:
        return [1, shape[0]]
    dims = list(shape)
    while len(dims) > 2:
        *head, p, q = dims
        dims = head + [p * q]
    return dims


def layout(side, shape):
    return ttgl.DistributedLinearLayout(as_2d(side["register"], shape), as_2d(side["lane"], shape),
                                        as_2d(side["warp"], shape), as_2d(side.get("block", []), shape),
                                        shape_2d(shape))


def median_ms(f, runs):
    f()
    f()
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(runs)]
    for s, e in ev:
        s.record()
        f()
        e.record()
    torch.cuda.synchronize()
    t = sorted(s.elapsed_time(e) for s, e in ev)
    return t[len(t) // 2]


def entry_params(ptx, name):
    """PTX types of the `.entry NAME(...)` parameters, in order (PTX ISA 5.1.6.1)."""
    m = re.search(r"\.entry\s+%s\s*\((.*?)\)" % re.escape(name), ptx, re.S)
    if not m:
        return None
    return re.findall(r"\.param\s+\.(\w+)", m.group(1))


def launch_info(k):
    md = k.metadata
    try:
        ptx = k.asm["ptx"]
    except Exception:  # a build that keeps no PTX: warpforge then cannot launch it
        ptx = ""
    name = getattr(md, "name", None) or getattr(k, "name", "")
    return {
        "name": name,
        "shared": int(md.shared),
        "num_warps": int(md.num_warps),
        "num_ctas": int(getattr(md, "num_ctas", 1) or 1),
        "params": entry_params(ptx, name),
        "global_scratch_size": int(getattr(md, "global_scratch_size", 0) or 0),
        "profile_scratch_size": int(getattr(md, "profile_scratch_size", 0) or 0),
    }


def run(c, iters, runs, ctas, outdir):
    M, N = shape_2d(c["shape"])
    src, dst = layout(c["src"], c["shape"]), layout(c["dst"], c["shape"])
    dt, nw = DT[c["bits"]], c["warps"]
    # a cluster case: Triton's multi-CTA compile (it may refuse the conversion)
    kw = {"num_ctas": c["ctas"]} if c.get("ctas", 1) > 1 else {}
    x = torch.randint(-100, 100, (M, N), dtype=torch.int32, device="cuda").to(dt)
    y = torch.empty_like(x)
    ko = once[(1, )](x, y, M, N, src, dst, num_warps=nw, **kw)
    res = {"once_ok": bool(torch.equal(x, y))}
    xs = torch.randint(-100, 100, (ctas, M, N), dtype=torch.int32, device="cuda").to(dt)
    ys = torch.empty_like(xs)
    kl = loop[(ctas, )](xs, ys, M, N, src, dst, iters, num_warps=nw, **kw)
    torch.cuda.synchronize()
    res["loop_ok"] = bool(torch.equal(xs ^ (iters & 1), ys))
    if runs > 0:
        res["ms"] = median_ms(lambda: loop[(ctas, )](xs, ys, M, N, src, dst, iters, num_warps=nw, **kw), runs)
    res["loop_launch"] = launch_info(kl)
    for tag, k in (("once", ko), ("loop", kl)):
        path = os.path.join(outdir, "%s_%s.cubin" % (c["id"], tag))
        with open(path, "wb") as f:
            f.write(k.asm["cubin"])
        res[tag + "_cubin"] = path
    res["registers"] = int(getattr(kl, "n_regs", 0) or 0)
    res["smem_bytes"] = int(kl.metadata.shared)
    return res


def main():
    cases = json.load(open(sys.argv[1]))
    start, iters, runs, ctas = (int(a) for a in sys.argv[2:6])
    outdir = sys.argv[6]
    print(json.dumps({"triton_version": triton.__version__}), flush=True)
    for c in cases[start:]:
        # MLIR prints its diagnostics on fd 2: keep them to name why Triton
        # rejects a conversion (the exception only says the pass failed). The
        # file is named after the case, so that when Triton aborts the
        # process, warpforge reads the diagnostic from it (OUTDIR/ID.stderr)
        log_path = os.path.join(outdir, "%s.stderr" % c["id"])
        log = open(log_path, "w+b")
        saved = os.dup(2)
        os.dup2(log.fileno(), 2)
        try:
            r = run(c, iters, runs, ctas, outdir)
        except Exception as e:  # a layout Triton rejects with an exception
            r = {"error": ("%s: %s" % (type(e).__name__, e))[:400]}
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
        if "error" in r:
            log.seek(0)
            diag = [l.strip() for l in log.read().decode("utf-8", "replace").splitlines() if "error:" in l]
            if diag:
                r["error"] = ("%s (%s)" % (diag[0].split("error:", 1)[1].strip(), r["error"]))[:400]
        log.close()
        os.unlink(log_path)
        print(json.dumps({"id": c["id"], **r}), flush=True)


if __name__ == "__main__":
    main()
