#!/bin/bash
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
mkdir -p /tmp/hh && tar xJf gpu/h2hpack2/h2h.tar.xz -C /tmp/hh
for k in 1 2; do for r in cur r11; do
  t0=$(date +%s)
  timeout 100 python3 /tmp/hh/h2h_$r/h2h.py /tmp/hh/h2h_$r $OUT/h2h_${r}_$k.jsonl > $OUT/h2h_${r}_$k.log 2>&1
  echo "$r $k rc=$? $(( $(date +%s)-t0 )) s $(wc -l < $OUT/h2h_${r}_$k.jsonl) rows" >> $OUT/gpu.txt
done; done
sed -i "s/VARS = \['NN', 'SN', 'NS', 'SD', 'DS', 'DD', 'BB', 'P'\]/VARS = ['NN', 'ND', 'DN', 'SN', 'NS', 'DD', 'P']/" gpu/w48/run.py
mkdir -p $OUT/w; timeout 200 python3 gpu/w48/run.py $OUT/w 64 > $OUT/w48b.log 2>&1; echo "w48b rc=$?" >> $OUT/gpu.txt
rm -rf $OUT/w
cat $OUT/gpu.txt
