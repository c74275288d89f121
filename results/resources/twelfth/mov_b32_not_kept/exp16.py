# Experiment: 16-bit element form unpack/pack through mov.b32 {lo, hi} (PTX) instead of shr + cvt.
import sys, json, re, subprocess, os
keep, out = sys.argv[1], sys.argv[2]
index = json.load(open(f'{keep}/index.json'))
HELP = r'''
template <typename T> __device__ __forceinline__ T lo16(unsigned w) {
  if constexpr (sizeof(T) == 2) { unsigned short l, h; asm("mov.b32 {%0, %1}, %2;" : "=h"(l), "=h"(h) : "r"(w)); return *reinterpret_cast<const T*>(&l); }
  else { return from_u32<T>(w); }
}
template <typename T> __device__ __forceinline__ T hi16(unsigned w) {
  if constexpr (sizeof(T) == 2) { unsigned short l, h; asm("mov.b32 {%0, %1}, %2;" : "=h"(l), "=h"(h) : "r"(w)); return *reinterpret_cast<const T*>(&h); }
  else { return from_u32<T>(w >> 16); }
}
template <typename T> __device__ __forceinline__ unsigned pk16(T a, T b) {
  if constexpr (sizeof(T) == 2) { unsigned w; unsigned short x = *reinterpret_cast<const unsigned short*>(&a), y = *reinterpret_cast<const unsigned short*>(&b); asm("mov.b32 %0, {%1, %2};" : "=r"(w) : "h"(x), "h"(y)); return w; }
  else { return to_u32(a) | (to_u32(b) << 16); }
}
'''
def patch(src, pack=True):
    src = src.replace('// Shared-memory accesses as inline PTX', HELP + '\n// Shared-memory accesses as inline PTX', 1)
    src = re.sub(r'detail::from_u32<T>\((\w+) >> 16u?\)', r'detail::hi16<T>(\1)', src)
    src = re.sub(r'detail::from_u32<T>\((\w+)\)', r'detail::lo16<T>(\1)', src)
    if pack:
        src = re.sub(r'detail::to_u32\(([^()]+)\) \| \(detail::to_u32\(([^()]+)\) << 16\)', r'detail::pk16(\1, \2)', src)
    return src
def ptxas(cu, cubin):
    r = subprocess.run(['nvcc', '-cubin', '-arch=sm_90', '-std=c++17', '-Xptxas', '-v', '-o', cubin, cu], capture_output=True, text=True)
    log = r.stdout + r.stderr
    res = {}
    cur = None
    for line in log.splitlines():
        m = re.search(r"Compiling entry function '(\w+)'", line) or re.search(r"Function properties for (\w+)", line)
        if m: cur = m.group(1); res.setdefault(cur, {})
        m = re.search(r'(\d+) bytes spill stores, (\d+) bytes spill loads', line)
        if m and cur: res[cur]['spill'] = (int(m.group(1)), int(m.group(2)))
        m = re.search(r'Used (\d+) registers', line)
        if m and cur: res[cur]['regs'] = int(m.group(1))
    if r.returncode: res['_err'] = log[-3000:]
    sass = subprocess.run(['cuobjdump', '-sass', cubin], capture_output=True, text=True).stdout
    fn = None
    for line in sass.splitlines():
        m = re.search(r'Function : (\w+)', line)
        if m: fn = m.group(1); res.setdefault(fn, {}); res[fn]['ldl'] = 0; res[fn]['stl'] = 0; res[fn]['prmt'] = 0; res[fn]['shf'] = 0; res[fn]['n'] = 0
        elif fn and re.search(r'/\*[0-9a-f]{4}\*/', line):
            res[fn]['n'] += 1
            for op in ('LDL', 'STL', 'PRMT', 'SHF'):
                if re.search(r'\b' + op + r'\b', line): res[fn][op.lower()] += 1
    return res
import cupy as cp
rows = []
for case in index:
    cid = case['id']
    src = open(f"{keep}/{cid}.cu").read()
    variants = {'orig': src, 'movpk': patch(src, True), 'movunpk': patch(src, False)}
    for v, s in variants.items():
        cu = f'{out}/{cid}_{v}.cu'; open(cu, 'w').write(s)
        res = ptxas(cu, f'/tmp/{cid}_{v}.cubin')
        if '_err' in res:
            rows.append({'id': cid, 'name': case['name'], 'variant': v, 'err': res['_err']}); continue
        for k in case['candidates']:
            kern = k['kernel']
            row = {'id': cid, 'name': case['name'], 'variant': v, 'strategy': k['strategy'], 'form': k['form'], 'kernel': kern}
            row.update(res.get(kern, {}))
            rows.append(row)
json.dump(rows, open(f'{out}/exp16.json', 'w'), indent=1)
# timing, w32 transpose only (1024 threads, 64 halves, 128 KB scratch)
for case in index:
    if 'transpose_f16_256x256' not in case['name']: continue
    cid = case['id']
    for v in ('orig', 'movpk', 'movunpk'):
        mod = cp.RawModule(path=f'/tmp/{cid}_{v}.cubin')
        grid = 132 * 2
        n = grid * 1024 * 64
        x = cp.arange(n, dtype=cp.uint16); y = cp.zeros(n, dtype=cp.uint16)
        for k in case['candidates']:
            f = mod.get_function(k['kernel'])
            f.max_dynamic_shared_size_bytes = 131072
            ts = []
            for r in range(7):
                s, e = cp.cuda.Event(), cp.cuda.Event()
                s.record(); f((grid,), (1024,), (x, y, cp.int32(1024)), shared_mem=131072); e.record(); e.synchronize()
                ts.append(cp.cuda.get_elapsed_time(s, e))
            ts.sort()
            ok = bool((y == x).all())
            print(v, k['strategy'], k['form'], 'ms %.3f' % ts[3], 'roundtrip_ok' if ok else 'MISMATCH', flush=True)
