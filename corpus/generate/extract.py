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
    if text.startswith(HEAD):
        return text
    keep = []
    for line in text.split("\n"):
        s = line.strip()
        if "tt.func" in s and "convert_layout" not in s:
            m = re.match(r"(\s*tt\.func\s+(?:public\s+|private\s+)?@[\w.$]+)", line)
            keep.append(m.group(1) + "() {" if m else line)
        elif (s.startswith("#") and " = " in s) or s.startswith("module") \
                or "convert_layout" in s or s == "}":
            keep.append(line)
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
