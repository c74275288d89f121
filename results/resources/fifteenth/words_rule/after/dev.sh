#!/bin/bash
# the 7 conversions whose 16-bit element form now holds the destination as words (both arrays
# over the register limit less 16): verify --gpu with the new binary, then bench old / new interleaved
R=/tmp/v15; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/gpu.txt
V="tests/data/triton_lowerings.ttgir c2d_d2b2_sd2b_64x128_f16
tests/data/triton_lowerings.ttgir m2m_m20w28_m20w82_256x256_f16
tests/data/triton_lowerings.ttgir m2m_m21w82_m21w28_256x256_f16
gpu/v15/r32.ttgir sw13_blocked_mma3_256x256_f16_w32
gpu/v15/r32.ttgir sw29_dot2_blocked_256x256_bf16_w32
gpu/v15/r32.ttgir sw34_dot2_dot3_128x256_bf16_w32
gpu/v15/stress_w32.ttgir transpose_f16_256x256"
t0=$(date +%s)
echo "$V" | timeout 150 xargs -P 7 -L 1 sh -c 'gpu/v15/wf_new verify --gpu --ttgir $0 --name $1 --dtypes i8,i16,f16,i32,i64 --json > /tmp/v15/v_$1.jsonl 2> /tmp/v15/v_$1.log; echo "$1 rc=$?" >> /tmp/v15/rc.txt'
echo "verify: $(wc -l < $R/rc.txt) done, $(grep -vc 'rc=0' $R/rc.txt) nonzero, $(( $(date +%s)-t0 )) s" >> $R/gpu.txt
for k in 1; do for b in old new; do
  echo "$V" | grep -v sw34 | while read f n; do
    t1=$(date +%s)
    timeout 60 gpu/v15/wf_$b bench --ttgir $f --name $n --runs 7 --shared-candidates 1 --json $R/b_${b}_${k}_$n.jsonl --md $R/b_${b}_${k}_$n.md > $R/b_${b}_${k}_$n.log 2>&1
    echo "bench $b $k $n rc=$? $(( $(date +%s)-t1 )) s" >> $R/gpu.txt
  done
done; done
tar czf $OUT/v15.tgz -C /tmp v15
cat $R/gpu.txt; grep -v 'rc=0' $R/rc.txt
