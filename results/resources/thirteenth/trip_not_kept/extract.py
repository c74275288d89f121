import sys,re
# usage: extract.py OUT NAME1,NAME2,... FILES...
out, names, files = sys.argv[1], set(sys.argv[2].split(',')), sys.argv[3:]
res=[]
for f in files:
    lines=open(f).read().split('\n')
    aliases=[l for l in lines if l.startswith('#')]
    i=0; mods=[]
    while i<len(lines):
        l=lines[i]
        if l.startswith('module'):
            hdr=l; funcs=[]; i+=1
            while i<len(lines) and not lines[i].startswith('}'):
                if lines[i].strip().startswith('tt.func'):
                    name=re.search(r'@(\w+)',lines[i]).group(1); body=[lines[i]]; i+=1
                    while not lines[i].strip()=='}': body.append(lines[i]); i+=1
                    body.append(lines[i]); i+=1
                    if name in names: funcs.append('\n'.join(body))
                else: i+=1
            if funcs: mods.append(hdr+'\n'+'\n'.join(funcs)+'\n}')
        i+=1
    if mods: res.append('\n'.join(aliases)+'\n'+'\n'.join(mods))
[open(f'{out}_{k}.ttgir','w').write(r+'\n') for k,r in enumerate(res)]
