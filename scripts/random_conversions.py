#!/usr/bin/env python3
"""Random layout conversions beyond the corpus and Triton's tests, as TTGIR.

    scripts/random_conversions.py SEED COUNT OUT.ttgir [--warps 1,2,4,8] [--per-thread MIN,MAX]
                                  [--warpforge BIN]

Each conversion draws a warp count (from --warps, repeats weigh), an element
type (f16 twice, bf16, f32, i8), a 2-D shape (16..256 per dim, 4 to 64
elements per thread, or --per-thread MIN,MAX) and two layouts of different kinds among
`#ttg.blocked` (random sizePerThread, threadsPerWarp, warpsPerCTA, order),
`#ttg.nvidia_mma` v2 (instrShape [16, 8]) and v3 (at 4 warps or more,
instrShape [16, N, 256/bits]), and `#ttg.dot_op` of either (opIdx 0 or 1 of
v2, 0 of v3; kWidth 4 for 8-bit, 2/4/8 for 16-bit, 1 for 32-bit), each
layout's tile no larger than the shape. Names say what was drawn:
`sw<k>_<src kind>_<dst kind>_<M>x<N>_<dtype>_w<warps>`. The same SEED gives
the same file.

With --warpforge BIN, conversions that `BIN plan` refuses for their size
(data per thread that no register file holds, issue 23; over the 1,024
elements per thread warpforge plans) are dropped and named on stderr, so
that the file plans whole; any other refusal stops the script. Fewer than
COUNT conversions (a --per-thread range that few shapes meet) are reported
on stderr.

tests/data/random_s1.ttgir is `1 70 ... --warps 1,2,4,4,8,8` and
tests/data/random_s2.ttgir `2 60 ... --warps 1,1,2,2,16` with --warpforge
(two refused); both are proven on the CPU simulator and compiled for their
registers in CI, and timed against Triton in
results/runs/2026-11-24-h100-random-sweeps-776774d/ (issue 23, fourteenth pass).
"""
import argparse, random, re, subprocess, sys


def split(rnd, total, k=2):
    """`total` (a power of two) as k powers of two, each factor 2 to a random part."""
    parts = [0] * k
    for _ in range(total.bit_length() - 1):
        parts[rnd.randrange(k)] += 1
    return [1 << p for p in parts]


def blocked(rnd, W, shape):
    for _ in range(100):
        spt = split(rnd, rnd.choice([1, 2, 4, 8, 16]))
        tpw, wpc = split(rnd, 32), split(rnd, W)
        if all(spt[d] * tpw[d] * wpc[d] <= shape[d] for d in range(2)):
            order = rnd.choice([[1, 0], [0, 1]])
            return f"#ttg.blocked<{{sizePerThread = {spt}, threadsPerWarp = {tpw}, warpsPerCTA = {wpc}, order = {order}}}>"
    return None


def mma2(rnd, W, shape):
    for _ in range(50):
        wpc = split(rnd, W)
        if 16 * wpc[0] <= shape[0] and 8 * wpc[1] <= shape[1]:
            return f"#ttg.nvidia_mma<{{versionMajor = 2, versionMinor = 0, warpsPerCTA = {wpc}, instrShape = [16, 8]}}>"
    return None


