#!/usr/bin/env python3
"""Triton 3.6's own AMD lowering of every `ttg.convert_layout` of the AMD corpus,
compiled on the CPU (no GPU, no ROCm needed), with its amdgcn instructions counted.

    python3 scripts/amd_triton_counts.py --out results/runs/DIR [--jobs 2] [--limit N]

For each conversion line of corpus/real/amd/*/*.ttgir (tensor shape, element type,
source and destination layout, the file's module attributes: target, num-warps,
threads-per-warp) three one-tile TTGIR kernels are written and compiled with
Triton's HIP backend stages (`make_llir`, `make_amdgcn`, as `triton.compile` runs
them for an .ttgir source; `--hsaco` also runs `make_hsaco`):

  conv      load the tile in the source layout from a global pointer,
            ttg.convert_layout to the destination layout, store it in the
            destination layout;
  base      load and store in the source layout (no conversion);
  base_dst  load and store in the destination layout (no conversion).

Offsets are row-major (`tt.make_range` per dimension in the layout sliced down to
that dimension, `tt.expand_dims`, `tt.broadcast`), pointer arguments carry
`tt.divisibility = 16` as Triton's specialised kernels do.  Instructions of the
kernel body (kernel label to `.Lfunc_end0`) are counted by class; `diff` is
conv - base, `diff_dst` is conv - base_dst.

Writes OUT/triton_amd.jsonl (one row per conversion) and OUT/summary.md.
Each conversion compiles in its own child process, so a Triton abort is an
`error` row and the run goes on.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join("corpus", "real", "amd")
TARGETS = ("gfx942", "gfx950", "gfx1100")

# ---------------------------------------------------------------- parsing


def tensors(text):
    """(type, encoding) of each `tensor<...>` in text, brackets balanced."""
    out, i = [], 0
    while True:
        i = text.find("tensor<", i)
        if i < 0:
            return out
        j, depth = i + len("tensor<"), 1
        while depth:
            depth += {"<": 1, ">": -1}.get(text[j], 0)
            j += 1
        ty, attr = text[i + len("tensor<"):j - 1].split(",", 1)
        out.append((ty.strip(), attr.strip()))
        i = j


DISTRIBUTED = ("#ttg.blocked", "#ttg.slice", "#ttg.linear", "#ttg.amd_mfma", "#ttg.amd_wmma", "#ttg.dot_op",
               "#ttg.nvidia_mma", "#ttg.amd_")
SHARED = ("shared", "#ttg.padded", "#ttg.nvmma")


def parse_file(path):
    """All convert_layout lines of one corpus file, aliases expanded."""
    text = open(path).read()
    aliases = {}
    for m in re.finditer(r"^(#[\w.]+)\s*=\s*(#.*)$", text, re.M):
        aliases[m.group(1)] = m.group(2).strip()

    def expand(a):
        for _ in range(8):  # aliases nested in inline attributes (parent = #mma)
            a = re.sub(r"#[\w.]+(?![\w.<])", lambda m: aliases.get(m.group(0), m.group(0)), a)
        return a

    mod = re.search(r"^module attributes \{(.*)\} \{$", text, re.M)
    attrs = mod.group(1) if mod else ""
    warps = int(re.search(r'"ttg.num-warps"\s*=\s*(\d+)', attrs).group(1))
    tpw = int(re.search(r'"ttg.threads-per-warp"\s*=\s*(\d+)', attrs).group(1))
    target = re.search(r'ttg.target\s*=\s*"([^"]+)"', attrs).group(1)
    rows = []
    for i, line in enumerate(text.splitlines(), 1):
        if not re.search(r"=\s*ttg\.convert_layout\s+%", line):
            continue
        ts = tensors(line.split(" : ", 1)[1]) if " : " in line else []
        row = {"file": os.path.relpath(path, REPO), "line": i, "target": target, "num_warps": warps,
               "threads_per_warp": tpw, "module_attrs": attrs}
        if len(ts) != 2:
            row.update(status="skipped", reason="not a tensor -> tensor convert_layout")
            rows.append(row)
            continue
        (ta, a), (tb, b) = ts
        parts = ta.split("x")
        row.update(shape=[int(p) for p in parts[:-1]], dtype=parts[-1], src_alias=a, dst_alias=b,
                   src=expand(a), dst=expand(b))
        if ta != tb:
            row.update(status="skipped", reason=f"shape/type differ: {ta} vs {tb}")
        elif any(s in row["src"].split("<", 1)[0] or s in row["dst"].split("<", 1)[0] for s in SHARED):
            row.update(status="skipped", reason="shared-memory encoding (not a distributed -> distributed conversion)")
        elif row["src"] == row["dst"]:
            row.update(status="skipped", reason="source and destination layout are the same")
        else:
            row["status"] = "todo"
        rows.append(row)
    return rows


# ---------------------------------------------------------------- kernels


def offsets_ir(lay, shape, name):
    """MLIR lines computing the row-major i32 offsets of tensor<shape, lay>; returns (lines, value)."""
    r = len(shape)
    full = "x".join(map(str, shape))
    lines = []
    ty = lambda s, l: f"tensor<{'x'.join(map(str, s))}xi32, {l}>"
    terms = []
    for d in range(r):
        if shape[d] == 1:
            continue
        others = [e for e in range(r) if e != d]
        # insert the other dims in increasing order; layout before inserting the k-th is
        # slice<dim = axis_k, parent = layout after it>
        present = [d]
        axes = []
        for e in others:
            ax = sum(1 for p in present if p < e)
            axes.append(ax)
            present.append(e)
        lays = [lay]
        for ax in reversed(axes):
            lays.insert(0, f"#ttg.slice<{{dim = {ax}, parent = {lays[0]}}}>")
        cur_shape = [shape[d]]
        v = f"%{name}_r{d}"
        lines.append(f"    {v} = tt.make_range {{end = {shape[d]} : i32, start = 0 : i32}} : {ty(cur_shape, lays[0])}")
        present = [d]
        for k, (e, ax) in enumerate(zip(others, axes)):
            new_shape = cur_shape[:ax] + [1] + cur_shape[ax:]
            nv = f"%{name}_e{d}_{k}"
            lines.append(f"    {nv} = tt.expand_dims {v} {{axis = {ax} : i32}} : {ty(cur_shape, lays[k])} -> "
                         f"{ty(new_shape, lays[k + 1])}")
            v, cur_shape = nv, new_shape
        stride = 1
        for e in range(d + 1, r):
            stride *= shape[e]
        if stride != 1:
            c = f"%{name}_c{d}"
            lines.append(f"    {c} = arith.constant dense<{stride}> : {ty(cur_shape, lay)}")
            m = f"%{name}_m{d}"
            lines.append(f"    {m} = arith.muli {v}, {c} : {ty(cur_shape, lay)}")
            v = m
        if cur_shape != shape:
            b = f"%{name}_b{d}"
            lines.append(f"    {b} = tt.broadcast {v} : {ty(cur_shape, lay)} -> {ty(shape, lay)}")
            v = b
        terms.append(v)
    if not terms:
        v = f"%{name}_zero"
        lines.append(f"    {v} = arith.constant dense<0> : {ty(shape, lay)}")
        return lines, v
    v = terms[0]
    for k, t in enumerate(terms[1:]):
        nv = f"%{name}_a{k}"
        lines.append(f"    {nv} = arith.addi {v}, {t} : tensor<{full}xi32, {lay}>")
        v = nv
    return lines, v


def kernel_ir(row, kind):
    """TTGIR text of one kernel: kind in conv, base, base_dst."""
    shape, dt = row["shape"], row["dtype"]
    full = "x".join(map(str, shape))
    ld = "#src" if kind in ("conv", "base") else "#dst"
    st = "#dst" if kind in ("conv", "base_dst") else "#src"
    pt = f"!tt.ptr<{dt}>"
    body = []
    lo, lv = offsets_ir(ld, shape, "l")
    body += lo
    body.append(f"    %lp = tt.splat %in : {pt} -> tensor<{full}x{pt}, {ld}>")
    body.append(f"    %lpp = tt.addptr %lp, {lv} : tensor<{full}x{pt}, {ld}>, tensor<{full}xi32, {ld}>")
    body.append(f"    %v = tt.load %lpp : tensor<{full}x{pt}, {ld}>")
    val = "%v"
    if ld != st:
        body.append(f"    %c = ttg.convert_layout %v : tensor<{full}x{dt}, {ld}> -> tensor<{full}x{dt}, {st}>")
        val = "%c"
    if ld == st:
        sv = lv
    else:
        so, sv = offsets_ir(st, shape, "s")
        body += so
    body.append(f"    %sp = tt.splat %out : {pt} -> tensor<{full}x{pt}, {st}>")
    body.append(f"    %spp = tt.addptr %sp, {sv} : tensor<{full}x{pt}, {st}>, tensor<{full}xi32, {st}>")
    body.append(f"    tt.store %spp, {val} : tensor<{full}x{pt}, {st}>")
    return "\n".join([
        f"#src = {row['src']}",
        f"#dst = {row['dst']}",
        f"module attributes {{{row['module_attrs']}}} {{",
        f"  tt.func public @cvt(%in: {pt} {{tt.divisibility = 16 : i32}}, "
        f"%out: {pt} {{tt.divisibility = 16 : i32}}) attributes {{noinline = false}} {{",
        *body,
        "    tt.return",
        "  }",
        "}",
        "",
    ])


# ---------------------------------------------------------------- counting

DPP_RE = re.compile(r"\b(row_\w+|quad_perm|wave_\w+|dpp8|bound_ctrl|fi:1)\b")
WIDTH_RE = re.compile(r"_[biu](8|16|32|64|96|128)(?![0-9])")
KEYS = ("total", "valu", "salu", "vmem", "ds_bpermute_b32", "ds_permute_b32", "ds_swizzle_b32", "dpp",
        "v_permlane", "v_perm_b32", "v_cndmask_b32", "lds_read", "lds_read_bytes", "lds_write",
        "lds_write_bytes", "s_barrier", "s_waitcnt")
META = ("vgpr", "sgpr", "agpr", "lds_bytes", "scratch_bytes", "vgpr_spill", "sgpr_spill")


def lds_bytes(mn):
    """bytes per lane of one ds_read/ds_load/ds_write/ds_store mnemonic."""
    m = WIDTH_RE.search(mn)
    w = int(m.group(1)) // 8 if m else 4
    if re.search(r"(read2|write2|2addr)", mn):
        w *= 2
    return w


def count_asm(asm, name="cvt"):
    lines = asm.splitlines()
    try:
        start = next(i for i, l in enumerate(lines) if l.startswith(name + ":"))
    except StopIteration:
        raise RuntimeError("kernel label not found in amdgcn")
    c = dict.fromkeys(KEYS, 0)
    ops = {}
    for l in lines[start + 1:]:
        s = l.strip()
        if s.startswith((".Lfunc_end", ".section")):
            break
        s = s.split(";", 1)[0].strip()
        if not s or s.startswith(".") or s.endswith(":"):
            continue
        mn = s.split()[0]
        rest = s[len(mn):]
        ops[mn] = ops.get(mn, 0) + 1
        c["total"] += 1
        if mn.startswith("v_"):
            c["valu"] += 1
        elif mn.startswith("s_"):
            c["salu"] += 1
        elif mn.startswith(("global_", "buffer_", "flat_")):
            c["vmem"] += 1
        for k in ("ds_bpermute_b32", "ds_permute_b32", "ds_swizzle_b32", "v_perm_b32", "v_cndmask_b32"):
            if mn == k or mn.startswith(k + "_"):
                c[k] += 1
        if "_dpp" in mn or DPP_RE.search(rest):
            c["dpp"] += 1
        if mn.startswith("v_permlane"):
            c["v_permlane"] += 1
        if mn.startswith(("ds_read", "ds_load")):
            c["lds_read"] += 1
            c["lds_read_bytes"] += lds_bytes(mn)
        elif mn.startswith(("ds_write", "ds_store")):
            c["lds_write"] += 1
            c["lds_write_bytes"] += lds_bytes(mn)
        if mn.startswith("s_barrier"):
            c["s_barrier"] += 1
        if mn.startswith("s_waitcnt"):
            c["s_waitcnt"] += 1

    def meta(key):
        m = re.search(r"^\s*(?:-\s*)?\." + key + r":\s*(\d+)", asm, re.M)
        return int(m.group(1)) if m else None

    c["vgpr"] = meta("vgpr_count")
    c["sgpr"] = meta("sgpr_count")
    c["agpr"] = meta("agpr_count")
    c["lds_bytes"] = meta("group_segment_fixed_size")
    c["scratch_bytes"] = meta("private_segment_fixed_size")
    c["vgpr_spill"] = meta("vgpr_spill_count")
    c["sgpr_spill"] = meta("sgpr_spill_count")
    return c, ops


# ---------------------------------------------------------------- child: one conversion


def compile_one(path, arch, warp_size, num_warps, hsaco):
    """Triton's HIP stages for an .ttgir source, as triton.compile runs them (llir, amdgcn[, hsaco])."""
    from triton._C.libtriton import ir
    from triton.backends.compiler import GPUTarget
    from triton.compiler.compiler import make_backend
    target = GPUTarget("hip", arch, warp_size)
    backend = make_backend(target)
    context = ir.context()
    ir.load_dialects(context)
    backend.load_dialects(context)
    mod = ir.parse_mlir_module(path, context)
    mod.context = context
    options = backend.parse_options({"num_warps": num_warps, "num_ctas": 1})
    stages = {}
    backend.add_stages(stages, options, None)
    metadata = {}
    llir = stages["llir"](mod, metadata)
    amdgcn = stages["amdgcn"](llir, metadata)
    if hsaco:
        stages["hsaco"](amdgcn, metadata)
    return amdgcn, metadata


