import re,glob,sys
from collections import Counter
d=sys.argv[1]
for fn in sorted(glob.glob(d+'/*.sass')):
    txt=open(fn).read()
    for p in re.split(r'\n\s*Function : ',txt)[1:]:
        name=p.split('\n',1)[0].strip()
        if re.match(r'wf_bench_c\d+_k0[vpc]?$',name):
            ops=re.findall(r'/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]+)',p)
            c=Counter(o.split('.')[0] for o in ops)
            print(fn.split('/')[-1], name, len(ops), {k:c[k] for k in ['PRMT','LOP3','SHF','STS','LDS']})