def mma3(rnd, W, shape, bits):
    if W < 4:
        return None
    wpc = [W, 1] if rnd.random() < 0.7 else [4, W // 4]
    ns = [n for n in (8, 16, 32, 64, 128, 256) if n * wpc[1] <= shape[1]]
    if 16 * wpc[0] > shape[0] or not ns:
        return None
    k = 256 // bits if bits < 32 else 8
    return f"#ttg.nvidia_mma<{{versionMajor = 3, versionMinor = 0, warpsPerCTA = {wpc}, instrShape = [16, {rnd.choice(ns)}, {k}]}}>"


def generate(seed, count, warps, per_thread=(4, 64)):
    rnd = random.Random(seed)
    rows, aliases, made, tries = {}, [], 0, 0
    while made < count and tries < 50 * count:
        tries += 1
        W = rnd.choice(warps)
        dt, bits = rnd.choice([("f16", 16), ("bf16", 16), ("f32", 32), ("i8", 8), ("f16", 16)])
        shape = [rnd.choice([16, 32, 64, 128, 256]) for _ in range(2)]
        per = shape[0] * shape[1] // (32 * W)
        if per < per_thread[0] or per > per_thread[1]:
            continue

        def make(kind):
            if kind == "blocked":
                return blocked(rnd, W, shape), []
            if kind == "mma2":
                return mma2(rnd, W, shape), []
            if kind == "mma3":
                return mma3(rnd, W, shape, bits), []
            parent = mma2(rnd, W, shape) if kind == "dot2" else mma3(rnd, W, shape, bits)
            if not parent:
                return None, []
            name = f"#p{made}_{rnd.randrange(1 << 20)}"
            if kind == "dot2":
                kw = {8: 4, 16: rnd.choice([2, 4, 8]), 32: 1}[bits]
                op = rnd.randrange(2)
            else:
                kw = {8: 4, 16: 2, 32: 1}[bits]
                op = 0
            return f"#ttg.dot_op<{{opIdx = {op}, parent = {name}, kWidth = {kw}}}>", [(name, parent)]

        kinds = ["blocked", "mma2", "dot2", "mma3", "dot3"]
        ks, kd = rnd.choice(kinds), rnd.choice(kinds)
        if ks == kd and ks != "blocked":
            continue
        (s, pa), (d, pb) = make(ks), make(kd)
        if not s or not d or s == d:
            continue
        name = f"sw{made}_{ks}_{kd}_{shape[0]}x{shape[1]}_{dt}_w{W}"
        sa, da = f"#s{made}", f"#d{made}"
        aliases += [f"{a} = {b}" for a, b in pa + pb] + [f"{sa} = {s}", f"{da} = {d}"]
        t = f"tensor<{shape[0]}x{shape[1]}x{dt}"
        rows.setdefault(W, []).append(
            f"  tt.func @{name}(%x: {t}, {sa}>) {{\n"
            f"    %0 = ttg.convert_layout %x : {t}, {sa}> -> {t}, {da}>\n"
            f"    tt.return\n  }}")
        made += 1
    out = "\n".join(aliases) + "\n"
    for W, fs in sorted(rows.items()):
        out += (f'module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = {W} : i32, '
                f'"ttg.threads-per-warp" = 32 : i32}} {{\n' + "\n".join(fs) + "\n}\n")
    return out, made


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("seed", type=int)
    ap.add_argument("count", type=int)
    ap.add_argument("out")
    ap.add_argument("--warps", default="1,2,4,4,8,8", help="warp counts to draw from (repeats weigh)")
    ap.add_argument("--warpforge", help="drop the conversions this warpforge binary's `plan` refuses")
    ap.add_argument("--per-thread", default="4,64", metavar="MIN,MAX",
                    help="elements per thread to draw shapes for (default 4,64; e.g. 256,512 for one-warp tiles "
                         "whose data alone nears the 255-register limit; above 1024 warpforge refuses them, "
                         "which --warpforge drops)")
    a = ap.parse_args()
    warps = [int(w) for w in a.warps.split(",")]
    bad = [w for w in warps if w not in (1, 2, 4, 8, 16, 32)]
    if bad:
        sys.exit(f"--warps: {bad} is not a power of two up to 32")
    try:
        lo, hi = (int(x) for x in a.per_thread.split(","))
    except ValueError:
        sys.exit(f"--per-thread: {a.per_thread!r} is not MIN,MAX")
    if not 1 <= lo <= hi:
        sys.exit(f"--per-thread: {a.per_thread!r} needs 1 <= MIN <= MAX")
    text, made = generate(a.seed, a.count, warps, (lo, hi))
    if a.warpforge:
        def plan(t, *extra):
            return subprocess.run([a.warpforge, "plan", "--ttgir", "/dev/stdin", *extra], input=t,
                                  capture_output=True, text=True)
        if plan(text).returncode:
            # one call per conversion: which ones does it refuse, and why
            for name in re.findall(r"tt\.func @(\w+)\(", text):
                r = plan(text, "--name", name)
                if r.returncode == 0:
                    continue
                why = r.stderr.strip().splitlines()[0] if r.stderr.strip() else f"exit {r.returncode}"
                # (the first phrase is older binaries' wording of the register refusal)
                sizes = ("cannot live in a thread", "elements per thread warpforge plans")
                if not any(x in why for x in sizes):
                    sys.exit(f"{a.warpforge} plan failed on {name}: {why}")
                print(f"dropped {name}: {why}", file=sys.stderr)
                text = re.sub(r"  tt\.func @" + name + r"\(.*?\n  \}\n", "", text, flags=re.S)
                made -= 1
    with open(a.out, "w") as f:
        f.write(text)
    print(f"{a.out}: {made} conversions", file=sys.stderr)
    if made < a.count:
        print(f"{a.out}: {a.count - made} fewer than asked: few shapes meet --warps {a.warps} and "
              f"--per-thread {a.per_thread}, or --warpforge dropped them", file=sys.stderr)


if __name__ == "__main__":
    main()
