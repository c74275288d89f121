// A cross-CTA conversion over 16 CTAs, sm_90's largest (non-portable)
// cluster: 512 elements, one warp per CTA; contiguous 32-element blocks ->
// cyclic by element (@c8_1d of cluster_cross_cta.mlir, doubled). Launching
// it needs CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED
// (cudaFuncAttributeNonPortableClusterSizeAllowed), which verify and bench set.
#c16a = #ttg.linear<{register = [], lane = [[1], [2], [4], [8], [16]], warp = [], block = [[32], [64], [128], [256]]}>
#c16b = #ttg.linear<{register = [], lane = [[16], [32], [64], [128], [256]], warp = [], block = [[1], [2], [4], [8]]}>
module attributes {"ttg.num-ctas" = 16 : i32, "ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @c16_1d(%x: tensor<512xi32, #c16a>) {
    %0 = ttg.convert_layout %x : tensor<512xi32, #c16a> -> tensor<512xi32, #c16b>
    tt.return
  }
}
