#!/usr/bin/env python3
"""The headline tables of results/README.md, computed from the raw rows of the run folders
they cite (no GPU, no third-party modules). `make results-table` runs it.

usage (from the repository root):
  python3 scripts/results_table.py           rewrite the tables in results/README.md
  python3 scripts/results_table.py --check   exit 1 if results/README.md is not what this writes
  python3 scripts/results_table.py --print   print the tables only

To move the headline to a newer run, add or replace its line in SPEED or PROOF below and rerun.
"""
import json, math, os, sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
README = os.path.join(ROOT, "results", "README.md")
BEGIN = "<!-- begin: scripts/results_table.py writes this table; edit the script, not the table -->"
END = "<!-- end: scripts/results_table.py -->"

# Speed against Triton 3.6: (what, run folder under results/runs/, rows file in it, kind, form).
# kind "bench": `warpforge bench` rows, the chosen plan's round trip over Triton's.
# kind "h2h": rows of the h2h harness (../shared/tools/h2h), conversions that move data;
#   form "element" (`T src[N]`), "packed" (32-bit words) or "best" (the faster of the two).
SPEED = [
    ("`bench`, every corpus and stress conversion, chosen plan",
     "2026-11-27-h200-store-width-ce85994", "e3_whole/bench_all.jsonl", "bench", None),
    ("`bench`, every corpus and stress conversion, chosen plan",
     "2026-11-24-h100-carried-words-6ef7222", "bench.jsonl", "bench", None),
    ("h2h, corpus and two of Triton's mma tests, best form",
     "2026-11-27-h200-h2h-f3ddfa9-vs-3edc93e", "raw_new_f3ddfa9.jsonl", "h2h", "best"),
    ("h2h, corpus and two of Triton's mma tests, element form",
     "2026-11-27-h200-h2h-f3ddfa9-vs-3edc93e", "raw_new_f3ddfa9.jsonl", "h2h", "element"),
    ("h2h (fair2 addressing), 16-bit conversions of Triton's layout tests, best form",
     "2026-11-29-h200-h2h-fresh2-and-16bit-tests-b4b0e60", "tests_16bit/h2h.jsonl", "h2h", "best"),
    ("h2h (fair2 addressing), 16-bit conversions of Triton's layout tests, element form",
     "2026-11-29-h200-h2h-fresh2-and-16bit-tests-b4b0e60", "tests_16bit/h2h.jsonl", "h2h", "element"),
    ("h2h, 16-bit conversions of Triton's layout tests, tile I/O vectorised (`H2H_VEC`), element form",
     "2026-11-28-h200-tests-16bit-and-limits-9889471", "h2h/tl_vec.jsonl", "h2h", "element"),
    ("h2h, kernels the corpus never showed (Triton 3.6 tutorial-style kernels for sm_90), best form",
     "2026-11-29-h200-one-warp-more-scratch-21251f2", "6_fresh_kernels_h2h/h2h.jsonl", "h2h", "best"),
    ("h2h, kernels the corpus never showed (Triton 3.6 tutorial-style kernels for sm_90), element form",
     "2026-11-29-h200-one-warp-more-scratch-21251f2", "6_fresh_kernels_h2h/h2h.jsonl", "h2h", "element"),
    ("h2h, a second set of kernels the corpus never showed (sort, scans, histogram, permute, interleave, batched, int8 and tf32 dots, dot_scaled, fp8 attention; sm_90), best form",
     "2026-11-29-h200-h2h-fresh2-and-16bit-tests-b4b0e60", "fresh_kernels_2/h2h.jsonl", "h2h", "best"),
    ("h2h, a second set of kernels the corpus never showed (sort, scans, histogram, permute, interleave, batched, int8 and tf32 dots, dot_scaled, fp8 attention; sm_90), element form",
     "2026-11-29-h200-h2h-fresh2-and-16bit-tests-b4b0e60", "fresh_kernels_2/h2h.jsonl", "h2h", "element"),
    ("h2h, a third set of kernels the corpus never showed (i64/u8/bool tiles, 4-D permutes, deep split/join, gathers, TMA and persistent matmuls, 16/32 warps, layernorm backward, rotary, top-k, fp8 quantisation, int4 dequantisation; sm_90, a sample), best form",
     "2026-11-29-h200-h2h-fresh3-again-9fa3ed3", "h2h.jsonl", "h2h", "best"),
    ("h2h, a third set of kernels the corpus never showed (same sample), element form",
     "2026-11-29-h200-h2h-fresh3-again-9fa3ed3", "h2h.jsonl", "h2h", "element"),
    ("h2h, corpus, its element loop's tile loads and stores vectorised as Triton's kernel has them (`H2H_VEC`), best form",
     "2026-11-28-h200-h2h-tile-io-bbf471f", "vectorised_io/vec_corpus.jsonl", "h2h", "best"),
    ("h2h, corpus, its element loop's tile loads and stores vectorised as Triton's kernel has them (`H2H_VEC`), element form",
     "2026-11-28-h200-h2h-tile-io-bbf471f", "vectorised_io/vec_corpus.jsonl", "h2h", "element"),
]
# Proven on the GPU (`verify --gpu`, every slot of every thread): (what, run folder, rows file).
PROOF = [
    ("Triton's layout tests (`tests/data/triton_lowerings.ttgir`), i8/i16/f16/i32/i64, every form",
     "2026-11-27-h200-store-width-ce85994", "e5_verify_triton_tests/cases.jsonl"),
    ("every corpus and stress file, i8/i16/f16/i32/i64, every form",
     "2026-11-27-h200-store-width-ce85994", "e6_verify_corpus/cases.jsonl"),
]


