// Conversions out of layouts with broadcast lane and warp bits: the row
// statistics of a matmul epilogue (a slice of an mma layout, held by 4 lanes
// and 2 warps each) back into a blocked layout, the reverse of
// mm_epilogue:73 and mm_epilogue:83 of corpus/ttgir/mmepi_*_w4_sm80.ttgir.
// The shared-memory plans let each copy of a datum store a different register
// (SmemAccess::reg_xor, plan strategy `/splitK`): 1 store per thread instead
// of 4 or 8. 8/16-bit data splits only where its packed form chooses whole
// 32-bit words (the register bits paired with the broadcast bits are not slot
// bits: synth::plan::pack::store_word_choice; tests/data/broadcast_stores_w1.mlir);
// the f16 slice -> slice case below does not. warpforge proves each on the CPU simulator
// (tests/cli/end_to_end.rs) and on the GPU (verify --gpu, in the GPU run).

#blocked1 = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#blocked2d = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>

module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @row_stats_to_blocked(%x: tensor<128xf32, #ttg.slice<{dim = 1, parent = #mma}>>) {
    %0 = ttg.convert_layout %x : tensor<128xf32, #ttg.slice<{dim = 1, parent = #mma}>> -> tensor<128xf32, #blocked1>
    tt.return
  }
  tt.func @col_stats_to_blocked(%x: tensor<128xf32, #ttg.slice<{dim = 0, parent = #mma}>>) {
    %0 = ttg.convert_layout %x : tensor<128xf32, #ttg.slice<{dim = 0, parent = #mma}>> -> tensor<128xf32, #blocked1>
    tt.return
  }
  tt.func @row_stats_to_slice_of_blocked(%x: tensor<64xf16, #ttg.slice<{dim = 1, parent = #mma}>>) {
    %0 = ttg.convert_layout %x : tensor<64xf16, #ttg.slice<{dim = 1, parent = #mma}>> -> tensor<64xf16, #ttg.slice<{dim = 1, parent = #blocked2d}>>
    tt.return
  }
}
