#!/bin/sh
# Make a run folder for a measurement and print its path (run from the
# repository root):
#   results/runs/<date>-<gpu or cpu>-<LABEL>-<commit>/
# with tools.txt: date, commit (and whether the tree is dirty), the GPU and
# driver (nvidia-smi), nvcc, Triton and warpforge versions, whichever exist.
# The caller writes its exact command to command.txt there, and its rows
# (.jsonl/.csv) and summary (.md) beside it. results/README.md says which
# runs it cites; scripts/results_table.py regenerates its table.
#   usage: D=$(scripts/new_run.sh LABEL) && echo "the command" > "$D/command.txt"
set -eu
cd "$(dirname "$0")/.."
label=${1:?usage: scripts/new_run.sh LABEL}
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git status --porcelain --untracked-files=no 2>/dev/null | head -1)
gpu_line=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1 || true)
gpu=$(printf '%s' "$gpu_line" | grep -oiE 'h100|h200|b200|a100|l40s?|rtx ?[0-9]+' | head -1 | tr 'A-Z ' 'a-z-' || true)
[ -n "$gpu" ] || { [ -n "$gpu_line" ] && gpu=gpu || gpu=cpu; }
d=results/runs/$(date -u +%Y-%m-%d)-$gpu-$label-$commit
mkdir -p "$d"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $commit${dirty:+ (working tree modified)}"
  echo "gpu, driver: ${gpu_line:-none}"
  echo "nvcc: $(nvcc --version 2>/dev/null | grep -o 'release [0-9.]*, V[0-9.]*' || echo none)"
  echo "triton: $(python3 -c 'import triton; print(triton.__version__)' 2>/dev/null || echo none)"
  echo "warpforge: $(target/release/warpforge --version 2>/dev/null || echo 'not built')"
} > "$d/tools.txt"
echo "$d"
