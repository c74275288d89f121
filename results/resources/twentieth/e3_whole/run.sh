#!/bin/bash
# twentieth pass, device call 3: the kept binary (4df2e2b) timed as a whole: `warpforge bench`
# of every corpus and stress file, then h2h (fair2) of the corpus's 8/16-bit conversions.
export PYTHONUNBUFFERED=1
D=out/dev20b
R=/tmp/r; rm -rf $R; mkdir -p $R
tar xJf $D/h.tar.xz -C $D
nvidia-smi --query-gpu=name,driver_version --format=csv > $R/gpu.txt
s=$(date +%s)
timeout 420 $D/wf bench --ttgir $D/files/pairs.mlir $D/files/*.ttgir --json $R/bench_all.jsonl --md $R/bench_all.md > $R/bench_all.log 2>&1
echo "bench rc=$? $(( $(date +%s) - s )) s" >> $R/runs.txt
tar czf $OUT/e3.tgz -C /tmp r
s=$(date +%s)
H2H_VAR=fair2 timeout 150 python3 $D/h2h_fair2.py $D/h $R/h2h_corpus816.jsonl > /dev/null 2>>$R/err.txt
echo "h2h rc=$? $(( $(date +%s) - s )) s" >> $R/runs.txt
tar czf $OUT/e3.tgz -C /tmp r
cat $R/runs.txt
