import json, subprocess, re, glob
WF = '/work/main/target/release/warpforge'
cases = []
for f in sorted(glob.glob('w_*.ttgir')):
    tag = f[:-6]
    hdr = subprocess.run([WF, 'emit', '--ttgir', f], capture_output=True, text=True, check=True).stdout
    open(f'{tag}.cuh', 'w').write(hdr)
    fw, bw = [json.loads(l) for l in subprocess.run([WF, 'plan', '--ttgir', f, '--json'], capture_output=True, text=True, check=True).stdout.splitlines()]
    fn = lambda r: 'wf_' + r['name'].replace(':', '_')
    warps = int(re.search(r'num-warps" = (\d+)', open(f).read()).group(1))
    sm = lambda r: (r.get('smem_bytes_by_width') or {}).get('16', 0)
    cases.append(dict(tag=tag, src=open(f).read().split('\n')[0][:80], warps=warps, ns=fw['src_regs'], nd=fw['dst_regs'],
                      F=fn(fw), B=fn(bw), fs=sm(fw), bs=sm(bw), fstrat=fw['strategy'], bstrat=bw['strategy'],
                      f_peak=fw['peak_registers'], b_peak=bw['peak_registers'],
                      f_sig_smem=f'void {fn(fw)}(const T (&src)' in hdr and ', void* smem)' in hdr))
    print(tag, warps, fw['src_regs'], fw['dst_regs'], sm(fw), sm(bw), fw['peak_registers']['elements'], bw['peak_registers']['elements'])
json.dump(cases, open('cases.json', 'w'), indent=1)
