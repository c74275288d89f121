// Conversions where every CTA keeps elements it already holds, but which
// ones and in what order depends on the CTA: the reverses of the broadcast
// cases of cluster_cross_cta.mlir (every CTA holds the whole tensor, each
// keeps its own part). One program for every CTA cannot do them with
// in-CTA moves alone; they go through the cluster plan, whose stores are
// addressed by the element's CTA (docs/ARCHITECTURE.md 4.7).
// @c4_1d_select: 4 CTAs, all 64 elements in every CTA -> halves by block bit 0.
// @c4_2d_select: 4 CTAs, split dim0 (block bit 1 broadcast) -> split both dims.
#c4a = #ttg.linear<{register = [], lane = [[1], [2], [4], [8], [16]], warp = [], block = [[32], [0]]}>
#c4b = #ttg.linear<{register = [[32]], lane = [[1], [2], [4], [8], [16]], warp = [], block = [[0], [0]]}>
#d4a = #ttg.linear<{register = [[2, 0], [4, 0], [8, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0]], warp = [], block = [[16, 0], [0, 16]]}>
#d4b = #ttg.linear<{register = [[0, 2], [0, 4], [0, 8], [0, 16]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1]], warp = [], block = [[16, 0], [0, 0]]}>
module attributes {"ttg.num-ctas" = 4 : i32, "ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @c4_1d_select(%x: tensor<64xf32, #c4b>) {
    %0 = ttg.convert_layout %x : tensor<64xf32, #c4b> -> tensor<64xf32, #c4a>
    tt.return
  }
  tt.func @c4_2d_select(%x: tensor<32x32xi8, #d4b>) {
    %0 = ttg.convert_layout %x : tensor<32x32xi8, #d4b> -> tensor<32x32xi8, #d4a>
    tt.return
  }
}
