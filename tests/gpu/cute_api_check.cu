// The CuTe overloads of `warpforge emit --api cute` against the array forms,
// on the GPU. Built and run by tests/gpu/cute_api_check.sh, which emits the
// two headers included here:
//   wf_cute_fig3.cuh: wf_fig3, ptx:mma.m16n8k16.c.f32 -> ptx:mma.m16n8k32.a.e4m3
//                     over 16x32, 1 warp (shuffles; 16 -> 16 registers; packed
//                     forms for 16 and 8 bits)
//   wf_cute_tr32.cuh: wf_tr32, a 32x32 blocked transpose over 4 warps forced
//                     through shared memory (8 -> 8 registers, `smem` argument;
//                     packed forms for 16 and 8 bits)
// For each helper and form (element overload with float, packed16 with
// cute::half_t, packed8 with int8_t) a kernel fills a CuTe register fragment
// (cute::make_tensor<T>(Layout{})) and a plain array with the same tags,
// src(i) == a[i], calls the CuTe overload on the fragment and the array form
// on the array, and writes dst(i) and b[i]: the host requires them equal, bit
// for bit, in every slot of every thread of two CTAs. Fragment layouts are
// deliberately not the identity (row-major, nested), so that a fragment read
// in storage order instead of CuTe's coordinate order fails.
// With -DWF_NEGATIVE=N the file must NOT compile (the script checks the
// message): 1 a fragment of the wrong size, 2 a gmem tensor, 3 mixed element
// types, 4 a packed16 call on floats, 5 a slice (a view) of a fragment.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "wf_cute_fig3.cuh"
#include "wf_cute_tr32.cuh"

#ifndef WARPFORGE_HAS_CUTE
#error "the CuTe overloads are missing: <cute/tensor.hpp> was not found (pass -I <cutlass>/include)"
#endif

using namespace cute;

#define CHECK_CUDA(x)                                                              \
  do {                                                                             \
    cudaError_t e_ = (x);                                                          \
    if (e_ != cudaSuccess) {                                                       \
      std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(2);                                                                \
    }                                                                              \
  } while (0)

// The tag of register i of global thread t, as a T (distinct per register).
template <class T> __device__ T tag(unsigned t, unsigned i);
template <> __device__ float tag<float>(unsigned t, unsigned i) { return float(t * 64u + i); }
template <> __device__ half_t tag<half_t>(unsigned t, unsigned i) {
  return half_t::bitcast(uint16_t((t * 64u + i) & 0x3fffu));  // finite halves only
}
template <> __device__ int8_t tag<int8_t>(unsigned t, unsigned i) { return int8_t((t * 5u + i * 17u) & 0xffu); }

template <class T> __device__ unsigned bits(T v) {
  unsigned u = 0;
  memcpy(&u, &v, sizeof(T));
  return u;
}

// The two helpers under test, with every form, behind one interface.
struct Fig3 {
  static constexpr int kSrc = 16, kDst = 16, kThreads = 32;
  static constexpr unsigned kSmem = 16;  // no scratch; a dummy for the kernel
  static constexpr const char* kName = "wf_fig3";
  typedef Layout<Shape<_4, _4>, Stride<_4, _1>> SrcLayout;                         // row-major
  typedef Layout<Shape<_2, Shape<_2, _4>>, Stride<_1, Stride<_8, _2>>> DstLayout;  // nested
  template <class T> __device__ static void array(const T (&a)[kSrc], T (&b)[kDst], void*) { warpforge::wf_fig3<T>(a, b); }
  template <class S, class D> __device__ static void element(const S& s, D& d, void*) { warpforge::wf_fig3(s, d); }
  template <class S, class D> __device__ static void packed16(const S& s, D& d, void*) { warpforge::wf_fig3_packed16(s, d); }
  template <class S, class D> __device__ static void packed8(const S& s, D& d, void*) { warpforge::wf_fig3_packed8(s, d); }
};

struct Tr32 {
  static constexpr int kSrc = 8, kDst = 8, kThreads = 128;
  static constexpr unsigned kSmem = warpforge::wf_tr32_smem_bytes<float>;  // the widest element used
  static constexpr const char* kName = "wf_tr32";
  typedef Layout<Shape<_8>> SrcLayout;                    // identity
  typedef Layout<Shape<_2, _4>, Stride<_4, _1>> DstLayout;  // row-major
  template <class T> __device__ static void array(const T (&a)[kSrc], T (&b)[kDst], void* smem) { warpforge::wf_tr32<T>(a, b, smem); }
  template <class S, class D> __device__ static void element(const S& s, D& d, void* smem) { warpforge::wf_tr32(s, d, smem); }
  template <class S, class D> __device__ static void packed16(const S& s, D& d, void* smem) { warpforge::wf_tr32_packed16(s, d, smem); }
  template <class S, class D> __device__ static void packed8(const S& s, D& d, void* smem) { warpforge::wf_tr32_packed8(s, d, smem); }
};