def child(args):
    row = json.loads(open(args.child).read())
    arch = row["target"].split(":", 1)[1]
    res = {}
    with tempfile.TemporaryDirectory() as d:
        for kind in ("conv", "base", "base_dst"):
            p = os.path.join(d, f"{kind}.ttgir")
            open(p, "w").write(kernel_ir(row, kind))
            t0 = time.time()
            # MLIR diagnostics go to fd 2; the parent keeps the first error line
            print(f"@@stage {kind}", file=sys.stderr, flush=True)
            asm, md = compile_one(p, arch, row["threads_per_warp"], row["num_warps"], args.hsaco)
            c, ops = count_asm(asm)
            c["shared"] = md.get("shared")
            res[kind] = c
            res[kind + "_s"] = round(time.time() - t0, 3)
            if kind == "conv":
                res["conv_ops"] = ops
            if args.keep_asm:
                open(os.path.join(args.keep_asm, f"{kind}.s"), "w").write(asm)
                open(os.path.join(args.keep_asm, f"{kind}.ttgir"), "w").write(kernel_ir(row, kind))
    print(json.dumps(res))


# ---------------------------------------------------------------- parent

DIFF_KEYS = KEYS + META + ("shared",)


def diff(a, b):
    return {k: (a[k] - b[k]) if a.get(k) is not None and b.get(k) is not None else None for k in DIFF_KEYS}


