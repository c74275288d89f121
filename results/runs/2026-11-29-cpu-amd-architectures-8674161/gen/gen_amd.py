"""The third fresh set's generator (../../2026-11-29-cpu-fresh-kernels-3-c8e9a0f/gen/gen3.py, its
kernels3.py) for the AMD architectures that set did not compile for: its source run with the
`targets` table replaced, and ONLY=regex keeping just the cases whose name matches.
usage: python3 gen_amd.py OUT [TARGET...]   (TARGET: hip_gfx908, hip_gfx90a, ..., as below)"""
import os, re, sys

GEN3 = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                    "2026-11-29-cpu-fresh-kernels-3-c8e9a0f", "gen", "gen3.py")
TARGETS = {f"hip_{a}": ("hip", a, 64 if a.startswith("gfx9") else 32)
           for a in ("gfx908", "gfx90a", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151",
                     "gfx1200", "gfx1201")}
src = open(GEN3).read()
src = re.sub(r"^targets = \{.*?\}\n(?=cases = )", f"targets = {TARGETS!r}\n", src, count=1, flags=re.S | re.M)
if os.environ.get("ONLY"):
    keep = "cases = [c for c in cases if re.search(os.environ['ONLY'], c[0])]\n"
    src = src.replace("only = sys.argv[2:]", "import re\n" + keep + "only = sys.argv[2:]", 1)
sys.path.insert(0, os.path.dirname(GEN3))
exec(compile(src, GEN3, "exec"), {"__name__": "__main__", "__file__": GEN3})
