"""Variant of an emitted header: a fraction of the lane-dependent selects of shuffle plans
computed on the FMA pipe as b*(1-m) + a*m (m = 0/1 per lane) instead of SEL on the ALU pipe.
usage: fma.py IN OUT EVERY   (every EVERY-th select of each function, counted from 0)"""
import re, sys
inp, out, every = sys.argv[1], sys.argv[2], int(sys.argv[3])
pre = r'''
namespace warpforge { namespace detail {
__device__ __forceinline__ unsigned fma_sel(bool p, unsigned a, unsigned b) {
  unsigned m = p ? 1u : 0u, n = p ? 0u : 1u, t, r;
  asm("mul.lo.u32 %0, %1, %2;" : "=r"(t) : "r"(b), "r"(n));
  asm("mad.lo.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(m), "r"(t));
  return r;
}
template <typename T> __device__ __forceinline__ T fma_sel_t(bool p, T a, T b) {
  if constexpr (sizeof(T) == 4) {
    unsigned ua, ub; __builtin_memcpy(&ua, &a, 4); __builtin_memcpy(&ub, &b, 4);
    unsigned r = fma_sel(p, ua, ub); T o; __builtin_memcpy(&o, &r, 4); return o;
  } else { return p ? a : b; }
}
} }
'''
sel = re.compile(r'^(\s*)const (unsigned|T) (\w+) = (p\w+) \? ([^:;]+?) : ([^;]+);$')
lines = open(inp).read().split('\n')
outl, k, n_conv, n_all, first = [], 0, 0, 0, True
for l in lines:
    if l.startswith('__device__ __forceinline__ void') or l.startswith('template'):
        k = 0
    m = sel.match(l)
    if m and every > 0:
        ind, ty, name, p, a, b = m.groups()
        n_all += 1
        if k % every == 0:
            fn = 'detail::fma_sel' if ty == 'unsigned' else 'detail::fma_sel_t<T>'
            l = f'{ind}const {ty} {name} = {fn}({p}, {a}, {b});'
            n_conv += 1
        k += 1
    outl.append(l)
txt = '\n'.join(outl)
# insert the helper after the first '#include' block's namespace detail opening: simplest, after the last #include line
idx = [i for i, l in enumerate(outl) if l.startswith('#pragma once')][0]
outl.insert(idx + 1, pre)
open(out, 'w').write('\n'.join(outl))
print(inp, out, every, f'{n_conv} of {n_all} selects on the FMA pipe', file=sys.stderr)
