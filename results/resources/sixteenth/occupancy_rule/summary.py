# Tables of the sixteenth pass's occupancy-rule runs: bench (element form / Triton, old = both,
# new = the destination) and h2h (old / new; 974b3c5 = before issue 23 / new). Writes summary.md.
import json, math, os
D = os.path.dirname(os.path.abspath(__file__))
NAMES = {'c6_0': 'stress_w16:epilogue_f16_256x128', 'c6_1': 'triton_lowerings:m2m_m3w28n64k32_m3w82n32k32_64x64_f16',
         'c6_2': 'random_s2:sw20_mma3_mma2_256x128_bf16_w16', 'c6_3': 'r32:sw24_dot2_mma2_128x128_f16_w8',
         'c6_4': 'random_s2:sw45_blocked_blocked_256x128_f16_w16', 'c6_5': 'r32:sw4_dot3_dot2_128x64_bf16_w8'}
def jl(p): return [json.loads(l) for l in open(os.path.join(D, p))]
g = lambda x: math.exp(sum(map(math.log, x)) / len(x))
out = ['# Sixteenth pass: the one-CTA rule holds the destination (was: both arrays)', '']
out += ['## `warpforge bench` (element form as emitted / Triton; loop registers, in-loop LDL+STL)', '',
        '| conversion | old 1 | old 2 | new 1 | new 2 |', '|---|---|---|---|---|']
rows = {}
for v in ['old_1', 'old_2', 'new_1', 'new_2']:
    for r in jl(f'bench/b_{v}.jsonl'):
        k = r['file'].split('/')[-1][:-6]; t = r['triton']['ns']
        e = next(c for c in r['candidates'] if c['form'] == 'elements')
        rows.setdefault(k, {})[v] = (e['ns'] / t, e.get('registers'), e['sass']['ldl_in_loop'] + e['sass']['stl_in_loop'])
for k in sorted(rows):
    out.append(f'| `{NAMES[k]}` | ' + ' | '.join(f'{x[0]:.3f}, {x[1]}, {x[2]}' for x in (rows[k][v] for v in ['old_1', 'old_2', 'new_1', 'new_2'])) + ' |')
o = [min(rows[k]['old_1'][0], rows[k]['old_2'][0]) for k in rows]; n = [min(rows[k]['new_1'][0], rows[k]['new_2'][0]) for k in rows]
out += ['', f'geomean (best of two runs): old {g(o):.3f}, new {g(n):.3f}; new faster on {sum(b < a for a, b in zip(o, n))} of {len(o)}', '']
def h2h(pre, vs, ks):
    d = {v: [{r['file'] + ':' + r['name']: r for r in jl(f'h2h/{pre}_{v}_{k}.jsonl')} for k in ks] for v in vs}
    keys = list(d[vs[0]][0])
    res = []
    for key in keys:
        cell = []
        for v in vs:
            e = [x[key]['ratio_wf_over_triton'] for x in d[v] if x[key].get('ratio_wf_over_triton')]
            w = d[v][0][key].get('warpforge', {}); ls = w.get('loop_sass') or {}
            cell.append((e, w.get('loop_regs'), ls.get('LDL', 0) + ls.get('STL', 0)))
        res.append((key, cell))
    return res
out += ['## h2h (element form / Triton per run; loop registers, LDL+STL)', '', '| conversion | old (both) | new (destination) |', '|---|---|---|']
for key, cell in h2h('h', ['old', 'new'], [1, 2]):
    f, fn = key.split(':', 1); name = NAMES[f[:-6]] + (' (reverse)' if fn.startswith('rev') else '')
    out.append(f'| `{name}` | ' + ' | '.join(f"{', '.join(f'{x:.3f}' for x in e)}; {r}, {s}" for e, r, s in cell) + ' |')
mo = [sum(c[0][0]) / len(c[0][0]) for _, c in h2h('h', ['old', 'new'], [1, 2])]; mn = [sum(c[1][0]) / len(c[1][0]) for _, c in h2h('h', ['old', 'new'], [1, 2])]
out += ['', f'geomean of the means over {len(mo)} rows: old {g(mo):.4f}, new {g(mn):.4f}', '']
out += ['## h2h, before issue 23 (binary of 974b3c5) and now (element form / Triton per run, packed form)', '', '| conversion | 974b3c5 | new |', '|---|---|---|']
d = {v: [{r['file'] + ':' + r['name']: r for r in jl(f'h2h/a_{v}_{k}.jsonl')} for k in [1, 2, 3]] for v in ['974', 'new']}
for key in d['974'][0]:
    cells = []
    for v in ['974', 'new']:
        e = [x[key].get('ratio_wf_over_triton') for x in d[v]]; p = [x[key].get('ratio_packed_over_triton') for x in d[v]]
        med = sorted(e)[1]
        cells.append(f"{', '.join(f'{x:.3f}' for x in e)} (median {med:.3f})" + (f"; packed {', '.join(f'{x:.3f}' for x in p)}" if p[0] else ''))
    out.append(f'| `{key}` | ' + ' | '.join(cells) + ' |')
open(os.path.join(D, 'summary.md'), 'w').write('\n'.join(out) + '\n'); print('\n'.join(out))
