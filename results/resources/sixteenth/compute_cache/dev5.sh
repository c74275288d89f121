#!/bin/bash
# NVRTC's cache, second fix (an unused __device__ variable more): probes and verify --compile-only
cd gpu/s16 && tar xJf bins3.tar.xz && tar xJf bins4.tar.xz && tar xJf bins2.tar.xz wf_final && cd ../..
R=$OUT/d; mkdir -p $R
export FILES="$(echo gpu/s16/c6_*.ttgir)"
run() { s=$(date +%s); timeout 150 "$@" > $R/$TAG.txt 2>&1; echo "$TAG rc=$? missing=$(grep -c MISSING $R/$TAG.txt) found=$(grep -c PtxasResources $R/$TAG.txt) noker=$(grep -ci 'ptxas reported no kernel' $R/$TAG.txt) $(( $(date +%s)-s ))s" >> $R/rc.txt; }
TAG=probe_old_1 run gpu/s16/probe_old fwd
TAG=probe_fix2_1 run gpu/s16/probe_fix2 fwd
TAG=probe_fix2_2 run gpu/s16/probe_fix2 fwd
TAG=probe_old_nocache CUDA_CACHE_DISABLE=1 run gpu/s16/probe_old fwd
TAG=co_final run gpu/s16/wf_final verify --compile-only --ttgir gpu/s16/c6_0.ttgir --dtypes i16,f16,i32
TAG=co_fix2_1 run gpu/s16/wf_fix2 verify --compile-only --ttgir gpu/s16/c6_0.ttgir --dtypes i16,f16,i32
TAG=co_fix2_2 run gpu/s16/wf_fix2 verify --compile-only --ttgir gpu/s16/c6_0.ttgir --dtypes i16,f16,i32
TAG=bench_fix2 run gpu/s16/wf_fix2 bench --ttgir gpu/s16/c6_4.ttgir gpu/s16/c6_0.ttgir --name fwd --runs 5 --shared-candidates 1
grep -h "register budget" $R/bench_fix2.txt >> $R/rc.txt
tar czf $OUT/d.tgz -C $OUT d; cat $R/rc.txt
