#!/bin/bash
# Register use of the h2h warpforge kernels (nvcc -Xptxas -v), as h2h writes
# them and with the final store indexed arithmetically: separates the
# helper from the harness. CASES="c20 c25" scripts/h2h_registers.sh
# Register use of h2h's warpforge kernels, as written and with the harness's
# final store indexed arithmetically (to separate helper and harness).
cd h2h-work
python3 - <<'PY'
import json, h2h
for c in json.load(open("cases.json")):
    open(c["id"] + ".cu", "w").write(h2h.wf_source(c, c["header"]))
PY
for c in $CASES; do
  nvcc -std=c++17 -O3 -arch=sm_90 -cubin -o /tmp/$c.cubin $c.cu -I. -Xptxas -v 2>&1 | grep -E "registers|Compiling" | grep -A1 wf_loop | tail -1 | sed "s/^/$c as-is: /"
  sed 's/y\[base + si\[threadIdx.x \* \([0-9]*\) + i\]\] = a\[i\]/y[base + i * blockDim.x + threadIdx.x] = a[i]/' $c.cu > ${c}_b.cu
  nvcc -std=c++17 -O3 -arch=sm_90 -cubin -o /tmp/${c}_b.cubin ${c}_b.cu -I. -Xptxas -v 2>&1 | grep -E "registers|Compiling" | grep -A1 wf_loop | tail -1 | sed "s/^/$c arith-store: /"
done
