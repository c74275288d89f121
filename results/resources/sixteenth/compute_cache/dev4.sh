#!/bin/bash
# NVRTC's cache: the probe and verify --compile-only before / after the fix, twice each
cd gpu/s16 && tar xJf bins3.tar.xz && tar xJf bins2.tar.xz wf_final && cd ../..
R=$OUT/c; mkdir -p $R
export FILES="$(echo gpu/s16/c6_*.ttgir)"
for k in 1 2; do for p in old fix; do
  s=$(date +%s); timeout 150 gpu/s16/probe_$p fwd > $R/probe_${p}_$k.txt 2>&1; echo "probe $p $k rc=$? missing=$(grep -c MISSING $R/probe_${p}_$k.txt) found=$(grep -c PtxasResources $R/probe_${p}_$k.txt) $(( $(date +%s)-s ))s" >> $R/rc.txt
done; done
for k in 1 2; do for b in final fix; do
  timeout 150 gpu/s16/wf_$b verify --compile-only --ttgir gpu/s16/c6_0.ttgir --dtypes i16,f16,i32 > $R/co_${b}_$k.txt 2>&1; echo "compile-only $b $k rc=$? $(grep -ci 'ptxas reported no kernel' $R/co_${b}_$k.txt)" >> $R/rc.txt
done; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $R/rc.txt; ls ~/.nv ~/.cache 2>&1 | head >> $R/rc.txt
tar czf $OUT/c.tgz -C $OUT c; cat $R/rc.txt
