#!/usr/bin/env python3
"""Rewrite the 16-bit branch of an h2h header so that its __byte_perm half-word reorders become
shift/mask expressions (mode: ushort, shr or u64; all three compiled to the same code).
usage: reorder_variants.py IN.cuh OUT.cuh MODE  (then ../../nineteenth/local/loop_bodies.py on the folder)"""
import re,sys
mode=sys.argv[3]
def half_expr(a,b,sel):
    nib=[(sel>>(4*i))&0xf for i in range(4)]
    hs=[]
    for h in range(2):
        lo,hi=nib[2*h],nib[2*h+1]
        if lo%2 or hi!=lo+1: return None
        k=lo//2; hs.append((a if k<2 else b, k&1))
    if mode=="ushort":
        t=[f"(unsigned)(unsigned short)({s}{' >> 16' if k else ''})" for s,k in hs]
        return f"({t[0]} | ({t[1]} << 16))"
    if mode=="shr":
        t=[f"({s} >> 16)" if k else f"({s} & 0xffffu)" for s,k in hs]
        return f"({t[0]} | ({t[1]} << 16))"
    if mode=="u64":
        (s0,k0),(s1,k1)=hs
        return f"(unsigned)(((((unsigned long long){s0}) >> {16*k0}) & 0xffffull) | (((((unsigned long long){s1}) >> {16*k1}) & 0xffffull) << 16))"
pat=re.compile(r"__byte_perm\(([^,()]+), ([^,()]+), 0x([0-9a-f]+)u\)")
def rep(m):
    e=half_expr(m.group(1),m.group(2),int(m.group(3),16))
    return e if e else m.group(0)
out=[];in16=False
for l in open(sys.argv[1]).read().split("\n"):
    if "sizeof(T) == 2" in l: in16=True
    elif "sizeof(T) == 4" in l: in16=False
    out.append(pat.sub(rep,l) if in16 else l)
open(sys.argv[2],"w").write("\n".join(out))
