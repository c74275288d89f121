// Cluster layouts whose conversions keep every element in its CTA (equal
// block bases on both sides), as #ttg.linear with block bases: planned per
// CTA and proven on the CPU simulator for every CTA of the cluster.
// @bcast_1d_8: 8 CTAs that all hold the whole 64-element vector (three
// broadcast block bits, like Gluon's cga_layout [[0], [0], [0]]).
// @split_2d_4: 4 CTAs, block bit 0 splits dim0 and bit 1 broadcasts; each
// CTA transposes its 16x32 half.
#b8s = #ttg.linear<{register = [[32]], lane = [[1], [2], [4], [8], [16]], warp = [], block = [[0], [0], [0]]}>
#b8d = #ttg.linear<{register = [[1]], lane = [[2], [4], [8], [16], [32]], warp = [], block = [[0], [0], [0]]}>
#s4s = #ttg.linear<{register = [[0, 2], [0, 4], [0, 8], [0, 16]], lane = [[0, 1], [1, 0], [2, 0], [4, 0], [8, 0]], warp = [], block = [[16, 0], [0, 0]]}>
#s4d = #ttg.linear<{register = [[1, 0], [2, 0], [4, 0], [8, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = [], block = [[16, 0], [0, 0]]}>
module attributes {"ttg.num-ctas" = 8 : i32, "ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @bcast_1d_8(%x: tensor<64xi32, #b8s>) {
    %0 = ttg.convert_layout %x : tensor<64xi32, #b8s> -> tensor<64xi32, #b8d>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 4 : i32, "ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @split_2d_4(%x: tensor<32x32xf16, #s4s>) {
    %0 = ttg.convert_layout %x : tensor<32x32xf16, #s4s> -> tensor<32x32xf16, #s4d>
    tt.return
  }
}
