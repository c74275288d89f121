#!/usr/bin/env python3
"""h2h's warpforge kernels compiled here, without a GPU: NVRTC 13.0 (to PTX, compute_90) and
ptxas 13.0 (sm_90, -O3), the releases of `make verify-resources`. For each case of an h2h work
folder (made by ../shared/tools/h2h/prep.py) prints one JSON line: registers, spill bytes and the
opcode counts of the innermost loop body (one round trip with H2H_UNROLL1=1) of `wf_loop` (element
form) and `wf_loop_packed` (packed form). nvcc's front end (h2h's compiler on the GPU machine) and
NVRTC share NVVM; registers here were within 2 of h2h's on the H200 for every corpus case.

usage (from the repository root): CUDA_TOOLS=out/cuda-tools PTXAS=DIR/ptxas \
       python3 scripts/h2h_local_probe.py H2H_PY WORK_DIR [CASE_ID ...] > rows.jsonl
  H2H_PY: h2h.py as shipped, or patched with
          results/runs/2026-11-26-h200-h2h-addressing-d5ef71b/h2h_fair.patch (then H2H_VAR=fair
          selects the variant)
  H2H_PROBE_TRITON=1: also compile Triton's side of each case (h2h's Gluon `loop` kernel) here with
          Triton's own compiler for cuda:90 and its bundled ptxas, its input pointers specialised as
          16-byte aligned and the trip count as a multiple of 16 (as Triton specialises h2h's launch
          with 256 round trips), in a child process; adds `triton_loop` {regs, body, global_io} to
          each row, or `triton_error` where Triton rejects the case. Needs Triton >= 3.6.
  H2H_PROBE_SASS=DIR: also write each kernel's SASS to DIR/<case id>_<kernel>.sass
          (`wf_loop`, `wf_loop_packed`, `wf_once`, and `triton_loop` with H2H_PROBE_TRITON).
  Each kernel's `global_io` counts its global loads and stores by opcode (`LDG.E.128`, ...), and
  its `loop_stalls` sums the stall cycles ptxas scheduled in the loop body (see `loop_stalls`).
  Imported as a module (`import h2h_local_probe`) by the local probes of the runs under results/runs/.
  CUDA_TOOLS: nvidia-cuda-nvrtc==13.0.88, nvidia-cuda-runtime (headers), nvidia-cuda-cuobjdump
              wheels installed with pip --target (the Makefile's out/cuda-tools)
  PTXAS: ptxas of the nvidia-cuda-nvcc==13.0.88 wheel
"""
import collections, ctypes, json, os, re, shutil, subprocess, sys, tempfile

ROOT = os.path.join(os.environ.get("CUDA_TOOLS", "out/cuda-tools"), "nvidia/cu13")
PTXAS = os.environ.get("PTXAS", "ptxas")


def nvrtc_compile(src, inc, opts):
    """NVRTC 13.0 on `src` with `-I inc`, CUDA's headers and `opts` (str): (the PTX, or None when
    the compile failed or targets a real `sm_` architecture, and the program log)."""
    # NVRTC dlopens its builtins library by name at the first compile; loaded here first, it is
    # found without LD_LIBRARY_PATH naming the wheel's lib folder
    builtins = os.path.join(ROOT, "lib/libnvrtc-builtins.so.13.0")
    if os.path.exists(builtins):
        ctypes.CDLL(builtins, mode=ctypes.RTLD_GLOBAL)
    nv = ctypes.CDLL(os.path.join(ROOT, "lib/libnvrtc.so.13"))
    prog = ctypes.c_void_p()
    if nv.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), b"k.cu", 0, None, None):
        raise RuntimeError("nvrtcCreateProgram failed")
    opts = [o.encode() for o in opts] + [("-I" + inc).encode(), ("-I" + os.path.join(ROOT, "include")).encode()]
    rc = nv.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
    n = ctypes.c_size_t()
    nv.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
    log = ctypes.create_string_buffer(n.value)
    nv.nvrtcGetProgramLog(prog, log)
    if rc or not any(o.startswith(b"--gpu-architecture=compute_") for o in opts):
        return None, log.value.decode()
    nv.nvrtcGetPTXSize(prog, ctypes.byref(n))
    ptx = ctypes.create_string_buffer(n.value)
    nv.nvrtcGetPTX(prog, ptx)
    return ptx.value.decode(), log.value.decode()


