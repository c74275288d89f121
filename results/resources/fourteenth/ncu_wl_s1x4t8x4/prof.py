# one launch of Triton's loop and one of warpforge's packed loop for case 0, for ncu
import sys, os, json
D = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, D)
import h2h, torch, cupy as cp
import triton.experimental.gluon.language as ttgl
c = json.load(open(os.path.join(D, 'cases.json')))[0]
M, N = c['shape']
lay = lambda b: ttgl.DistributedLinearLayout(b["register"], b["lane"], b["warp"], [], [M, N])
src, dst = lay(c['src']), lay(c['dst'])
xs = torch.randint(-100, 100, (h2h.CTAS, M, N), dtype=torch.int32, device='cuda').to(torch.int16)
ys = torch.empty_like(xs)
h2h.loop[(h2h.CTAS,)](xs, ys, M, N, src, dst, 1024, num_warps=c['warps'])
torch.cuda.synchronize()
cid, cub, err = h2h.compile_wf((D, c))
assert cub, err
m = cp.RawModule(path=cub); f = m.get_function('wf_loop_packed')
n = h2h.CTAS * M * N // 2
x = cp.arange(n, dtype=cp.uint32); y = cp.zeros_like(x)
f((h2h.CTAS,), (32 * c['warps'],), (x, y, cp.int32(1024))); cp.cuda.Device().synchronize()
print('ok', bool((x == y).all()))
