#!/bin/bash
# h2h, whole corpus: the seventeenth pass's fair variant and fair2 (also the prologue's loads and the
# epilogue's stores through one pointer with immediate offsets where the layout's register offsets and
# lane/warp offsets touch disjoint bits), alternating, two runs each, 256 round trips (h2h's own).
export PYTHONUNBUFFERED=1
D=out/dev18c
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt
n=0
for v in fair fair2 fair2 fair; do
  n=$((n+1)); rm -rf /tmp/w; cp -r $D/w /tmp/w; s=$(date +%s)
  H2H_VAR=$v python3 $D/h2h_$v.py /tmp/w $OUT/${v}_$n.jsonl > /dev/null 2>>$OUT/err.txt
  echo "$v $n $(( $(date +%s) - s )) s" >> $OUT/runs.txt
done
