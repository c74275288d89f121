#!/bin/bash
cd gpu/s16 && xz -dkf gputest.xz && chmod +x gputest && cd ../..
for k in 1 2; do gpu/s16/gputest ptxas_reports --nocapture 2>&1 | grep -E "GPU-TEST|test result|panicked|reported nothing"; done
cd gpu/s16 && xz -dkf gputest_old.xz && chmod +x gputest_old && cd ../..
echo "old verify (expected to fail the second compile):"
gpu/s16/gputest_old ptxas_reports --nocapture 2>&1 | grep -E "GPU-TEST|test result|reported nothing" | cut -c1-200
echo "fixed again:"
gpu/s16/gputest ptxas_reports --nocapture 2>&1 | grep -E "GPU-TEST|test result|panicked|reported nothing"
