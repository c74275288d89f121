#!/usr/bin/env python3
"""Shrink the TTGIR files gen_real.py writes to what warpforge reads.

gen_real.py saves Triton 3.6's whole TTGIR of each kernel (about 15 MB for
the corpus). The repository keeps, per file, only the lines that carry the
conversions: attribute aliases (`#name = ...`), `module attributes {...}`
(warps, CTAs, lanes, target), `tt.func` names, every `ttg.convert_layout`
and closing braces, plus a first comment line naming the source. Layout
text, op lines and module attributes are Triton's own, unchanged; only the
other ops are dropped (so `func:line` names differ from the full file's).

Usage: python3 corpus/generate/extract.py [DIR]   (default: corpus/real; in place)
"""
import os
import re
import sys

HEAD = "// Extracted by corpus/generate/extract.py from Triton 3.6's TTGIR of this kernel (corpus/generate/gen_real.py writes the whole file); only the lines warpforge reads are kept.\n"


def extract(text: str) -> str:
    """The kept lines; idempotent (an extracted file gives itself back, its
    braces paired as below)."""
    extracted = text.startswith(HEAD)
    if extracted:
        text = text[len(HEAD):]
    keep = []
    # indentation of each kept block opener (module, tt.func) still open: a
    # closing `}` is kept where it closes one of them (MLIR's printer indents
    # a block's `}` as its opener), and left as an empty line where it closed
    # a dropped op's region (an scf.for body), so that `{` and `}` pair up
    # and line numbers stay those of the kept text
    opened = []
    indent = lambda line: len(line) - len(line.lstrip())
    for line in text.split("\n"):
        s = line.strip()
        if "tt.func" in s and "convert_layout" not in s:
            m = re.match(r"(\s*tt\.func\s+(?:public\s+|private\s+)?@[\w.$]+)", line)
            keep.append(m.group(1) + "() {" if m else line)
            opened.append(indent(line))
        elif s.startswith("module"):
            keep.append(line)
            if s.endswith("{"):
                opened.append(indent(line))
        elif (s.startswith("#") and " = " in s) or "convert_layout" in s:
            keep.append(line)
        elif s == "" and extracted:
            # a `}` an earlier extraction left empty
            keep.append(line)
        elif s == "}":
            if opened and opened[-1] == indent(line):
                opened.pop()
                keep.append(line)
            else:
                keep.append("")
    return HEAD + "\n".join(keep).rstrip("\n") + "\n"


def main() -> None:
    root = sys.argv[1] if len(sys.argv) > 1 else "corpus/real"
    n = 0
    for d, _, files in sorted(os.walk(root)):
        for f in sorted(files):
            if f.endswith(".ttgir"):
                p = os.path.join(d, f)
                with open(p) as fh:
                    t = fh.read()
                with open(p, "w") as fh:
                    fh.write(extract(t))
                n += 1
    print(f"{n} files extracted under {root}")


if __name__ == "__main__":
    main()
