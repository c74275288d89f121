// One-warp conversions out of a layout whose lanes hold each datum 4 times
// (lane bits 3 and 4 broadcast): Triton 3.6's test_convert_warp_local_layouts
// (python/test/gluon/test_lowerings.py), 32x32, src _warp_local_layouts[13],
// dst [5] and [12], as Triton compiles them for cuda:90 (the f16 rows of
// results/runs/*/w1_over.ttgir), and the same pair at 8 bits. The split
// stores (SmemAccess::reg_xor, `/splitK`) choose whole 32-bit words per lane
// in the packed form (synth::plan::pack::store_word_choice):
// kernels/tests/split_store_words.rs.

#s13 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
#t5 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [1, 1], order = [1, 0]}>
#t12 = #ttg.blocked<{sizePerThread = [16, 1], threadsPerWarp = [2, 16], warpsPerCTA = [1, 1], order = [1, 0]}>

module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @s13_t5_f16(%x: tensor<32x32xf16, #s13>) {
    %0 = ttg.convert_layout %x : tensor<32x32xf16, #s13> -> tensor<32x32xf16, #t5>
    tt.return
  }
  tt.func @s13_t12_f16(%x: tensor<32x32xf16, #s13>) {
    %0 = ttg.convert_layout %x : tensor<32x32xf16, #s13> -> tensor<32x32xf16, #t12>
    tt.return
  }
  tt.func @s13_t5_i8(%x: tensor<32x32xi8, #s13>) {
    %0 = ttg.convert_layout %x : tensor<32x32xi8, #s13> -> tensor<32x32xi8, #t5>
    tt.return
  }
}
