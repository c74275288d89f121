#!/bin/bash
# Eighteenth pass: warpforge bench (the project's own harness) of the stress files, then the corpus, on one GPU.
export PYTHONUNBUFFERED=1
D=out/dev18
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt
python3 -c "import triton; print('triton', triton.__version__)" >> $OUT/gpu.txt
s=$(date +%s)
timeout 330 $D/warpforge bench --ttgir $D/stress_w*.ttgir --json $OUT/bench_stress.jsonl --md $OUT/bench_stress.md > $OUT/stress.log 2>&1
echo "stress rc=$? $(( $(date +%s) - s )) s" >> $OUT/log.txt
s=$(date +%s)
timeout 250 $D/warpforge bench --ttgir corpus/ttgir/*.ttgir corpus/pairs.mlir --shared-candidates 2 --runs 9 --json $OUT/bench_corpus.jsonl --md $OUT/bench_corpus.md > $OUT/corpus.log 2>&1
echo "corpus rc=$? $(( $(date +%s) - s )) s" >> $OUT/log.txt
