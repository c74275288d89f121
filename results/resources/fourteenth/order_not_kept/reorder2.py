# Experiment: re-emit straight-line helper bodies around their shuffles.
# mode lazy:  each shuffle preceded by the decls it needs (just in time), followed by every
#             decl/store whose inputs are now all available (eager consumers).
# mode eager: decls that need no shuffle result keep their original place first; after each
#             shuffle, every decl/store whose inputs are available.
import re, sys
src, dst, mode = sys.argv[1], sys.argv[2], sys.argv[3]
lines = open(src).read().split('\n')
decl = re.compile(r'^(\s*)const (?:unsigned|bool|T|unsigned long long|unsigned short) (\w+) = (.*);$')
store = re.compile(r'^(\s*)dst\[(\d+)\] = (.*);$')
ident = re.compile(r'\b[A-Za-z_]\w*\b')
out, i, changed = [], 0, 0
while i < len(lines):
    l = lines[i]
    if decl.match(l) or store.match(l):
        j = i
        while j < len(lines) and (decl.match(lines[j]) or store.match(lines[j])):
            j += 1
        block = lines[i:j]
        if sum(1 for b in block if store.match(b)) >= 4 and any('shfl' in b for b in block):
            items = []  # (line, name or None, deps)
            names = set()
            for b in block:
                m = decl.match(b)
                if m: names.add(m.group(2))
            for b in block:
                m = decl.match(b)
                expr = m.group(3) if m else store.match(b).group(3)
                deps = set(d for d in ident.findall(expr) if d in names)
                items.append((b, m.group(2) if m else None, deps))
            byname = {n: k for k, (b, n, d) in enumerate(items) if n}
            isshfl = [('shfl_' in b) for b, n, d in items]
            # names that depend (transitively) on a shuffle
            after = set()
            for k, (b, n, d) in enumerate(items):
                if n and (isshfl[k] or d & after): after.add(n)
            done, res = set(), []
            def emit(k):
                if k in done: return
                for d in items[k][2]: emit(byname[d])
                done.add(k); res.append(items[k][0])
            def eager():
                moved = True
                while moved:
                    moved = False
                    for k, (b, n, d) in enumerate(items):
                        if k in done or isshfl[k]: continue
                        if all(byname[x] in done for x in d) and (n is None or n in after):
                            done.add(k); res.append(b); moved = True
            if mode == 'eager':
                for k, (b, n, d) in enumerate(items):
                    if n and n not in after: emit(k)
            for k in range(len(items)):
                if isshfl[k]:
                    emit(k); eager()
            for k in range(len(items)): emit(k)
            assert sorted(res) == sorted(block)
            changed += res != block
            out += res
        else:
            out += block
        i = j
    else:
        out.append(l); i += 1
open(dst, 'w').write('\n'.join(out))
print(src, mode, 'blocks reordered:', changed)
