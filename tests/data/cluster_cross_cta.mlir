// Cross-CTA conversions at 2, 4 and 8 CTAs, 1-D and 2-D, with broadcast
// block bits, after the cluster cases of Triton's Gluon lowering tests
// (python/test/gluon/test_lowerings.py, PR 9317: convert_layout between
// CGA layouts that split different dims), written as #ttg.linear with
// block bases. Data moves between the CTAs of the cluster: distributed
// shared memory (docs/ARCHITECTURE.md 4.7).
// @c2_1d: 2 CTAs, halves -> interleaved 32-element blocks.
// @c4_1d_bcast: 4 CTAs; the source splits 64 elements in two (bit 1
// broadcasts), the destination holds all 64 in every CTA.
// @c8_1d: 8 CTAs, contiguous 32-element blocks -> cyclic by element.
// @c2_2d: 2 CTAs, split dim0 -> split dim1 (32x32).
// @c4_2d_bcast: 4 CTAs, split both dims -> split dim0, bit 1 broadcast.
// @c8_2d: 8 CTAs, 2 warps, 16x16 tiles -> rows and columns interleaved.
// @c2_keep_half: 2 CTAs; each destination CTA keeps the 32 elements it
// holds in register 0 (its own source elements: the reader-loads-remotely
// plan reads them with a plain ld.shared) and takes register 1 (elements
// 16..31 of each half, lane 4 a broadcast) from its peer.
#c2a = #ttg.linear<{register = [[1]], lane = [[2], [4], [8], [16], [32]], warp = [], block = [[64]]}>
#c2b = #ttg.linear<{register = [[64]], lane = [[1], [2], [4], [8], [16]], warp = [], block = [[32]]}>
#c4a = #ttg.linear<{register = [], lane = [[1], [2], [4], [8], [16]], warp = [], block = [[32], [0]]}>
#c4b = #ttg.linear<{register = [[32]], lane = [[1], [2], [4], [8], [16]], warp = [], block = [[0], [0]]}>
#c8a = #ttg.linear<{register = [], lane = [[1], [2], [4], [8], [16]], warp = [], block = [[32], [64], [128]]}>
#c8b = #ttg.linear<{register = [], lane = [[8], [16], [32], [64], [128]], warp = [], block = [[1], [2], [4]]}>
#k2a = #ttg.linear<{register = [], lane = [[1], [2], [4], [8], [16]], warp = [], block = [[32]]}>
#k2b = #ttg.linear<{register = [[48]], lane = [[1], [2], [4], [8], [0]], warp = [], block = [[32]]}>
#d2a = #ttg.linear<{register = [[1, 0], [2, 0], [4, 0], [8, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = [], block = [[16, 0]]}>
#d2b = #ttg.linear<{register = [[0, 1], [0, 2], [0, 4], [0, 8]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [], block = [[0, 16]]}>
#d4a = #ttg.linear<{register = [[2, 0], [4, 0], [8, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0]], warp = [], block = [[16, 0], [0, 16]]}>
#d4b = #ttg.linear<{register = [[0, 2], [0, 4], [0, 8], [0, 16]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1]], warp = [], block = [[16, 0], [0, 0]]}>
#d8a = #ttg.linear<{register = [[0, 1], [0, 2]], lane = [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], warp = [[8, 0]], block = [[0, 16], [16, 0], [32, 0]]}>
#d8b = #ttg.linear<{register = [[0, 2], [0, 4]], lane = [[0, 8], [0, 16], [4, 0], [8, 0], [16, 0]], warp = [[32, 0]], block = [[1, 0], [2, 0], [0, 1]]}>
module attributes {"ttg.num-ctas" = 2 : i32, "ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @c2_1d(%x: tensor<128xi32, #c2a>) {
    %0 = ttg.convert_layout %x : tensor<128xi32, #c2a> -> tensor<128xi32, #c2b>
    tt.return
  }
  tt.func @c2_2d(%x: tensor<32x32xf16, #d2a>) {
    %0 = ttg.convert_layout %x : tensor<32x32xf16, #d2a> -> tensor<32x32xf16, #d2b>
    tt.return
  }
  tt.func @c2_keep_half(%x: tensor<64xi32, #k2a>) {
    %0 = ttg.convert_layout %x : tensor<64xi32, #k2a> -> tensor<64xi32, #k2b>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 4 : i32, "ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @c4_1d_bcast(%x: tensor<64xf32, #c4a>) {
    %0 = ttg.convert_layout %x : tensor<64xf32, #c4a> -> tensor<64xf32, #c4b>
    tt.return
  }
  tt.func @c4_2d_bcast(%x: tensor<32x32xi8, #d4a>) {
    %0 = ttg.convert_layout %x : tensor<32x32xi8, #d4a> -> tensor<32x32xi8, #d4b>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 8 : i32, "ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @c8_1d(%x: tensor<256xi32, #c8a>) {
    %0 = ttg.convert_layout %x : tensor<256xi32, #c8a> -> tensor<256xi32, #c8b>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 8 : i32, "ttg.num-warps" = 2 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @c8_2d(%x: tensor<64x32xf16, #d8a>) {
    %0 = ttg.convert_layout %x : tensor<64x32xf16, #d8a> -> tensor<64x32xf16, #d8b>
    tt.return
  }
}
