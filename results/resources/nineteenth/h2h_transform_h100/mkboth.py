import re, sys
s = open(sys.argv[1]).read()
parts = re.split(r"(if constexpr \(sizeof\(T\) == \d\))", s)
out = [parts[0]]; n = 0
for i in range(1, len(parts), 2):
    body = parts[i + 1]
    if "== 2)" in parts[i]:
        body, k = re.subn(r"words::automatic \? words::\w+ :", "words::automatic ? words::both :", body, count=1)
        n += k
    out += [parts[i], body]
print(sys.argv[1], n, file=sys.stderr)
open(sys.argv[2], "w").write("".join(out))
