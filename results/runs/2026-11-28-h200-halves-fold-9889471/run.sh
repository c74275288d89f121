#!/bin/bash
# old (9889471) vs new element forms of 16-bit /words plans: h2h_pair over the 20 changed conversions of triton_lowerings
export PYTHONUNBUFFERED=1 H2H_PAIR_REP=100
mkdir -p /tmp/w && tar xJf devbin/abf.tar.xz -C /tmp/w
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt
s=$(date +%s)
H2H_VEC=1 timeout 240 python3 /tmp/w/abf/old/h2h_pair.py /tmp/w/abf/old /tmp/w/abf/new $OUT/vec_old.jsonl $OUT/vec_new.jsonl > $OUT/vec.log 2>&1
echo "vec rc=$? $(( $(date +%s) - s )) s" >> $OUT/log.txt
s=$(date +%s)
timeout 150 python3 /tmp/w/abf/old/h2h_pair.py /tmp/w/abf/old /tmp/w/abf/new $OUT/def_old.jsonl $OUT/def_new.jsonl > $OUT/def.log 2>&1
echo "default rc=$? $(( $(date +%s) - s )) s" >> $OUT/log.txt
cat $OUT/log.txt
