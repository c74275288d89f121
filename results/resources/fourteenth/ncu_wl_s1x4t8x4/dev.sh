#!/bin/bash
nvidia-smi --query-gpu=name --format=csv,noheader > $OUT/gpu.txt
ncu --section SchedulerStats --section WarpStateStats --section ComputeWorkloadAnalysis --section InstructionStats --section LaunchStats --section Occupancy -k regex:loop python3 gpu/ncu/prof.py > $OUT/ncu.txt 2>&1; echo "rc=$?" >> $OUT/gpu.txt
cat $OUT/gpu.txt; grep -v "^    ---\|^$" $OUT/ncu.txt | head -150
