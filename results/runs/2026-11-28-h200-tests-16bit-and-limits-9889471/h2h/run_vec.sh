#!/bin/bash
# h2h (patched: H2H_VEC=1, the element loop's tile I/O vectorised as Triton's) over the 16-bit conversions of triton_lowerings
export PYTHONUNBUFFERED=1
mkdir -p /tmp/tlw && tar xJf devbin/tl.tar.xz -C /tmp/tlw
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt
s=$(date +%s)
H2H_VEC=1 timeout 500 python3 /tmp/tlw/tl/h2h_vec.py /tmp/tlw/tl $OUT/tl_vec.jsonl > $OUT/tl_vec.log 2>&1
echo "tl vec rc=$? $(( $(date +%s) - s )) s" >> $OUT/log2.txt
cat $OUT/log2.txt
