import json, subprocess, sys
WF = '/work/main/target/release/warpforge'
cases = []
for tag in ['c_0', 'c_1', 'c_2', 'd_0', 'd_1', 'd_2', 'd_3']:
    k = tag.split('_')[1]; pre = tag[0]
    f = f'{tag}.ttgir'
    hdr = subprocess.run([WF, 'emit', '--ttgir', f], capture_output=True, text=True, check=True).stdout
    open(f'h_{tag}.cuh', 'w').write(hdr)
    for var, mode in (('o', 'chain'), ('l', 'lazy'), ('e', 'eager')):
        subprocess.run(['python3', 'reorder.py', f'h_{tag}.cuh', f'{var}_{tag}.cuh', mode], check=True)
    subprocess.run(['python3', 'reorder3.py', f'h_{tag}.cuh', f's_{tag}.cuh'], check=True)
    rows = [json.loads(l) for l in subprocess.run([WF, 'plan', '--ttgir', f, '--json'], capture_output=True, text=True, check=True).stdout.splitlines()]
    fw, bw = rows
    bits = fw['elem_bits']; warps = 1
    src = open(f).read()
    import re
    warps = int(re.search(r'num-warps" = (\d+)', src).group(1))
    per = 32 // bits if bits < 32 else 1
    ns, nd = fw['src_regs'] // per, fw['dst_regs'] // per
    if bits < 32:
        F, B, T = f'wf_f{k}_5_packed{bits}', f'wf_b{k}_9_packed{bits}', 'unsigned'
        one = '0x01010101u' if bits == 8 else '0x00010001u'
    else:
        F, B, T = f'wf_f{k}_5<unsigned>', f'wf_b{k}_9<unsigned>', 'unsigned'
        one = '1u'
    cases.append(dict(tag=tag, name=fw['name'], strategy=fw['strategy'], bits=bits, warps=warps, ns=ns, nd=nd, F=F, B=B, one=one))
json.dump(cases, open('cases.json', 'w'), indent=1)
print(json.dumps(cases, indent=1))
