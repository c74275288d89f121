#!/bin/sh
# GPU proof of the helpers the 16-bit fold changed (devbin/changed_names.txt: FILE NAME per line),
# f16 and i16, one verify process per conversion, 12 at a time
set -u
xz -dkf devbin/warpforge.xz && chmod +x devbin/warpforge
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
devbin/warpforge --version >> $OUT/gpu.txt
mkdir -p /tmp/v
s=$(date +%s)
cat -n devbin/changed_names.txt | timeout 200 xargs -P 12 -L 1 sh -c 'timeout 150 devbin/warpforge verify --gpu --ttgir "$1" --name "$2" --dtypes f16,i16 --json > /tmp/v/$0.jsonl 2> /tmp/v/$0.log; echo "$0 rc=$? $1 $2" >> '$OUT'/rc.txt'
echo "verify $(( $(date +%s) - s )) s, $(wc -l < $OUT/rc.txt) runs, $(grep -vc ' rc=0 ' $OUT/rc.txt) nonzero" >> $OUT/gpu.txt
cat /tmp/v/*.jsonl > $OUT/cases.jsonl
cat /tmp/v/*.log | tail -c 20000 > $OUT/logs.txt
cat $OUT/gpu.txt
