"""Header transform: natural words accessed in pairs as 64-bit memcpy (ld_dword/st_dword)."""
import re, sys
s = open(sys.argv[1]).read()
helpers = r'''
__device__ __forceinline__ void ld_dword(const void* p, unsigned& lo, unsigned& hi) {
  unsigned long long q; memcpy(&q, p, 8); lo = (unsigned)q; hi = (unsigned)(q >> 32);
}
__device__ __forceinline__ void st_dword(void* p, unsigned lo, unsigned hi) {
  unsigned long long q = (unsigned long long)lo | ((unsigned long long)hi << 32); memcpy(p, &q, 8);
}
'''
s = s.replace("__device__ __forceinline__ void st_word(void* p, unsigned w) { memcpy(p, &w, 4); }",
              "__device__ __forceinline__ void st_word(void* p, unsigned w) { memcpy(p, &w, 4); }" + helpers, 1)
n = [0, 0]
parts = re.split(r"(if constexpr \(sizeof\(T\) == \d\))", s)
out = [parts[0]]
for i in range(1, len(parts), 2):
    per = {1: 4, 2: 2}.get(int(re.search(r"\d", parts[i]).group()), 0)
    body = parts[i + 1]
    if per:
        def ld(m):
            arr, i0, a0, i1, a1 = m.group(2), int(m.group(3)), int(m.group(4)), int(m.group(5)), int(m.group(6))
            if a1 - a0 != per or i1 != i0 + 1: return m.group(0)
            n[0] += 1
            return f"{m.group(1)}detail::ld_dword(&src[{a0}], {arr}[{i0}], {arr}[{i1}]);"
        body = re.sub(r"( *)(\w+)\[(\d+)\] = detail::ld_word\(&src\[(\d+)\]\);\n *\2\[(\d+)\] = detail::ld_word\(&src\[(\d+)\]\);", ld, body)
        def st(m):
            if int(m.group(4)) - int(m.group(2)) != per: return m.group(0)
            n[1] += 1
            return f"{m.group(1)}detail::st_dword(&dst[{m.group(2)}], {m.group(3)}, {m.group(5)});"
        body = re.sub(r"( *)detail::st_word\(&dst\[(\d+)\], (\w+(?:\[\d+\])?)\);\n *detail::st_word\(&dst\[(\d+)\], (\w+(?:\[\d+\])?)\);", st, body)
    out += [parts[i], body]
s = "".join(out)
print(sys.argv[1], "ld pairs", n[0], "st pairs", n[1], "left", s.count("ld_word(&"), s.count("st_word(&"), file=sys.stderr)
open(sys.argv[2], "w").write(s)
