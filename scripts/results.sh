#!/bin/bash
# `make results` on a GPU machine: every corpus conversion verified on the GPU
# (i32, f16, i8) with its SASS counts, beside Triton 3.6's counts quoted from the
# corpus comments, into the README.md of a new run folder (scripts/new_run.sh;
# the last one: results/runs/2026-11-22-h100-sass-counts-f7ac885/). Needs a built
# target/release/warpforge. usage: scripts/results.sh [OUT.md]
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-target/release/warpforge}
if [ -n "${1:-}" ]; then OUT=$1; else
  D=$(scripts/new_run.sh sass-counts); OUT=$D/README.md
  echo "scripts/results.sh" > "$D/command.txt"
fi
tmp=$(mktemp -d)
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo "unknown")
{
  echo "# SASS counts of warpforge helpers, verified on a GPU"
  echo
  echo "- command: \`scripts/results.sh\` (per file: \`warpforge verify --gpu --ttgir FILE --report ...\`)"
  echo "- GPU, driver (nvidia-smi): $gpu"
  echo "- date: $(date -u +%Y-%m-%d)"
  echo "- warpforge: ${REV:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
  echo
  echo "Counts are static SASS instructions of the test kernel that wraps each helper"
  echo "(cuobjdump -sass of the NVRTC CUBIN); the harness itself adds none of these"
  echo "classes. 'predicted' is warpforge's cost model (per thread, one element per"
  echo "32-bit register). Triton's numbers are quoted from the corpus comments."
  echo
} > "$tmp/head.md"
for f in corpus/pairs.mlir corpus/ttgir/*.ttgir; do
  "$BIN" verify --gpu --ttgir "$f" --report "$tmp/$(basename "$f").md" > "$tmp/$(basename "$f").log"
done
cat "$tmp/head.md" "$tmp"/*.mlir.md "$tmp"/*.ttgir.md > "$OUT"
rm -rf "$tmp"
echo "wrote $OUT"
