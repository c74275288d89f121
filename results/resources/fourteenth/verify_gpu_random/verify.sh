#!/bin/bash
# verify --gpu of the random conversions (every width and form), one process per conversion,
# 12 at a time; sanitizers on a few; results tarred whatever finishes
R=/tmp/vg; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/gpu.txt
t0=$(date +%s)
for s in random_s1 random_s2; do
  grep -o 'tt.func @[a-z0-9_]*' gpu/sweep/$s.ttgir | sed 's/tt.func @//' | sed "s|^|$s |"
done > $R/names.txt
export R
timeout 380 xargs -P 12 -L 1 sh -c 'gpu/wf verify --gpu --ttgir gpu/sweep/$0.ttgir --name $1 --dtypes i8,i16,f16,i32,i64 --json > $R/v_$1.jsonl 2> $R/v_$1.log; echo "$0 $1 rc=$?" >> $R/rc.txt' < $R/names.txt
echo "verify: $(wc -l < $R/rc.txt) of $(wc -l < $R/names.txt) conversions done, $(grep -vc 'rc=0' $R/rc.txt) nonzero, $(( $(date +%s)-t0 )) s" >> $R/gpu.txt
for tool in memcheck racecheck synccheck; do
  t1=$(date +%s)
  timeout 40 compute-sanitizer --tool $tool --error-exitcode 9 gpu/wf verify --gpu --ttgir gpu/sweep/random_s2.ttgir --name sw35_dot2_dot3_256x32_bf16_w16 --dtypes f16,i8 > $R/san_$tool.log 2>&1
  echo "sanitizer $tool rc=$? $(( $(date +%s)-t1 )) s: $(grep -m1 'ERROR SUMMARY\|RACECHECK SUMMARY' $R/san_$tool.log)" >> $R/gpu.txt
done
tar czf $OUT/vg.tgz -C /tmp vg
cat $R/gpu.txt; grep -v 'rc=0' $R/rc.txt | head
