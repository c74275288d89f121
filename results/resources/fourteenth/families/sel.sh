#!/bin/bash
# bench of the conversions whose plan a select weight of 1.3 changes, built-in model and 1.3 alternating
R=/tmp/sel; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/gpu.txt
for rep in 1 2; do
  for m in def s13; do
    arg=""; [ $m = s13 ] && arg="--cost-model gpu/mix/sel13.json"
    gpu/wf bench --ttgir gpu/mix/sel_0.ttgir gpu/mix/selsw_0.ttgir --runs 11 $arg --json $R/${m}_$rep.jsonl --md $R/${m}_$rep.md > $R/${m}_$rep.log 2>&1
    echo "$m $rep rc=$?" >> $R/gpu.txt
  done
done
tar czf $OUT/sel.tgz -C /tmp sel
cat $R/gpu.txt
python3 - <<'PY'
import json
for rep in (1,2):
    for m in ('def','s13'):
        for l in open(f'/tmp/sel/{m}_{rep}.jsonl'):
            r=json.loads(l); print(m, rep, r['name'][:34], r['chosen']['strategy'], 'bwd', r['bwd'], round(r['ratio_chosen_over_triton'],3))
PY
