#!/bin/bash
# twentieth pass, device call 5: `verify --gpu --dtypes i8,i16,f16,i32,i64` of every conversion of
# Triton's layout tests (tests/data/triton_lowerings.ttgir) with the kept binary (4df2e2b), one
# process per conversion (--name), 12 at a time, so that the file finishes within the call.
D=out/dev20d
R=/tmp/r; rm -rf $R; mkdir -p $R/v
nvidia-smi --query-gpu=name,driver_version --format=csv > $R/gpu.txt
s=$(date +%s)
cat -n $D/names.txt | timeout 500 xargs -P 12 -L 1 sh -c 'timeout 300 '$D'/wf verify --gpu --ttgir '$D'/triton_lowerings.ttgir --name "$1" --dtypes i8,i16,f16,i32,i64 --json > '$R'/v/$0.jsonl 2> '$R'/v/$0.log; echo "$0 rc=$? $1" >> '$R'/rc.txt'
echo "verify $(( $(date +%s) - s )) s, $(wc -l < $R/rc.txt) runs, $(grep -vc ' rc=0 ' $R/rc.txt) nonzero" >> $R/runs.txt
tar czf $OUT/e5.tgz -C /tmp r
cat $R/runs.txt
