#!/bin/bash
# 1) old vs new of the three groups the last run did not reach; 2) h2h over the 16-bit conversions of triton_lowerings
export PYTHONUNBUFFERED=1
s=$(date +%s)
bash devbin/run_ab.sh 256 w4_g10 w4_g11 w4_g13 > $OUT/ab.txt 2>&1
echo "ab done $(( $(date +%s) - s )) s" >> $OUT/log1.txt
mkdir -p /tmp/tlw && tar xJf devbin/tl.tar.xz -C /tmp/tlw
s=$(date +%s)
timeout 420 python3 /tmp/tlw/tl/h2h.py /tmp/tlw/tl $OUT/tl_h2h.jsonl > $OUT/tl_h2h.log 2>&1
echo "tl rc=$? $(( $(date +%s) - s )) s" >> $OUT/log1.txt
cd $OUT && tar czf rows1.tgz *.jsonl *.log *.txt
