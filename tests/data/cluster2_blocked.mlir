// A 2-CTA cluster ("ttg.num-ctas" = 2), 4 warps per CTA, blocked layouts.
// @split_m_to_n: the source splits dim0 over the CTAs, the destination dim1:
// half of every CTA's elements live in the other CTA (a cross-CTA conversion).
// @split_m_both: both sides split dim0, each CTA transposes its own half
// (in-CTA); the destination writes its CTA fields as CGALayout, as newer
// Triton prints them ([[1, 0]]: CTA id bit 0 adds one CTA tile along dim0).
#src = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>
#dst_n = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [1, 2], CTASplitNum = [1, 2], CTAOrder = [1, 0]}>
#dst_m = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1], CGALayout = [[1, 0]]}>
module attributes {"ttg.num-ctas" = 2 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @split_m_to_n(%x: tensor<128x64xf16, #src>) {
    %0 = ttg.convert_layout %x : tensor<128x64xf16, #src> -> tensor<128x64xf16, #dst_n>
    tt.return
  }
  tt.func @split_m_both(%x: tensor<128x64xf16, #src>) {
    %0 = ttg.convert_layout %x : tensor<128x64xf16, #src> -> tensor<128x64xf16, #dst_m>
    tt.return
  }
}
