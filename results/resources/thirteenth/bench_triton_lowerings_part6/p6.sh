#!/bin/bash
# bench of part 6 of Triton's layout tests with the final binary (thirteenth pass)
R=/tmp/p6; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/gpu.txt
t0=$(date +%s)
timeout 500 gpu/wf2 bench --ttgir gpu/tl/part6.ttgir --runs 9 --json $R/bench_tl_6.jsonl --md $R/bench_tl_6.md > $R/bench_tl_6.log 2>&1
echo "part 6 rc=$? $(( $(date +%s)-t0 )) s" >> $R/gpu.txt
tar czf $OUT/p6.tgz -C /tmp p6
cat $R/gpu.txt; grep -m4 "geomean\|spills" $R/bench_tl_6.md
