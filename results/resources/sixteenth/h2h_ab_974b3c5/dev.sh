#!/bin/bash
# h2h over the whole corpus: binary of 974b3c5 (before issue 23) and the current one, alternating
# usage: dev.sh K1 K2 ...  (run indices)
R=$OUT/ab; mkdir -p $R
for k in "$@"; do for v in 974 cur; do
  s=$(date +%s); timeout 280 python3 gpu/ab/h_$v/h2h.py gpu/ab/h_$v $R/h2h_${v}_$k.jsonl > $R/h2h_${v}_$k.log 2>&1
  echo "$v $k rc=$? $(( $(date +%s)-s ))s" >> $R/gpu.txt
done; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $R/gpu.txt
tar czf $OUT/ab.tgz -C $OUT ab; cat $R/gpu.txt
