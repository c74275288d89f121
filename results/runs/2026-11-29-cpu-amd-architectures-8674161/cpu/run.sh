#!/bin/bash
# For each architecture folder of the generated TTGIR (gen/ttgir.tar.xz, extracted to out/):
# 1. warpforge verify --cpu: every conversion planned, emitted and proven by the simulator and the
#    printed-code interpreter at every element width;
# 2. the third fresh set's cpu/llcheck.py: the bases warpforge's header prints for each converted operand and result
#    against Triton 3.6's own toLinearLayout of the same tensor types;
# 3. warpforge verify --compile-only on every 5th file (every file of a sampled folder): every check kernel (i8/f16/i32/i64, every
#    form) compiled for the architecture by clang (the ziglang wheel), VGPRs and scratch read.
# usage: cpu/run.sh WARPFORGE ARCH_FOLDER...   (from the run folder; writes res/)
wf=$1; shift
mkdir -p res
: "${WARPFORGE_HIP_CLANG:?a clang with the AMDGPU backend, e.g. out/hip-tools/ziglang/zig clang (scripts/verify_hip.sh fetches it)}"
export WARPFORGE_HIP_CLANG
for t in "$@"; do
  s=$(date +%s.%N)
  "$wf" verify --cpu --ttgir out/$t/*.ttgir --json > res/verify_$t.jsonl 2> res/verify_$t.err; rc=$?
  e=$(date +%s.%N)
  echo "$t verify rc=$rc secs=$(echo "$e - $s" | bc)" >> res/times.txt
  python3 ../2026-11-29-cpu-fresh-kernels-3-c8e9a0f/cpu/llcheck.py "$wf" out/$t/*.ttgir > res/llcheck_$t.jsonl 2> res/llcheck_$t.err
  rm -f res/hip_$t.jsonl res/hip_$t.err
  # every 5th file; every file of a folder of at most 20 (the sampled architectures)
  n=$(ls out/$t/*.ttgir | wc -l); step=5; [ "$n" -le 20 ] && step=1
  for f in $(ls out/$t/*.ttgir | awk -v s=$step 'NR % s == 1 % s'); do
    if grep -q convert_layout "$f"; then
      "$wf" verify --compile-only --ttgir "$f" --dtypes i8,f16,i32,i64 --json >> res/hip_$t.jsonl 2>> res/hip_$t.err \
        || echo "hip FAILED $f" >> res/hip_$t.err
    fi
  done
  echo "$t done" >> res/times.txt
done
