#a = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 1 : i32} {
  tt.func @f(%x: tensor<32x32xf32, #a>) {
    %0 = ttg.convert_layout %x : tensor<32x32xf32, #a> -> tensor<16x64xf32, #a>
    tt.return
  }
}