def mechanism(d):
    """How the conversion moves data, from conv - base: '+'-joined of lds (ds_write/ds_read
    round trip), bpermute (ds_bpermute/ds_permute), swizzle, dpp, permlane; 'registers' if none."""
    m = [name for name, keys in (("lds", ("lds_write",)), ("bpermute", ("ds_bpermute_b32", "ds_permute_b32")),
                                 ("swizzle", ("ds_swizzle_b32",)), ("dpp", ("dpp",)), ("permlane", ("v_permlane",)))
         if any((d[k] or 0) > 0 for k in keys)]
    return "+".join(m) or "registers"


def first_error(stderr):
    lines = [l for l in stderr.splitlines() if l.strip() and not l.startswith("@@stage")]
    stage = [l.split()[1] for l in stderr.splitlines() if l.startswith("@@stage")]
    pats = ("error:", "Error", "Assertion", "assert", "LLVM ERROR", "Traceback", "Exception")
    for l in lines:
        if any(p in l for p in pats) and not l.startswith("Traceback"):
            return (stage[-1] if stage else "?"), l.strip()[:400]
    return (stage[-1] if stage else "?"), (lines[-1].strip()[:400] if lines else "no output")


def run_row(row, args, tmpdir):
    key = f"{row['file']}:{row['line']}".replace("/", "_")
    jp = os.path.join(tmpdir, key + ".json")
    open(jp, "w").write(json.dumps(row))
    cmd = [sys.executable, os.path.abspath(__file__), "--child", jp]
    if args.hsaco:
        cmd.append("--hsaco")
    t0 = time.time()
    env = dict(os.environ, TRITON_CACHE_DIR=os.path.join(tmpdir, "cache"))
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout, env=env)
        rc, out, err = r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired as e:
        rc, out, err = "timeout", "", (e.stderr or b"").decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
        err += f"\ntimeout after {args.timeout} s"
    row = dict(row)
    row["wall_s"] = round(time.time() - t0, 2)
    row.pop("module_attrs", None)
    if rc == 0 and out.strip():
        res = json.loads(out.strip().splitlines()[-1])
        row["status"] = "ok"
        for k in ("conv", "base", "base_dst"):
            row[k] = res[k]
        row["compile_s"] = {k: res[k + "_s"] for k in ("conv", "base", "base_dst")}
        row["diff"] = diff(res["conv"], res["base"])
        row["diff_dst"] = diff(res["conv"], res["base_dst"])
        row["conv_ops"] = res["conv_ops"]
        row["mechanism"] = mechanism(row["diff"])
    else:
        stage, msg = first_error(err)
        row["status"] = "error"
        row["error_kernel"] = stage
        row["error"] = msg
        row["returncode"] = rc
    return row


