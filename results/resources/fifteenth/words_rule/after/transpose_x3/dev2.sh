#!/bin/bash
# the 32-warp transpose in bench, binary before / after, alternating, three times each
R=/tmp/v15b; mkdir -p $R
for k in 1 2 3; do for b in old new; do
  timeout 60 gpu/v15/wf_$b bench --ttgir gpu/v15/stress_w32.ttgir --runs 9 --shared-candidates 1 --json $R/t_${b}_$k.jsonl --md $R/t_${b}_$k.md > $R/t_${b}_$k.log 2>&1
  echo "$b $k rc=$? $(grep -h '^| `.*transpose' $R/t_${b}_$k.md | sed -n 2p | cut -d'|' -f6-9)" >> $R/sum.txt
done; done
tar czf $OUT/v15b.tgz -C /tmp v15b; cat $R/sum.txt
