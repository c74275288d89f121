#!/bin/bash
# Run on a GPU machine from the repository root with gpu-bin/ (warpforge, the
# verify test binary as gpu-tests, a copy of corpus/, scripts/h2h_arith.py)
# and h2h-work/ (prep.py output of ../shared/tools/h2h plus its scripts)
# carried: every corpus file verified (i32, f16, i8), the GPU tests, racecheck
# and memcheck over every corpus file, h2h as shipped and the diagnostic
# variant with arithmetic addressing on warpforge's side.
set -u
W=$OUT/w; mkdir -p $W/verify $W/san
nvidia-smi --query-gpu=name,driver_version --format=csv > $W/gpu.txt
for f in gpu-bin/corpus/pairs.mlir gpu-bin/corpus/ttgir/*.ttgir; do b=$(basename $f)
  gpu-bin/warpforge verify --gpu --ttgir $f --dtypes i32,f16,i8 --report $W/verify/$b.md > $W/verify/$b.txt 2>&1; echo "verify $b rc=$?"
done
gpu-bin/gpu-tests --nocapture --test-threads 1 > $W/gpu-tests.txt 2>&1; echo "gpu-tests rc=$?"
for tool in racecheck memcheck; do
  for f in gpu-bin/corpus/pairs.mlir gpu-bin/corpus/ttgir/*.ttgir; do b=$(basename $f)
    compute-sanitizer --tool $tool gpu-bin/warpforge verify --gpu --ttgir $f --dtypes i32,f16,i8 > $W/san/$tool.$b.txt 2>&1; echo "$tool $b rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $W/san/$tool.$b.txt | tr '\n' ' ')"
  done
done
python3 h2h-work/h2h.py h2h-work $W/h2h.jsonl > $W/h2h.log 2>&1
python3 h2h-work/summary.py $W/h2h.jsonl --table > $W/summary.txt 2>&1
python3 gpu-bin/h2h_arith.py h2h-work $W/h2h_arith.jsonl > $W/h2h_arith.log 2>&1
python3 h2h-work/summary.py $W/h2h_arith.jsonl --table > $W/summary_arith.txt 2>&1
tail -6 $W/summary.txt; tail -6 $W/summary_arith.txt
cd $OUT && tar czf all.tgz w && rm -rf w
