#!/bin/bash
# twentieth pass, device call 8: 8-bit element forms reading and writing the caller's words one at
# a time (w8: WF_DEV_W8=1, an experiment) against two at a time (cur, the kept binary): h2h as
# shipped over the corpus's and stress files' 8-bit conversions, cur w8 w8 cur; then
# `verify --gpu --dtypes i8` of every corpus and stress file with w8.
export PYTHONUNBUFFERED=1
D=out/dev20g
R=/tmp/r; rm -rf $R; mkdir -p $R/v
tar xJf $D/h.tar.xz -C $D
nvidia-smi --query-gpu=name,driver_version --format=csv > $R/gpu.txt
k=0
for v in cur w8 w8 cur; do
  k=$((k+1)); s=$(date +%s)
  timeout 100 python3 $D/h2h.py $D/h_$v $R/h2h_${v}_$k.jsonl > $R/h2h_${v}_$k.log 2>&1
  echo "$v $k rc=$? $(( $(date +%s) - s )) s" >> $R/runs.txt
  tar czf $OUT/e8.tgz -C /tmp r
done
s=$(date +%s)
ls $D/files/* | WF_DEV_W8=1 timeout 150 xargs -P 8 -I{} sh -c 'b=$(basename {}); '$D'/wfw8 verify --gpu --ttgir {} --dtypes i8 --json > '$R'/v/$b.jsonl 2> '$R'/v/$b.log; echo "$b rc=$?" >> '$R'/v/rc.txt'
echo "verify w8 i8 $(( $(date +%s) - s )) s, $(wc -l < $R/v/rc.txt) files, $(grep -vc 'rc=0' $R/v/rc.txt) nonzero" >> $R/runs.txt
tar czf $OUT/e8.tgz -C /tmp r
cat $R/runs.txt
