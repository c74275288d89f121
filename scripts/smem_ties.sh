#!/bin/bash
# Usage (GPU machine, repository root, release build): bash scripts/smem_ties.sh  (writes ties{1,2}.{jsonl,md} under $OUT, default /tmp/smem_ties)
# Tight timings of the four conversions that tie with Triton (and one control), run twice.
set -u
OUT=${OUT:-/tmp/smem_ties}; mkdir -p "$OUT"
W=/tmp/w; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $W/gpu.txt
F="corpus/ttgir/mmepi_fp16_64x64x32_w4_sm80.ttgir corpus/ttgir/attn_vfp8e4nv_sm90.ttgir corpus/ttgir/transpose_softmax_sm80.ttgir corpus/ttgir/mmepi_fp16_128x64x64_w4_sm80.ttgir"
for k in 1 2; do
  /usr/bin/time -f "bench$k %e s" target/release/warpforge bench --ttgir $F --runs 41 --shared-candidates 16 --json $W/ties$k.jsonl --md $W/ties$k.md > $W/bench$k.log 2>&1; echo "bench$k rc=$?"
done
cp $W/* $OUT/ 2>/dev/null; cat $W/gpu.txt
