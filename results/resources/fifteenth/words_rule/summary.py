"""Offline evaluation of rules for the 16-bit element form's automatic words (fifteenth pass).
register_major/w48.log: each of 48 conversions (an array over the register limit less 16) timed in a
register-major round-trip loop with each (forward, reverse) words choice, over the packed form's time;
h2h/*.jsonl: the reference harness with headers emitted under rules r11, r4, r8 (a throwaway switch
in element_form_words, not committed) and, for the 7 conversions with both arrays over, cur and r11
twice. Prints summary.md's tables."""
import json, math, os
D = os.path.dirname(os.path.abspath(__file__))
def limit(warps):
    t = 32 * warps
    return 255 if t <= 256 else 65536 // t
def rule(name, s, d, L):
    so, do = s > L - 16, d > L - 16
    if name == 'cur': return 'S' if so and not do else 'N'
    if name == 'r11': return 'S' if so and not do else ('D' if so and do else 'N')
    if name == 'r4': return 'D' if so or do else 'N'
    if name == 'r1': return {(1, 1): 'B', (1, 0): 'S', (0, 1): 'D', (0, 0): 'N'}[(so, do)]
    if name == 'r8': return 'D' if do else 'N'
names = [l.strip().split(':')[-1] for l in open(os.path.join(D, 'register_major/names.txt'))]
rows = {}
for l in open(os.path.join(D, 'register_major/w48.log')):
    if l.startswith('{'):
        r = json.loads(l); rows[int(r['tag'][2:])] = r
RULES = ['cur', 'r11', 'r4', 'r1']
print('| # | conversion | warps | src / dst halves | cur | r11 | r4 | r1 | none | carried (src fwd, dst back) |')
print('|---|---|---|---|---|---|---|---|---|---|')
logs = {k: [] for k in RULES + ['NN', 'SD']}
for k, n in enumerate(names):
    r = rows[k]; L = limit(r['warps']); op = r['over_P']
    ch = {ru: rule(ru, r['ns'], r['nd'], L) + rule(ru, r['nd'], r['ns'], L) for ru in RULES}
    cells = []
    for ru in RULES:
        v = op.get(ch[ru]); logs[ru].append(math.log(v)); cells.append(f"{ch[ru]} {v:.3f}")
    logs['NN'].append(math.log(op['NN'])); logs['SD'].append(math.log(op['SD']))
    print(f"| {k} | `{n}` | {r['warps']} | {r['ns']} / {r['nd']} | " + ' | '.join(cells) + f" | {op['NN']:.3f} | {op['SD']:.3f} |")
g = lambda v: f"{math.exp(sum(v) / len(v)):.3f} (max {math.exp(max(v)):.2f})"
print('| | geomean over the packed form | | | ' + ' | '.join(g(logs[ru]) for ru in RULES) + f" | {g(logs['NN'])} | {g(logs['SD'])} |")
print()
H = {}
for ru in ('r11', 'r4', 'r8'):
    for l in open(os.path.join(D, f'h2h/h2h_{ru}.jsonl')):
        x = json.loads(l); H.setdefault(x['name'], {})[ru] = x
B = {}
for ru in ('cur', 'r11'):
    for k in (1, 2):
        for l in open(os.path.join(D, f'h2h/both_over_{ru}_{k}.jsonl')):
            x = json.loads(l); B.setdefault(x['name'], {}).setdefault(ru, []).append(x['ratio_wf_over_triton'])
print('h2h, element form / Triton (one run; both-over rows: cur and r11 twice, alternating)')
print('| # | conversion | r11 | r4 | r8 | cur (both over) | r11 again (both over) |')
print('|---|---|---|---|---|---|---|')
hl = {ru: [] for ru in ('r11', 'r4', 'r8')}
for k, n in enumerate(names):
    key = [x for x in H if x.split(':')[0] == f'f{k}'][0]
    v = {ru: H[key][ru].get('ratio_wf_over_triton') for ru in hl}
    for ru in hl: hl[ru].append(math.log(v[ru]))
    b = B.get(key)
    extra = f"{' / '.join(map(str, b['cur']))} | {' / '.join(map(str, b['r11']))}" if b else ' | '
    print(f"| {k} | `{n}` | {v['r11']} | {v['r4']} | {v['r8']} | {extra} |")
print('| | geomean | ' + ' | '.join(g(hl[ru]) for ru in hl) + ' | | |')
