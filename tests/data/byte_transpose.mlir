// Register-only conversions of packed 8-bit data that are byte transposes
// inside a thread (docs/ARCHITECTURE.md 4.3): both layouts have the same lanes; the
// register bases span the same rows, but no register vector is common to
// both, so the packed words (4 elements of the lowest two register bits)
// mix: every destination word takes one byte from each of 4 source words.
// Built word by word that is 3 prmt per word (12 per 4 words); the shared
// prmt network (synth::plan::pack::network) does 2 stages of 4 (8). The
// i16 and f16 cases are the same layouts with 2 elements per word (one prmt
// per word, already minimal). tests/cli/end_to_end.rs plans, emits and verifies them.

#rows = #ttg.linear<{register = [[1, 0], [2, 0], [4, 0], [8, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = [], block = []}>
#mixed = #ttg.linear<{register = [[5, 0], [10, 0], [12, 0], [7, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = [], block = []}>

module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @byte_transpose_i8(%x: tensor<16x32xi8, #rows>) {
    %0 = ttg.convert_layout %x : tensor<16x32xi8, #rows> -> tensor<16x32xi8, #mixed>
    tt.return
  }
  tt.func @byte_transpose_i8_back(%x: tensor<16x32xi8, #mixed>) {
    %0 = ttg.convert_layout %x : tensor<16x32xi8, #mixed> -> tensor<16x32xi8, #rows>
    tt.return
  }
  tt.func @half_transpose_f16(%x: tensor<16x32xf16, #rows>) {
    %0 = ttg.convert_layout %x : tensor<16x32xf16, #rows> -> tensor<16x32xf16, #mixed>
    tt.return
  }
}
