#!/bin/sh
# `make test`'s AMD compile check: every AMD helper of the given files
# (planned for its module's ttg.target, e.g. "hip:gfx942" / "hip:gfx90a" /
# "hip:gfx1201") compiled as HIP for its architecture with
# `warpforge verify --compile-only` (verify/src/hip.rs: every check kernel,
# i8/f16/i32/i64, every form), the amdgcn read per kernel (ds_bpermute, LDS,
# s_barrier, v_perm, VGPRs, scratch). The compiler is clang with the AMDGPU
# backend from the `ziglang` PyPI wheel (pinned), installed into
# $HIP_TOOLS (default OUTDIR/hip-tools) unless WARPFORGE_HIP_CLANG names
# another. Without network and without a cached copy, says so and exits 0
# (a visible skip, as the GPU tests do); a helper that fails to compile, or
# spills while its data leaves VGPRs spare, exits non-zero. No AMD GPU runs
# the helpers: their proof is the CPU simulator's and the printed code's
# interpreter (both in `verify`).
#
# usage: scripts/verify_hip.sh WARPFORGE_BINARY OUTDIR FILE...
set -u
wf=$1; out=$2; shift 2
mkdir -p "$out/hip"
if [ -z "${WARPFORGE_HIP_CLANG:-}" ]; then
  tools=${HIP_TOOLS:-$out/hip-tools}
  if [ ! -d "$tools/ziglang" ]; then
    mkdir -p "$tools"
    if ! python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$tools" \
        ziglang==0.17.1 > "$out/hip-tools.log" 2>&1; then
      echo "HIP COMPILE CHECK SKIPPED: could not fetch the ziglang wheel (see $out/hip-tools.log)"
      exit 0
    fi
  fi
  # the wheel's zig itself (what `python3 -m ziglang` execs): no Python
  # start, no version-manager shims, twice per file (0.5 s of 1.0 s a file
  # on the 2-core CI machine)
  export WARPFORGE_HIP_CLANG="$(cd "$tools" && pwd)/ziglang/zig clang"
fi
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
export wf out
for f in "$@"; do
  k=$(echo "$f" | tr '/' '_')
  rm -f "$out/hip/$k.status" "$out/hip/$k.jsonl" "$out/hip/$k.err"
done
status=0
printf '%s\n' "$@" | xargs -P "$jobs" -I{} sh -c '
  f="$1"; k=$(echo "$f" | tr "/" "_")
  if "$wf" verify --compile-only --ttgir "$f" --dtypes i8,f16,i32,i64 \
      --json > "$out/hip/$k.jsonl" 2> "$out/hip/$k.err"; then
    echo ok > "$out/hip/$k.status"
  else
    echo failed > "$out/hip/$k.status"
  fi' sh {} || status=1
failed=0
for f in "$@"; do
  k=$(echo "$f" | tr '/' '_')
  if [ "$(cat "$out/hip/$k.status" 2>/dev/null)" != ok ]; then
    echo "hip FAILED: $f (see $out/hip/$k.jsonl and .err)"
    grep -h '"spilled":\["' "$out/hip/$k.jsonl" | head -3 | cut -c1-300
    tail -3 "$out/hip/$k.err"
    failed=$((failed + 1))
    status=1
  fi
done
these() { for f in "$@"; do cat "$out/hip/$(echo "$f" | tr '/' '_').jsonl" 2>/dev/null; done; }
convs=$(these "$@" | grep -c '"hip":')
kernels=$(these "$@" | grep -o '"kernel":"' | wc -l)
echo "HIP COMPILE CHECK ran: $convs AMD conversions, $kernels kernels (check kernels and baselines) compiled for their gfx targets by $(${WARPFORGE_HIP_CLANG} --version | head -1), across $# files; $failed file(s) failed"
exit $status
