# 2x2 families: each conversion's forward and reverse helpers planned shuffle-only (sh_) and
# shared-only (sm_), timed in all four pairings in one loop (fourteenth pass)
import json, subprocess, re, glob, os
WF = '/work/main/target/release/warpforge'
cases = []
for f in sorted(glob.glob('m_*.ttgir')):
    k = f[2:-6]
    info = {}
    for st, pre in (('shuffle', 'sh_'), ('shared', 'sm_')):
        hdr = subprocess.run([WF, 'emit', '--ttgir', f, '--strategy', st, '--prefix', pre], capture_output=True, text=True, check=True).stdout
        open(f'{pre}{k}.cuh', 'w').write(hdr)
        rows = [json.loads(l) for l in subprocess.run([WF, 'plan', '--ttgir', f, '--strategy', st, '--json'], capture_output=True, text=True, check=True).stdout.splitlines()]
        for r, d in zip(rows, 'fb'):
            name = pre + r['name'].replace(':', '_')
            bits = r['elem_bits']
            fn = f'{name}_packed{bits}' if bits < 32 else f'{name}<unsigned>'
            sig = re.search(r'void ' + re.escape(fn.split('<')[0]) + r'\((.*)\)\s*[;{]', hdr).group(1)
            info[(pre, d)] = dict(fn=fn, smem='smem' in sig, bytes=r['smem_bytes_by_width'][str(bits)] or 0, strategy=r['strategy'])
            per = 32 // bits if bits < 32 else 1
            ns, nd = r['src_regs'] // per, r['dst_regs'] // per
            if d == 'f': fns, fnd = ns, nd
    W = int(re.search(r'num-warps" = (\d+)', open(f).read()).group(1))
    one = {8: '0x01010101u', 16: '0x00010001u', 32: '1u'}[bits]
    cases.append(dict(tag=k, file=f, warps=W, bits=bits, ns=fns, nd=fnd, one=one,
                      helpers={f'{p}{d}': v for (p, d), v in info.items()}))
json.dump(cases, open('cases.json', 'w'), indent=1)
for c in cases: print(c['tag'], c['warps'], c['bits'], c['ns'], c['nd'], {k: (v['strategy'], v['smem'], v['bytes']) for k, v in c['helpers'].items()})
