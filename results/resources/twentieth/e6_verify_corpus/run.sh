#!/bin/bash
# twentieth pass, device call 6: the kept binary (4df2e2b's code): `verify --gpu --dtypes
# i8,i16,f16,i32,i64` of every corpus and stress file, 8 files at a time; then compute-sanitizer
# memcheck, racecheck and synccheck on the conversions whose plan this pass changed (i16; 45 s each at most).
D=out/dev20e
R=/tmp/r; rm -rf $R; mkdir -p $R/v $R/san
nvidia-smi --query-gpu=name,driver_version --format=csv > $R/gpu.txt
s=$(date +%s)
ls $D/files/* | timeout 280 xargs -P 8 -I{} sh -c 'b=$(basename {}); '$D'/wf verify --gpu --ttgir {} --dtypes i8,i16,f16,i32,i64 --json > '$R'/v/$b.jsonl 2> '$R'/v/$b.log; echo "$b rc=$?" >> '$R'/v/rc.txt'
echo "verify $(( $(date +%s) - s )) s, $(wc -l < $R/v/rc.txt) files, $(grep -vc 'rc=0' $R/v/rc.txt) nonzero" >> $R/runs.txt
tar czf $OUT/e6.tgz -C /tmp r
for tool in memcheck racecheck synccheck; do
  for a in "stress_w32.ttgir transpose_f16_256x256:5" "mmepi_fp16_64x64x32_w4_sm80.ttgir mm_epilogue:97" "attn_vfp8e4nv_sm90.ttgir attn:120"; do
    set -- $a; s=$(date +%s)
    timeout 45 compute-sanitizer --tool $tool $D/wf verify --gpu --ttgir $D/files/$1 --name $2 --dtypes i16 > $R/san/$tool.$1.txt 2>&1
    echo "$tool $1 $2 rc=$? $(( $(date +%s) - s )) s $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/san/$tool.$1.txt | tr '\n' ' ')" >> $R/runs.txt
  done
  tar czf $OUT/e6.tgz -C /tmp r
done
cat $R/runs.txt
