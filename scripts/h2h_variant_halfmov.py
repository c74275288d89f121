"""Make a variant copy of h2h-work whose 16-bit unpacks use PTX half moves."""
import os, re, shutil, sys
src, dst, var = sys.argv[1], sys.argv[2], sys.argv[3]
shutil.rmtree(dst, ignore_errors=True); shutil.copytree(src, dst)
DEF = r'''
template <typename T> __device__ __forceinline__ T lo16(unsigned w) {
  unsigned short h; asm("{ .reg .b16 x; mov.b32 {%0, x}, %1; }" : "=h"(h) : "r"(w)); return *reinterpret_cast<const T*>(&h); }
template <typename T> __device__ __forceinline__ T hi16(unsigned w) {
  unsigned short h; asm("{ .reg .b16 x; mov.b32 {x, %0}, %1; }" : "=h"(h) : "r"(w)); return *reinterpret_cast<const T*>(&h); }
'''
for f in os.listdir(dst):
    if not f.endswith(".cuh"): continue
    p = os.path.join(dst, f); s = open(p).read()
    s = s.replace("}  // namespace detail", DEF + "}  // namespace detail", 1)
    out, mode = [], None
    for line in s.split("\n"):
        if "if constexpr (sizeof(T) == 2)" in line: mode = 2
        elif "if constexpr (sizeof(T)" in line: mode = None
        elif line.startswith("}") : mode = None
        if mode == 2 and var in ("v1",):
            line = re.sub(r"detail::from_u32<T>\((\w+) >> 16u?\)", r"detail::hi16<T>(\1)", line)
            line = re.sub(r"detail::from_u32<T>\((\w+)\)", r"detail::lo16<T>(\1)", line)
        out.append(line)
    open(p, "w").write("\n".join(out))
