#!/bin/bash
# bench of a random sweep of layout conversions (fourteenth pass)
R=/tmp/sw; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/gpu.txt
t0=$(date +%s)
timeout 560 gpu/wf bench --ttgir gpu/sweep/$1.ttgir --runs 7 --shared-candidates 3 --json $R/bench_$1.jsonl --md $R/bench_$1.md > $R/bench_$1.log 2>&1
echo "$1 rc=$? $(( $(date +%s)-t0 )) s" >> $R/gpu.txt
tar czf $OUT/sw_$1.tgz -C /tmp sw
cat $R/gpu.txt; grep -m6 "geomean\|spill" $R/bench_$1.md; tail -3 $R/bench_$1.log
