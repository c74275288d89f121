#!/bin/bash
mkdir -p $OUT/mix
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
python3 gpu/mix/run.py $OUT/mix > $OUT/mix.log 2>&1; echo "mix rc=$?" >> $OUT/gpu.txt
rm -rf $OUT/mix
cat $OUT/gpu.txt; python3 -c "
import json
for l in open('$OUT/mix.log'):
    if l.startswith('{'):
        r=json.loads(l); print(r['tag'], r['warps'], r['strategies']['sh_f'], r['strategies']['sm_f'], r['ratio_over_shuffle_pair'], r['regs'], r['roundtrip_ok'])
    else: print(l.rstrip()[:300])
"
