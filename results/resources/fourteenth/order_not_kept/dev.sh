#!/bin/bash
mkdir -p $OUT/ord $OUT/keep
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
python3 gpu/ord/run.py $OUT/ord > $OUT/ord.log 2>&1; echo "ord rc=$?" >> $OUT/gpu.txt
rm -f $OUT/ord/*.cubin
gpu/wf bench --ttgir gpu/tl/part6.ttgir --name wl_s1x4t8x4_s1x4t4x8_64x64_f16 --runs 9 --shared-candidates 1 --keep $OUT/keep --json $OUT/keep.jsonl > $OUT/keep.log 2>&1; echo "keep rc=$?" >> $OUT/gpu.txt
rm -f $OUT/keep/*.cubin
cat $OUT/gpu.txt; tail -20 $OUT/ord.log
