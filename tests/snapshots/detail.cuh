#ifndef WARPFORGE_DETAIL_H
#define WARPFORGE_DETAIL_H 0x8c16f5bec4b7
namespace detail {

#if defined(__HIP__)
// AMD (HIP): shuffles through the LDS crossbar (`ds_bpermute_b32`, AMD ISA
// "LDS instructions"; xor ones by DPP or ds_swizzle_b32 where they fit, below), with
// shfl.sync's rules over the wave's lanes: idx reads
// lane s % W, xor lane l ^ m when m < W (else its own), up lane l - d when
// l >= d, down lane l + d when l + d < W (else its own). 8-byte elements move
// as two words.
__device__ __forceinline__ unsigned wave_lane() {
  const unsigned lo = __builtin_amdgcn_mbcnt_lo(~0u, 0u);
  return __builtin_amdgcn_wavefrontsize() == 64 ? __builtin_amdgcn_mbcnt_hi(~0u, lo) : lo;
}
__device__ __forceinline__ unsigned bpermute(unsigned l, unsigned v) {
  return (unsigned)__builtin_amdgcn_ds_bpermute((int)(l << 2), (int)v);
}
__device__ __forceinline__ unsigned shfl_lane(int op, unsigned a) {
  const unsigned w = (unsigned)__builtin_amdgcn_wavefrontsize(), l = wave_lane();
  return op == 0 ? (a & (w - 1u)) : op == 1 ? (a < w ? l ^ a : l) : op == 2 ? (l >= a ? l - a : l) : (l + a < w ? l + a : l);
}
// xor 1-3 within quads by DPP (a VALU move, quad_perm [1,0,3,2], [2,3,0,1], [3,2,1,0]); xor
// 4-31 by ds_swizzle_b32 in bit mode (offset = and_mask 0x1f | xor_mask << 10: lane l of each
// 32-lane group reads l ^ m; no lane address); xor 0 is the own value; the rest by ds_bpermute.
// The helpers pass m as a literal, so the switch folds to one instruction.
__device__ __forceinline__ unsigned shfl_xor_word(unsigned v, unsigned m) {
  switch (m) {
    case 0u: return v;
    case 1u: return (unsigned)__builtin_amdgcn_mov_dpp((int)v, 0xB1, 0xF, 0xF, false);
    case 2u: return (unsigned)__builtin_amdgcn_mov_dpp((int)v, 0x4E, 0xF, 0xF, false);
    case 3u: return (unsigned)__builtin_amdgcn_mov_dpp((int)v, 0x1B, 0xF, 0xF, false);
#define WARPFORGE_SWZ(M) case M: return (unsigned)__builtin_amdgcn_ds_swizzle((int)v, 0x1F | ((M) << 10));
    WARPFORGE_SWZ(4u) WARPFORGE_SWZ(5u) WARPFORGE_SWZ(6u) WARPFORGE_SWZ(7u)
    WARPFORGE_SWZ(8u) WARPFORGE_SWZ(9u) WARPFORGE_SWZ(10u) WARPFORGE_SWZ(11u)
    WARPFORGE_SWZ(12u) WARPFORGE_SWZ(13u) WARPFORGE_SWZ(14u) WARPFORGE_SWZ(15u)
    WARPFORGE_SWZ(16u) WARPFORGE_SWZ(17u) WARPFORGE_SWZ(18u) WARPFORGE_SWZ(19u)
    WARPFORGE_SWZ(20u) WARPFORGE_SWZ(21u) WARPFORGE_SWZ(22u) WARPFORGE_SWZ(23u)
    WARPFORGE_SWZ(24u) WARPFORGE_SWZ(25u) WARPFORGE_SWZ(26u) WARPFORGE_SWZ(27u)
    WARPFORGE_SWZ(28u) WARPFORGE_SWZ(29u) WARPFORGE_SWZ(30u) WARPFORGE_SWZ(31u)
#undef WARPFORGE_SWZ
    default: return bpermute(shfl_lane(1, m), v);
  }
}
#define WARPFORGE_SHFL_WORD(OP, NAME)                                                                   \
  __device__ __forceinline__ unsigned NAME(unsigned v, unsigned a) {                                    \
    return OP == 1 ? shfl_xor_word(v, a) : bpermute(shfl_lane(OP, a), v);                               \
  }                                                                                                     \
  __device__ __forceinline__ unsigned char NAME(unsigned char v, unsigned a) { return (unsigned char)NAME((unsigned)v, a); } \
  __device__ __forceinline__ unsigned short NAME(unsigned short v, unsigned a) { return (unsigned short)NAME((unsigned)v, a); } \
  __device__ __forceinline__ unsigned long long NAME(unsigned long long v, unsigned a) {               \
    return (unsigned long long)NAME((unsigned)v, a) | (unsigned long long)NAME((unsigned)(v >> 32), a) << 32; \
  }
WARPFORGE_SHFL_WORD(0, shfl_idx)
WARPFORGE_SHFL_WORD(1, shfl_xor)
WARPFORGE_SHFL_WORD(2, shfl_up)
WARPFORGE_SHFL_WORD(3, shfl_down)
#undef WARPFORGE_SHFL_WORD
#else
#define WARPFORGE_SHFL_NATIVE(T, U)                                                       \
  __device__ __forceinline__ T shfl_idx(T v, unsigned s) {                                \
    return (T)__shfl_sync(0xffffffffu, (U)v, s);                                          \
  }                                                                                       \
  __device__ __forceinline__ T shfl_xor(T v, unsigned m) {                                \
    return (T)__shfl_xor_sync(0xffffffffu, (U)v, m);                                      \
  }                                                                                       \
  __device__ __forceinline__ T shfl_up(T v, unsigned d) {                                 \
    return (T)__shfl_up_sync(0xffffffffu, (U)v, d);                                       \
  }                                                                                       \
  __device__ __forceinline__ T shfl_down(T v, unsigned d) {                               \
    return (T)__shfl_down_sync(0xffffffffu, (U)v, d);                                     \
  }
WARPFORGE_SHFL_NATIVE(int, int)
WARPFORGE_SHFL_NATIVE(unsigned, unsigned)
WARPFORGE_SHFL_NATIVE(float, float)
WARPFORGE_SHFL_NATIVE(long long, long long)
WARPFORGE_SHFL_NATIVE(unsigned long long, unsigned long long)
WARPFORGE_SHFL_NATIVE(double, double)
WARPFORGE_SHFL_NATIVE(char, int)
WARPFORGE_SHFL_NATIVE(signed char, int)
WARPFORGE_SHFL_NATIVE(unsigned char, unsigned)
WARPFORGE_SHFL_NATIVE(short, int)
WARPFORGE_SHFL_NATIVE(unsigned short, unsigned)
#undef WARPFORGE_SHFL_NATIVE
#endif  // __HIP__

// Any other trivially copyable element type (__half, __nv_bfloat16, fp8
// structs, ...) moves as its bits, through the unsigned type of its size.
template <int kBytes> struct bits_of;
template <> struct bits_of<1> { typedef unsigned char type; };
template <> struct bits_of<2> { typedef unsigned short type; };
template <> struct bits_of<4> { typedef unsigned type; };
template <> struct bits_of<8> { typedef unsigned long long type; };

// False for every argument list, but only once instantiated: the
// static_assert of a refused conversion's declarations fires where a kernel
// uses them, not where the header is included.
template <typename...> struct refused { static constexpr bool value = false; };

template <int kOp, typename T>
__device__ __forceinline__ T shfl_bits(T v, unsigned a) {
  typedef typename bits_of<sizeof(T)>::type B;  // element size must be 1, 2, 4 or 8 bytes
  B b = *reinterpret_cast<const B*>(&v);
  b = kOp == 0 ? shfl_idx(b, a) : kOp == 1 ? shfl_xor(b, a) : kOp == 2 ? shfl_up(b, a) : shfl_down(b, a);
  return *reinterpret_cast<const T*>(&b);
}
template <typename T> __device__ __forceinline__ T shfl_idx(T v, unsigned s) { return shfl_bits<0>(v, s); }
template <typename T> __device__ __forceinline__ T shfl_xor(T v, unsigned m) { return shfl_bits<1>(v, m); }
template <typename T> __device__ __forceinline__ T shfl_up(T v, unsigned d) { return shfl_bits<2>(v, d); }
template <typename T> __device__ __forceinline__ T shfl_down(T v, unsigned d) { return shfl_bits<3>(v, d); }

// Elements as the bits of 32-bit words (8-, 16- and 32-bit elements) or of
// 64-bit pairs of words, for packed shared-memory accesses.
template <typename T>
__device__ __forceinline__ unsigned to_u32(T v) {
  typedef typename bits_of<sizeof(T)>::type B;
  B b = *reinterpret_cast<const B*>(&v);
  return (unsigned)b;
}
template <typename T>
__device__ __forceinline__ T from_u32(unsigned w) {
  typedef typename bits_of<sizeof(T)>::type B;
  B b = (B)w;
  return *reinterpret_cast<const T*>(&b);
}
template <typename T>
__device__ __forceinline__ unsigned long long to_u64(T v) {
  return *reinterpret_cast<const unsigned long long*>(&v);
}
template <typename T>
__device__ __forceinline__ T from_u64(unsigned lo, unsigned hi) {
  unsigned long long b = (unsigned long long)lo | ((unsigned long long)hi << 32);
  return *reinterpret_cast<const T*>(&b);
}

// One 32-bit word of a caller's array of 8/16-bit elements (elements
// p .. p + 32/bits - 1, lowest index in the lowest bits), read and written by
// a 4-byte memcpy: valid at any alignment and under any aliasing; once the
// array is in registers NVVM's scalar replacement keeps it as 32-bit words
// (the loop-carried ones included) rather than one register per element.
#if defined(__HIP__)
#define WARPFORGE_MEMCPY __builtin_memcpy
#else
#define WARPFORGE_MEMCPY memcpy
#endif
__device__ __forceinline__ unsigned ld_word(const void* p) {
  unsigned w;
  WARPFORGE_MEMCPY(&w, p, 4);
  return w;
}
__device__ __forceinline__ void st_word(void* p, unsigned w) { WARPFORGE_MEMCPY(p, &w, 4); }
// Two consecutive natural words (elements p .. p + 64/bits - 1) by one 8-byte
// memcpy. NVVM's scalar replacement widens such a 64-bit slice of a caller's
// array into an integer, so that the caller's per-element work on it folds
// into 32-bit operations; a 4-byte slice of 16-bit elements becomes a
// <2 x i16> vector instead, and the caller's work on it stays per half (an
// extract and an insert per element).
__device__ __forceinline__ void ld_dword(const void* p, unsigned& lo, unsigned& hi) {
  unsigned long long q;
  WARPFORGE_MEMCPY(&q, p, 8);
  lo = (unsigned)q;
  hi = (unsigned)(q >> 32);
}
__device__ __forceinline__ void st_dword(void* p, unsigned lo, unsigned hi) {
  const unsigned long long q = (unsigned long long)lo | ((unsigned long long)hi << 32);
  WARPFORGE_MEMCPY(p, &q, 8);
}

#undef WARPFORGE_MEMCPY

#if !defined(__HIP__)
// Shared-memory accesses as inline PTX (PTX ISA: st.shared, ld.shared,
// stmatrix, ldmatrix), on 32-bit shared-window addresses.
// __cvta_generic_to_shared (CUDA >= 11) rather than inline `cvta`: NVVM
// knows it is pure, so a caller's loop computes the window address once
// instead of reading SR_SWINHI and SR_CgaCtaId in every iteration.
__device__ __forceinline__ unsigned smem_u32(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void st_u8(unsigned a, unsigned v) { asm volatile("st.shared.u8 [%0], %1;" :: "r"(a), "r"(v) : "memory"); }
__device__ __forceinline__ void st_u16(unsigned a, unsigned v) { asm volatile("st.shared.u16 [%0], %1;" :: "r"(a), "r"(v) : "memory"); }
__device__ __forceinline__ void st_b32(unsigned a, unsigned v) { asm volatile("st.shared.b32 [%0], %1;" :: "r"(a), "r"(v) : "memory"); }
__device__ __forceinline__ void st_v2(unsigned a, unsigned x, unsigned y) { asm volatile("st.shared.v2.b32 [%0], {%1, %2};" :: "r"(a), "r"(x), "r"(y) : "memory"); }
__device__ __forceinline__ void st_v4(unsigned a, unsigned x, unsigned y, unsigned z, unsigned w) { asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" :: "r"(a), "r"(x), "r"(y), "r"(z), "r"(w) : "memory"); }
__device__ __forceinline__ unsigned ld_u8(unsigned a) { unsigned v; asm volatile("ld.shared.u8 %0, [%1];" : "=r"(v) : "r"(a) : "memory"); return v; }
__device__ __forceinline__ unsigned ld_u16(unsigned a) { unsigned v; asm volatile("ld.shared.u16 %0, [%1];" : "=r"(v) : "r"(a) : "memory"); return v; }
__device__ __forceinline__ unsigned ld_b32(unsigned a) { unsigned v; asm volatile("ld.shared.b32 %0, [%1];" : "=r"(v) : "r"(a) : "memory"); return v; }
__device__ __forceinline__ void ld_v2(unsigned a, unsigned& x, unsigned& y) { asm volatile("ld.shared.v2.b32 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "r"(a) : "memory"); }
__device__ __forceinline__ void ld_v4(unsigned a, unsigned& x, unsigned& y, unsigned& z, unsigned& w) { asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];" : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(a) : "memory"); }
#define WARPFORGE_MATRIX(SUF, Q)                                                                                   \
  __device__ __forceinline__ void stsm_x1##SUF(unsigned a, unsigned x) {                                           \
    asm volatile("stmatrix.sync.aligned.m8n8.x1" Q ".shared.b16 [%0], {%1};" :: "r"(a), "r"(x) : "memory");       \
  }                                                                                                                \
  __device__ __forceinline__ void stsm_x2##SUF(unsigned a, unsigned x, unsigned y) {                               \
    asm volatile("stmatrix.sync.aligned.m8n8.x2" Q ".shared.b16 [%0], {%1, %2};" :: "r"(a), "r"(x), "r"(y) : "memory"); \
  }                                                                                                                \
  __device__ __forceinline__ void stsm_x4##SUF(unsigned a, unsigned x, unsigned y, unsigned z, unsigned w) {       \
    asm volatile("stmatrix.sync.aligned.m8n8.x4" Q ".shared.b16 [%0], {%1, %2, %3, %4};"                           \
                 :: "r"(a), "r"(x), "r"(y), "r"(z), "r"(w) : "memory");                                          \
  }                                                                                                                \
  __device__ __forceinline__ void ldsm_x1##SUF(unsigned a, unsigned& x) {                                          \
    asm volatile("ldmatrix.sync.aligned.m8n8.x1" Q ".shared.b16 {%0}, [%1];" : "=r"(x) : "r"(a) : "memory");      \
  }                                                                                                                \
  __device__ __forceinline__ void ldsm_x2##SUF(unsigned a, unsigned& x, unsigned& y) {                             \
    asm volatile("ldmatrix.sync.aligned.m8n8.x2" Q ".shared.b16 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "r"(a) : "memory"); \
  }                                                                                                                \
  __device__ __forceinline__ void ldsm_x4##SUF(unsigned a, unsigned& x, unsigned& y, unsigned& z, unsigned& w) {   \
    asm volatile("ldmatrix.sync.aligned.m8n8.x4" Q ".shared.b16 {%0, %1, %2, %3}, [%4];"                           \
                 : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(a) : "memory");                                      \
  }
// ldmatrix needs sm_75, stmatrix sm_90; helpers use them only when planned for such a target.
WARPFORGE_MATRIX(, "")
WARPFORGE_MATRIX(_trans, ".trans")
#undef WARPFORGE_MATRIX
#else
// AMD (HIP): LDS accesses through 32-bit LDS (address space 3) pointers, which
// clang lowers to ds_write/ds_read of 1-16 bytes (ds_write_b128/ds_read_b128 at
// 16-byte alignment; the plans align every vector to its size). No
// ldmatrix/stmatrix: no AMD plan uses them.
typedef __attribute__((address_space(3))) unsigned char lds_u8;
typedef __attribute__((address_space(3))) unsigned short lds_u16;
typedef __attribute__((address_space(3))) unsigned lds_u32;
typedef unsigned u32x2 __attribute__((ext_vector_type(2)));
typedef unsigned u32x4 __attribute__((ext_vector_type(4)));
typedef __attribute__((address_space(3))) u32x2 lds_u32x2;
typedef __attribute__((address_space(3))) u32x4 lds_u32x4;
__device__ __forceinline__ unsigned smem_u32(const void* p) {
  return (unsigned)(__UINTPTR_TYPE__)(__attribute__((address_space(3))) const void*)p;
}
__device__ __forceinline__ void st_u8(unsigned a, unsigned v) { *(lds_u8*)a = (unsigned char)v; }
__device__ __forceinline__ void st_u16(unsigned a, unsigned v) { *(lds_u16*)a = (unsigned short)v; }
__device__ __forceinline__ void st_b32(unsigned a, unsigned v) { *(lds_u32*)a = v; }
__device__ __forceinline__ void st_v2(unsigned a, unsigned x, unsigned y) { *(lds_u32x2*)a = u32x2{x, y}; }
__device__ __forceinline__ void st_v4(unsigned a, unsigned x, unsigned y, unsigned z, unsigned w) { *(lds_u32x4*)a = u32x4{x, y, z, w}; }
__device__ __forceinline__ unsigned ld_u8(unsigned a) { return *(const lds_u8*)a; }
__device__ __forceinline__ unsigned ld_u16(unsigned a) { return *(const lds_u16*)a; }
__device__ __forceinline__ unsigned ld_b32(unsigned a) { return *(const lds_u32*)a; }
__device__ __forceinline__ void ld_v2(unsigned a, unsigned& x, unsigned& y) { const u32x2 q = *(const lds_u32x2*)a; x = q.x; y = q.y; }
__device__ __forceinline__ void ld_v4(unsigned a, unsigned& x, unsigned& y, unsigned& z, unsigned& w) { const u32x4 q = *(const lds_u32x4*)a; x = q.x; y = q.y; z = q.z; w = q.w; }
#endif  // __HIP__

}  // namespace detail
#if defined(__HIP__)
// AMD (HIP): the CUDA intrinsics a helper body calls, with CUDA's meaning, in
// namespace warpforge (found before any global ones by the bodies' unqualified
// calls). __byte_perm: PTX prmt.b32 (v_perm_b32 where no selector nibble asks
// for sign replication); __syncwarp: the wave's LDS accesses ordered, no
// barrier (a wave runs in lockstep).
__device__ __forceinline__ unsigned __byte_perm(unsigned a, unsigned b, unsigned s) {
  if ((s & 0x8888u) == 0u) {
    const unsigned sel = (s & 7u) | ((s >> 4) & 7u) << 8 | ((s >> 8) & 7u) << 16 | ((s >> 12) & 7u) << 24;
    return __builtin_amdgcn_perm(b, a, sel);
  }
  const unsigned long long q = (unsigned long long)a | (unsigned long long)b << 32;
  unsigned r = 0u;
  for (int i = 0; i < 4; ++i) {
    const unsigned n = (s >> (4 * i)) & 15u;
    unsigned byte = (unsigned)(q >> (8u * (n & 7u))) & 0xffu;
    if (n & 8u) byte = (byte & 0x80u) ? 0xffu : 0u;
    r |= byte << (8 * i);
  }
  return r;
}
__device__ __forceinline__ int __popc(unsigned x) { return __builtin_popcount(x); }
__device__ __forceinline__ void __syncwarp() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}
#endif  // __HIP__

// The element form's second template parameter (`wf_x<T, warpforge::words::src>(src, dst)`):
// which of its arrays of 8/16-bit elements move as natural 32-bit words (one 4-byte memcpy
// per word). An array held as words stays in 32-bit registers across the caller's code,
// its loop-carried values included (NVVM's scalar replacement splits it into words rather
// than one register per element), at the price of a prmt extract and insert for every
// element the caller then works on one at a time. Name the array you carry (a loop's
// accumulator that only these helpers touch): the forward call's `src`, the reverse call's
// `dst`. automatic is the emitter's choice per element width (the helper's header says
// which); none moves both element by element; both holds both as words. Widths and plans
// for which the header names no choice (32/64-bit, renames, no packed form) ignore it.
enum class words : unsigned { automatic, none, src, dst, both };
#elif WARPFORGE_DETAIL_H != 0x8c16f5bec4b7
#error "warpforge: headers from different warpforge versions in one translation unit (their warpforge::detail code differs); emit them with one version"
#endif  // WARPFORGE_DETAIL_H
