#!/bin/bash
# nineteenth pass, device call 2: verify --gpu (i8, i16, f16: the widths whose emission changed) of
# every corpus file, the stress files and Triton's layout tests with the new binary; then
# warpforge bench of the stress files.
export PYTHONUNBUFFERED=1
D=out/dev19n
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt
python3 -c "import triton; print('triton', triton.__version__)" >> $OUT/gpu.txt
V=/tmp/v19; rm -rf $V; mkdir -p $V
t0=$(date +%s)
ls $D/files/* | timeout 330 xargs -P 16 -I{} sh -c 'b=$(basename {}); '$D'/warpforge_new verify --gpu --ttgir {} --dtypes i8,i16,f16 --json > '$V'/$b.jsonl 2> '$V'/$b.log; echo "$b rc=$?" >> '$V'/rc.txt'
echo "verify: $(wc -l < $V/rc.txt) files, $(grep -vc 'rc=0' $V/rc.txt) nonzero, $(( $(date +%s)-t0 )) s" >> $OUT/runs.txt
cp $V/rc.txt $OUT/verify_rc.txt; python3 $D/vsum.py $V > $OUT/verify_summary.txt 2>&1
tail -qn 1 $V/*.log > $OUT/verify_tails.txt
tar czf $OUT/verify.tgz -C /tmp v19
s=$(date +%s)
timeout 220 $D/warpforge_new bench --ttgir $D/files/stress_w*.ttgir --json $OUT/bench_stress.jsonl --md $OUT/bench_stress.md > $OUT/stress.log 2>&1
echo "bench stress rc=$? $(( $(date +%s) - s )) s" >> $OUT/runs.txt
cat $OUT/runs.txt $OUT/verify_summary.txt
