# times the four pairings (forward family x reverse family) of each case in one loop (see prep.py)
import json, os, subprocess, sys, statistics
import cupy as cp
D = os.path.dirname(os.path.abspath(__file__)); OUT = sys.argv[1]
CTAS, ITERS = 132 * 8, 1024
cases = json.load(open(os.path.join(D, 'cases.json')))
def call(h, a, b):
    return ('__syncthreads();\n    ' if h['smem'] else '') + f"warpforge::{h['fn']}({a}, {b}{', smem' if h['smem'] else ''});"
def src(c, fk, bk):
    th = 32 * c['warps']; hf, hb = c['helpers'][fk], c['helpers'][bk]
    inc = ''.join(f'#include "{os.path.join(D, p + c["tag"] + ".cuh")}"\n' for p in ('sh_', 'sm_'))
    return f'''{inc}
extern "C" __global__ void __launch_bounds__({th}) loop(const unsigned* __restrict__ in, unsigned* __restrict__ out, int iters) {{
  extern __shared__ __align__(16) unsigned char smem[];
  const unsigned t = threadIdx.x; const long base = (long)blockIdx.x * {c['ns']} * {th};
  unsigned a[{c['ns']}];
#pragma unroll
  for (int i = 0; i < {c['ns']}; ++i) a[i] = in[base + i * {th} + t];
  for (int it = 0; it < iters; ++it) {{
    unsigned b[{c['nd']}];
    {call(hf, 'a', 'b')}
#pragma unroll
    for (int i = 0; i < {c['nd']}; ++i) b[i] ^= {c['one']};
    {call(hb, 'b', 'a')}
  }}
#pragma unroll
  for (int i = 0; i < {c['ns']}; ++i) out[base + i * {th} + t] = a[i];
}}
'''
PAIRS = [('sh_f', 'sh_b'), ('sh_f', 'sm_b'), ('sm_f', 'sh_b'), ('sm_f', 'sm_b')]
for c in cases:
    ks = {}
    for fk, bk in PAIRS:
        tag = f"{c['tag']}_{fk[:2]}{bk[:2]}"
        cu = os.path.join(OUT, tag + '.cu'); open(cu, 'w').write(src(c, fk, bk))
        cub = cu[:-3] + '.cubin'
        r = subprocess.run(['nvcc', '-std=c++17', '-O3', '-arch=sm_90', '-cubin', '-o', cub, cu], capture_output=True, text=True)
        if r.returncode: print(tag, 'compile failed', r.stderr[-800:]); continue
        f = cp.RawModule(path=cub).get_function('loop')
        sm = max(c['helpers'][fk]['bytes'], c['helpers'][bk]['bytes'])
        if sm > 48 * 1024: f.max_dynamic_shared_size_bytes = sm
        ks[(fk, bk)] = (f, sm, f.num_regs, f.local_size_bytes)
    n = CTAS * 32 * c['warps'] * c['ns']
    x = cp.random.randint(0, 2**31, size=n, dtype=cp.int64).astype(cp.uint32); y = cp.zeros_like(x)
    th = 32 * c['warps']
    ok = {}
    for k, (f, sm, _, _) in ks.items():
        y[:] = 0; f((CTAS,), (th,), (x, y, cp.int32(2)), shared_mem=sm); cp.cuda.Device().synchronize()
        ok['/'.join(k)] = bool((y == x).all())
    times = {k: [] for k in ks}
    s, e = cp.cuda.Event(), cp.cuda.Event()
    order = list(ks)
    for rnd in range(8):
        for k in (order if rnd % 2 == 0 else order[::-1]):
            f, sm, _, _ = ks[k]
            for _ in range(2):
                s.record(); f((CTAS,), (th,), (x, y, cp.int32(ITERS)), shared_mem=sm); e.record(); e.synchronize()
                times[k].append(cp.cuda.get_elapsed_time(s, e))
    med = {k: statistics.median(v[2:]) for k, v in times.items()}
    base_k = ('sh_f', 'sh_b')
    row = dict(tag=c['tag'], file=c['file'], warps=c['warps'],
               strategies={k: v['strategy'] for k, v in c['helpers'].items()},
               ns_per_round_trip={'/'.join(k): med[k] * 1e6 / ITERS for k in med},
               ratio_over_shuffle_pair={'/'.join(k): round(med[k] / med[base_k], 4) for k in med},
               regs={'/'.join(k): v[2] for k, v in ks.items()}, local={'/'.join(k): v[3] for k, v in ks.items()},
               roundtrip_ok=ok)
    print(json.dumps(row))
