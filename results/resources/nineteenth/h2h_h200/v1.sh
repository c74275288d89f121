#!/bin/bash
# nineteenth pass, device call 1: GPU proof of the new binary (verify --gpu, five widths, every
# form and words choice) over the corpus, the stress files and Triton's layout tests; then h2h
# (fair2) of the corpus's 8/16-bit conversions, old headers (A) and new (N).
export PYTHONUNBUFFERED=1
D=out/dev19n
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt
mkdir -p $OUT/verify
t0=$(date +%s)
ls $D/files/* | timeout 330 xargs -P 8 -I{} sh -c 'b=$(basename {}); '$D'/warpforge_new verify --gpu --ttgir {} --dtypes i8,i16,f16,i32,i64 --json > '$OUT'/verify/$b.jsonl 2> '$OUT'/verify/$b.log; echo "$b rc=$?" >> '$OUT'/verify/rc.txt'
echo "verify: $(wc -l < $OUT/verify/rc.txt) files, $(grep -vc 'rc=0' $OUT/verify/rc.txt) nonzero, $(( $(date +%s)-t0 )) s" >> $OUT/runs.txt
n=0
for v in A N; do
  n=$((n+1)); rm -rf /tmp/w; cp -r $D/c$v /tmp/w; s=$(date +%s)
  H2H_VAR=fair2 python3 $D/h2h_fair2.py /tmp/w $OUT/c${v}_$n.jsonl > /dev/null 2>>$OUT/err.txt
  echo "c$v $n $(( $(date +%s) - s )) s" >> $OUT/runs.txt
done
cat $OUT/runs.txt
