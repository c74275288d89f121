#!/bin/bash
python3 gpu/ncu/ptx.py $OUT > $OUT/ptx.log 2>&1; echo rc=$?
ncu --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,smsp__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active -k regex:loop python3 gpu/ncu/prof.py > $OUT/ncu2.txt 2>&1; echo rc=$?
grep -E "loop|stalled|pipe" $OUT/ncu2.txt | awk '$NF+0 > 0.05 || /loop/' | head -80
gzip $OUT/*.ptx $OUT/*.llir
