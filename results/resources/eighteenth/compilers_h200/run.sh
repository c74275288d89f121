#!/bin/bash
# Registers of the same kernel sources compiled by nvcc (h2h's compiler) and by NVRTC through CuPy
# (warpforge bench compiles with NVRTC too), sm_90.
D=out/dev18f  # made by: H2H_VAR=fair2 python3 results/resources/eighteenth/prologue_regs.py H2H_FAIR2_PY out/h2h-work c10 c14 c20 c29 --write out/dev18f
cd $D
for f in *_h2h.cu *_bench.cu; do
  nvcc -std=c++17 -O3 -arch=sm_90 -cubin -o /tmp/${f%.cu}.cubin $f -I. -Xptxas -v 2> /tmp/log.txt >/dev/null
  echo "nvcc $f $(grep -E 'Compiling entry|Used' /tmp/log.txt | tr '\n' ' ')" >> $OUT/regs.txt
done
python3 - <<'PY' >> $OUT/regs.txt 2>&1
import cupy, glob, os
for f in sorted(glob.glob('*_h2h.cu') + glob.glob('*_bench.cu')):
    src = open(f).read()
    m = cupy.RawModule(code=src, options=('-std=c++17', '-I' + os.getcwd(), '--gpu-architecture=compute_90'), backend='nvrtc')
    for k in (('wf_loop',) if f.endswith('_h2h.cu') else ('bench_loop',)):
        print('nvrtc', f, k, m.get_function(k).num_regs)
PY
