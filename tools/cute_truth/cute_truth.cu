// cute_truth: print CuTe's own thread-value (TV) layouts of CUTLASS's MMA
// atoms and of a few TiledMMAs, with CuTe's own evaluation of every
// (thread, value), as ground truth for warpforge's CuTe reader
// (tests/cute_truth.rs reads the output; tools/cute_truth/README.md says how
// to build and run it).
//
// Host code only: CuTe layouts are constexpr host/device code, so nothing
// runs on a GPU; the program compiles with nvcc (or any C++17 host compiler
// given the CUDA runtime headers that CuTe includes).
//
// Output, one record per line, fields separated by single spaces:
//
//   cute_truth cutlass MAJOR.MINOR.PATCH        (first line)
//   # ...                                       (comments)
//   layout NAME OPERAND ROWSxCOLS THREADS VALUES TEXT
//   eval NAME T IDX_0 IDX_1 ... IDX_{VALUES-1}
//
// - NAME: the atom's type name and the operand, `SM80_16x8x16_F32F16F16F32_TN.C`,
//   or `tiled.<...>.C` for a TiledMMA.
// - OPERAND: `A`, `B` or `C`. The tile is in CuTe's coordinate order:
//   A is (M,K), B is (N,K) (CuTe's B is N-major first, *not* PTX's K x N),
//   C is (M,N). ROWSxCOLS are the sizes of those two modes.
// - TEXT: the TV layout exactly as `cute::print(layout)` writes it (mode 0
//   the thread, mode 1 the value; no spaces). For an atom this is
//   MMA_Traits<Atom>::{A,B,C}Layout; for a TiledMMA it is
//   get_layout{A,B,C}_TV().
// - eval: for thread T (0 <= T < THREADS), `layout(T, v)` for every value
//   v = 0 .. VALUES-1, as CuTe computes it (each of T and v a 1-D index
//   into its mode, unpacked colexicographically). The result is an index
//   into the tile in column-major order: row = IDX mod ROWS, col = IDX / ROWS.
//   For atoms this is the codomain of the traits' layouts ("(T32,V4) ->
//   (M16,N8)" in mma_traits_sm80.hpp); for a TiledMMA the layouts are
//   composed onto ref_C = make_layout(make_shape(tile_M, tile_N)) (and ref_A
//   over (M,K), ref_B over (N,K)), compact column-major layouts: see
//   TiledMMA::get_layoutC_TV in cute/atom/mma_atom.hpp.
//
// Build and run: see tools/cute_truth/README.md.

#include <cstdio>

#include <cutlass/version.h>

#include <cute/tensor.hpp>
#include <cute/atom/mma_atom.hpp>
#include <cute/atom/mma_traits_sm80.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>

using namespace cute;

// One record: the layout line and its eval lines.
template <class Layout>
void emit(char const* name, char const* operand, int rows, int cols, Layout const& layout)
{
  int threads = int(size<0>(layout));
  int values  = int(size<1>(layout));
  printf("layout %s %s %dx%d %d %d ", name, operand, rows, cols, threads, values);
  print(layout);
  printf("\n");
  for (int t = 0; t < threads; ++t) {
    printf("eval %s %d", name, t);
    for (int v = 0; v < values; ++v) {
      printf(" %d", int(layout(t, v)));
    }
    printf("\n");
  }
}

// The A, B and C TV layouts of an MMA atom's traits (over (M,K), (N,K),
// (M,N)); `which` picks the operands ("ABC", "C", ...).
template <class Op>
void atom(char const* op_name, char const* which)
{
  using T = MMA_Traits<Op>;
  using S = typename T::Shape_MNK;
  int m = int(size<0>(S{})), n = int(size<1>(S{})), k = int(size<2>(S{}));
  char name[256];
  for (char const* w = which; *w; ++w) {
    snprintf(name, sizeof name, "%s.%c", op_name, *w);
    switch (*w) {
      case 'A': emit(name, "A", m, k, typename T::ALayout{}); break;
      case 'B': emit(name, "B", n, k, typename T::BLayout{}); break;
      case 'C': emit(name, "C", m, n, typename T::CLayout{}); break;
    }
  }
}

// The A, B and C TV layouts of a TiledMMA (get_layout{A,B,C}_TV(), over
// (M,K), (N,K), (M,N) of its tile); `which` picks the operands.
template <class TiledMma>
void tiled(char const* tiled_name, TiledMma const& mma, char const* which = "ABC")
{
  int m = int(tile_size<0>(mma)), n = int(tile_size<1>(mma)), k = int(tile_size<2>(mma));
  char name[256];
  for (char const* w = which; *w; ++w) {
    snprintf(name, sizeof name, "%s.%c", tiled_name, *w);
    switch (*w) {
      case 'A': emit(name, "A", m, k, mma.get_layoutA_TV()); break;
      case 'B': emit(name, "B", n, k, mma.get_layoutB_TV()); break;
      case 'C': emit(name, "C", m, n, mma.get_layoutC_TV()); break;
    }
  }
}

