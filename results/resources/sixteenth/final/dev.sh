#!/bin/bash
# the final binaries: every GPU test of verify/tests/gpu.rs, then bench of c6_4 and c6_0 twice (the recheck)
cd gpu/fin && tar xJf bins.tar.xz && cd ../..
R=$OUT/f; mkdir -p $R
timeout 300 gpu/fin/gputest > $R/gputest.txt 2>&1; echo "gputest rc=$?" >> $R/rc.txt
for k in 1 2; do timeout 100 gpu/fin/wf bench --ttgir gpu/fin/c6_4.ttgir gpu/fin/c6_0.ttgir --name fwd --runs 5 --shared-candidates 1 --json $R/b_$k.jsonl > $R/b_$k.log 2>&1; echo "bench $k rc=$? $(grep -h 'register budget' $R/b_$k.log | cut -c1-160)" >> $R/rc.txt; done
grep -h "GPU-TEST\|test result" $R/gputest.txt >> $R/rc.txt
tar czf $OUT/f.tgz -C $OUT f; cat $R/rc.txt
