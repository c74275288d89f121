#!/bin/bash
# latency floor (thirteenth pass): bench old (gpu/wf) / new (gpu/wf2) alternating on the conversions whose plan changes; h2h old/new; verify --gpu + sanitizers of the new
R=/tmp/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/gpu.txt
for i in 1 2; do for b in wf wf2; do
  t0=$(date +%s)
  gpu/$b bench --ttgir gpu/floor.ttgir tests/data/regressions.mlir --runs 15 --json $R/bench_${b}_$i.jsonl --md $R/bench_${b}_$i.md > $R/bench_${b}_$i.log 2>&1
  echo "bench $b $i rc=$? $(( $(date +%s)-t0 )) s" >> $R/gpu.txt
done; done
for i in 1 2; do for d in fold fnew; do
  t0=$(date +%s)
  python3 h2h-work/$d/h2h.py h2h-work/$d $R/h2h_${d}_$i.jsonl > $R/h2h_${d}_$i.log 2>&1
  echo "h2h $d $i rc=$? $(( $(date +%s)-t0 )) s" >> $R/gpu.txt
done; done
for f in gpu/floor.ttgir tests/data/regressions.mlir; do
  b=$(basename $f)
  gpu/wf2 verify --gpu --ttgir $f --dtypes i8,i16,f16,i32,i64 --json > $R/verify_$b.jsonl 2> $R/verify_$b.err
  echo "verify $b rc=$?" >> $R/gpu.txt
  for tool in memcheck racecheck synccheck; do
    compute-sanitizer --tool $tool gpu/wf2 verify --gpu --ttgir $f --dtypes i16,i32 > $R/san_$tool.$b.txt 2>&1
    echo "$tool $b rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/san_$tool.$b.txt | tr '\n' ' ')" >> $R/gpu.txt
  done
done
tar czf $OUT/floor.tgz -C /tmp r
cat $R/gpu.txt
grep -h "chosen plan over\|regress\|issue9680" $R/bench_*_1.md | head -20
