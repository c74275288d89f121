# Experiment: re-emit the straight-line helper bodies of a header in another statement order.
#   reorder.py IN OUT chain   each dst[i] = ... preceded by the not-yet-emitted declarations it
#                             depends on, depth first (blocks of 4 or more stores)
#   reorder.py IN OUT lazy    shuffles in order, each preceded by what it needs (just in time)
#                             and followed by every declaration/store whose inputs are ready
#   reorder.py IN OUT eager   declarations that need no shuffle result first, in their order;
#                             then the shuffles, each followed by what is ready
#                             (lazy and eager: blocks of 4 or more stores that shuffle)
import re, sys
src, dst, mode = sys.argv[1], sys.argv[2], sys.argv[3]
lines = open(src).read().split('\n')
decl = re.compile(r'^(\s*)const (?:unsigned|bool|T|unsigned long long|unsigned short) (\w+) = (.*);$')
store = re.compile(r'^(\s*)dst\[(\d+)\] = (.*);$')
ident = re.compile(r'\b[A-Za-z_]\w*\b')


def chain(block):
    defs, order = {}, []
    for b in block:
        m = decl.match(b)
        if m:
            defs[m.group(2)] = b; order.append(m.group(2))
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
    return res


def around_shuffles(block, eager_first):
    names = set(m.group(2) for m in map(decl.match, block) if m)
    items = []  # (line, name or None, deps)
    for b in block:
        m = decl.match(b)
        expr = m.group(3) if m else store.match(b).group(3)
        # dependencies in the order they appear (the run iterated a set: the order of a
        # shuffle's just-in-time inputs varied between runs; ptxas made the same code of both)
        deps = list(dict.fromkeys(d for d in ident.findall(expr) if d in names))
        items.append((b, m.group(2) if m else None, deps))
    byname = {n: k for k, (b, n, d) in enumerate(items) if n}
    isshfl = [('shfl_' in b) for b, n, d in items]
    after = set()  # names that depend (transitively) on a shuffle
    for k, (b, n, d) in enumerate(items):
        if n and (isshfl[k] or after.intersection(d)): after.add(n)
    done, res = set(), []
    def emit(k):
        if k in done: return
        for d in items[k][2]: emit(byname[d])
        done.add(k); res.append(items[k][0])
    def ready():
        moved = True
        while moved:
            moved = False
            for k, (b, n, d) in enumerate(items):
                if k in done or isshfl[k]: continue
                if all(byname[x] in done for x in d) and (n is None or n in after):
                    done.add(k); res.append(b); moved = True
    if eager_first:
        for k, (b, n, d) in enumerate(items):
            if n and n not in after: emit(k)
    for k in range(len(items)):
        if isshfl[k]:
            emit(k); ready()
    for k in range(len(items)): emit(k)
    return res


out, i, changed = [], 0, 0
while i < len(lines):
    if decl.match(lines[i]) or store.match(lines[i]):
        j = i
        while j < len(lines) and (decl.match(lines[j]) or store.match(lines[j])):
            j += 1
        block = lines[i:j]
        stores = sum(1 for b in block if store.match(b))
        if mode == 'chain' and stores >= 4:
            res = chain(block)
        elif mode in ('lazy', 'eager') and stores >= 4 and any('shfl' in b for b in block):
            res = around_shuffles(block, mode == 'eager')
        else:
            res = block
        assert sorted(res) == sorted(block)
        changed += res != block
        out += res
        i = j
    else:
        out.append(lines[i]); i += 1
open(dst, 'w').write('\n'.join(out))
print(src, mode, 'blocks reordered:', changed)
