#!/bin/bash
# bench of the vector forms on __half2 (16-bit) / unsigned (8-bit) arrays, and
# the GPU check of the vector forms on unsigned words for i16/bf16/i8
export PYTHONUNBUFFERED=1
WF=devbin/vec/warpforge
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt
python3 -c "import triton; print('triton', triton.__version__)" >> $OUT/gpu.txt
B="corpus/ttgir/mmepi_fp16_64x64x32_w4_sm80.ttgir corpus/ttgir/mmepi_bf16_128x64x64_w4_sm80.ttgir corpus/ttgir/attn_fp16_d64_64x64_w4_sm80.ttgir corpus/ttgir/colsum_trans_fp16_32x32_w1_sm80.ttgir corpus/ttgir/colsum_trans_fp16_64x128_w8_sm80.ttgir corpus/ttgir/colsum_trans_i8_128x32_w4_sm80.ttgir corpus/ttgir/matmul_fp16_sm80.ttgir"
s=$(date +%s)
timeout 220 $WF bench --ttgir $B --json $OUT/bench_half2.jsonl --md $OUT/bench_half2.md > $OUT/bench_half2.txt 2>&1
echo "bench rc=$? $(( $(date +%s) - s )) s" >> $OUT/log.txt
s=$(date +%s)
timeout 120 $WF verify --gpu --dtypes i8,i16,f16,bf16 --ttgir corpus/pairs.mlir tests/data/byte_transpose.mlir corpus/ttgir/mmepi_bf16_128x64x64_w4_sm80.ttgir \
  --junit $OUT/verify.xml > $OUT/verify.txt 2>&1
echo "verify rc=$? $(( $(date +%s) - s )) s" >> $OUT/log.txt
cat $OUT/log.txt
grep -A16 "Forms of the chosen" $OUT/bench_half2.md | tail -10
tail -2 $OUT/verify.txt
