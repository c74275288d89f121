#!/bin/bash
# twentieth pass, device call 2: the store-width tie-break (wf_new) against the binary before it
# (wf): `verify --gpu` (five widths) of every changed helper with wf_new, then h2h fair2 of the five 16-bit conversions whose plan it changes that h2h times (A N N A),
# `bench` of the changed corpus and stress files with each binary. Logs tarred into one file.
export PYTHONUNBUFFERED=1
D=out/dev20
R=/tmp/r; rm -rf $R; mkdir -p $R/verify
tar xJf $D/hAN.tar.xz -C $D
nvidia-smi --query-gpu=name,driver_version --format=csv > $R/gpu.txt
( for f in attn_vfp8e4nv_sm90 mmepi_bf16_64x64x32_w4_sm80 mmepi_fp16_64x64x32_w4_sm80 stress_w32; do echo "--ttgir $D/files/$f.ttgir"; done
  for n in wl_s1x1t8x4_s1x4t4x8_32x32_f16:115 wl_s16x1t2x16_s1x4t4x8_32x32_f16:170; do echo "--ttgir $D/files/triton_lowerings.ttgir --name $n"; done
  for n in sw33_blocked_dot3_256x32_bf16_w4:272 sw42_dot2_dot3_128x32_f16_w4:280 sw57_dot2_dot3_128x32_f16_w4:312 sw43_blocked_dot2_64x128_f16_w8:438 sw58_dot2_mma3_256x64_f16_w8:462; do echo "--ttgir $D/files/random_s1.ttgir --name $n"; done ) > $R/verify/args.txt
i=0; s=$(date +%s)
while read a; do i=$((i+1)); timeout 200 $D/wf_new verify --gpu $a --dtypes i8,i16,f16,i32,i64 --json > $R/verify/v$i.jsonl 2> $R/verify/v$i.log; echo "$i rc=$? $a" >> $R/verify/rc.txt; done < $R/verify/args.txt
echo "verify $(( $(date +%s) - s )) s" >> $R/runs.txt
tar czf $OUT/e2.tgz -C /tmp r
n=0
for v in A N N A; do
  n=$((n+1)); rm -rf /tmp/w; cp -r $D/h$v /tmp/w; s=$(date +%s)
  H2H_VAR=fair2 python3 $D/h2h_fair2.py /tmp/w $R/h_${v}_$n.jsonl > /dev/null 2>>$R/err.txt
  echo "h2h $v $n $(( $(date +%s) - s )) s" >> $R/runs.txt
  tar czf $OUT/e2.tgz -C /tmp r
done
for v in A N; do
  b=$D/wf; [ $v = N ] && b=$D/wf_new; s=$(date +%s); k=0
  for a in "attn_vfp8e4nv_sm90 attn:120" "mmepi_bf16_64x64x32_w4_sm80 mm_epilogue:97" "mmepi_fp16_64x64x32_w4_sm80 mm_epilogue:97" "stress_w32 transpose_f16_256x256:5"; do
    set -- $a; k=$((k+1))
    $b bench --ttgir $D/files/$1.ttgir --name $2 --json $R/bench_${v}_$k.jsonl --md $R/bench_${v}_$k.md > $R/bench_${v}_$k.log 2>&1
  done
  echo "bench $v $(( $(date +%s) - s )) s" >> $R/runs.txt
  tar czf $OUT/e2.tgz -C /tmp r
done
tar czf $OUT/e2.tgz -C /tmp r
cat $R/runs.txt
