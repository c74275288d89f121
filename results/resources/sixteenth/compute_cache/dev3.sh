#!/bin/bash
# verify --gpu of the helpers whose code the sixteenth pass changed; the occupancy recheck probe, four times
cd gpu/s16 && tar xJf bins2.tar.xz && cd ../..
R=$OUT/v; mkdir -p $R
W=gpu/s16/wf_final
cat > /tmp/todo.txt <<'T'
tests/data/stress_w16.ttgir epilogue_f16_256x128
tests/data/stress_w16.ttgir mma3_to_mma2_f32_256x128
tests/data/stress_w8.ttgir epilogue_f32_128x256
tests/data/triton_lowerings.ttgir m2m_m3w28n64k32_m3w82n32k32_64x64_f16
tests/data/random_s2.ttgir sw20_mma3_mma2_256x128_bf16_w16
tests/data/random_s2.ttgir sw45_blocked_blocked_256x128_f16_w16
tests/data/random_s2.ttgir sw55_mma3_mma2_128x256_i8_w16
tests/data/random_s1.ttgir sw50_dot2_mma2_32x256_i8_w8
gpu/s16/r32.ttgir sw4_dot3_dot2_128x64_bf16_w8
gpu/s16/r32.ttgir sw5_dot3_dot2_256x64_i8_w8
gpu/s16/r32.ttgir sw24_dot2_mma2_128x128_f16_w8
T
cat /tmp/todo.txt | xargs -P 6 -L 1 bash -c 'timeout 300 '$W' verify --gpu --ttgir $0 --name $1 --dtypes i8,i16,f16,i32,i64 --json > '$R'/$1.jsonl 2> '$R'/$1.log; echo "$1 rc=$?" >> '$R'/rc.txt'
for k in 1 2 3 4; do FILES="$(echo gpu/s16/c6_*.ttgir)" timeout 120 gpu/s16/recheck_probe fwd > $R/probe_$k.txt 2>&1; echo "probe $k rc=$? missing=$(grep -c MISSING $R/probe_$k.txt)" >> $R/rc.txt; done
timeout 120 $W bench --ttgir gpu/s16/c6_4.ttgir --name fwd --runs 5 --shared-candidates 1 --json $R/b4.jsonl > $R/b4.log 2>&1; echo "bench c6_4 rc=$?" >> $R/rc.txt
tar czf $OUT/v.tgz -C $OUT v; cat $R/rc.txt; grep -h "register budget" $R/b4.log
