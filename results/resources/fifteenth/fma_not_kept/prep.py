import json, subprocess, re, os
WF = '/work/main/target/release/warpforge'
cases = []
for tag in ['c_0', 'c_1', 'd_0', 'd_1', 'd_2', 'd_3', 'e_0', 'e_1', 'e_3']:
    f = f'{tag}.ttgir'
    hdr = subprocess.run([WF, 'emit', '--ttgir', f], capture_output=True, text=True, check=True).stdout
    open(f'h_{tag}.cuh', 'w').write(hdr)
    for e in (4, 3, 2):
        subprocess.run(['python3', 'fma.py', f'h_{tag}.cuh', f'q{e}_{tag}.cuh', str(e)], check=True)
    rows = [json.loads(l) for l in subprocess.run([WF, 'plan', '--ttgir', f, '--json'], capture_output=True, text=True, check=True).stdout.splitlines()]
    fw, bw = rows
    fn = lambda r: 'wf_' + r['name'].replace(':', '_')
    bits = fw['elem_bits']
    warps = int(re.search(r'num-warps" = (\d+)', open(f).read()).group(1))
    per = 32 // bits if bits < 32 else 1
    ns, nd = fw['src_regs'] // per, fw['dst_regs'] // per
    if bits < 32:
        F, B = f'{fn(fw)}_packed{bits}', f'{fn(bw)}_packed{bits}'
        one = '0x01010101u' if bits == 8 else '0x00010001u'
    else:
        F, B, one = f'{fn(fw)}<unsigned>', f'{fn(bw)}<unsigned>', '1u'
    cases.append(dict(tag=tag, name=fw['name'], strategy=fw['strategy'], bstrategy=bw['strategy'], bits=bits, warps=warps, ns=ns, nd=nd, F=F, B=B, one=one, smem=max(fw.get('smem_bytes', 0) or 0, bw.get('smem_bytes', 0) or 0)))
json.dump(cases, open('cases.json', 'w'), indent=1)
for c in cases: print(c['tag'], c['strategy'], c['bstrategy'], c['bits'], c['warps'], c['ns'], c['nd'], c['smem'])
