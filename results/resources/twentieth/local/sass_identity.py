#!/usr/bin/env python3
"""Whether h2h's (as shipped) wf_loop kernel of each named case compiles to the same SASS (addresses
stripped) from two h2h work folders (prep.py with two binaries). NVRTC + ptxas 13.0 as local_probe.py.
usage: sass_identity.py WORK_A WORK_B CASE_NAME..."""
import json, os, sys, tempfile, re
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../seventeenth"))
import local_probe as lp
h2h = lp.h2h_module(os.environ.get("H2H_PY", "../shared/tools/h2h/h2h.py"))
def sass(d, name):
    d=os.path.abspath(d)
    c=[c for c in json.load(open(os.path.join(d,"cases.json"))) if c["name"]==name][0]
    src=h2h["wf_source"](dict(c,_dir=d), c["header"])
    with tempfile.TemporaryDirectory() as t:
        lp.compile_sm90(src, d, t)
        s=lp.kernel_sass(t,"wf_loop")
    return [re.sub(r"/\*[0-9a-f]+\*/","",l).strip() for l in s.splitlines() if re.match(r"\s+/\*[0-9a-f]{4}\*/", l)]
for n in sys.argv[3:]:
    a,b=sass(sys.argv[1],n),sass(sys.argv[2],n)
    print(n, len(a), len(b), "identical" if a==b else f"differ ({sum(x!=y for x,y in zip(a,b))} lines)")
