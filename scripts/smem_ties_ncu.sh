#!/bin/bash
# Usage (GPU machine, repository root, release build): bash scripts/smem_ties_ncu.sh  (ncu metrics of attn:120: warpforge candidates c0_k*p and Triton loop)
set -u
OUT=${OUT:-/tmp/smem_ties}; mkdir -p "$OUT"
M=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_mio_throttle.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_lg_throttle.ratio,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed,launch__registers_per_thread,sm__ctas_launched.avg.per_second,launch__occupancy_limit_registers
for n in attn:120; do
ncu --target-processes all -k "regex:wf_bench_c0_k(0p|[0-9]+p)|loop" --launch-count 60 --metrics $M --csv \
  target/release/warpforge bench --ttgir corpus/ttgir/attn_vfp8e4nv_sm90.ttgir --name $n --runs 1 --iters 256 --shared-candidates 4 > $OUT/ncu_attn120.csv 2> $OUT/ncu_attn120.err; echo "rc=$?"
done
tail -3 $OUT/ncu_attn120.err
