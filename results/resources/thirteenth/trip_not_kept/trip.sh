#!/bin/bash
# shared-memory trip weight (thirteenth pass): bench old (gpu/wf, floor only) / new (gpu/wf2, trip 25) alternating on the conversions whose plan changes; h2h old/new; verify --gpu of the new
F="gpu/trip_0.ttgir gpu/trip_1.ttgir gpu/trip_2.ttgir gpu/trip_3.ttgir gpu/trip_4.ttgir gpu/trip_5.ttgir gpu/cvt16_0.ttgir gpu/corpus/stress_w1.ttgir"
R=/tmp/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/gpu.txt
t00=$(date +%s)
for i in 1 2; do for b in wf wf2; do
  t0=$(date +%s)
  gpu/$b bench --ttgir $F --runs 9 --json $R/bench_${b}_$i.jsonl --md $R/bench_${b}_$i.md > $R/bench_${b}_$i.log 2>&1
  echo "bench $b $i rc=$? $(( $(date +%s)-t0 )) s" >> $R/gpu.txt
done; done
for i in 1 2; do for d in told tnew; do
  t0=$(date +%s)
  python3 h2h-work/$d/h2h.py h2h-work/$d $R/h2h_${d}_$i.jsonl > $R/h2h_${d}_$i.log 2>&1
  echo "h2h $d $i rc=$? $(( $(date +%s)-t0 )) s" >> $R/gpu.txt
done; done
for f in $F; do
  [ $(( $(date +%s)-t00 )) -gt 500 ] && { echo "verify stopped for time" >> $R/gpu.txt; break; }
  gpu/wf2 verify --gpu --ttgir $f --dtypes i8,i16,f16,i32,i64 --json > $R/verify_$(basename $f).jsonl 2> $R/verify_$(basename $f).err
  echo "verify $f rc=$?" >> $R/gpu.txt
done
tar czf $OUT/trip.tgz -C /tmp r
cat $R/gpu.txt