// kForm 0: the element overload; 16 or 8: the packed overload of that width.
template <class H, class T, int kForm>
__global__ void __launch_bounds__(H::kThreads) check(unsigned* out_cute, unsigned* out_array, unsigned* in_tags) {
  __shared__ __align__(16) unsigned char smem[H::kSmem];
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  auto src = make_tensor<T>(typename H::SrcLayout{});
  auto dst = make_tensor<T>(typename H::DstLayout{});
  T a[H::kSrc];
  T b[H::kDst];
  CUTE_UNROLL
  for (int i = 0; i < H::kSrc; ++i) {
    T v = tag<T>(t, i);
    src(i) = v;
    a[i] = v;
    in_tags[t * H::kSrc + i] = bits(v);
  }
  if constexpr (kForm == 0) {
    H::element(src, dst, smem);
  } else if constexpr (kForm == 16) {
    H::packed16(src, dst, smem);
  } else {
    H::packed8(src, dst, smem);
  }
  __syncthreads();  // the scratch is reused by the array form
  H::array(a, b, smem);
  CUTE_UNROLL
  for (int i = 0; i < H::kDst; ++i) {
    out_cute[t * H::kDst + i] = bits(dst(i));
    out_array[t * H::kDst + i] = bits(b[i]);
  }
}

#ifdef WF_NEGATIVE
__global__ void negative(float* p) {
#if WF_NEGATIVE == 1
  auto s = make_tensor<float>(Layout<_8>{});  // wf_fig3 takes 16 source registers
  auto d = make_tensor<float>(Layout<_16>{});
  warpforge::wf_fig3(s, d);
#elif WF_NEGATIVE == 2
  auto s = make_tensor(make_gmem_ptr(p), Layout<_16>{});  // global memory, not registers
  auto d = make_tensor<float>(Layout<_16>{});
  warpforge::wf_fig3(s, d);
#elif WF_NEGATIVE == 3
  auto s = make_tensor<float>(Layout<_16>{});
  auto d = make_tensor<half_t>(Layout<_16>{});
  warpforge::wf_fig3(s, d);
#elif WF_NEGATIVE == 4
  auto s = make_tensor<float>(Layout<_16>{});
  auto d = make_tensor<float>(Layout<_16>{});
  warpforge::wf_fig3_packed16(s, d);
#elif WF_NEGATIVE == 5
  auto whole = make_tensor<float>(Layout<Shape<_16, _2>>{});
  auto s = whole(_, 0);  // a view of registers: refused, copy it into a fragment first
  auto d = make_tensor<float>(Layout<_16>{});
  warpforge::wf_fig3(s, d);
#endif
  p[threadIdx.x] = 0.f;
}
#endif

template <class H, class T, int kForm>
static int run(const char* form) {
  const int ctas = 2, threads = H::kThreads * ctas;
  unsigned *cute_d, *array_d, *tags_d;
  CHECK_CUDA(cudaMalloc(&cute_d, sizeof(unsigned) * threads * H::kDst));
  CHECK_CUDA(cudaMalloc(&array_d, sizeof(unsigned) * threads * H::kDst));
  CHECK_CUDA(cudaMalloc(&tags_d, sizeof(unsigned) * threads * H::kSrc));
  CHECK_CUDA(cudaMemset(cute_d, 0xff, sizeof(unsigned) * threads * H::kDst));
  CHECK_CUDA(cudaMemset(array_d, 0xee, sizeof(unsigned) * threads * H::kDst));
  check<H, T, kForm><<<ctas, H::kThreads>>>(cute_d, array_d, tags_d);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  const int n = threads * H::kDst;
  unsigned* c = new unsigned[n];
  unsigned* a = new unsigned[n];
  unsigned* in = new unsigned[threads * H::kSrc];
  CHECK_CUDA(cudaMemcpy(c, cute_d, sizeof(unsigned) * n, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(a, array_d, sizeof(unsigned) * n, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(in, tags_d, sizeof(unsigned) * threads * H::kSrc, cudaMemcpyDeviceToHost));
  int bad = 0, moved = 0, first = -1;
  for (int k = 0; k < n; ++k) {
    if (c[k] != a[k]) {
      if (first < 0) first = k;
      ++bad;
    }
    // a slot whose value is not its own source slot's: the conversion moves data
    const int t = k / H::kDst, i = k % H::kDst;
    if (i >= H::kSrc || a[k] != in[t * H::kSrc + i]) ++moved;
  }
  std::printf("%s %s: %d slots, %d mismatches, %d moved", H::kName, form, n, bad, moved);
  if (first >= 0) {
    std::printf(" (first: thread %d register %d: cute %#x, array %#x)", first / H::kDst, first % H::kDst, c[first], a[first]);
  }
  std::printf("\n");
  delete[] c;
  delete[] a;
  delete[] in;
  CHECK_CUDA(cudaFree(cute_d));
  CHECK_CUDA(cudaFree(array_d));
  CHECK_CUDA(cudaFree(tags_d));
  return bad != 0 || moved == 0;
}

int main() {
  int failed = 0;
  failed += run<Fig3, float, 0>("element<float>");
  failed += run<Fig3, half_t, 16>("packed16<half_t>");
  failed += run<Fig3, int8_t, 8>("packed8<int8_t>");
  failed += run<Tr32, float, 0>("element<float>");
  failed += run<Tr32, half_t, 16>("packed16<half_t>");
  failed += run<Tr32, int8_t, 8>("packed8<int8_t>");
  std::printf("cute_api_check: %s (%d of 6 cases failed)\n", failed ? "FAILED" : "PASSED", failed);
  return failed ? 1 : 0;
}
