#!/usr/bin/env python3
"""Whole-kernel and loop-body SASS counts of h2h's (as shipped) wf_loop kernel for the named cases of an
h2h work folder, compiled here (NVRTC + ptxas 13.0, the seventeenth pass's local_probe.py; CUDA_TOOLS,
PTXAS, LD_LIBRARY_PATH as there). usage: kernel_counts.py WORK_DIR CASE_NAME...
Twentieth pass: 974b3c5, the kept binary and w8 on mma2_acc_to_dot_a_i8 (loop body 39 / 75 per two / 39)."""
import json, os, sys, collections
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../seventeenth"))
import local_probe as lp
h2h = lp.h2h_module(os.environ.get("H2H_PY", "../shared/tools/h2h/h2h.py"))
names = sys.argv[2:]
d = os.path.abspath(sys.argv[1])
for c in json.load(open(os.path.join(d, "cases.json"))):
    if c["name"] not in names: continue
    src = h2h["wf_source"](dict(c, _dir=d), c["header"])
    import tempfile
    with tempfile.TemporaryDirectory() as t:
        res = lp.compile_sm90(src, d, t)
        ins = lp.sass_instructions(lp.kernel_sass(t, "wf_loop"))
        cnt = collections.Counter(op for _, op, _ in ins)
        body = lp.loop_body(lp.kernel_sass(t, "wf_loop"))
    keys = ("SHFL","SEL","PRMT","LOP3","IMAD","STS","LDS")
    print(f"{sys.argv[1].split('/')[-1]:8s} {c['name']:28s} {c['dtype']} regs={res['wf_loop']['regs']} whole:", {k: cnt.get(k,0) for k in keys}, "total", sum(cnt.values()), "| body:", {k: body.get(k,0) for k in keys}, sum(body.values()))
