#!/bin/bash
# h2h 'fair' (addresses not kept across the loop, packed words coalesced) on Triton's own layout tests, in two halves.
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt
tar xJf out/tlpack/tl.tar.xz -C out/
for k in 0 1; do
  rm -rf /tmp/t$k; mkdir -p /tmp/t$k; cp -r out/h2h-tl$k/. /tmp/t$k/
  s=$(date +%s)
  H2H_VAR=fair python3 out/loc/h2h_var.py /tmp/t$k $OUT/tl_fair$k.jsonl > /dev/null 2>>$OUT/log.txt
  echo "part $k $(( $(date +%s) - s )) s" >> $OUT/log.txt
done
