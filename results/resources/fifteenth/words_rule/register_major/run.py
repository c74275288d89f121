# 16-bit element forms under each warpforge::words choice, fwd then bwd in one loop (register-major
# tile, 1056 CTAs x ITERS round trips, xor 1 on the destination), beside the packed form.
import json, os, subprocess, sys, statistics, re
from concurrent.futures import ThreadPoolExecutor
import cupy as cp
D = os.path.dirname(os.path.abspath(__file__)); OUT = sys.argv[1]
ITERS = int(sys.argv[2]) if len(sys.argv) > 2 else 64
cases = json.load(open(os.path.join(D, 'cases.json')))
CTAS = 132 * 8
W = {'A': 'automatic', 'N': 'none', 'B': 'both', 'S': 'src', 'D': 'dst'}
VARS = ['NN', 'SN', 'NS', 'SD', 'DS', 'DD', 'BB', 'P']
def src(c, var):
    th, ns, nd = 32 * c['warps'], c['ns'], c['nd']
    hdr = os.path.join(D, c['tag'] + '.cuh')
    if var == 'P':
        ws, wd, T, one = ns // 2, nd // 2, 'unsigned', '0x00010001u'
        fcall = f"warpforge::{c['F']}_packed16(a, b, smem);"; bcall = f"warpforge::{c['B']}_packed16(b, a, smem);"
    else:
        ws, wd, T, one = ns, nd, 'unsigned short', '(unsigned short)1'
        fcall = f"warpforge::{c['F']}<unsigned short, warpforge::words::{W[var[0]]}>(a, b, smem);"
        bcall = f"warpforge::{c['B']}<unsigned short, warpforge::words::{W[var[1]]}>(b, a, smem);"
    return f'''#include "{hdr}"
extern "C" __global__ void __launch_bounds__({th}) loop(const {T}* __restrict__ in, {T}* __restrict__ out, int iters) {{
  extern __shared__ __align__(16) unsigned char smem[];
  const unsigned t = threadIdx.x; const long base = (long)blockIdx.x * {ws} * {th};
  {T} a[{ws}];
#pragma unroll
  for (int i = 0; i < {ws}; ++i) a[i] = in[base + i * {th} + t];
  for (int it = 0; it < iters; ++it) {{
    {T} b[{wd}];
    __syncthreads();
    {fcall}
#pragma unroll
    for (int i = 0; i < {wd}; ++i) b[i] ^= {one};
    __syncthreads();
    {bcall}
  }}
#pragma unroll
  for (int i = 0; i < {ws}; ++i) out[base + i * {th} + t] = a[i];
}}
'''
def count(sass):
    cnt = {}
    for l in sass.splitlines():
        m = re.match(r"\s*/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)", l)
        if m and m.group(1) != 'NOP':
            k = m.group(1).split('.')[0]; cnt[k] = cnt.get(k, 0) + 1; cnt['total'] = cnt.get('total', 0) + 1
    return {k: cnt.get(k, 0) for k in ['total', 'PRMT', 'LOP3', 'STS', 'LDS', 'LDL', 'STL']}
def build(cv):
    c, var = cv
    cu = os.path.join(OUT, f"{c['tag']}_{var}.cu"); open(cu, 'w').write(src(c, var))
    cub = cu[:-3] + '.cubin'
    r = subprocess.run(['nvcc', '-std=c++17', '-O3', '-arch=sm_90', '-cubin', '-o', cub, cu], capture_output=True, text=True)
    if r.returncode: return cv, None, r.stderr[-800:]
    sass = subprocess.run(['cuobjdump', '-sass', cub], capture_output=True, text=True).stdout
    return cv, cub, count(sass)
jobs = [(c, v) for c in cases for v in VARS]
with ThreadPoolExecutor(14) as ex:
    built = {(cv[0]['tag'], cv[1]): (cub, info) for cv, cub, info in ex.map(build, jobs)}
print('built', flush=True)
for c in cases:
    mods = {}
    for var in VARS:
        cub, info = built[(c['tag'], var)]
        if cub is None: print(c['tag'], var, 'compile failed', info); continue
        f = cp.RawModule(path=cub).get_function('loop')
        smem = max(c['fs'], c['bs'])
        f.max_dynamic_shared_size_bytes = smem
        mods[var] = (f, info, f.num_regs, f.local_size_bytes, smem)
    th = 32 * c['warps']
    n = CTAS * th * c['ns']
    x16 = cp.random.randint(0, 2**16, size=n, dtype=cp.int32).astype(cp.uint16)
    x32 = x16.view(cp.uint32)
    outs, times = {}, {v: [] for v in mods}
    for var, (f, _, _, _, smem) in mods.items():
        x = x32 if var == 'P' else x16
        y = cp.zeros_like(x); f((CTAS,), (th,), (x, y, cp.int32(2)), shared_mem=smem); cp.cuda.Device().synchronize()
        outs[var] = y.view(cp.uint16) if var == 'P' else y
    ref = outs.get('NN')
    ok = {v: bool((outs[v] == ref).all()) if v != 'P' else None for v in outs}
    ok['P_identity'] = bool((outs['P'] == x16).all()) if 'P' in outs else None
    ok['NN_identity'] = bool((ref == x16).all())
    s, e = cp.cuda.Event(), cp.cuda.Event()
    for rnd in range(6):
        for var in (list(mods) if rnd % 2 == 0 else list(mods)[::-1]):
            f, _, _, _, smem = mods[var]; x = x32 if var == 'P' else x16; y = cp.zeros_like(x)
            for _ in range(2):
                s.record(); f((CTAS,), (th,), (x, y, cp.int32(ITERS)), shared_mem=smem); e.record(); e.synchronize()
                times[var].append(cp.cuda.get_elapsed_time(s, e))
    med = {v: statistics.median(times[v][2:]) for v in times}
    row = dict(tag=c['tag'], warps=c['warps'], ns=c['ns'], nd=c['nd'], iters=ITERS, ms=med,
               over_NN={v: round(med[v] / med['NN'], 4) for v in med}, over_P={v: round(med[v] / med['P'], 4) for v in med},
               regs={v: mods[v][2] for v in mods}, local={v: mods[v][3] for v in mods}, sass={v: mods[v][1] for v in mods}, ok=ok)
    print(json.dumps(row), flush=True)
