#!/bin/bash
# 32-warp random conversions (seed 3): verify --gpu of every width and form (parallel), then bench
R=/tmp/r32; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/gpu.txt
t0=$(date +%s)
grep -o 'tt.func @[a-z0-9_]*' gpu/r32/r32.ttgir | sed 's/tt.func @//' > $R/names.txt
export R
timeout 200 xargs -P 12 -L 1 sh -c 'gpu/r32/wf verify --gpu --ttgir gpu/r32/r32.ttgir --name $0 --dtypes i8,i16,f16,i32,i64 --json > $R/v_$0.jsonl 2> $R/v_$0.log; echo "$0 rc=$?" >> $R/rc.txt' < $R/names.txt
echo "verify: $(wc -l < $R/rc.txt) of $(wc -l < $R/names.txt) conversions done, $(grep -vc 'rc=0' $R/rc.txt) nonzero, $(( $(date +%s)-t0 )) s" >> $R/gpu.txt
t1=$(date +%s)
timeout 340 gpu/r32/wf bench --ttgir gpu/r32/r32.ttgir --runs 7 --shared-candidates 2 --json $R/bench.jsonl --md $R/bench.md > $R/bench.log 2>&1
echo "bench rc=$? $(( $(date +%s)-t1 )) s" >> $R/gpu.txt
tar czf $OUT/r32.tgz -C /tmp r32
cat $R/gpu.txt; grep -v 'rc=0' $R/rc.txt | head; grep -m8 "geomean\|spill" $R/bench.md; tail -5 $R/bench.log
