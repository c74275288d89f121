# Experiment: re-emit every straight-line helper body of a header in chain order
# (each dst[i] = ... preceded by the not-yet-emitted decls it depends on, depth first)
import re, sys
src, dst = sys.argv[1], sys.argv[2]
lines = open(src).read().split('\n')
decl = re.compile(r'^(\s*)const (?:unsigned|bool|T|unsigned long long|unsigned short) (\w+) = (.*);$')
store = re.compile(r'^(\s*)dst\[(\d+)\] = (.*);$')
ident = re.compile(r'\b[A-Za-z_]\w*\b')
out, i, changed = [], 0, 0
while i < len(lines):
    l = lines[i]
    # a run of decl/store lines at one indentation
    if decl.match(l) or store.match(l):
        j = i
        while j < len(lines) and (decl.match(lines[j]) or store.match(lines[j])):
            j += 1
        block = lines[i:j]
        if sum(1 for b in block if store.match(b)) >= 4:
            defs, order = {}, []
            for b in block:
                m = decl.match(b)
                if m: defs[m.group(2)] = b; order.append(m.group(2))
            done, res = set(), []
            def emit(n):
                if n in done or n not in defs: return
                done.add(n)
                for d in ident.findall(decl.match(defs[n]).group(3)): emit(d)
                res.append(defs[n])
            for b in block:
                m = store.match(b)
                if m:
                    for d in ident.findall(m.group(3)): emit(d)
                    res.append(b)
            for n in order:  # unused decls keep their place at the end
                if n not in done: res.append(defs[n])
            assert sorted(res) == sorted(block)
            changed += res != block
            out += res
        else:
            out += block
        i = j
    else:
        out.append(l); i += 1
open(dst, 'w').write('\n'.join(out))
print(src, 'blocks reordered:', changed)
