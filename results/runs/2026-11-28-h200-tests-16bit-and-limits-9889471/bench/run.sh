#!/bin/bash
# warpforge bench with limit kernels: stress files, corpus, Triton's one-warp tests
export PYTHONUNBUFFERED=1
D=devbin; xz -dk devbin/warpforge.xz; chmod +x devbin/warpforge
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt
python3 -c "import triton; print('triton', triton.__version__)" >> $OUT/gpu.txt
git rev-parse HEAD >> $OUT/gpu.txt 2>/dev/null
s=$(date +%s)
timeout 200 $D/warpforge bench --ttgir tests/data/stress_w*.ttgir --shared-candidates 2 --runs 9 --json $OUT/bench_stress.jsonl --md $OUT/bench_stress.md > $OUT/stress.log 2>&1
echo "stress rc=$? $(( $(date +%s) - s )) s" >> $OUT/log.txt
s=$(date +%s)
timeout 200 $D/warpforge bench --ttgir corpus/ttgir/*.ttgir corpus/pairs.mlir --shared-candidates 2 --runs 9 --json $OUT/bench_corpus.jsonl --md $OUT/bench_corpus.md > $OUT/corpus.log 2>&1
echo "corpus rc=$? $(( $(date +%s) - s )) s" >> $OUT/log.txt
s=$(date +%s)
timeout 190 $D/warpforge bench --ttgir devbin/w1_third.ttgir --shared-candidates 1 --runs 7 --json $OUT/bench_w1.jsonl --md $OUT/bench_w1.md > $OUT/w1.log 2>&1
echo "w1 rc=$? $(( $(date +%s) - s )) s" >> $OUT/log.txt
tail -c 3000 $OUT/stress.log; tail -c 3000 $OUT/corpus.log; tail -c 3000 $OUT/w1.log