def rows(run, path):
    with open(os.path.join(ROOT, "results", "runs", run, path)) as f:
        return [json.loads(line) for line in f if line.strip()]


def gmean(v):
    return math.exp(sum(map(math.log, v)) / len(v))


def gpu_of(run):
    return run.split("-")[3].upper()


def name(r):
    return f"{os.path.basename(r['file'])}:{r['name']}"


def speed_row(what, run, path, kind, form):
    got = []  # (ratio, conversion)
    for r in rows(run, path):
        if kind == "bench":
            if r.get("chosen") and (r.get("triton") or {}).get("ns"):
                got.append((r["chosen"]["ns"] / r["triton"]["ns"], name(r)))
        else:
            if r["wf_plan"]["fwd"]["kind"] not in ("shuffle", "shared"):
                continue  # register renames move no data
            el, pk = r.get("ratio_wf_over_triton"), r.get("ratio_packed_over_triton")
            v = {"element": el, "packed": pk, "best": min(x for x in (el, pk) if x) if (el or pk) else None}[form]
            if v:
                got.append((v, name(r)))
    worst = max(got)
    return (f"| {what} | {gpu_of(run)} | {len(got)} | **{gmean([g for g, _ in got]):.3f}x** | "
            f"{worst[0]:.3f}x (`{worst[1]}`) | {sum(g > 1.05 for g, _ in got)} | [{run}](runs/{run}/) |")


def proof_row(what, run, path):
    v = rows(run, path)
    return (f"| {what} | {gpu_of(run)} | {sum(r['verified'] is True for r in v)} of {len(v)} | "
            f"{sum(r['gpu_cases'] for r in v)} | {sum(r['mismatches'] for r in v)} | "
            f"{sum(r['errors'] for r in v)} | [{run}](runs/{run}/) |")


def tables():
    out = [BEGIN, "",
           "Speed: warpforge's round trip `A -> B -> A` over Triton 3.6's for the same conversion, same",
           "harness, same call (below 1.0x: warpforge faster). Geomean over the conversions that move data.", "",
           "| measurement | GPU | conversions | warpforge / Triton | worst | above 1.05x | run |",
           "|---|---|---|---|---|---|---|"]
    out += [speed_row(*s) for s in SPEED]
    out += ["", "Proven on the GPU (`warpforge verify --gpu`: every slot of every thread compared):", "",
            "| what | GPU | conversions verified | GPU cases | mismatching slots | errors | run |",
            "|---|---|---|---|---|---|---|"]
    out += [proof_row(*p) for p in PROOF]
    out += ["", END]
    return "\n".join(out)


def main():
    t = tables()
    if "--print" in sys.argv:
        print(t)
        return 0
    with open(README) as f:
        text = f.read()
    a, b = text.find(BEGIN), text.find(END)
    if a < 0 or b < 0:
        sys.exit(f"{README}: no table markers ({BEGIN!r} ... {END!r})")
    new = text[:a] + t + text[b + len(END):]
    if "--check" in sys.argv:
        if new != text:
            print("results/README.md: the tables are not current; run `make results-table`", file=sys.stderr)
            return 1
        return 0
    if new != text:
        with open(README, "w") as f:
            f.write(new)
        print("rewrote the tables in results/README.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
