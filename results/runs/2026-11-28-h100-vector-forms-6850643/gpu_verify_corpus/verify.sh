#!/bin/bash
# GPU check of every form (vector forms included) over the corpus TTGIR files, 8- and 16-bit types
WF=devbin/vec/warpforge
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt
A=$(ls corpus/ttgir/*.ttgir | head -12)
B=$(ls corpus/ttgir/*.ttgir | tail -n +13)
s=$(date +%s)
timeout 260 $WF verify --gpu --dtypes i8,f16,bf16 --ttgir $A --junit $OUT/verify_a.xml > $OUT/verify_a.txt 2>&1
echo "verify a rc=$? $(( $(date +%s) - s )) s" >> $OUT/log.txt
s=$(date +%s)
timeout 260 $WF verify --gpu --dtypes i8,f16,bf16 --ttgir $B --junit $OUT/verify_b.xml > $OUT/verify_b.txt 2>&1
echo "verify b rc=$? $(( $(date +%s) - s )) s" >> $OUT/log.txt
cat $OUT/log.txt
for f in $OUT/verify_a.xml $OUT/verify_b.xml; do echo "$f cases $(grep -c '<testcase' $f) failures $(grep -c '<failure' $f) gpu-vector $(grep '<testcase' $f | grep -c 'gpu [a-zA-Z0-9]* vector')"; done
grep -h "^warpforge:" $OUT/verify_a.txt $OUT/verify_b.txt | tail -6
