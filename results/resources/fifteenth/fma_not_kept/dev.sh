#!/bin/bash
mkdir -p $OUT/fma
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
cd gpu/fma && python3 run.py $OUT/fma all h,q4,q3,q2 > $OUT/fma.log 2>&1; echo "fma rc=$?" >> $OUT/gpu.txt
rm -f $OUT/fma/*.cubin
cat $OUT/gpu.txt; python3 -c "
import json
for l in open('$OUT/fma.log'):
    if not l.startswith('{'): print(l.strip()[:300]); continue
    r=json.loads(l); print(r['tag'], r['strategy'], r['warps'], r['bits'], r['ratio_over_orig'], {v:(r['sass'][v]['SEL'],r['sass'][v]['IMAD']) for v in r['sass']}, r['regs'], r['roundtrip_ok'])
"