def fmt(x):
    return "-" if x is None else (f"{x:.0f}" if float(x).is_integer() else f"{x:.1f}")


def summary(rows):
    import platform
    import triton
    # the targets the rows are for: the corpus's three, or those of --files
    targets = sorted({r["target"].split(":", 1)[1] for r in rows if r.get("target", "").startswith("hip:")},
                     key=lambda t: (not t.startswith("gfx9"), t)) or list(TARGETS)
    out = ["# Triton AMD lowering of the corpus conversions: amdgcn counts", "",
           f"Triton {triton.__version__}, Python {platform.python_version()}, HIP backend stages "
           "make_llir + make_amdgcn (+ make_hsaco with --hsaco) on the CPU.", "",
           "`diff` = conv kernel - base kernel (load+store in the source layout); counts are "
           "instructions in the kernel body (per wave, static), `*_bytes` are LDS bytes per lane "
           "summed over the instructions, vgpr/sgpr/lds_bytes from the kernel metadata.", ""]
    out += ["| target | conversions | compiled | failed | skipped |", "|---|---|---|---|---|"]
    for t in targets:
        rs = [r for r in rows if r["target"] == "hip:" + t]
        n = lambda s: sum(1 for r in rs if r["status"] == s)
        out.append(f"| {t} | {len(rs)} | {n('ok')} | {n('error')} | {n('skipped')} |")
    out.append("")
    for which in ("diff", "diff_dst"):
        out.append(f"## `{which}` per target: median / mean over compiled conversions"
                   + (" (conv - base_dst: load+store in the destination layout)" if which == "diff_dst" else ""))
        out.append("")
        out.append("| class | " + " | ".join(targets) + " |")
        out.append("|---|" + "---|" * len(targets))
        for k in DIFF_KEYS:
            cells = []
            for t in targets:
                vs = [r[which][k] for r in rows if r["target"] == "hip:" + t and r["status"] == "ok"
                      and r[which].get(k) is not None]
                cells.append(f"{fmt(statistics.median(vs))} / {fmt(statistics.mean(vs))}" if vs else "-")
            out.append(f"| {k} | " + " | ".join(cells) + " |")
        out.append("")
    out.append("## mechanism (from conv - base; 'registers' = no LDS and no cross-lane instruction)")
    out.append("")
    mechs = sorted({r["mechanism"] for r in rows if r["status"] == "ok"})
    out.append("| mechanism | " + " | ".join(targets) + " |")
    out.append("|---|" + "---|" * len(targets))
    for m in mechs:
        out.append(f"| {m} | " + " | ".join(
            str(sum(1 for r in rows if r["target"] == "hip:" + t and r.get("mechanism") == m)) for t in targets) + " |")
    out.append("")
    out.append("## conversions using each mechanism (conv kernel, count of conversions with diff > 0)")
    out.append("")
    out.append("| class | " + " | ".join(targets) + " |")
    out.append("|---|" + "---|" * len(targets))
    for k in ("lds_write", "lds_read", "s_barrier", "ds_bpermute_b32", "ds_permute_b32", "ds_swizzle_b32", "dpp",
              "v_permlane", "v_perm_b32", "v_cndmask_b32"):
        cells = []
        for t in targets:
            ok = [r for r in rows if r["target"] == "hip:" + t and r["status"] == "ok"]
            cells.append(f"{sum(1 for r in ok if (r['diff'][k] or 0) > 0)} / {len(ok)}")
        out.append(f"| {k} | " + " | ".join(cells) + " |")
    out.append("")
    errs = [r for r in rows if r["status"] != "ok"]
    if errs:
        out.append("## failed and skipped")
        out.append("")
        for r in errs:
            out.append(f"- `{r['file']}:{r['line']}` {r['status']}: "
                       f"{r.get('error_kernel', '')} {r.get('error') or r.get('reason')}")
        out.append("")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="output folder (triton_amd.jsonl, summary.md)")
    ap.add_argument("--jobs", type=int, default=2, help="parallel compile processes (default 2)")
    ap.add_argument("--limit", type=int, help="only the first N conversions (quick try)")
    ap.add_argument("--targets", default=",".join(TARGETS), help="comma-separated gfx targets")
    ap.add_argument("--files", nargs="*", help="corpus files instead of corpus/real/amd/*/*.ttgir")
    ap.add_argument("--hsaco", action="store_true", help="also run make_hsaco (assemble + link) per kernel")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per conversion (3 kernels)")
    ap.add_argument("--keep-asm", help=argparse.SUPPRESS)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args)
    if not args.out:
        ap.error("--out is required")
    files = args.files
    if not files:
        files = []
        for t in args.targets.split(","):
            d = os.path.join(REPO, CORPUS, t)
            files += sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".ttgir"))
    rows = [r for f in files for r in parse_file(os.path.abspath(f))]
    if args.limit:
        rows = rows[:args.limit]
    os.makedirs(args.out, exist_ok=True)
    todo = [r for r in rows if r["status"] == "todo"]
    print(f"{len(rows)} conversions, {len(todo)} to compile, {args.jobs} jobs", flush=True)
    t0 = time.time()
    done = {}
    jp = os.path.join(args.out, "triton_amd.jsonl")
    with tempfile.TemporaryDirectory() as tmp, open(jp + ".partial", "w") as part, \
            ThreadPoolExecutor(args.jobs) as ex:
        futs = {id(r): ex.submit(run_row, r, args, tmp) for r in todo}
        for k, r in enumerate(todo):
            res = futs[id(r)].result()
            done[id(r)] = res
            part.write(json.dumps(res) + "\n")
            part.flush()
            if (k + 1) % 10 == 0 or k + 1 == len(todo):
                print(f"  {k + 1}/{len(todo)}  {time.time() - t0:.0f} s", flush=True)
    final = []
    for r in rows:
        if id(r) in done:
            final.append(done[id(r)])
        else:
            r = dict(r)
            r.pop("module_attrs", None)
            final.append(r)
    with open(jp, "w") as f:
        for r in final:
            f.write(json.dumps(r) + "\n")
    os.remove(jp + ".partial")
    s = summary(final)
    open(os.path.join(args.out, "summary.md"), "w").write(s + "\n")
    print(s)
    print(f"total {time.time() - t0:.0f} s")


if __name__ == "__main__":
    sys.exit(main())
