import json, os, subprocess, sys, statistics, re
import cupy as cp
D = os.path.dirname(os.path.abspath(__file__)); OUT = sys.argv[1]
cases = json.load(open(os.path.join(D, 'cases.json')))
CTAS, ITERS = 132 * 8, 1024
VARS = sys.argv[3].split(',') if len(sys.argv) > 3 else ['h', 'o', 'l', 'e']  # h: as emitted; o, l, e: reorder.py chain, lazy, eager; s: reorder3.py
ONLY = sys.argv[2].split(',') if len(sys.argv) > 2 else None
def src(c, hdr):
    ns, nd, th = c['ns'], c['nd'], 32 * c['warps']
    return f'''#include "{hdr}"
extern "C" __global__ void __launch_bounds__({th}) loop(const unsigned* __restrict__ in, unsigned* __restrict__ out, int iters) {{
  const unsigned t = threadIdx.x; const long base = (long)blockIdx.x * {ns} * {th};
  unsigned a[{ns}];
#pragma unroll
  for (int i = 0; i < {ns}; ++i) a[i] = in[base + i * {th} + t];
  for (int it = 0; it < iters; ++it) {{
    unsigned b[{nd}];
    warpforge::{c['F']}(a, b);
#pragma unroll
    for (int i = 0; i < {nd}; ++i) b[i] ^= {c['one']};
    warpforge::{c['B']}(b, a);
  }}
#pragma unroll
  for (int i = 0; i < {ns}; ++i) out[base + i * {th} + t] = a[i];
}}
'''
def count(sass):
    cnt = {}
    for l in sass.splitlines():
        m = re.match(r"\s*/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)", l)
        if m and m.group(1) != 'NOP':
            k = m.group(1).split('.')[0]; cnt[k] = cnt.get(k, 0) + 1; cnt['total'] = cnt.get('total', 0) + 1
    return {k: cnt.get(k, 0) for k in ['total', 'SHFL', 'SEL', 'PRMT', 'LOP3', 'MOV', 'IMAD', 'LDL', 'STL']}
res = []
for c in cases:
    if ONLY and c['tag'] not in ONLY: continue
    mods = {}
    for var in VARS:
        hdr = os.path.join(D, f"{var}_{c['tag']}.cuh")
        cu = os.path.join(OUT, f"{var}_{c['tag']}.cu"); open(cu, 'w').write(src(c, hdr))
        cub = cu[:-3] + '.cubin'
        r = subprocess.run(['nvcc', '-std=c++17', '-O3', '-arch=sm_90', '-cubin', '-o', cub, cu], capture_output=True, text=True)
        if r.returncode: print(c['tag'], var, 'compile failed', r.stderr[-1500:]); break
        sass = subprocess.run(['cuobjdump', '-sass', cub], capture_output=True, text=True).stdout
        open(cub[:-6] + '.sass', 'w').write(sass)
        m = cp.RawModule(path=cub); f = m.get_function('loop')
        mods[var] = (f, count(sass), f.num_regs, f.local_size_bytes)
    if len(mods) < len(VARS): continue
    n = CTAS * 32 * c['warps'] * c['ns']
    x = cp.random.randint(0, 2**31, size=n, dtype=cp.int64).astype(cp.uint32)
    ok = {}
    times = {v: [] for v in VARS}
    for var in VARS:
        y = cp.zeros_like(x); mods[var][0]((CTAS,), (32 * c['warps'],), (x, y, cp.int32(2))); cp.cuda.Device().synchronize()
        ok[var] = bool((y == x).all())
    s, e = cp.cuda.Event(), cp.cuda.Event()
    y = cp.zeros_like(x)
    for rnd in range(8):
        for var in (VARS if rnd % 2 == 0 else VARS[::-1]):
            f = mods[var][0]
            for _ in range(2):
                s.record(); f((CTAS,), (32 * c['warps'],), (x, y, cp.int32(ITERS))); e.record(); e.synchronize()
                times[var].append(cp.cuda.get_elapsed_time(s, e))
    med = {v: statistics.median(times[v][2:]) for v in times}
    row = dict(tag=c['tag'], name=c['name'], strategy=c['strategy'], bits=c['bits'], warps=c['warps'],
               ms={v: med[v] for v in VARS}, ratio_over_orig={v: round(med[v] / med['h'], 4) for v in VARS},
               regs={v: mods[v][2] for v in VARS}, local={v: mods[v][3] for v in VARS},
               sass={v: mods[v][1] for v in VARS}, roundtrip_ok=ok)
    print(json.dumps(row)); res.append(row)
json.dump(res, open(os.path.join(OUT, 'ord.json'), 'w'), indent=1)
