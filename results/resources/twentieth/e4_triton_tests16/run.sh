#!/bin/bash
# twentieth pass, device call 4: h2h (fair2) of every 16-bit conversion of Triton's layout tests
# (tests/data/triton_lowerings.ttgir) with the kept binary (4df2e2b), timed as a whole.
export PYTHONUNBUFFERED=1
D=out/dev20c
R=/tmp/r; rm -rf $R; mkdir -p $R
tar xJf $D/h.tar.xz -C $D
nvidia-smi --query-gpu=name,driver_version --format=csv > $R/gpu.txt
s=$(date +%s)
H2H_VAR=fair2 timeout 480 python3 $D/h2h_fair2.py $D/h $R/h2h_tl16.jsonl > /dev/null 2>>$R/err.txt
echo "h2h rc=$? $(( $(date +%s) - s )) s" >> $R/runs.txt
tar czf $OUT/e4.tgz -C /tmp r
cat $R/runs.txt
