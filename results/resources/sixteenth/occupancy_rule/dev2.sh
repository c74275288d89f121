#!/bin/bash
# bench: the six conversions of the sixth-pass rule, old (both) / new (dst) alternating
cd gpu/s16 && [ -f wf_new ] || tar xJf bins.tar.xz; cd ../..
R=$OUT/b; mkdir -p $R
for k in 1 2; do for v in old new; do
  s=$(date +%s); timeout 140 gpu/s16/wf_$v bench --ttgir gpu/s16/c6_*.ttgir --name fwd --runs 7 --shared-candidates 1 --json $R/b_${v}_$k.jsonl --md $R/b_${v}_$k.md > $R/b_${v}_$k.log 2>&1; echo "b $v $k rc=$? $(( $(date +%s)-s ))s" >> $R/sum.txt
done; done
tar czf $OUT/b.tgz -C $OUT b; cat $R/sum.txt; tail -3 $R/b_old_1.log
