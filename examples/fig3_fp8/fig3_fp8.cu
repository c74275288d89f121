// fig3_fp8: the Linear Layouts paper's figure 3 conversion in a kernel.
//
// An attention-like inner loop per warp (no softmax; what matters is the
// register layout): for each block of 32 keys,
//   S (16x32, f32)  = Q (16x16 f16) * K_blk^T        4 x mma.m16n8k16 (f16 -> f32)
//   P (16x32, e4m3) = fp8(S)                          cvt.rn.satfinite.e4m3x2.f32
//   O (16x16, f32) += P * V_blk (32x16 e4m3)          2 x mma.m16n8k32 (e4m3 -> f32)
// S comes out in the m16n8k16 C/accumulator register order, and P must go in
// in the m16n8k32 8-bit A operand order: the conversion FA3 hand-codes as
// permute_Cregs_fp8. Here it is warpforge's helper wf_fig3 (wf_fig3.cuh),
// emitted from the pair of named fragments
//   --src ptx:mma.m16n8k16.c.f32 --dst ptx:mma.m16n8k32.a.e4m3 --shape 16x32 --warps 1 --dtype f8E4M3FN
// (4 shuffles and byte permutes, no shared memory), against the same kernel
// with the conversion through shared memory (each warp stores its P bytes in
// the accumulator layout to a warp-private 16x32 tile, rows padded to 48
// bytes so that neither the 16-bit stores nor the 32-bit loads conflict,
// __syncwarp, and loads its A operand words back).
//
// Checks: the first key block's A operand words of warp 0 are compared with a
// host reference (every byte where the PTX ISA's m16n8k32 A figure puts it),
// and every O against a host reference: Q and K hold integers in [-2, 2]
// and V in [-1, 1], so S is an exact integer, fp8 rounding is done on the host by
// CUDA's own conversion, and O is an exact integer.
// Then both kernels are timed (CUDA events, median of 9 samples of 50
// launches; 4 warps per CTA, 8 CTAs per SM).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include "../common/timing.h"
#include "wf_fig3.cuh"

constexpr int kD = 16;      // head dimension: one k16 step for Q K^T, two n8 tiles for P V
constexpr int kPadRow = 48; // bytes per row of the shared-memory P tile

