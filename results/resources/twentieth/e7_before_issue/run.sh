#!/bin/bash
# twentieth pass, device call 7: h2h (as shipped) over the whole corpus (36 cases) with the binary
# of 974b3c5 (before issue 23) and the kept one (4df2e2b's code), alternating 974 cur cur 974.
export PYTHONUNBUFFERED=1
D=out/dev20f
R=/tmp/r; rm -rf $R; mkdir -p $R
tar xJf $D/h.tar.xz -C $D
nvidia-smi --query-gpu=name,driver_version --format=csv > $R/gpu.txt
k=0
for v in 974 cur cur 974; do
  k=$((k+1)); s=$(date +%s)
  timeout 130 python3 $D/h2h.py $D/h_$v $R/h2h_${v}_$k.jsonl > $R/h2h_${v}_$k.log 2>&1
  echo "$v $k rc=$? $(( $(date +%s) - s )) s" >> $R/runs.txt
  tar czf $OUT/e7.tgz -C /tmp r
done
cat $R/runs.txt
