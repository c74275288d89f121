#!/bin/bash
# twentieth pass, device call 1: the 32-warp f16 transpose's element form under other plans
# (h2h fair2; A = chosen v4+v2/swz-st, B = v2+v4/swz-st, B2 = v2+v4/swz-ld, C = v2+v2/swz-st,
# S = A with its 16-bit reorders written as shifts), then `bench` of stress_w32 as chosen and
# with v2+v4/swz-st preferred in both directions.
export PYTHONUNBUFFERED=1
D=out/dev20
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt
n=0
for v in A B B2 C S S C B2 B A; do
  n=$((n+1)); rm -rf /tmp/w; cp -r $D/w$v /tmp/w; s=$(date +%s)
  H2H_VAR=fair2 python3 $D/h2h_fair2.py /tmp/w $OUT/h_${v}_$n.jsonl > /dev/null 2>>$OUT/err.txt
  echo "$v $n $(( $(date +%s) - s )) s" >> $OUT/runs.txt
done
s=$(date +%s)
$D/wf bench --ttgir $D/files/stress_w32.ttgir --json $OUT/bench_A.jsonl --md $OUT/bench_A.md > $OUT/bench_A.log 2>&1
echo "bench A $(( $(date +%s) - s )) s" >> $OUT/runs.txt; s=$(date +%s)
WF_DEV_PREFER=shared/v2+v4/swz-st $D/wf_dev bench --ttgir $D/files/stress_w32.ttgir --json $OUT/bench_B.jsonl --md $OUT/bench_B.md > $OUT/bench_B.log 2>&1
echo "bench B $(( $(date +%s) - s )) s" >> $OUT/runs.txt
cat $OUT/runs.txt
