#!/bin/bash
mkdir -p $OUT/w
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
timeout 570 python3 gpu/w48/run.py $OUT/w 64 > $OUT/w48.log 2>&1; echo "rc=$?" >> $OUT/gpu.txt
rm -f $OUT/w/*.cubin $OUT/w/*.cu
cat $OUT/gpu.txt; python3 - <<'P'
import json, os
for l in open(os.environ['OUT'] + '/w48.log'):
    if not l.startswith('{'): print(l.strip()[:400]); continue
    r = json.loads(l)
    print(r['tag'], r['warps'], r['ns'], r['nd'], 'over P:', r['over_P'], 'regs', r['regs'], 'local', r['local'], 'ok', r['ok'])
P
