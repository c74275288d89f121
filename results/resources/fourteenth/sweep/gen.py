# Random layout conversions beyond the corpus and Triton's tests: gen.py SEED N OUT.ttgir
import random, sys
seed, n, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
WARPS = [int(w) for w in sys.argv[4].split(",")] if len(sys.argv) > 4 else [1, 2, 4, 4, 8, 8]
rnd = random.Random(seed)
def split(total, k=2):
    # total (power of two) into k powers of two
    e = total.bit_length() - 1; parts = [0] * k
    for _ in range(e): parts[rnd.randrange(k)] += 1
    return [1 << p for p in parts]
def blocked(W, shape):
    for _ in range(100):
        spt = split(rnd.choice([1, 2, 4, 8, 16]))
        tpw = split(32); wpc = split(W)
        if all(spt[d] * tpw[d] * wpc[d] <= shape[d] for d in range(2)):
            order = rnd.choice([[1, 0], [0, 1]])
            return f"#ttg.blocked<{{sizePerThread = {spt}, threadsPerWarp = {tpw}, warpsPerCTA = {wpc}, order = {order}}}>"
    return None
def mma2(W, shape):
    for _ in range(50):
        wpc = split(W)
        if 16 * wpc[0] <= shape[0] and 8 * wpc[1] <= shape[1]:
            return f"#ttg.nvidia_mma<{{versionMajor = 2, versionMinor = 0, warpsPerCTA = {wpc}, instrShape = [16, 8]}}>", wpc
    return None, None
def mma3(W, shape, bits):
    if W < 4: return None
    wpc = [W, 1] if rnd.random() < 0.7 else [4, W // 4]
    ns = [n for n in (8, 16, 32, 64, 128, 256) if n * wpc[1] <= shape[1]]
    if 16 * wpc[0] > shape[0] or not ns: return None
    k = 256 // bits if bits < 32 else 8
    return f"#ttg.nvidia_mma<{{versionMajor = 3, versionMinor = 0, warpsPerCTA = {wpc}, instrShape = [16, {rnd.choice(ns)}, {k}]}}>"
rows, aliases = {}, []
made = 0; tries = 0
while made < n and tries < 50 * n:
    tries += 1
    W = rnd.choice(WARPS)
    dt, bits = rnd.choice([("f16", 16), ("bf16", 16), ("f32", 32), ("i8", 8), ("f16", 16)])
    shape = [rnd.choice([16, 32, 64, 128, 256]) for _ in range(2)]
    per = shape[0] * shape[1] // (32 * W)
    if per < 4 or per > 64: continue
    kinds = ["blocked", "mma2", "dot2", "mma3", "dot3"]
    def make(kind):
        if kind == "blocked": return blocked(W, shape), []
        if kind == "mma2":
            a, _ = mma2(W, shape); return a, []
        if kind == "mma3": return mma3(W, shape, bits), []
        if kind == "dot2":
            p, _ = mma2(W, shape)
            if not p: return None, []
            name = f"#p{made}_{rnd.randrange(1 << 20)}"
            kw = {8: 4, 16: rnd.choice([2, 4, 8]), 32: 1}[bits]
            return f"#ttg.dot_op<{{opIdx = {rnd.randrange(2)}, parent = {name}, kWidth = {kw}}}>", [(name, p)]
        if kind == "dot3":
            p = mma3(W, shape, bits)
            if not p: return None, []
            name = f"#p{made}_{rnd.randrange(1 << 20)}"
            kw = {8: 4, 16: 2, 32: 1}[bits]
            return f"#ttg.dot_op<{{opIdx = 0, parent = {name}, kWidth = {kw}}}>", [(name, p)]
    ks, kd = rnd.choice(kinds), rnd.choice(kinds)
    if ks == kd and ks != "blocked": continue
    (s, pa), (d, pb) = make(ks), make(kd)
    if not s or not d or s == d: continue
    name = f"sw{made}_{ks}_{kd}_{shape[0]}x{shape[1]}_{dt}_w{W}"
    aliases += [f"{a} = {b}" for a, b in pa + pb]
    sa, da = f"#s{made}", f"#d{made}"
    aliases += [f"{sa} = {s}", f"{da} = {d}"]
    t = f"tensor<{shape[0]}x{shape[1]}x{dt}"
    rows.setdefault(W, []).append(f"""  tt.func @{name}(%x: {t}, {sa}>) {{
    %0 = ttg.convert_layout %x : {t}, {sa}> -> {t}, {da}>
    tt.return
  }}""")
    made += 1
with open(out, "w") as f:
    f.write("\n".join(aliases) + "\n")
    for W, fs in sorted(rows.items()):
        f.write(f'module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = {W} : i32, "ttg.threads-per-warp" = 32 : i32}} {{\n')
        f.write("\n".join(fs) + "\n}\n")
print(out, made, "conversions")
