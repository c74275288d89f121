# Experiment: within each run of consecutive shuffle decls, stable-sort by the lane operand
# (Triton's order: every shuffle with one lane register, then the next)
import re, sys
src, dst = sys.argv[1], sys.argv[2]
lines = open(src).read().split('\n')
sh = re.compile(r'^\s*const \w+(?: \w+)* (\w+) = detail::shfl_\w+\((\w+), (.*)\);$')
out, i, n = [], 0, 0
while i < len(lines):
    if sh.match(lines[i]):
        j = i
        while j < len(lines) and sh.match(lines[j]): j += 1
        blk = lines[i:j]
        s = sorted(blk, key=lambda l: sh.match(l).group(3))
        n += s != blk
        out += s; i = j
    else:
        out.append(lines[i]); i += 1
open(dst, 'w').write('\n'.join(out))
print(src, 'shuffle runs sorted:', n)
