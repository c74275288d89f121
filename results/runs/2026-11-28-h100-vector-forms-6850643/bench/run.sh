#!/bin/bash
# GPU proof of the vector forms (_x2/_x4) beside every other form, and bench
# of the vector form against the packed and element forms and Triton.
export PYTHONUNBUFFERED=1
WF=devbin/vec/warpforge
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt
python3 -c "import triton; print('triton', triton.__version__)" >> $OUT/gpu.txt
$WF --version >> $OUT/gpu.txt 2>&1
s=$(date +%s)
timeout 200 $WF verify --gpu --dtypes i8,f8E4M3FN,i16,f16,bf16 \
  --ttgir corpus/pairs.mlir tests/data/byte_transpose.mlir tests/data/stress_w4.ttgir \
  corpus/ttgir/mmepi_fp16_64x64x32_w4_sm80.ttgir corpus/ttgir/colsum_trans_fp16_32x32_w1_sm80.ttgir \
  corpus/ttgir/attn_vfp8e4nv_sm90.ttgir corpus/ttgir/colsum_trans_i8_128x32_w4_sm80.ttgir \
  devbin/vec/w1_over.ttgir \
  --junit $OUT/verify.xml --report $OUT/verify.md > $OUT/verify.txt 2>&1
echo "verify rc=$? $(( $(date +%s) - s )) s" >> $OUT/log.txt
B="corpus/ttgir/mmepi_fp16_64x64x32_w4_sm80.ttgir corpus/ttgir/mmepi_bf16_128x64x64_w4_sm80.ttgir corpus/ttgir/attn_fp16_d64_64x64_w4_sm80.ttgir corpus/ttgir/colsum_trans_fp16_32x32_w1_sm80.ttgir corpus/ttgir/colsum_trans_fp16_64x128_w8_sm80.ttgir corpus/ttgir/colsum_trans_i8_128x32_w4_sm80.ttgir corpus/ttgir/matmul_fp16_sm80.ttgir"
s=$(date +%s)
timeout 200 $WF bench --ttgir $B --json $OUT/bench_vec.jsonl --md $OUT/bench_vec.md > $OUT/bench_vec.txt 2>&1
echo "bench corpus rc=$? $(( $(date +%s) - s )) s" >> $OUT/log.txt
s=$(date +%s)
timeout 150 $WF bench --ttgir devbin/vec/w1_32.ttgir --json $OUT/bench_w1.jsonl --md $OUT/bench_w1.md > $OUT/bench_w1.txt 2>&1
echo "bench w1 rc=$? $(( $(date +%s) - s )) s" >> $OUT/log.txt
cat $OUT/log.txt
tail -5 $OUT/verify.txt
grep -A30 "Forms of the chosen" $OUT/bench_vec.md | head -40
