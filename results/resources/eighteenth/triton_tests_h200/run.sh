#!/bin/bash
# fair2 h2h on the 48 rows of Triton's layout tests whose element form was above 1.05x in the
# seventeenth pass (fair), at 256 and 1024 round trips per launch (per-launch and per-round-trip split).
export PYTHONUNBUFFERED=1
D=out/dev18e
tar xJf $D/t.tar.xz -C $D
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt
for it in 256 1024; do for k in 0 1; do
  rm -rf /tmp/t; cp -r $D/t$k /tmp/t; s=$(date +%s)
  H2H_ITERS=$it H2H_VAR=fair2 python3 $D/h2h_fair2.py /tmp/t $OUT/tl_fair2_${it}_$k.jsonl > /dev/null 2>>$OUT/err.txt
  echo "$it $k $(( $(date +%s) - s )) s" >> $OUT/runs.txt
done; done
