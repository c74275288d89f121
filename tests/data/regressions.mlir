// Regression cases from Triton's bug record for packed (8/16-bit) warp-local
// conversions (docs/ARCHITECTURE.md 4.3). warpforge proves each on the CPU simulator
// (tests/cli/end_to_end.rs) and on the GPU (verify --gpu, in the GPU run).
//
// #7899: the 16x8 fp8 mma -> blocked conversion that Triton PR 7809's byte
// permutes miscompiled (reverted in PR 7899; layouts from its description),
// in both directions.
// #9680: 2x8 int16 with m = 2 register<->lane transpositions and a packed
// register bit, the path of getTranspositionSelectors that Triton PR 9680
// disabled (it lowered such conversions wrongly); written here as linear
// layouts of that shape, in both directions.

#blocked2 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#src9680 = #ttg.linear<{register = [[0, 1], [0, 2], [0, 4]], lane = [[1, 0], [0, 0], [0, 0], [0, 0], [0, 0]], warp = [], block = []}>
#dst9680 = #ttg.linear<{register = [[0, 1], [1, 0]], lane = [[0, 2], [0, 4], [0, 0], [0, 0], [0, 0]], warp = [], block = []}>

module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @issue7899_mma_to_blocked_fp8(%x: tensor<16x8xf8E5M2, #mma>) {
    %0 = ttg.convert_layout %x : tensor<16x8xf8E5M2, #mma> -> tensor<16x8xf8E5M2, #blocked2>
    tt.return
  }
  tt.func @issue7899_blocked_to_mma_fp8(%x: tensor<16x8xf8E5M2, #blocked2>) {
    %0 = ttg.convert_layout %x : tensor<16x8xf8E5M2, #blocked2> -> tensor<16x8xf8E5M2, #mma>
    tt.return
  }
  tt.func @issue9680_i16_m2(%x: tensor<2x8xi16, #src9680>) {
    %0 = ttg.convert_layout %x : tensor<2x8xi16, #src9680> -> tensor<2x8xi16, #dst9680>
    tt.return
  }
  tt.func @issue9680_i16_m2_back(%x: tensor<2x8xi16, #dst9680>) {
    %0 = ttg.convert_layout %x : tensor<2x8xi16, #dst9680> -> tensor<2x8xi16, #src9680>
    tt.return
  }
}
