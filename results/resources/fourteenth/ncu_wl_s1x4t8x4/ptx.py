import sys, os, json
D = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, D)
import h2h, torch
import triton.experimental.gluon.language as ttgl
OUT = sys.argv[1]
c = json.load(open(os.path.join(D, 'cases.json')))[0]
M, N = c['shape']
lay = lambda b: ttgl.DistributedLinearLayout(b["register"], b["lane"], b["warp"], [], [M, N])
src, dst = lay(c['src']), lay(c['dst'])
xs = torch.zeros((h2h.CTAS, M, N), dtype=torch.int16, device='cuda'); ys = torch.empty_like(xs)
k = h2h.loop[(h2h.CTAS,)](xs, ys, M, N, src, dst, 4, num_warps=c['warps'])
for key in ('ptx', 'llir', 'ttgir'):
    open(os.path.join(OUT, 'triton_loop.' + key), 'w').write(k.asm[key])
cid, cub, err = h2h.compile_wf((D, c))
import subprocess
subprocess.run(['nvcc', '-std=c++17', '-O3', '-arch=sm_90', '-ptx', '-o', os.path.join(OUT, 'wf.ptx'), os.path.join(D, c['id'] + '.cu'), '-I', D], check=True)
