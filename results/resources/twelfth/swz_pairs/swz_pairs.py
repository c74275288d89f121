#!/usr/bin/env python3
"""Equal-score candidate pairs that differ only in which side the swizzle serves
(`shared/.../swz-st...` against `shared/.../swz-ld...`), per form, over the bench rows
of the eleventh pass (Triton's tests, parts 0-6), the twelfth pass's part 7 and corpus run:
geomean of ld/st time and how many pairs one side wins by more than 3%. Within a row a
later candidate of the same (plan, form) key replaces an earlier one.
usage: python3 swz_pairs.py   (from the repository root)"""
import json, glob, math, re
files = (sorted(glob.glob('results/resources/eleventh/bench_triton_lowerings/*.jsonl'))
         + ['results/resources/twelfth/bench_triton_lowerings_part7/bench_tl_7.jsonl']
         + sorted(glob.glob('results/resources/twelfth/bench_corpus/*.jsonl')))
res = {'elements': [], 'packed': [], 'carried': []}
for f in files:
    for r in map(json.loads, open(f)):
        by = {}
        for c in r['candidates']:
            m = re.match(r'(shared/[^/]+)/swz-(st|ld)(.*)', c['strategy'])
            if m:
                by.setdefault((m.group(1) + m.group(3), c['form']), {})[m.group(2)] = c
        for (base, form), d in by.items():
            if 'st' in d and 'ld' in d and d['st']['score'] == d['ld']['score']:
                res[form].append(math.log(d['ld']['ns'] / d['st']['ns']))
for form, l in res.items():
    if l:
        print(f"{form}: {len(l)} pairs, geomean ld/st {math.exp(sum(l) / len(l)):.3f}, "
              f"ld better by >3%: {sum(x < -0.03 for x in l)}, st better by >3%: {sum(x > 0.03 for x in l)}")
