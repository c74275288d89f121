#!/bin/bash
mkdir -p $OUT/ord
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
python3 gpu/ord/run.py $OUT/ord c_0,c_1,d_0,d_1,d_2,d_3 > $OUT/ord.log 2>&1; echo "ord rc=$?" >> $OUT/gpu.txt
rm -f $OUT/ord/*.cubin $OUT/ord/*.cu
tar czf $OUT/ord.tgz -C $OUT ord && rm -rf $OUT/ord
cat $OUT/gpu.txt; python3 -c "
import json
for l in open('$OUT/ord.log'):
    if l.startswith('{'):
        r=json.loads(l); print(r['tag'], r['strategy'], r['ratio_over_orig'], r['regs'], r['roundtrip_ok'])
    else: print(l.rstrip()[:300])
"
