#!/bin/bash
# bench --pair same-family of the random conversions (fourteenth pass)
R=/tmp/pair; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/gpu.txt
for s in ${SETS:-random_s1 random_s2}; do
  t0=$(date +%s)
  timeout 280 gpu/wf bench --ttgir gpu/sweep/$s.ttgir --runs 7 --shared-candidates 3 --pair same-family --json $R/$s.jsonl --md $R/$s.md > $R/$s.log 2>&1
  echo "$s rc=$? $(( $(date +%s)-t0 )) s" >> $R/gpu.txt
done
tar czf $OUT/pair.tgz -C /tmp pair
cat $R/gpu.txt; for s in random_s1 random_s2; do grep -m3 "geomean\|within 5%" $R/$s.md; done