def nvrtc_ptx(src, inc, extra=()):
    """PTX for compute_90 (C++17, `-default-device`, then `extra`); RuntimeError with the log."""
    ptx, log = nvrtc_compile(src, inc, ["--gpu-architecture=compute_90", "-std=c++17", "-default-device", *extra])
    if ptx is None:
        raise RuntimeError(log[-2000:])
    return ptx


def sass_instructions(sass):
    """(address, opcode without modifiers, operands) of every instruction of cuobjdump's SASS."""
    ins = []
    for line in sass.splitlines():
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)\s*([^;]*)", line)
        if m:
            ins.append((int(m.group(1), 16), m.group(2).split(".")[0], m.group(3)))
    return ins


def loop_span(ins):
    """(first, last) address of the innermost loop of `sass_instructions` rows: the shortest
    backward branch and its target; None without a loop."""
    best = None
    for a, op, arg in ins:
        t = re.match(r"\s*(?:0x)?([0-9a-f]+)", arg) if op == "BRA" else None
        if t and int(t.group(1), 16) < a and (best is None or a - int(t.group(1), 16) < best[1] - best[0]):
            best = (int(t.group(1), 16), a)
    return best


def loop_body(sass):
    """Opcode counts between the shortest backward branch and its target."""
    ins = sass_instructions(sass)
    best = loop_span(ins)
    if best is None:
        return None
    return dict(collections.Counter(op for a, op, _ in ins if best[0] <= a <= best[1] and op != "NOP"))


def loop_stalls(sass):
    """The scheduling ptxas chose for the innermost loop body: {instructions, stall_cycles,
    waits}. Each SASS instruction of Volta and later is 128 bits; cuobjdump prints its low and
    high 64 bits as two hex comments, and the high word carries ptxas's control information
    (Jia et al., "Dissecting the NVIDIA Volta GPU Architecture via Microbenchmarking", 2018,
    section 2.1): bits 41-44 the cycles the warp stalls before its next instruction, bits 52-57
    the scoreboards it waits on. `stall_cycles` sums the first over the body (the cycles one warp
    spends by ptxas's fixed latencies alone, not the variable ones of shuffles and shared-memory
    loads), `waits` counts instructions that wait on a scoreboard. A static measure: two loops of
    the same opcode counts can differ in it, as their times can; it does not predict a time."""
    lines = sass.splitlines()
    rows = []
    for i, line in enumerate(lines[:-1]):
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+([^;]*);\s*/\* 0x[0-9a-f]{16} \*/", line)
        hi = re.match(r"\s*/\* 0x([0-9a-f]{16}) \*/", lines[i + 1]) if m else None
        if m and hi:
            rows.append((int(m.group(1), 16), int(hi.group(1), 16)))
    span = loop_span(sass_instructions(sass))
    if span is None:
        return None
    body = [h for a, h in rows if span[0] <= a <= span[1]]
    return {"instructions": len(body), "stall_cycles": sum((h >> 41) & 0xF for h in body),
            "waits": sum(1 for h in body if (h >> 52) & 0x3F)}