__device__ __forceinline__ void mma_f16(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
  asm(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ __forceinline__ void mma_e4m3(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
  asm(
      "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ __forceinline__ unsigned fp8x2(float lo, float hi) {
  return unsigned(__nv_cvt_float2_to_fp8x2(make_float2(lo, hi), __NV_SATFINITE, __NV_E4M3));  // lo in the low byte
}

// Q: [nq][16] f16 row-major; Kmat: [L][16] f16 row-major; Vt: [16][L] e4m3
// (V transposed: d-major); O: [nq][16] f32; dbg: 32 x 4 words (warp 0 of
// CTA 0, first key block: the A operand of the P V mma).
template <bool kWf>
__global__ void __launch_bounds__(128) attn_fp8(const __half* Q, const __half* Kmat, const uint8_t* Vt, float* O,
                                                int L, unsigned* dbg) {
  __shared__ __align__(16) uint8_t sP[4][16 * kPadRow];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, tig = lane & 3;
  const int q0 = (int(blockIdx.x) * 4 + warp) * 16;

  // Q as the A operand of m16n8k16 (PTX ISA figure: a0,a1 row g cols 2tig..;
  // a2,a3 row g+8; a4..a7 the same 8 columns on).
  const unsigned* Qw = reinterpret_cast<const unsigned*>(Q);  // 8 words per row
  const unsigned qa[4] = {Qw[(q0 + g) * 8 + tig], Qw[(q0 + g + 8) * 8 + tig], Qw[(q0 + g) * 8 + tig + 4],
                          Qw[(q0 + g + 8) * 8 + tig + 4]};
  const unsigned* Kw = reinterpret_cast<const unsigned*>(Kmat);
  const unsigned* Vw = reinterpret_cast<const unsigned*>(Vt);
  float o[2][4] = {};

  for (int kb = 0; kb < L; kb += 32) {
    // S = Q K^T: n-tile j holds keys kb + 8j .. kb + 8j + 7.
    float s[4][4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int key = kb + 8 * j + g;  // B column n = g; b0,b1: k = 2tig, 2tig+1; b2,b3: k + 8
      const unsigned b[2] = {Kw[key * 8 + tig], Kw[key * 8 + tig + 4]};
      s[j][0] = s[j][1] = s[j][2] = s[j][3] = 0.f;
      mma_f16(s[j], qa, b);
    }
    // P = fp8(S) in the C fragment's register order, 4 bytes a word:
    // word j = {c0, c1, c2, c3} of n-tile j = registers 4j .. 4j+3.
    unsigned pw[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) pw[j] = fp8x2(s[j][0], s[j][1]) | (fp8x2(s[j][2], s[j][3]) << 16);

    // P in the m16n8k32 A operand order: a0..a3 row g, cols 4tig..4tig+3;
    // a4..a7 row g+8; a8..a15 the same 16 columns on.
    unsigned pa[4];
    if constexpr (kWf) {
      uint8_t src[16], dst[16];
      memcpy(src, pw, 16);
      warpforge::wf_fig3(src, dst);
      memcpy(pa, dst, 16);
    } else {
      uint8_t* sp = sP[warp];
      __syncwarp();  // the previous block's loads are done
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        *reinterpret_cast<uint16_t*>(sp + g * kPadRow + 8 * j + 2 * tig) = uint16_t(pw[j] & 0xffffu);
        *reinterpret_cast<uint16_t*>(sp + (g + 8) * kPadRow + 8 * j + 2 * tig) = uint16_t(pw[j] >> 16);
      }
      __syncwarp();
      pa[0] = *reinterpret_cast<const unsigned*>(sp + g * kPadRow + 4 * tig);
      pa[1] = *reinterpret_cast<const unsigned*>(sp + (g + 8) * kPadRow + 4 * tig);
      pa[2] = *reinterpret_cast<const unsigned*>(sp + g * kPadRow + 16 + 4 * tig);
      pa[3] = *reinterpret_cast<const unsigned*>(sp + (g + 8) * kPadRow + 16 + 4 * tig);
    }
    if (kb == 0 && blockIdx.x == 0 && warp == 0)
      for (int w = 0; w < 4; ++w) dbg[lane * 4 + w] = pa[w];

    // O += P V: n-tile n holds d = 8n .. 8n+7; b0..b3: k = 4tig..4tig+3, b4..b7: k + 16; column g.
#pragma unroll
    for (int n = 0; n < 2; ++n) {
      const int d = 8 * n + g;
      const unsigned b[2] = {Vw[(d * L + kb + 4 * tig) / 4], Vw[(d * L + kb + 16 + 4 * tig) / 4]};
      mma_e4m3(o[n], pa, b);
    }
  }
#pragma unroll
  for (int n = 0; n < 2; ++n) {
    const int c = 8 * n + 2 * tig;
    *reinterpret_cast<float2*>(O + size_t(q0 + g) * kD + c) = make_float2(o[n][0], o[n][1]);
    *reinterpret_cast<float2*>(O + size_t(q0 + g + 8) * kD + c) = make_float2(o[n][2], o[n][3]);
  }
}

int main(int argc, char** argv) {
  int dev = 0, sms = 0;
  EX_CHECK(cudaGetDevice(&dev));
  EX_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const int ctas = argc > 1 ? atoi(argv[1]) : 8 * sms;
  const int L = argc > 2 ? atoi(argv[2]) : 1024;
  if (ctas <= 0 || L <= 0 || L % 32) {
    fprintf(stderr, "usage: fig3_fp8 [CTAS [L]], L a multiple of 32\n");
    return 2;
  }
  const int nq = ctas * 64;
  print_device();
  printf("%d CTAs x 4 warps, %d query rows, %d keys (%d blocks of 32 per warp), head dim %d\n", ctas, nq, L, L / 32,
         kD);

  uint32_t seed = 777u;
  auto rnd = [&]() { seed = seed * 1664525u + 1013904223u; return int((seed >> 8) % 5u) - 2; };
  std::vector<int> qi(size_t(nq) * kD), ki(size_t(L) * kD), vi(size_t(L) * kD);  // V as [L][16]
  for (auto& x : qi) x = rnd();
  for (auto& x : ki) x = rnd();
  for (auto& x : vi) x = rnd() / 2;  // V in [-1, 1]
  std::vector<__half> qh(qi.size()), kh(ki.size());
  for (size_t i = 0; i < qi.size(); ++i) qh[i] = __float2half_rn(float(qi[i]));
  for (size_t i = 0; i < ki.size(); ++i) kh[i] = __float2half_rn(float(ki[i]));
  std::vector<uint8_t> vt(size_t(kD) * L);
  for (int j = 0; j < L; ++j)
    for (int d = 0; d < kD; ++d) vt[size_t(d) * L + j] = __nv_cvt_float_to_fp8(float(vi[size_t(j) * kD + d]), __NV_SATFINITE, __NV_E4M3);

  // fp8 of every integer S can take (|S| <= 16 * 4), by CUDA's host conversion.
  uint8_t fp8_of[129];
  int val_of[129];
  for (int x = -64; x <= 64; ++x) {
    fp8_of[x + 64] = __nv_cvt_float_to_fp8(float(x), __NV_SATFINITE, __NV_E4M3);
    __half_raw hr = __nv_cvt_fp8_to_halfraw(fp8_of[x + 64], __NV_E4M3);
    val_of[x + 64] = int(__half2float(__half(hr)));
  }
  auto s_int = [&](int i, int j) {
    int s = 0;
    for (int k = 0; k < kD; ++k) s += qi[size_t(i) * kD + k] * ki[size_t(j) * kD + k];
    return s;
  };
  // Host reference O (exact integers).
  std::vector<long long> oref(size_t(nq) * kD, 0);
  for (int i = 0; i < nq; ++i)
    for (int j = 0; j < L; ++j) {
      const int p = val_of[s_int(i, j) + 64];
      if (p)
        for (int d = 0; d < kD; ++d) oref[size_t(i) * kD + d] += (long long)p * vi[size_t(j) * kD + d];
    }
  // Host reference of the converted registers (warp 0 of CTA 0, keys 0..31):
  // byte r of lane l = P[row][col], row = g + 8 ((r >> 2) & 1), col = 4 tig + (r & 3) + 16 (r >> 3).
  std::vector<unsigned> aref(32 * 4, 0);
  for (int l = 0; l < 32; ++l)
    for (int r = 0; r < 16; ++r) {
      const int row = (l >> 2) + 8 * ((r >> 2) & 1), col = 4 * (l & 3) + (r & 3) + 16 * (r >> 3);
      aref[l * 4 + r / 4] |= unsigned(fp8_of[s_int(row, col) + 64]) << (8 * (r % 4));
    }

  __half *Q, *Kd;
  uint8_t* V;
  float* O[2];
  unsigned* dbg[2];
  EX_CHECK(cudaMalloc(&Q, qh.size() * 2));
  EX_CHECK(cudaMalloc(&Kd, kh.size() * 2));
  EX_CHECK(cudaMalloc(&V, vt.size()));
  EX_CHECK(cudaMemcpy(Q, qh.data(), qh.size() * 2, cudaMemcpyHostToDevice));
  EX_CHECK(cudaMemcpy(Kd, kh.data(), kh.size() * 2, cudaMemcpyHostToDevice));
  EX_CHECK(cudaMemcpy(V, vt.data(), vt.size(), cudaMemcpyHostToDevice));
  const char* names[2] = {"smem", "warpforge"};
  bool ok_all = true;
  size_t bad_o[2], bad_a[2];
  double maxdiff[2];
  std::vector<float> oh(size_t(nq) * kD);
  std::vector<unsigned> ah(32 * 4);
  for (int v = 0; v < 2; ++v) {
    EX_CHECK(cudaMalloc(&O[v], oh.size() * 4));
    EX_CHECK(cudaMalloc(&dbg[v], ah.size() * 4));
    EX_CHECK(cudaMemset(O[v], 0xff, oh.size() * 4));
    EX_CHECK(cudaMemset(dbg[v], 0, ah.size() * 4));
    if (v) attn_fp8<true><<<ctas, 128>>>(Q, Kd, V, O[v], L, dbg[v]);
    else attn_fp8<false><<<ctas, 128>>>(Q, Kd, V, O[v], L, dbg[v]);
    EX_CHECK(cudaGetLastError());
    EX_CHECK(cudaDeviceSynchronize());
    EX_CHECK(cudaMemcpy(oh.data(), O[v], oh.size() * 4, cudaMemcpyDeviceToHost));
    EX_CHECK(cudaMemcpy(ah.data(), dbg[v], ah.size() * 4, cudaMemcpyDeviceToHost));
    bad_o[v] = 0, bad_a[v] = 0, maxdiff[v] = 0;
    for (size_t i = 0; i < oh.size(); ++i) {
      const double diff = fabs(double(oh[i]) - double(oref[i]));
      bad_o[v] += diff != 0.0;
      maxdiff[v] = diff > maxdiff[v] ? diff : maxdiff[v];
    }
    for (int i = 0; i < 128; ++i) bad_a[v] += ah[i] != aref[i];
    ok_all = ok_all && bad_o[v] == 0 && bad_a[v] == 0;
  }

  double us[2];
  us[0] = median_us([&] { attn_fp8<false><<<ctas, 128>>>(Q, Kd, V, O[0], L, dbg[0]); });
  us[1] = median_us([&] { attn_fp8<true><<<ctas, 128>>>(Q, Kd, V, O[1], L, dbg[1]); });

  printf("\n| P conversion | A registers vs host (128 words) | O vs host (exact) | us per launch (median) | vs smem |\n");
  printf("|---|---|---|---|---|\n");
  for (int v = 0; v < 2; ++v)
    printf("| %s | %s (%zu differ) | %s (%zu of %zu differ, max |diff| %g) | %.2f | %.3fx |\n", names[v],
           bad_a[v] ? "FAIL" : "ok", bad_a[v], bad_o[v] ? "FAIL" : "ok", bad_o[v], oh.size(), maxdiff[v], us[v],
           us[v] / us[0]);
  printf("\nwarpforge / smem time ratio: %.3f\n", us[1] / us[0]);
  printf("%s\n", ok_all ? "ALL OK" : "FAILED");
  return ok_all ? 0 : 1;
}
