#!/bin/bash
# h2h: the sixth-pass rule (both -> dst) on its six 16-bit conversions, old/new alternating;
# and 974b3c5 (before issue 23) against new on mma2_to_blocked_i8 and stress_w16, three times each
cd gpu/s16 && tar xJf bins.tar.xz && cd ../..
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/gpu.txt
for k in 1 2; do for v in old new; do
  s=$(date +%s); timeout 200 python3 gpu/s16/h_$v/h2h.py gpu/s16/h_$v $R/h_${v}_$k.jsonl > $R/h_${v}_$k.log 2>&1; echo "h $v $k rc=$? $(( $(date +%s)-s ))s" >> $R/gpu.txt
done; done
for k in 1 2 3; do for v in 974 new; do
  s=$(date +%s); timeout 100 python3 gpu/s16/a_$v/h2h.py gpu/s16/a_$v $R/a_${v}_$k.jsonl > $R/a_${v}_$k.log 2>&1; echo "a $v $k rc=$? $(( $(date +%s)-s ))s" >> $R/gpu.txt
done; done
tar czf $OUT/r.tgz -C $OUT r; cat $R/gpu.txt