def compile_sm90(src, inc, d):
    """NVRTC to PTX, then ptxas -O3 for sm_90 into `d/k.cubin`; {kernel: {regs, spill_stores,
    spill_loads}} from ptxas's verbose report."""
    open(os.path.join(d, "k.ptx"), "w").write(nvrtc_ptx(src, inc))
    r = subprocess.run([PTXAS, "-arch=sm_90", "-O3", "-v", os.path.join(d, "k.ptx"), "-o",
                        os.path.join(d, "k.cubin")], capture_output=True, text=True, check=True)
    res, cur = {}, None
    for l in r.stderr.splitlines():
        m = re.search(r"Compiling entry function '(\w+)'", l)
        if m:
            cur = res.setdefault(m.group(1), {})
        m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", l)
        if m and cur is not None:
            cur["spill_stores"], cur["spill_loads"] = int(m.group(1)), int(m.group(2))
        m = re.search(r"Used (\d+) registers", l)
        if m and cur is not None:
            cur["regs"] = int(m.group(1))
    return res


def kernel_sass(d, kernel):
    """cuobjdump's SASS of one kernel of `d/k.cubin`."""
    return subprocess.run([os.path.join(ROOT, "bin/cuobjdump"), "-sass", "-fun", kernel, os.path.join(d, "k.cubin")],
                          capture_output=True, text=True).stdout


def build(src, inc, dump=None):
    """{kernel: {regs, spill_stores, spill_loads, body, loop_stalls, global_io}} of one CUDA
    source; with `dump` (a path prefix) each kernel's SASS is also written to
    `<dump>_<kernel>.sass`."""
    with tempfile.TemporaryDirectory() as d:
        res = compile_sm90(src, inc, d)
        for k in res:
            sass = kernel_sass(d, k)
            res[k]["body"] = loop_body(sass)
            res[k]["loop_stalls"] = loop_stalls(sass)
            res[k]["global_io"] = global_io(sass)
            if dump:
                open(f"{dump}_{k}.sass", "w").write(sass)
        return res


def h2h_module(path):
    """h2h.py's source generators without its GPU imports and Gluon kernels."""
    s = open(path).read()
    s = re.sub(r"^import torch, triton, cupy$|^from triton.*$|^import numpy as np$|^DT = .*$", "", s, flags=re.M)
    s = re.sub(r"@gluon.jit\ndef .*?(?=\n\n\n)", "", s, flags=re.S)
    g = {"__name__": "h2h"}
    exec(compile(s.split("\nif __name__")[0], path, "exec"), g)
    return g


