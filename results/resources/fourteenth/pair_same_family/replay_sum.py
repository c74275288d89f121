import json, math, sys
W=json.load(open('synth/cost_models/default.json'))['weights']
LIN=[k for k in W if not k.startswith('floor_')]
def parts(f):
    t=sum(W[k]*f.get(k,0) for k in LIN)
    fl=W['floor_smem']*f.get('smem_trips',0)+W['floor_shfl']*f.get('shfl_stages',0)
    return t, fl
models={'max (built in)': lambda t,fl: max(t,fl), 'sum': lambda t,fl: t+fl, 'sum half': lambda t,fl: t+fl/2}
files=sys.argv[1:]
rows=[json.loads(l) for f in files for l in open(f)]
for name,m in models.items():
    reg=0; within5=0; n=0; changed=0; worst=[]
    for r in rows:
        c=[k for k in r['candidates'] if k.get('ranked') and k.get('ns')]
        if not c: continue
        n+=1
        best=min(k['ns'] for k in c)
        pick=min(c, key=lambda k:(m(*parts(k['features'])), parts(k['features'])[0]))
        base=min(c, key=lambda k:(models['max (built in)'](*parts(k['features'])), parts(k['features'])[0]))
        changed += pick is not base
        g=pick['ns']/best; reg+=math.log(g); within5+= g<=1.05
        worst.append((round(g,3), r['name'][:36], r['warps']))
    worst.sort(reverse=True)
    print('%-16s n=%d regret %.3f within5%% %d changed %d worst %s' % (name, n, reg, within5, changed, worst[:4]))
