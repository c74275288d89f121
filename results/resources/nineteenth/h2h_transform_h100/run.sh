#!/bin/bash
# h2h (fair2 addressing), 8- and 16-bit corpus cases: A = today's headers, B = natural words
# accessed in 64-bit pairs and the 16-bit element form's automatic words = both, C = 64-bit pairs only.
export PYTHONUNBUFFERED=1
D=out/dev19
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt
n=0
for v in A B C C B A; do
  n=$((n+1)); rm -rf /tmp/w; cp -r $D/w$v /tmp/w; s=$(date +%s)
  H2H_VAR=fair2 python3 $D/h2h_fair2.py /tmp/w $OUT/${v}_$n.jsonl > /dev/null 2>>$OUT/err.txt
  echo "$v $n $(( $(date +%s) - s )) s" >> $OUT/runs.txt
done
