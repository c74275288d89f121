#!/usr/bin/env python3
"""ptxas's register count of one kernel source under NVRTC options (no GPU): whether any NVRTC
option gives what nvcc gives (regs.txt). NVRTC 13.0 to PTX for compute_90 then ptxas 13.0 -O3,
and NVRTC straight to an sm_90 CUBIN (its own ptxas), for each option set.

usage: CUDA_TOOLS=out/cuda-tools PTXAS=.../ptxas python3 nvrtc_options.py FILE.cu INCLUDE_DIR
"""
import os, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../seventeenth"))
import local_probe as lp  # nvrtc_compile, PTXAS

OPTION_SETS = [[], ["-default-device"], ["--dopt=on"], ["-lineinfo"], ["--fmad=false"],
               ["--extra-device-vectorization"], ["--relocatable-device-code=true"], ["--use_fast_math"]]


def registers(src, inc, extra, cubin):
    arch = "--gpu-architecture=sm_90" if cubin else "--gpu-architecture=compute_90"
    ptx, log = lp.nvrtc_compile(src, inc, [arch, "-std=c++17", *extra] + (["--ptxas-options=-v"] if cubin else []))
    if cubin:
        return ",".join(re.findall(r"Used (\d+) registers", log)) or "error: " + log.strip().splitlines()[-1]
    if ptx is None:
        return "error: " + log.strip().splitlines()[-1]
    with tempfile.TemporaryDirectory() as d:
        open(os.path.join(d, "k.ptx"), "w").write(ptx)
        r = subprocess.run([lp.PTXAS, "-arch=sm_90", "-O3", "-v", os.path.join(d, "k.ptx"), "-o",
                            os.path.join(d, "k.cubin")], capture_output=True, text=True)
    return ",".join(re.findall(r"Used (\d+) registers", r.stderr))


if len(sys.argv) != 3:
    sys.exit(__doc__)
src = open(sys.argv[1]).read()
print(f"| NVRTC options ({os.path.basename(sys.argv[1])}) | PTX + ptxas -O3 | NVRTC CUBIN |")
print("|---|---|---|")
for extra in OPTION_SETS:
    print(f"| {' '.join(extra) or '(none)'} | {registers(src, sys.argv[2], extra, False)} | {registers(src, sys.argv[2], extra, True)} |")
