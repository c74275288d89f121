"""Variant: 8-bit element forms pun the caller's arrays as natural 32-bit words (memcpy)."""
import os, re, shutil, sys
src, dst = sys.argv[1], sys.argv[2]
only = set(sys.argv[3].split(",")) if len(sys.argv) > 3 and sys.argv[3] else None
SZ = int(sys.argv[4]) if len(sys.argv) > 4 else 1
PER = 4 // SZ; EB = 8 * SZ; MASK = "0xffu" if SZ == 1 else "0xffffu"; CT = "unsigned char" if SZ == 1 else "unsigned short"
shutil.rmtree(dst, ignore_errors=True); shutil.copytree(src, dst)
for f in os.listdir(dst):
    if not f.endswith(".cuh"): continue
    p = os.path.join(dst, f); lines = open(p).read().split("\n")
    out, cur, mode, ns, nd, dsts = [], None, None, 0, 0, {}
    for line in lines:
        m = re.search(r"void (wf_\w+)\(const T \(&src\)\[(\d+)\], T \(&dst\)\[(\d+)\]", line)
        if m: cur, ns, nd = m.group(1), int(m.group(2)), int(m.group(3))
        if f"if constexpr (sizeof(T) == {SZ})" in line and cur and (only is None or any(o in cur for o in only)) and ns % PER == 0 and nd % PER == 0:
            out.append(line); out.append(f"    unsigned wf_nw[{ns // PER}]; memcpy(wf_nw, src, {ns * SZ});"); mode = 1; dsts = {}; continue
        if mode == 1 and ("if constexpr (sizeof(T)" in line or line.startswith("}")):
            ws = []
            for k in range(nd // PER):
                parts = [f"((unsigned)({dsts[PER*k+j]}) & {MASK}) << {EB*j}" if j else f"((unsigned)({dsts[PER*k+j]}) & {MASK})" for j in range(PER)]
                ws.append(f"    wf_nd[{k}] = " + " | ".join(f"({x})" for x in parts) + ";")
            out.append(f"    unsigned wf_nd[{nd // PER}];"); out += ws; out.append(f"    memcpy(dst, wf_nd, {nd * SZ});")
            mode = None
        if mode == 1:
            line = re.sub(r"detail::to_u32\(src\[(\d+)\]\)", lambda m: f"((wf_nw[{int(m.group(1))//PER}] >> {EB*(int(m.group(1))%PER)}) & {MASK})", line)
            m2 = re.match(r"\s*dst\[(\d+)\] = detail::from_u32<T>\((.*)\);\s*$", line)
            if m2: dsts[int(m2.group(1))] = m2.group(2); continue
            m3 = re.match(r"\s*dst\[(\d+)\] = (.*);\s*$", line)
            if m3: dsts[int(m3.group(1))] = f"({CT})(" + m3.group(2) + ")"; continue
            if "src[" in line: raise SystemExit("unhandled src use: " + line)
        out.append(line)
    open(p, "w").write("\n".join(out))
