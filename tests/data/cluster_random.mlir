// 40 random cross-CTA conversions of 1-D tensors (index bits shuffled over register,
// lane, warp and block bits on each side; some destinations broadcast a register or
// block bit), generated with Python's random.seed(25) as synth/tests/cluster_random.rs
// generates its cases; proven on the GPU in both cluster plans (results/runs/2026-11-23-h100-cluster-3bea4a8/README.md).
module attributes {"ttg.num-ctas" = 2 : i32, "ttg.num-warps" = 2 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r0(%x: tensor<128xi32, #ttg.linear<{register = [], lane = [[32], [16], [2], [1], [8]], warp = [[4]], block = [[64]]}>>) {
    %0 = ttg.convert_layout %x : tensor<128xi32, #ttg.linear<{register = [], lane = [[32], [16], [2], [1], [8]], warp = [[4]], block = [[64]]}>> -> tensor<128xi32, #ttg.linear<{register = [], lane = [[2], [32], [64], [1], [8]], warp = [[16]], block = [[4]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 2 : i32, "ttg.num-warps" = 2 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r1(%x: tensor<512xi32, #ttg.linear<{register = [[64], [8]], lane = [[2], [4], [256], [1], [16]], warp = [[128]], block = [[32]]}>>) {
    %0 = ttg.convert_layout %x : tensor<512xi32, #ttg.linear<{register = [[64], [8]], lane = [[2], [4], [256], [1], [16]], warp = [[128]], block = [[32]]}>> -> tensor<512xi32, #ttg.linear<{register = [[128], [32]], lane = [[2], [64], [1], [256], [16]], warp = [[4]], block = [[8]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 8 : i32, "ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r2(%x: tensor<256xi32, #ttg.linear<{register = [], lane = [[1], [32], [4], [8], [128]], warp = [], block = [[16], [64], [2]]}>>) {
    %0 = ttg.convert_layout %x : tensor<256xi32, #ttg.linear<{register = [], lane = [[1], [32], [4], [8], [128]], warp = [], block = [[16], [64], [2]]}>> -> tensor<256xi32, #ttg.linear<{register = [], lane = [[4], [1], [2], [32], [16]], warp = [], block = [[8], [128], [64]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 2 : i32, "ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r3(%x: tensor<128xi32, #ttg.linear<{register = [[4]], lane = [[16], [2], [1], [32], [8]], warp = [], block = [[64]]}>>) {
    %0 = ttg.convert_layout %x : tensor<128xi32, #ttg.linear<{register = [[4]], lane = [[16], [2], [1], [32], [8]], warp = [], block = [[64]]}>> -> tensor<128xi32, #ttg.linear<{register = [[2], [0]], lane = [[64], [1], [4], [32], [16]], warp = [], block = [[8]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 4 : i32, "ttg.num-warps" = 2 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r4(%x: tensor<512xi32, #ttg.linear<{register = [[32]], lane = [[16], [2], [1], [4], [256]], warp = [[8]], block = [[64], [128]]}>>) {
    %0 = ttg.convert_layout %x : tensor<512xi32, #ttg.linear<{register = [[32]], lane = [[16], [2], [1], [4], [256]], warp = [[8]], block = [[64], [128]]}>> -> tensor<512xi32, #ttg.linear<{register = [[8], [128]], lane = [[4], [2], [64], [16], [256]], warp = [[1]], block = [[32], [0]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 8 : i32, "ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r5(%x: tensor<512xi32, #ttg.linear<{register = [[8]], lane = [[32], [64], [4], [128], [2]], warp = [], block = [[16], [256], [1]]}>>) {
    %0 = ttg.convert_layout %x : tensor<512xi32, #ttg.linear<{register = [[8]], lane = [[32], [64], [4], [128], [2]], warp = [], block = [[16], [256], [1]]}>> -> tensor<512xi32, #ttg.linear<{register = [[1], [64]], lane = [[4], [128], [16], [32], [8]], warp = [], block = [[256], [2], [0]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 8 : i32, "ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r6(%x: tensor<256xi32, #ttg.linear<{register = [], lane = [[64], [4], [128], [1], [2]], warp = [], block = [[32], [16], [8]]}>>) {
    %0 = ttg.convert_layout %x : tensor<256xi32, #ttg.linear<{register = [], lane = [[64], [4], [128], [1], [2]], warp = [], block = [[32], [16], [8]]}>> -> tensor<256xi32, #ttg.linear<{register = [[0]], lane = [[4], [1], [8], [64], [16]], warp = [], block = [[2], [128], [32]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 4 : i32, "ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r7(%x: tensor<128xi32, #ttg.linear<{register = [], lane = [[1], [64], [2], [32], [4]], warp = [], block = [[16], [8]]}>>) {
    %0 = ttg.convert_layout %x : tensor<128xi32, #ttg.linear<{register = [], lane = [[1], [64], [2], [32], [4]], warp = [], block = [[16], [8]]}>> -> tensor<128xi32, #ttg.linear<{register = [], lane = [[8], [32], [16], [64], [2]], warp = [], block = [[1], [4]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 4 : i32, "ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r8(%x: tensor<128xi32, #ttg.linear<{register = [], lane = [[8], [1], [64], [4], [2]], warp = [], block = [[16], [32]]}>>) {
    %0 = ttg.convert_layout %x : tensor<128xi32, #ttg.linear<{register = [], lane = [[8], [1], [64], [4], [2]], warp = [], block = [[16], [32]]}>> -> tensor<128xi32, #ttg.linear<{register = [], lane = [[64], [1], [16], [4], [32]], warp = [], block = [[8], [2]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 4 : i32, "ttg.num-warps" = 2 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r9(%x: tensor<256xi32, #ttg.linear<{register = [], lane = [[16], [64], [4], [128], [2]], warp = [[1]], block = [[8], [32]]}>>) {
    %0 = ttg.convert_layout %x : tensor<256xi32, #ttg.linear<{register = [], lane = [[16], [64], [4], [128], [2]], warp = [[1]], block = [[8], [32]]}>> -> tensor<256xi32, #ttg.linear<{register = [[0]], lane = [[2], [128], [32], [1], [8]], warp = [[16]], block = [[64], [4]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 8 : i32, "ttg.num-warps" = 2 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r10(%x: tensor<1024xi32, #ttg.linear<{register = [[8]], lane = [[32], [64], [512], [16], [4]], warp = [[128]], block = [[1], [2], [256]]}>>) {
    %0 = ttg.convert_layout %x : tensor<1024xi32, #ttg.linear<{register = [[8]], lane = [[32], [64], [512], [16], [4]], warp = [[128]], block = [[1], [2], [256]]}>> -> tensor<1024xi32, #ttg.linear<{register = [[4], [16]], lane = [[512], [128], [1], [8], [32]], warp = [[2]], block = [[64], [256], [0]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 4 : i32, "ttg.num-warps" = 2 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r11(%x: tensor<512xi32, #ttg.linear<{register = [[4]], lane = [[1], [16], [128], [32], [256]], warp = [[64]], block = [[2], [8]]}>>) {
    %0 = ttg.convert_layout %x : tensor<512xi32, #ttg.linear<{register = [[4]], lane = [[1], [16], [128], [32], [256]], warp = [[64]], block = [[2], [8]]}>> -> tensor<512xi32, #ttg.linear<{register = [[256]], lane = [[16], [64], [128], [1], [8]], warp = [[2]], block = [[4], [32]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 4 : i32, "ttg.num-warps" = 2 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r12(%x: tensor<512xi32, #ttg.linear<{register = [[256]], lane = [[64], [16], [8], [4], [2]], warp = [[1]], block = [[32], [128]]}>>) {
    %0 = ttg.convert_layout %x : tensor<512xi32, #ttg.linear<{register = [[256]], lane = [[64], [16], [8], [4], [2]], warp = [[1]], block = [[32], [128]]}>> -> tensor<512xi32, #ttg.linear<{register = [[4], [0]], lane = [[16], [2], [8], [64], [128]], warp = [[32]], block = [[1], [256]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 4 : i32, "ttg.num-warps" = 2 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r13(%x: tensor<512xi32, #ttg.linear<{register = [[256]], lane = [[4], [2], [8], [128], [1]], warp = [[64]], block = [[32], [16]]}>>) {
    %0 = ttg.convert_layout %x : tensor<512xi32, #ttg.linear<{register = [[256]], lane = [[4], [2], [8], [128], [1]], warp = [[64]], block = [[32], [16]]}>> -> tensor<512xi32, #ttg.linear<{register = [[32], [64]], lane = [[2], [128], [256], [4], [16]], warp = [[1]], block = [[8], [0]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 2 : i32, "ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r14(%x: tensor<64xi32, #ttg.linear<{register = [], lane = [[4], [8], [2], [16], [32]], warp = [], block = [[1]]}>>) {
    %0 = ttg.convert_layout %x : tensor<64xi32, #ttg.linear<{register = [], lane = [[4], [8], [2], [16], [32]], warp = [], block = [[1]]}>> -> tensor<64xi32, #ttg.linear<{register = [[0]], lane = [[8], [2], [4], [32], [1]], warp = [], block = [[16]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 4 : i32, "ttg.num-warps" = 2 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r15(%x: tensor<1024xi32, #ttg.linear<{register = [[8], [1]], lane = [[128], [2], [32], [16], [512]], warp = [[4]], block = [[256], [64]]}>>) {
    %0 = ttg.convert_layout %x : tensor<1024xi32, #ttg.linear<{register = [[8], [1]], lane = [[128], [2], [32], [16], [512]], warp = [[4]], block = [[256], [64]]}>> -> tensor<1024xi32, #ttg.linear<{register = [[2], [32], [128]], lane = [[4], [512], [256], [8], [64]], warp = [[1]], block = [[16], [0]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 4 : i32, "ttg.num-warps" = 2 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r16(%x: tensor<256xi32, #ttg.linear<{register = [], lane = [[128], [2], [64], [8], [32]], warp = [[16]], block = [[4], [1]]}>>) {
    %0 = ttg.convert_layout %x : tensor<256xi32, #ttg.linear<{register = [], lane = [[128], [2], [64], [8], [32]], warp = [[16]], block = [[4], [1]]}>> -> tensor<256xi32, #ttg.linear<{register = [[0]], lane = [[2], [128], [4], [1], [16]], warp = [[8]], block = [[64], [32]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 2 : i32, "ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r17(%x: tensor<256xi32, #ttg.linear<{register = [[4], [2]], lane = [[8], [1], [16], [128], [64]], warp = [], block = [[32]]}>>) {
    %0 = ttg.convert_layout %x : tensor<256xi32, #ttg.linear<{register = [[4], [2]], lane = [[8], [1], [16], [128], [64]], warp = [], block = [[32]]}>> -> tensor<256xi32, #ttg.linear<{register = [[1], [8]], lane = [[2], [64], [32], [16], [128]], warp = [], block = [[4]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 8 : i32, "ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r18(%x: tensor<512xi32, #ttg.linear<{register = [[64]], lane = [[16], [128], [2], [1], [32]], warp = [], block = [[4], [8], [256]]}>>) {
    %0 = ttg.convert_layout %x : tensor<512xi32, #ttg.linear<{register = [[64]], lane = [[16], [128], [2], [1], [32]], warp = [], block = [[4], [8], [256]]}>> -> tensor<512xi32, #ttg.linear<{register = [[16], [128], [0]], lane = [[2], [256], [1], [4], [64]], warp = [], block = [[32], [8], [0]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 2 : i32, "ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r19(%x: tensor<256xi32, #ttg.linear<{register = [[128], [1]], lane = [[4], [2], [32], [16], [8]], warp = [], block = [[64]]}>>) {
    %0 = ttg.convert_layout %x : tensor<256xi32, #ttg.linear<{register = [[128], [1]], lane = [[4], [2], [32], [16], [8]], warp = [], block = [[64]]}>> -> tensor<256xi32, #ttg.linear<{register = [[8], [32]], lane = [[4], [128], [64], [2], [16]], warp = [], block = [[1]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 2 : i32, "ttg.num-warps" = 2 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r20(%x: tensor<256xi32, #ttg.linear<{register = [[32]], lane = [[64], [4], [16], [8], [128]], warp = [[2]], block = [[1]]}>>) {
    %0 = ttg.convert_layout %x : tensor<256xi32, #ttg.linear<{register = [[32]], lane = [[64], [4], [16], [8], [128]], warp = [[2]], block = [[1]]}>> -> tensor<256xi32, #ttg.linear<{register = [[8]], lane = [[4], [2], [1], [32], [64]], warp = [[16]], block = [[128]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 4 : i32, "ttg.num-warps" = 2 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r21(%x: tensor<512xi32, #ttg.linear<{register = [[32]], lane = [[64], [128], [4], [1], [8]], warp = [[2]], block = [[256], [16]]}>>) {
    %0 = ttg.convert_layout %x : tensor<512xi32, #ttg.linear<{register = [[32]], lane = [[64], [128], [4], [1], [8]], warp = [[2]], block = [[256], [16]]}>> -> tensor<512xi32, #ttg.linear<{register = [[128], [8], [0]], lane = [[32], [256], [16], [4], [2]], warp = [[64]], block = [[1], [0]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 8 : i32, "ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r22(%x: tensor<512xi32, #ttg.linear<{register = [[256]], lane = [[16], [4], [128], [64], [1]], warp = [], block = [[8], [2], [32]]}>>) {
    %0 = ttg.convert_layout %x : tensor<512xi32, #ttg.linear<{register = [[256]], lane = [[16], [4], [128], [64], [1]], warp = [], block = [[8], [2], [32]]}>> -> tensor<512xi32, #ttg.linear<{register = [[8]], lane = [[32], [1], [256], [2], [128]], warp = [], block = [[64], [4], [16]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 4 : i32, "ttg.num-warps" = 2 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r23(%x: tensor<256xi32, #ttg.linear<{register = [], lane = [[4], [128], [2], [1], [16]], warp = [[32]], block = [[64], [8]]}>>) {
    %0 = ttg.convert_layout %x : tensor<256xi32, #ttg.linear<{register = [], lane = [[4], [128], [2], [1], [16]], warp = [[32]], block = [[64], [8]]}>> -> tensor<256xi32, #ttg.linear<{register = [], lane = [[2], [1], [4], [16], [128]], warp = [[64]], block = [[8], [32]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 4 : i32, "ttg.num-warps" = 2 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r24(%x: tensor<1024xi32, #ttg.linear<{register = [[4], [256]], lane = [[16], [64], [2], [32], [128]], warp = [[1]], block = [[512], [8]]}>>) {
    %0 = ttg.convert_layout %x : tensor<1024xi32, #ttg.linear<{register = [[4], [256]], lane = [[16], [64], [2], [32], [128]], warp = [[1]], block = [[512], [8]]}>> -> tensor<1024xi32, #ttg.linear<{register = [[256], [16], [32]], lane = [[128], [512], [1], [8], [64]], warp = [[2]], block = [[4], [0]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 4 : i32, "ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r25(%x: tensor<256xi32, #ttg.linear<{register = [[8]], lane = [[16], [64], [128], [2], [1]], warp = [], block = [[32], [4]]}>>) {
    %0 = ttg.convert_layout %x : tensor<256xi32, #ttg.linear<{register = [[8]], lane = [[16], [64], [128], [2], [1]], warp = [], block = [[32], [4]]}>> -> tensor<256xi32, #ttg.linear<{register = [[64], [0]], lane = [[128], [8], [2], [32], [16]], warp = [], block = [[1], [4]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 2 : i32, "ttg.num-warps" = 2 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r26(%x: tensor<256xi32, #ttg.linear<{register = [[32]], lane = [[1], [4], [16], [2], [8]], warp = [[64]], block = [[128]]}>>) {
    %0 = ttg.convert_layout %x : tensor<256xi32, #ttg.linear<{register = [[32]], lane = [[1], [4], [16], [2], [8]], warp = [[64]], block = [[128]]}>> -> tensor<256xi32, #ttg.linear<{register = [[2]], lane = [[64], [16], [128], [8], [1]], warp = [[4]], block = [[32]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 2 : i32, "ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r27(%x: tensor<64xi32, #ttg.linear<{register = [], lane = [[32], [4], [8], [2], [16]], warp = [], block = [[1]]}>>) {
    %0 = ttg.convert_layout %x : tensor<64xi32, #ttg.linear<{register = [], lane = [[32], [4], [8], [2], [16]], warp = [], block = [[1]]}>> -> tensor<64xi32, #ttg.linear<{register = [], lane = [[32], [8], [16], [4], [1]], warp = [], block = [[2]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 2 : i32, "ttg.num-warps" = 2 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r28(%x: tensor<256xi32, #ttg.linear<{register = [[128]], lane = [[1], [64], [8], [4], [2]], warp = [[16]], block = [[32]]}>>) {
    %0 = ttg.convert_layout %x : tensor<256xi32, #ttg.linear<{register = [[128]], lane = [[1], [64], [8], [4], [2]], warp = [[16]], block = [[32]]}>> -> tensor<256xi32, #ttg.linear<{register = [[8]], lane = [[1], [32], [128], [4], [64]], warp = [[2]], block = [[16]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 8 : i32, "ttg.num-warps" = 2 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r29(%x: tensor<2048xi32, #ttg.linear<{register = [[8], [256]], lane = [[4], [2], [32], [128], [1]], warp = [[512]], block = [[16], [1024], [64]]}>>) {
    %0 = ttg.convert_layout %x : tensor<2048xi32, #ttg.linear<{register = [[8], [256]], lane = [[4], [2], [32], [128], [1]], warp = [[512]], block = [[16], [1024], [64]]}>> -> tensor<2048xi32, #ttg.linear<{register = [[64], [128], [4]], lane = [[1], [16], [2], [256], [8]], warp = [[512]], block = [[32], [1024], [0]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 4 : i32, "ttg.num-warps" = 2 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r30(%x: tensor<1024xi32, #ttg.linear<{register = [[512], [2]], lane = [[8], [256], [1], [4], [64]], warp = [[32]], block = [[16], [128]]}>>) {
    %0 = ttg.convert_layout %x : tensor<1024xi32, #ttg.linear<{register = [[512], [2]], lane = [[8], [256], [1], [4], [64]], warp = [[32]], block = [[16], [128]]}>> -> tensor<1024xi32, #ttg.linear<{register = [[8], [2]], lane = [[64], [128], [256], [16], [512]], warp = [[1]], block = [[4], [32]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 8 : i32, "ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r31(%x: tensor<512xi32, #ttg.linear<{register = [[64]], lane = [[128], [32], [8], [256], [4]], warp = [], block = [[1], [16], [2]]}>>) {
    %0 = ttg.convert_layout %x : tensor<512xi32, #ttg.linear<{register = [[64]], lane = [[128], [32], [8], [256], [4]], warp = [], block = [[1], [16], [2]]}>> -> tensor<512xi32, #ttg.linear<{register = [[64], [16], [0]], lane = [[256], [128], [32], [8], [4]], warp = [], block = [[1], [2], [0]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 4 : i32, "ttg.num-warps" = 2 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r32(%x: tensor<512xi32, #ttg.linear<{register = [[1]], lane = [[8], [4], [64], [256], [16]], warp = [[128]], block = [[32], [2]]}>>) {
    %0 = ttg.convert_layout %x : tensor<512xi32, #ttg.linear<{register = [[1]], lane = [[8], [4], [64], [256], [16]], warp = [[128]], block = [[32], [2]]}>> -> tensor<512xi32, #ttg.linear<{register = [[2]], lane = [[256], [8], [1], [32], [128]], warp = [[16]], block = [[4], [64]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 8 : i32, "ttg.num-warps" = 2 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r33(%x: tensor<512xi32, #ttg.linear<{register = [], lane = [[256], [16], [64], [128], [2]], warp = [[8]], block = [[32], [4], [1]]}>>) {
    %0 = ttg.convert_layout %x : tensor<512xi32, #ttg.linear<{register = [], lane = [[256], [16], [64], [128], [2]], warp = [[8]], block = [[32], [4], [1]]}>> -> tensor<512xi32, #ttg.linear<{register = [[64], [0]], lane = [[128], [256], [16], [8], [2]], warp = [[4]], block = [[1], [32], [0]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 2 : i32, "ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r34(%x: tensor<256xi32, #ttg.linear<{register = [[1], [2]], lane = [[8], [16], [32], [64], [4]], warp = [], block = [[128]]}>>) {
    %0 = ttg.convert_layout %x : tensor<256xi32, #ttg.linear<{register = [[1], [2]], lane = [[8], [16], [32], [64], [4]], warp = [], block = [[128]]}>> -> tensor<256xi32, #ttg.linear<{register = [[2], [32]], lane = [[1], [8], [16], [128], [64]], warp = [], block = [[4]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 8 : i32, "ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r35(%x: tensor<1024xi32, #ttg.linear<{register = [[512], [1]], lane = [[32], [2], [8], [16], [4]], warp = [], block = [[64], [256], [128]]}>>) {
    %0 = ttg.convert_layout %x : tensor<1024xi32, #ttg.linear<{register = [[512], [1]], lane = [[32], [2], [8], [16], [4]], warp = [], block = [[64], [256], [128]]}>> -> tensor<1024xi32, #ttg.linear<{register = [[32], [2]], lane = [[8], [4], [16], [256], [128]], warp = [], block = [[512], [1], [64]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 4 : i32, "ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r36(%x: tensor<512xi32, #ttg.linear<{register = [[16], [64]], lane = [[1], [2], [8], [32], [4]], warp = [], block = [[128], [256]]}>>) {
    %0 = ttg.convert_layout %x : tensor<512xi32, #ttg.linear<{register = [[16], [64]], lane = [[1], [2], [8], [32], [4]], warp = [], block = [[128], [256]]}>> -> tensor<512xi32, #ttg.linear<{register = [[2], [16], [128]], lane = [[64], [1], [32], [8], [4]], warp = [], block = [[256], [0]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 4 : i32, "ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r37(%x: tensor<256xi32, #ttg.linear<{register = [[32]], lane = [[8], [1], [128], [16], [4]], warp = [], block = [[64], [2]]}>>) {
    %0 = ttg.convert_layout %x : tensor<256xi32, #ttg.linear<{register = [[32]], lane = [[8], [1], [128], [16], [4]], warp = [], block = [[64], [2]]}>> -> tensor<256xi32, #ttg.linear<{register = [[1], [0]], lane = [[16], [64], [8], [32], [4]], warp = [], block = [[2], [128]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 8 : i32, "ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r38(%x: tensor<256xi32, #ttg.linear<{register = [], lane = [[1], [2], [16], [8], [32]], warp = [], block = [[4], [128], [64]]}>>) {
    %0 = ttg.convert_layout %x : tensor<256xi32, #ttg.linear<{register = [], lane = [[1], [2], [16], [8], [32]], warp = [], block = [[4], [128], [64]]}>> -> tensor<256xi32, #ttg.linear<{register = [[1]], lane = [[16], [2], [32], [64], [8]], warp = [], block = [[4], [128], [0]]}>>
    tt.return
  }
}
module attributes {"ttg.num-ctas" = 4 : i32, "ttg.num-warps" = 2 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @r39(%x: tensor<256xi32, #ttg.linear<{register = [], lane = [[128], [16], [1], [64], [4]], warp = [[2]], block = [[32], [8]]}>>) {
    %0 = ttg.convert_layout %x : tensor<256xi32, #ttg.linear<{register = [], lane = [[128], [16], [1], [64], [4]], warp = [[2]], block = [[32], [8]]}>> -> tensor<256xi32, #ttg.linear<{register = [], lane = [[4], [64], [32], [128], [8]], warp = [[2]], block = [[1], [16]]}>>
    tt.return
  }
}
