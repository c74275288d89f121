#!/bin/bash
# fair2 h2h on the rows above 1.05x: 256 (h2h's) and 1024 (bench's) round trips per launch, alternating, twice.
export PYTHONUNBUFFERED=1
D=out/dev18d
for r in 1 2; do for it in 256 1024; do
  rm -rf /tmp/w; cp -r $D/w /tmp/w
  H2H_ITERS=$it H2H_VAR=fair2 python3 $D/h2h_fair2.py /tmp/w $OUT/fair2_${it}_$r.jsonl > /dev/null 2>>$OUT/err.txt
  echo "$r $it $(date +%T)" >> $OUT/runs.txt
done; done