int main()
{
  printf("cute_truth cutlass %d.%d.%d\n", CUTLASS_MAJOR, CUTLASS_MINOR, CUTLASS_PATCH);
#if defined(__CUDACC_VER_MAJOR__)
  printf("# compiler: nvcc %d.%d.%d\n", __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__,
         __CUDACC_VER_BUILD__);
#elif defined(__VERSION__)
  printf("# compiler: host C++ %s\n", __VERSION__);
#endif
  printf("# layout NAME OPERAND ROWSxCOLS THREADS VALUES TEXT; eval NAME T IDX...;"
         " A over (M,K), B over (N,K), C over (M,N); IDX column-major\n");

  // SM80 mma.sync atoms
  atom<SM80_16x8x16_F32F16F16F32_TN>("SM80_16x8x16_F32F16F16F32_TN", "ABC");
  atom<SM80_16x8x16_F16F16F16F16_TN>("SM80_16x8x16_F16F16F16F16_TN", "ABC");
  atom<SM80_16x8x16_F32BF16BF16F32_TN>("SM80_16x8x16_F32BF16BF16F32_TN", "ABC");
  atom<SM80_16x8x32_S32S8S8S32_TN>("SM80_16x8x32_S32S8S8S32_TN", "ABC");
  atom<SM80_16x8x8_F32TF32TF32F32_TN>("SM80_16x8x8_F32TF32TF32F32_TN", "ABC");

  // SM90 GMMA accumulators (128 threads, a warpgroup). The SS atoms' A and B
  // are shared-memory descriptors (every thread sees the whole tile), not
  // register fragments: only C is printed. The RS atom's A is a register
  // fragment over (64,16).
  using K = GMMA::Major;
  atom<SM90_64x64x16_F32F16F16_SS<K::K, K::K>>("SM90_64x64x16_F32F16F16_SS", "C");
  atom<SM90_64x128x16_F32F16F16_SS<K::K, K::K>>("SM90_64x128x16_F32F16F16_SS", "C");
  atom<SM90_64x256x16_F32F16F16_SS<K::K, K::K>>("SM90_64x256x16_F32F16F16_SS", "C");
  atom<SM90_64x64x16_F32F16F16_RS<K::K, K::K>>("SM90_64x64x16_F32F16F16_RS", "A");

  // TiledMMAs of the SM80 16x8x16 atom
  tiled("tiled.SM80_16x8x16_F32F16F16F32_TN.2x2x1",
        make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2, _2, _1>>{}));
  tiled("tiled.SM80_16x8x16_F32F16F16F32_TN.4x1x1",
        make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_4, _1, _1>>{}));
  // value repeats: a 32x32x16 tile over 2x2 warps (2 atoms along N per warp)
  tiled("tiled.SM80_16x8x16_F32F16F16F32_TN.2x2x1.32x32x16",
        make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2, _2, _1>>{},
                       Tile<_32, _32, _16>{}));
  // value repeats along M and N: a 64x32x16 tile over 2x2 warps (2x2 atoms
  // per warp)
  tiled("tiled.SM80_16x8x16_F32F16F16F32_TN.2x2x1.64x32x16",
        make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2, _2, _1>>{},
                       Tile<_64, _32, _16>{}));
  // value repeats: a 64x32x16 tile over 4x1 warps (4 atoms along N per warp)
  tiled("tiled.SM80_16x8x16_F32F16F16F32_TN.4x1x1.64x32x16",
        make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_4, _1, _1>>{},
                       Tile<_64, _32, _16>{}));
  // a permuted N: tile column n' is column (n' mod 2) + 8 ((n' / 2) mod 4)
  // + 2 (n' / 8) of the 32-column tile
  tiled("tiled.SM80_16x8x16_F32F16F16F32_TN.2x2x1.32xP32x16",
        make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2, _2, _1>>{},
                       Tile<_32, Layout<Shape<_2, _4, _4>, Stride<_1, _8, _2>>, _16>{}));
  // a TiledMMA of two SM90 warpgroups along M (256 threads); its B is a
  // shared-memory descriptor (every thread the whole 64x16 tile), not printed
  tiled("tiled.SM90_64x64x16_F32F16F16_RS.2x1x1",
        make_tiled_mma(SM90_64x64x16_F32F16F16_RS<K::K, K::K>{}, Layout<Shape<_2, _1, _1>>{}),
        "AC");
  return 0;
}
