#!/bin/bash
# Fair h2h (seventeenth pass's patch) on six corpus cases at two trip counts and two grid sizes, alternating.
export PYTHONUNBUFFERED=1
D=out/dev18b
for r in 1 2; do for it in 256 1024; do for ct in 1056 660; do
  rm -rf /tmp/w; cp -r $D/w /tmp/w
  H2H_ITERS=$it H2H_VAR=fair python3 $D/h2h_$ct.py /tmp/w $OUT/fair_${it}_${ct}_$r.jsonl > /dev/null 2>>$OUT/log.txt
  echo "$r $it $ct done $(date +%T)" >> $OUT/log.txt
done; done; done
