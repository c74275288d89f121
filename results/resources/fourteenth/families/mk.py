# builds a ttgir with a conversion and its reverse for each (file, func) given
import re, sys
out = sys.argv[1]; pairs = sys.argv[2:]
res = []
for k, p in enumerate(pairs):
    f, name = p.split(':')
    text = open(f).read()
    aliases = {m.group(1): m.group(0) for m in re.finditer(r'^(#\w+) = .*$', text, re.M)}
    m = re.search(r'(module attributes \{[^\n]*\{)\n(?:(?!module).)*?tt\.func (?:public )?@' + name + r'\(.*?\n\s*(%\w+ = ttg\.convert_layout[^\n]*)', text, re.S)
    mod, cvt = m.group(1), m.group(2)
    c = re.search(r'%\w+ : tensor<([^,]+), (#\w+)> -> tensor<[^,]+, (#\w+)>', cvt)
    shape, a, b = c.groups()
    need, todo = [], [a, b]
    while todo:
        x = todo.pop()
        if x in need: continue
        need.append(x)
        todo += [y for y in re.findall(r'#\w+', aliases[x].split('=', 1)[1]) if y in aliases]
    defs = '\n'.join(aliases[x] for x in reversed(need) if x in aliases)
    res.append(f"""{defs}
{mod}
  tt.func @f{k}(%x: tensor<{shape}, {a}>) {{
    %0 = ttg.convert_layout %x : tensor<{shape}, {a}> -> tensor<{shape}, {b}>
    tt.return
  }}
  tt.func @b{k}(%x: tensor<{shape}, {b}>) {{
    %0 = ttg.convert_layout %x : tensor<{shape}, {b}> -> tensor<{shape}, {a}>
    tt.return
  }}
}}
""")
for k, r in enumerate(res):
    open(f'{out}_{k}.ttgir', 'w').write(r)
