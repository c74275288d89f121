#!/bin/bash
# Usage (GPU machine, repository root, release build): bash scripts/smem_ties.sh  (writes ties_{interleaved,python}.{jsonl,md,log} under $OUT, default /tmp/smem_ties)
# Tight timings of the four files with the conversions that tie with Triton (and controls),
# once with Triton's loop kernel interleaved with the candidates (the default) and once timed
# by Triton's Python process (the earlier harness).
set -u
OUT=${OUT:-/tmp/smem_ties}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt
F="corpus/ttgir/mmepi_fp16_64x64x32_w4_sm80.ttgir corpus/ttgir/attn_vfp8e4nv_sm90.ttgir corpus/ttgir/transpose_softmax_sm80.ttgir corpus/ttgir/mmepi_fp16_128x64x64_w4_sm80.ttgir"
for m in interleaved python; do
  target/release/warpforge bench --ttgir $F --runs 41 --shared-candidates 16 --triton-timing $m \
    --json $OUT/ties_$m.jsonl --md $OUT/ties_$m.md > $OUT/ties_$m.log 2>&1; echo "ties $m rc=$?"
done
cat $OUT/gpu.txt