def triton_loop(h2h_path, c):
    """Triton's side of one h2h case compiled here: h2h's Gluon `loop` kernel (taken from `h2h_path`
    without its GPU imports) for cuda:90 with `c`'s layouts, dtype and warps. Returns {regs, body,
    global_io}: ptxas's register count, the opcode counts of the innermost loop body and the
    global loads and stores, as for warpforge's kernels. Its pointers get `tt.divisibility` 16 and the trip count too, the specialisation
    Triton's launcher applies to h2h's launch (16-byte aligned tensors, 256 round trips), so the
    tile I/O is vectorised as on the GPU."""
    import ast
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon import language as ttgl
    from triton.experimental.gluon._runtime import GluonASTSource
    src = open(h2h_path).read()
    fn = next(n for n in ast.parse(src).body if isinstance(n, ast.FunctionDef) and n.name == "loop")
    first = fn.decorator_list[0].lineno if fn.decorator_list else fn.lineno
    text = "\n".join(src.splitlines()[first - 1:fn.end_lineno])
    with tempfile.TemporaryDirectory() as d:
        # @gluon.jit reads its function's source from a file, so the kernel is imported from one
        path = os.path.join(d, "h2h_triton_loop.py")
        open(path, "w").write("from triton.experimental import gluon\n"
                              "from triton.experimental.gluon import language as ttgl\n\n\n" + text + "\n")
        import importlib.util
        spec = importlib.util.spec_from_file_location("h2h_triton_loop", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        M, N = c["shape"]
        lay = lambda b: ttgl.DistributedLinearLayout(b["register"], b["lane"], b["warp"], [], [M, N])
        ptr = "*" + c["dtype"]
        sig = {"x_ptr": ptr, "y_ptr": ptr, "M": "constexpr", "N": "constexpr", "src": "constexpr",
               "dst": "constexpr", "ITERS": "i32"}
        aligned = [["tt.divisibility", 16]]
        k = triton.compile(GluonASTSource(mod.loop, sig, constexprs={"M": M, "N": N, "src": lay(c["src"]),
                                                                      "dst": lay(c["dst"])},
                                          attrs={(0,): aligned, (1,): aligned, (6,): aligned}),
                           target=GPUTarget("cuda", 90, 32), options={"num_warps": c["warps"]})
        open(os.path.join(d, "k.cubin"), "wb").write(k.asm["cubin"])
        sass = kernel_sass(d, "loop")
        res = subprocess.run([os.path.join(ROOT, "bin/cuobjdump"), "-res-usage", os.path.join(d, "k.cubin")],
                             capture_output=True, text=True).stdout
        regs = re.search(r"REG:(\d+)", res)
        dump = os.environ.get("H2H_PROBE_SASS")
        if dump:
            open(os.path.join(dump, f"{c['id']}_triton_loop.sass"), "w").write(sass)
        return {"regs": int(regs.group(1)) if regs else None, "body": loop_body(sass),
                "loop_stalls": loop_stalls(sass), "global_io": global_io(sass)}


def triton_loop_isolated(h2h_path, c):
    """`triton_loop` in a child process, since Triton aborts the process on a layout it rejects
    (as h2h reports such a case as crashed): {"triton_loop": ...} or {"triton_error": why}."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(c, f)
    try:
        r = subprocess.run([sys.executable, os.path.abspath(__file__), "--triton-case", h2h_path, f.name],
                           capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    if r.returncode == 0 and r.stdout.strip():
        return {"triton_loop": json.loads(r.stdout.strip().splitlines()[-1])}
    why = next((l for l in r.stderr.splitlines() if "error" in l.lower()), r.stderr.strip()[-300:])
    return {"triton_error": "Triton's compile exited %d: %s" % (r.returncode, why[:300])}


def global_io(sass):
    """The kernel's global loads and stores by opcode with its width suffixes (`LDG.E.128`, `STG.E`,
    ...): how the tile is read before and written after the loop."""
    return dict(collections.Counter(m.group(1) for m in re.finditer(r"\b((?:LDG|STG)\.[\w.]+)", sass)))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    need = [os.path.join(ROOT, "lib/libnvrtc.so.13"), os.path.join(ROOT, "bin/cuobjdump")]
    missing = [f for f in need if not os.path.exists(f)]
    if missing or not shutil.which(PTXAS):
        sys.exit(f"local_probe: missing {', '.join(missing) or PTXAS} (set CUDA_TOOLS and PTXAS; see the usage above)")
    for f in (sys.argv[1], os.path.join(sys.argv[2], "cases.json")):
        if not os.path.isfile(f):
            sys.exit(f"local_probe: {f}: no such file")
    h2h, d, want = h2h_module(sys.argv[1]), os.path.abspath(sys.argv[2]), set(sys.argv[3:])
    for c in json.load(open(os.path.join(d, "cases.json"))):
        if want and c["id"] not in want:
            continue
        row = {"id": c["id"], "file": c["file"], "name": c["name"], "dtype": c["dtype"], "warps": c["warps"]}
        try:
            dump = os.environ.get("H2H_PROBE_SASS")
            row.update(build(h2h["wf_source"](dict(c, _dir=d), c["header"]), d,
                             os.path.join(dump, c["id"]) if dump else None))
        except (RuntimeError, subprocess.CalledProcessError) as e:
            row["error"] = str(e)[-500:]
        if os.environ.get("H2H_PROBE_TRITON"):
            row.update(triton_loop_isolated(sys.argv[1], c))
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--triton-case":  # the child of triton_loop_isolated
        print(json.dumps(triton_loop(sys.argv[2], json.load(open(sys.argv[3])))))
    else:
        main()
