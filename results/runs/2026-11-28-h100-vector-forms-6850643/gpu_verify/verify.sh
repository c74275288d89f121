#!/bin/bash
# GPU proof of every form (the vector forms _x2/_x4 included) with 8- and 16-bit types
WF=devbin/vec/warpforge
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt
$WF --version >> $OUT/gpu.txt 2>&1
D=i8,f8E4M3FN,i16,f16,bf16
s=$(date +%s)
timeout 270 $WF verify --gpu --dtypes $D --ttgir corpus/pairs.mlir tests/data/byte_transpose.mlir tests/data/stress_w4.ttgir \
  --junit $OUT/verify_a.xml --report $OUT/verify_a.md > $OUT/verify_a.txt 2>&1
echo "verify a rc=$? $(( $(date +%s) - s )) s" >> $OUT/log.txt
s=$(date +%s)
timeout 270 $WF verify --gpu --dtypes $D --ttgir corpus/ttgir/mmepi_fp16_64x64x32_w4_sm80.ttgir corpus/ttgir/colsum_trans_fp16_32x32_w1_sm80.ttgir \
  corpus/ttgir/attn_vfp8e4nv_sm90.ttgir corpus/ttgir/colsum_trans_i8_128x32_w4_sm80.ttgir devbin/vec/w1_over.ttgir \
  --junit $OUT/verify_b.xml --report $OUT/verify_b.md > $OUT/verify_b.txt 2>&1
echo "verify b rc=$? $(( $(date +%s) - s )) s" >> $OUT/log.txt
cat $OUT/log.txt
for f in $OUT/verify_a.txt $OUT/verify_b.txt; do grep -E "^warpforge" $f | tail -4; grep -c "vector" $f; grep -o "vector[^|]*FAIL[^|]*\|vector[^|]*wrong[^|]*\|SPILLS" $f | head; done
