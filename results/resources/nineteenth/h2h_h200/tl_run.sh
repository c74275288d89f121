#!/bin/bash
# nineteenth pass, device call 3: h2h (fair2), every other 16-bit row of Triton's layout tests,
# old headers (A) then new (N).
export PYTHONUNBUFFERED=1
D=out/dev19t2
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt
for v in A N; do
  rm -rf /tmp/w; cp -r $D/t$v /tmp/w; s=$(date +%s)
  H2H_VAR=fair2 python3 $D/h2h_fair2.py /tmp/w $OUT/t$v.jsonl > /dev/null 2>>$OUT/err.txt
  echo "t$v $(( $(date +%s) - s )) s" >> $OUT/runs.txt
done
cat $OUT/runs.txt
