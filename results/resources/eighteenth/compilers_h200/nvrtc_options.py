#!/usr/bin/env python3
"""ptxas's register count of one kernel source under NVRTC options (no GPU): whether any NVRTC
option gives what nvcc gives (regs.txt). NVRTC 13.0 to PTX for compute_90 then ptxas 13.0 -O3,
and NVRTC straight to an sm_90 CUBIN (its own ptxas), for each option set.

usage: CUDA_TOOLS=out/cuda-tools PTXAS=.../ptxas python3 nvrtc_options.py FILE.cu INCLUDE_DIR
"""
import ctypes, os, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../seventeenth"))
import local_probe as lp  # ROOT, PTXAS

OPTION_SETS = [[], ["-default-device"], ["--dopt=on"], ["-lineinfo"], ["--fmad=false"],
               ["--extra-device-vectorization"], ["--relocatable-device-code=true"], ["--use_fast_math"]]


def registers(src, inc, extra, cubin):
    nv = ctypes.CDLL(os.path.join(lp.ROOT, "lib/libnvrtc.so.13"))
    prog = ctypes.c_void_p()
    nv.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), b"k.cu", 0, None, None)
    opts = [b"--gpu-architecture=sm_90" if cubin else b"--gpu-architecture=compute_90", b"-std=c++17",
            ("-I" + os.path.join(lp.ROOT, "include")).encode(), ("-I" + inc).encode()]
    opts += [o.encode() for o in extra] + ([b"--ptxas-options=-v"] if cubin else [])
    rc = nv.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
    n = ctypes.c_size_t()
    nv.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
    log = ctypes.create_string_buffer(n.value)
    nv.nvrtcGetProgramLog(prog, log)
    if rc:
        return "error: " + log.value.decode().strip().splitlines()[-1]
    if cubin:
        return ",".join(re.findall(r"Used (\d+) registers", log.value.decode()))
    nv.nvrtcGetPTXSize(prog, ctypes.byref(n))
    ptx = ctypes.create_string_buffer(n.value)
    nv.nvrtcGetPTX(prog, ptx)
    with tempfile.TemporaryDirectory() as d:
        open(os.path.join(d, "k.ptx"), "w").write(ptx.value.decode())
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
