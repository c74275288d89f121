#!/usr/bin/env python3
"""Ground truth for the layouts real kernels convert: for every `ttg.convert_layout` of the given
TTGIR files (what `triton.compile` wrote for real kernels), the source and destination encodings
at their tensor shapes, with Triton 3.6.0's own bases, written to real_bases.jsonl (records as in
bases.jsonl and amd_bases.jsonl: "attr", "shape", "num_warps", "lanes", "bases", "out_dims",
plus "kind" = the encoding's name and "from" = the first file and line that converts it).

How: Triton's MLIR parser (`triton._C.libtriton.ir.parse_mlir_module`, Triton's, NVIDIA's and
AMD's dialects loaded) reads each file; for each convert_layout operand and result,
`GluonOpBuilder.get_gluon_layout_from_tensor` gives Triton's layout and
`GluonOpBuilder.to_linear_layout(layout._to_ir(builder), shape)` its LinearLayout (Triton's
`toLinearLayout`); "attr" is the tensor type's encoding as MLIR prints it, aliases expanded.
"num_warps" is the module's `ttg.num-warps`, "lanes" its `ttg.threads-per-warp`. A repeated
(attr, shape, num_warps) is kept once. No GPU is used.

A file cut to the lines warpforge reads (`corpus/real/`, by corpus/generate/extract.py) is
rebuilt as a module of one function per convert_layout before Triton parses it.

usage: python3 gen_real_bases.py OUT.jsonl FILE.ttgir...   (needs triton==3.6.0)
`make triton-bases-real` writes the committed real_bases.jsonl this way (about 25 s on two cores).
"""
import json, os, re, sys

from triton._C.libtriton import ir, gluon_ir, nvidia, amd


def encoding_text(type_text):
    """`tensor<16x8xf32, #ttg.blocked<{...}>>` -> (shape, encoding text)."""
    m = re.match(r"tensor<([0-9x]+)x(?:![^,]+|[a-zA-Z][a-zA-Z0-9]*), (.*)>$", type_text)
    return [int(x) for x in m.group(1).split("x")], m.group(2)


def rebuilt(text, path):
    """A parseable module holding the aliases, module attributes and every convert_layout of
    `text`, each in a function of its own taking the source tensor, written to a temporary
    file whose path is returned (the caller removes it)."""
    import tempfile
    lines = text.splitlines()
    aliases = [l for l in lines if re.match(r"#\w+ = ", l)]
    head = next(l for l in lines if l.startswith("module attributes"))
    funcs = []
    for i, l in enumerate(lines):
        m = re.search(r"ttg\.convert_layout %\S+(?: \{[^}]*\})? : (tensor<.*>) -> (tensor<.*>)", l)
        if m:
            funcs.append(f"  tt.func @c{i}(%x: {m.group(1)}) {{\n"
                         f"    %0 = ttg.convert_layout %x : {m.group(1)} -> {m.group(2)}\n"
                         f"    tt.return\n  }}")
    f = tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False)
    f.write("\n".join(aliases + [head] + funcs + ["}"]) + "\n")
    f.close()
    return f.name


def records(path):
    ctx = ir.context()
    ir.load_dialects(ctx)
    nvidia.load_dialects(ctx)
    amd.load_dialects(ctx)
    text = open(path).read()
    warps = int(re.search(r'"ttg.num-warps" = (\d+)', text).group(1))
    lanes = int(re.search(r'"ttg.threads-per-warp" = (\d+)', text).group(1))
    if "Extracted by corpus/generate/extract.py" in text:
        # a file cut to the lines warpforge reads is no module: rebuilt as one function per
        # convert_layout, on the file's own aliases and module attributes
        tmp = rebuilt(text, path)
        try:
            module = ir.parse_mlir_module(tmp, ctx)
        finally:
            os.unlink(tmp)
    else:
        module = ir.parse_mlir_module(path, ctx)
    builder = gluon_ir.GluonOpBuilder(ctx)
    lines = [i + 1 for i, l in enumerate(text.splitlines()) if "ttg.convert_layout" in l]
    out = []

    def visit(op):
        if op.get_name() != "ttg.convert_layout":
            return
        line = lines[len(out) // 2] if len(out) // 2 < len(lines) else None
        for v in (op.get_operand(0), op.get_result(0)):
            shape, attr = encoding_text(str(v.get_type()))
            ll = builder.to_linear_layout(builder.get_gluon_layout_from_tensor(v)._to_ir(builder), shape)
            out.append({
                "kind": re.match(r"#(?:ttg|amdgpu)\.(\w+)", attr).group(1),
                "attr": attr, "shape": shape, "num_warps": warps, "lanes": lanes,
                "bases": {"register": ll.reg_bases, "lane": ll.lane_bases, "warp": ll.warp_bases,
                          "block": ll.block_bases},
                "out_dims": [f"dim{i}" for i in range(len(shape))],
                "from": f"{os.path.basename(os.path.dirname(path))}/{os.path.basename(path)}:{line}",
            })

    module.walk(visit)
    if len(out) != 2 * len(lines):
        sys.exit(f"{path}: Triton's module has {len(out) // 2} convert_layout(s), the text {len(lines)}")
    return out


def main():
    seen, rows = set(), []
    for path in sys.argv[2:]:
        for r in records(path):
            key = (r["attr"], tuple(r["shape"]), r["num_warps"])
            if key not in seen:
                seen.add(key)
                rows.append(r)
    with open(sys.argv[1], "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    print(f"{len(rows)} records from {len(sys.argv) - 2} files", file=sys.stderr)


if __name__ == "__main__":
    main()
