#!/bin/bash
# Usage (GPU machine, repository root, release build): bash scripts/ctas_sweep.sh  (writes c<N>.{jsonl,log} under $OUT, default /tmp/ctas_sweep)
# attn:120 and mm_epilogue:97 64x64 against Triton at 4..16 CTAs per SM (same loop, same rounds).
set -u
OUT=${OUT:-/tmp/ctas_sweep}; mkdir -p "$OUT"
F="corpus/ttgir/mmepi_fp16_64x64x32_w4_sm80.ttgir corpus/ttgir/attn_vfp8e4nv_sm90.ttgir"
for c in 4 6 7 8 9 10 16; do
  target/release/warpforge bench --ttgir $F --runs 21 --ctas-per-sm $c --shared-candidates 8 --json $OUT/c$c.jsonl > $OUT/c$c.log 2>&1; echo "ctas $c rc=$?"
  python3 - $OUT/c$c.jsonl <<'PY'
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l); t = r['triton']
    if r['name'] not in ('attn:120', 'mm_epilogue:97') or 'ns' not in t: continue
    best = min(r['candidates'], key=lambda c: c.get('ns') or 1e9)
    ch = [c for c in r['candidates'] if c['chosen']][0]
    print('  %-16s chosen %.4f (%s, %s regs) fastest %.4f (%s, %s regs), Triton %s regs' % (
        r['name'], ch['ns'] / t['ns'], ch['strategy'], ch['registers'], best['ns'] / t['ns'],
        best['strategy'], best['registers'], t['registers']))
PY
done
