#!/bin/bash
# h2h of the 48 16-bit conversions with an array over the register limit less 16, under four
# rules for the element form's automatic words (cur, r11, r4, r8), one after another
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
mkdir -p /tmp/hh && tar xJf gpu/h2hpack/h2h.tar.xz -C /tmp/hh
for r in cur r11 r4 r8; do
  t0=$(date +%s)
  timeout 140 python3 /tmp/hh/h2h_$r/h2h.py /tmp/hh/h2h_$r $OUT/h2h_$r.jsonl > $OUT/h2h_$r.log 2>&1
  echo "$r rc=$? $(( $(date +%s)-t0 )) s $(wc -l < $OUT/h2h_$r.jsonl) rows" >> $OUT/gpu.txt
done
cat $OUT/gpu.txt
