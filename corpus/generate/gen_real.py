#!/usr/bin/env python3
"""Compile real Triton kernels to TTGIR without a GPU and keep every TTGIR
that contains a `ttg.convert_layout`.

    python3 corpus/generate/gen_real.py            # regenerate corpus/real/
    python3 corpus/generate/gen_real.py --list     # print the job list only
    python3 corpus/generate/gen_real.py --count    # summarise corpus/real/ as it is

Each kernel family below is a small, self-written version of a well-known
Triton kernel (the tutorials, flash attention, quantised GEMMs, norms, ...).
Every (family, config, target) triple is compiled with Triton's own backend
passes, stopping right after `make_ttgir`: nothing queries a GPU or a driver,
ptxas is never run.  See README.md next to this file.
"""

import argparse
import collections
import itertools
import multiprocessing as mp
import multiprocessing.connection as mpc
import os
import re
import shutil
import sys
import tempfile
import time
import traceback

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.normpath(os.path.join(HERE, "..", "real"))

# target key -> (GPUTarget, output sub-directory)
TARGETS = {
    "cuda:80": (GPUTarget("cuda", 80, 32), "cuda80"),
    "cuda:90": (GPUTarget("cuda", 90, 32), "cuda90"),
    "cuda:100": (GPUTarget("cuda", 100, 32), "cuda100"),
    "hip:gfx942": (GPUTarget("hip", "gfx942", 64), "amd/gfx942"),
    "hip:gfx950": (GPUTarget("hip", "gfx950", 64), "amd/gfx950"),
    "hip:gfx1100": (GPUTarget("hip", "gfx1100", 32), "amd/gfx1100"),
}
NV = ("cuda:80", "cuda:90", "cuda:100")
AMD = ("hip:gfx942", "hip:gfx950", "hip:gfx1100")
# AMD files exist so that readers can be checked to refuse them cleanly; a
# sample is enough: every AMD_STRIDE-th config of each family.
AMD_STRIDE = 8
JOB_TIMEOUT_S = 120

# short dtype names used in file names -> Triton signature element types
SIG = {"fp16": "fp16", "bf16": "bf16", "fp32": "fp32", "i8": "i8", "u8": "u8", "i32": "i32",
       "i64": "i64", "fp8e4nv": "fp8e4nv", "fp8e5": "fp8e5", "i16": "i16"}
TL = {"fp16": tl.float16, "bf16": tl.bfloat16, "fp32": tl.float32, "i8": tl.int8, "u8": tl.uint8,
      "i32": tl.int32, "fp8e4nv": tl.float8e4nv, "fp8e5": tl.float8e5, "i16": tl.int16}

# ----------------------------------------------------------------------------
# Kernels
# ----------------------------------------------------------------------------


@triton.jit
def softmax_kernel(out_ptr, in_ptr, n_rows, n_cols, stride_in, stride_out,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # fused row softmax (tutorial 02), several rows per program
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(in_ptr + rows[:, None] * stride_in + cols[None, :], mask=mask, other=-float("inf"))
    x = x.to(tl.float32)
    x = x - tl.max(x, axis=1)[:, None]
    num = tl.exp(x)
    y = num / tl.sum(num, axis=1)[:, None]
    tl.store(out_ptr + rows[:, None] * stride_out + cols[None, :], y.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def softmax_online_kernel(out_ptr, lse_ptr, in_ptr, n_rows, n_cols, stride,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # two-pass online softmax over long rows, row statistics stored per row
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rmask = rows < n_rows
    m = tl.full([BLOCK_M], -float("inf"), tl.float32)
    s = tl.zeros([BLOCK_M], tl.float32)
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = rmask[:, None] & (cols[None, :] < n_cols)
        x = tl.load(in_ptr + rows[:, None] * stride + cols[None, :], mask=mask, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=1))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new[:, None]), axis=1)
        m = m_new
    lse = m + tl.log(s)
    tl.store(lse_ptr + rows, lse, mask=rmask)
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = rmask[:, None] & (cols[None, :] < n_cols)
        x = tl.load(in_ptr + rows[:, None] * stride + cols[None, :], mask=mask, other=-float("inf")).to(tl.float32)
        y = tl.exp(x - lse[:, None])
        tl.store(out_ptr + rows[:, None] * stride + cols[None, :], y.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def layernorm_fwd_kernel(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, n_rows, N, stride, eps,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    rmask = rows < n_rows
    cmask = cols < N
    mask = rmask[:, None] & cmask[None, :]
    x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=mask, other=0.).to(tl.float32)
    mean = tl.sum(x, axis=1) / N
    xc = tl.where(mask, x - mean[:, None], 0.)
    var = tl.sum(xc * xc, axis=1) / N
    rstd = 1 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=cmask).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=cmask).to(tl.float32)
    y = xc * rstd[:, None] * w[None, :] + b[None, :]
    tl.store(y_ptr + rows[:, None] * stride + cols[None, :], y.to(y_ptr.dtype.element_ty), mask=mask)
    tl.store(mean_ptr + rows, mean, mask=rmask)
    tl.store(rstd_ptr + rows, rstd, mask=rmask)


@triton.jit
def layernorm_bwd_kernel(dx_ptr, dy_ptr, x_ptr, w_ptr, mean_ptr, rstd_ptr, dw_part_ptr, db_part_ptr,
                         n_rows, N, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # dx for BLOCK_M rows plus per-program partial sums of dw and db (tutorial 05)
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    rmask = rows < n_rows
    cmask = cols < N
    mask = rmask[:, None] & cmask[None, :]
    offs = rows[:, None] * stride + cols[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.).to(tl.float32)
    dy = tl.load(dy_ptr + offs, mask=mask, other=0.).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=cmask).to(tl.float32)
    mean = tl.load(mean_ptr + rows, mask=rmask)
    rstd = tl.load(rstd_ptr + rows, mask=rmask)
    xhat = tl.where(mask, (x - mean[:, None]) * rstd[:, None], 0.)
    wdy = tl.where(mask, w[None, :] * dy, 0.)
    c1 = tl.sum(xhat * wdy, axis=1) / N
    c2 = tl.sum(wdy, axis=1) / N
    dx = (wdy - (xhat * c1[:, None] + c2[:, None])) * rstd[:, None]
    tl.store(dx_ptr + offs, dx.to(dx_ptr.dtype.element_ty), mask=mask)
    tl.store(dw_part_ptr + pid * N + cols, tl.sum(dy * xhat, axis=0), mask=cmask)
    tl.store(db_part_ptr + pid * N + cols, tl.sum(dy, axis=0), mask=cmask)


@triton.jit
def rmsnorm_kernel(x_ptr, res_ptr, y_ptr, w_ptr, rstd_ptr, n_rows, N, stride, eps,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, RESIDUAL: tl.constexpr):
    # (fused-add) RMSNorm as in LLM inference kernels
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    rmask = rows < n_rows
    mask = rmask[:, None] & (cols[None, :] < N)
    offs = rows[:, None] * stride + cols[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.).to(tl.float32)
    if RESIDUAL:
        x += tl.load(res_ptr + offs, mask=mask, other=0.).to(tl.float32)
        tl.store(res_ptr + offs, x.to(res_ptr.dtype.element_ty), mask=mask)
    rstd = tl.rsqrt(tl.sum(x * x, axis=1) / N + eps)
    w = tl.load(w_ptr + cols, mask=cols < N).to(tl.float32)
    y = x * rstd[:, None] * w[None, :]
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)
    tl.store(rstd_ptr + rows, rstd, mask=rmask)


@triton.jit
def rmsnorm_bwd_kernel(dx_ptr, dy_ptr, x_ptr, w_ptr, rstd_ptr, dw_part_ptr, n_rows, N, stride,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    rmask = rows < n_rows
    mask = rmask[:, None] & (cols[None, :] < N)
    offs = rows[:, None] * stride + cols[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.).to(tl.float32)
    dy = tl.load(dy_ptr + offs, mask=mask, other=0.).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=cols < N).to(tl.float32)
    rstd = tl.load(rstd_ptr + rows, mask=rmask)
    xhat = x * rstd[:, None]
    wdy = w[None, :] * dy
    c = tl.sum(xhat * wdy, axis=1) / N
    dx = (wdy - xhat * c[:, None]) * rstd[:, None]
    tl.store(dx_ptr + offs, dx.to(dx_ptr.dtype.element_ty), mask=mask)
    tl.store(dw_part_ptr + pid * N + cols, tl.sum(dy * xhat, axis=0), mask=cols < N)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                  ACC_INT: tl.constexpr, B_TRANS: tl.constexpr):
    # tutorial 03 matmul with grouped program ordering
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak
    if B_TRANS:
        b_ptrs = b_ptr + offs_bn[:, None] * stride_bn + offs_k[None, :] * stride_bk
    else:
        b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn
    if ACC_INT:
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
    else:
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        if B_TRANS:
            b = tl.load(b_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
            b = tl.trans(b)
        else:
            b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        if ACC_INT:
            acc = tl.dot(a, b, acc, out_dtype=tl.int32)
        else:
            acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c = acc.to(c_ptr.dtype.element_ty)
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    tl.store(c_ptrs, c, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


@triton.jit
def _act(x, ACT: tl.constexpr):
    if ACT == "relu":
        x = tl.maximum(x, 0.)
    elif ACT == "gelu":
        x = 0.5 * x * (1 + tl.erf(x * 0.7071067811865476))
    elif ACT == "silu":
        x = x * tl.sigmoid(x)
    elif ACT == "leaky":
        x = tl.where(x >= 0, x, 0.01 * x)
    return x


@triton.jit
def matmul_epilogue_kernel(a_ptr, b_ptr, c_ptr, bias_ptr, scale_ptr, res_ptr, M, N, K,
                           stride_am, stride_bk, stride_cm, stride_rm,
                           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                           ACT: tl.constexpr, ROW_SCALE: tl.constexpr, RESIDUAL: tl.constexpr,
                           TRANS_STORE: tl.constexpr):
    # linear layer: bias + per-row scale + activation + residual, optional C^T store
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * stride_bk + rn[None, :])
        acc = tl.dot(a, b, acc)
    bias = tl.load(bias_ptr + rn, mask=rn < N, other=0.).to(tl.float32)
    acc += bias[None, :]
    if ROW_SCALE:
        s = tl.load(scale_ptr + rm, mask=rm < M, other=1.).to(tl.float32)
        acc *= s[:, None]
    acc = _act(acc, ACT)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    if RESIDUAL:
        acc += tl.load(res_ptr + rm[:, None] * stride_rm + rn[None, :], mask=mask, other=0.).to(tl.float32)
    c = acc.to(c_ptr.dtype.element_ty)
    if TRANS_STORE:
        tl.store(c_ptr + rn[:, None] * stride_cm + rm[None, :], tl.trans(c), mask=tl.trans(mask))
    else:
        tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], c, mask=mask)


@triton.jit
def matmul_splitk_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, SPLIT_K: tl.constexpr):
    # split-K GEMM, partial tiles reduced with atomics
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    pid_k = tl.program_id(2)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = pid_k * BLOCK_K + tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K * SPLIT_K):
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k + rk)[None, :], mask=(k + rk)[None, :] < K, other=0.)
        b = tl.load(b_ptr + (k + rk)[:, None] * stride_bk + rn[None, :], mask=(k + rk)[:, None] < K, other=0.)
        acc = tl.dot(a, b, acc)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.atomic_add(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc, mask=mask)


@triton.jit
def attn_fwd_kernel(Q, K, V, Out, LSE, sm_scale, N_CTX,
                    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                    CAUSAL: tl.constexpr, K_TRANS_LOAD: tl.constexpr):
    # flash attention forward (tutorial 06 style), [B*H, N_CTX, HEAD_DIM] contiguous
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1).to(tl.int64)
    base = off_hz * N_CTX * HEAD_DIM
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :])
    m_i = tl.full([BLOCK_M], -float("inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    qk_scale = sm_scale * 1.44269504
    if CAUSAL:
        hi = (start_m + 1) * BLOCK_M
    else:
        hi = N_CTX
    for start_n in range(0, hi, BLOCK_N):
        cols = start_n + offs_n
        if K_TRANS_LOAD:
            k = tl.load(K + base + cols[None, :] * HEAD_DIM + offs_d[:, None])
        else:
            k = tl.trans(tl.load(K + base + cols[:, None] * HEAD_DIM + offs_d[None, :]))
        qk = tl.dot(q, k)
        if CAUSAL:
            qk = tl.where(offs_m[:, None] >= cols[None, :], qk, -1.0e6)
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        p = tl.math.exp2(qk * qk_scale - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(V + base + cols[:, None] * HEAD_DIM + offs_d[None, :])
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(LSE + off_hz * N_CTX + offs_m, m_i + tl.math.log2(l_i))
    tl.store(Out + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], acc.to(Out.dtype.element_ty))


@triton.jit
def attn_bwd_dkdv_kernel(Q, K, V, DO, LSE, Delta, DK, DV, sm_scale, N_CTX,
                         HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    # flash attention backward, dK/dV for one key block (FA2 / tutorial 06)
    start_n = tl.program_id(0) * BLOCK_N
    off_hz = tl.program_id(1).to(tl.int64)
    base = off_hz * N_CTX * HEAD_DIM
    offs_n = start_n + tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    k = tl.load(K + base + offs_n[:, None] * HEAD_DIM + offs_d[None, :])
    v = tl.load(V + base + offs_n[:, None] * HEAD_DIM + offs_d[None, :])
    dk = tl.zeros([BLOCK_N, HEAD_DIM], tl.float32)
    dv = tl.zeros([BLOCK_N, HEAD_DIM], tl.float32)
    if CAUSAL:
        lo = start_n
    else:
        lo = 0
    for start_m in range(lo, N_CTX, BLOCK_M):
        offs_m = start_m + tl.arange(0, BLOCK_M)
        qT = tl.load(Q + base + offs_m[None, :] * HEAD_DIM + offs_d[:, None])
        m = tl.load(LSE + off_hz * N_CTX + offs_m)
        qkT = tl.dot(k, qT)
        pT = tl.math.exp2(qkT - m[None, :])
        if CAUSAL:
            pT = tl.where(offs_m[None, :] >= offs_n[:, None], pT, 0.0)
        do = tl.load(DO + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :])
        dv = tl.dot(pT.to(do.dtype), do, dv)
        Di = tl.load(Delta + off_hz * N_CTX + offs_m)
        dpT = tl.dot(v, tl.trans(do)).to(tl.float32)
        dsT = pT * (dpT - Di[None, :])
        dk = tl.dot(dsT.to(qT.dtype), tl.trans(qT), dk)
    tl.store(DV + base + offs_n[:, None] * HEAD_DIM + offs_d[None, :], dv.to(DV.dtype.element_ty))
    tl.store(DK + base + offs_n[:, None] * HEAD_DIM + offs_d[None, :], (dk * sm_scale).to(DK.dtype.element_ty))


@triton.jit
def attn_bwd_dq_kernel(Q, K, V, DO, LSE, Delta, DQ, sm_scale, N_CTX,
                       HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    start_m = tl.program_id(0) * BLOCK_M
    off_hz = tl.program_id(1).to(tl.int64)
    base = off_hz * N_CTX * HEAD_DIM
    offs_m = start_m + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :])
    do = tl.load(DO + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :])
    m = tl.load(LSE + off_hz * N_CTX + offs_m)
    Di = tl.load(Delta + off_hz * N_CTX + offs_m)
    dq = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    if CAUSAL:
        hi = start_m + BLOCK_M
    else:
        hi = N_CTX
    for start_n in range(0, hi, BLOCK_N):
        offs_n = start_n + tl.arange(0, BLOCK_N)
        kT = tl.load(K + base + offs_n[None, :] * HEAD_DIM + offs_d[:, None])
        vT = tl.load(V + base + offs_n[None, :] * HEAD_DIM + offs_d[:, None])
        qk = tl.dot(q, kT)
        p = tl.math.exp2(qk - m[:, None])
        if CAUSAL:
            p = tl.where(offs_m[:, None] >= offs_n[None, :], p, 0.0)
        dp = tl.dot(do, vT).to(tl.float32)
        ds = p * (dp - Di[:, None])
        dq = tl.dot(ds.to(kT.dtype), tl.trans(kT), dq)
    tl.store(DQ + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], (dq * sm_scale).to(DQ.dtype.element_ty))


@triton.jit
def attn_bwd_preprocess_kernel(O, DO, Delta, N_CTX, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    off_hz = tl.program_id(1)
    offs_d = tl.arange(0, HEAD_DIM)
    o = tl.load(O + off_hz * HEAD_DIM * N_CTX + offs_m[:, None] * HEAD_DIM + offs_d[None, :])
    do = tl.load(DO + off_hz * HEAD_DIM * N_CTX + offs_m[:, None] * HEAD_DIM + offs_d[None, :]).to(tl.float32)
    tl.store(Delta + off_hz * N_CTX + offs_m, tl.sum(o * do, axis=1))


@triton.jit
def paged_decode_kernel(Q, K_cache, V_cache, block_tables, seq_lens, Out, sm_scale, stride_bt, max_pages,
                        NUM_KV_HEADS: tl.constexpr, HEAD_DIM: tl.constexpr, GQA: tl.constexpr,
                        PAGE_SIZE: tl.constexpr, BLOCK_H: tl.constexpr):
    # paged-KV decode attention (vLLM style): one program per (sequence, kv head),
    # the GQA query heads of that kv head stacked into the M dimension
    seq = tl.program_id(0)
    kvh = tl.program_id(1)
    seq_len = tl.load(seq_lens + seq)
    offs_h = tl.arange(0, BLOCK_H)
    offs_d = tl.arange(0, HEAD_DIM)
    offs_p = tl.arange(0, PAGE_SIZE)
    hmask = offs_h < GQA
    q_base = (seq * NUM_KV_HEADS * GQA + kvh * GQA) * HEAD_DIM
    q = tl.load(Q + q_base + offs_h[:, None] * HEAD_DIM + offs_d[None, :], mask=hmask[:, None], other=0.)
    m_i = tl.full([BLOCK_H], -float("inf"), tl.float32)
    l_i = tl.zeros([BLOCK_H], tl.float32)
    acc = tl.zeros([BLOCK_H, HEAD_DIM], tl.float32)
    for start in range(0, seq_len, PAGE_SIZE):
        page = tl.load(block_tables + seq * stride_bt + start // PAGE_SIZE).to(tl.int64)
        kv_base = (page * NUM_KV_HEADS + kvh) * PAGE_SIZE * HEAD_DIM
        pmask = (start + offs_p) < seq_len
        k = tl.load(K_cache + kv_base + offs_p[None, :] * HEAD_DIM + offs_d[:, None], mask=pmask[None, :], other=0.)
        qk = tl.dot(q, k) * sm_scale
        qk = tl.where(pmask[None, :], qk, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.exp(qk - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(V_cache + kv_base + offs_p[:, None] * HEAD_DIM + offs_d[None, :], mask=pmask[:, None], other=0.)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    out = acc / l_i[:, None]
    tl.store(Out + q_base + offs_h[:, None] * HEAD_DIM + offs_d[None, :], out.to(Out.dtype.element_ty),
             mask=hmask[:, None])


@triton.jit
def grouped_gemm_kernel(group_a_ptrs, group_b_ptrs, group_c_ptrs, group_gemm_sizes, g_lds, group_size,
                        NUM_SM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                        DTYPE: tl.constexpr):
    # persistent grouped GEMM (tutorial 08): pointers to each problem read from device arrays
    tile_idx = tl.program_id(0)
    last_problem_end = 0
    for g in range(group_size):
        gm = tl.load(group_gemm_sizes + g * 3)
        gn = tl.load(group_gemm_sizes + g * 3 + 1)
        gk = tl.load(group_gemm_sizes + g * 3 + 2)
        num_m_tiles = tl.cdiv(gm, BLOCK_M)
        num_n_tiles = tl.cdiv(gn, BLOCK_N)
        num_tiles = num_m_tiles * num_n_tiles
        while tile_idx >= last_problem_end and tile_idx < last_problem_end + num_tiles:
            lda = tl.load(g_lds + g * 3)
            ldb = tl.load(g_lds + g * 3 + 1)
            ldc = tl.load(g_lds + g * 3 + 2)
            a_ptr = tl.load(group_a_ptrs + g).to(tl.pointer_type(DTYPE))
            b_ptr = tl.load(group_b_ptrs + g).to(tl.pointer_type(DTYPE))
            c_ptr = tl.load(group_c_ptrs + g).to(tl.pointer_type(DTYPE))
            tile_in_gemm = tile_idx - last_problem_end
            tile_m = tile_in_gemm // num_n_tiles
            tile_n = tile_in_gemm % num_n_tiles
            offs_am = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
            offs_bn = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
            offs_k = tl.arange(0, BLOCK_K)
            a_ptrs = a_ptr + offs_am[:, None] * lda + offs_k[None, :]
            b_ptrs = b_ptr + offs_k[:, None] * ldb + offs_bn[None, :]
            acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
            for kk in range(0, tl.cdiv(gk, BLOCK_K)):
                tl.multiple_of(a_ptrs, [16, 16])
                tl.multiple_of(b_ptrs, [16, 16])
                a = tl.load(a_ptrs)
                b = tl.load(b_ptrs)
                acc += tl.dot(a, b)
                a_ptrs += BLOCK_K
                b_ptrs += BLOCK_K * ldb
            c = acc.to(DTYPE)
            offs_cm = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
            offs_cn = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
            tl.store(c_ptr + ldc * offs_cm[:, None] + offs_cn[None, :], c)
            tile_idx += NUM_SM
        last_problem_end = last_problem_end + num_tiles


@triton.jit
def int4_gemm_kernel(a_ptr, b_ptr, scales_ptr, zeros_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_sg, stride_cm,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_SIZE: tl.constexpr,
                     PACK: tl.constexpr):
    # weight-only int4 GEMM: A fp16/bf16 [M, K], B int4 packed two per byte,
    # per-group scales [K // GROUP_SIZE, N] (GPTQ / AWQ / Marlin-style layouts)
    #   PACK == "kjoin":  B int8 [K//2, N], nibbles along K, unpacked with join+permute+reshape
    #   PACK == "nileave": B int8 [K, N//2], nibbles along N, unpacked with interleave
    #   PACK == "awq":    B uint8 [K, N//2], unsigned nibbles minus per-group zero points
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k + rk)[None, :])
        if PACK == "kjoin":
            rk2 = k // 2 + tl.arange(0, BLOCK_K // 2)
            b = tl.load(b_ptr + rk2[:, None] * stride_bk + rn[None, :])
            lo = (b << 4) >> 4
            hi = b >> 4
            w = tl.join(lo, hi)
            w = tl.permute(w, (0, 2, 1))
            w = tl.reshape(w, (BLOCK_K, BLOCK_N))
        else:
            rn2 = pid_n * (BLOCK_N // 2) + tl.arange(0, BLOCK_N // 2)
            b = tl.load(b_ptr + (k + rk)[:, None] * stride_bk + rn2[None, :])
            if PACK == "awq":
                lo = b & 0xF
                hi = (b >> 4) & 0xF
            else:
                lo = (b << 4) >> 4
                hi = b >> 4
            w = tl.interleave(lo, hi)
        if BLOCK_K <= GROUP_SIZE:
            g = k // GROUP_SIZE
            s = tl.load(scales_ptr + g * stride_sg + rn)
            wf = w.to(a.dtype)
            if PACK == "awq":
                z = tl.load(zeros_ptr + g * stride_sg + rn)
                wf = wf - z[None, :]
            wf = wf * s[None, :]
        else:
            NG: tl.constexpr = BLOCK_K // GROUP_SIZE
            rg = k // GROUP_SIZE + tl.arange(0, NG)
            s = tl.load(scales_ptr + rg[:, None] * stride_sg + rn[None, :])
            s = tl.reshape(tl.broadcast_to(tl.expand_dims(s, 1), (NG, GROUP_SIZE, BLOCK_N)), (BLOCK_K, BLOCK_N))
            wf = w.to(a.dtype)
            if PACK == "awq":
                z = tl.load(zeros_ptr + rg[:, None] * stride_sg + rn[None, :])
                z = tl.reshape(tl.broadcast_to(tl.expand_dims(z, 1), (NG, GROUP_SIZE, BLOCK_N)), (BLOCK_K, BLOCK_N))
                wf = wf - z
            wf = wf * s
        acc = tl.dot(a, wf, acc)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc.to(c_ptr.dtype.element_ty))


@triton.jit
def mixed_gemm_kernel(a_ptr, b_ptr, scale_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                      UPCAST_A: tl.constexpr):
    # mixed-precision GEMM with swizzled tile order: one operand int8/fp8 upcast
    # in registers and scaled per output channel (W8A16 / FP8 weight kernels)
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    pid_m, pid_n = tl.swizzle2d(pid // num_pid_n, pid % num_pid_n, num_pid_m, num_pid_n, GROUP_M)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * stride_bk + rn[None, :])
        if UPCAST_A:
            a = a.to(b.dtype)
        else:
            b = b.to(a.dtype)
        acc = tl.dot(a, b, acc)
    s = tl.load(scale_ptr + rn)
    acc = acc * s[None, :]
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc.to(c_ptr.dtype.element_ty))


@triton.jit
def mxfp_gemm_kernel(a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                     A_FMT: tl.constexpr, B_FMT: tl.constexpr):
    # microscaling GEMM (tl.dot_scaled): fp4 (e2m1, two per byte) / fp8 operands, e8m0 scales per 32 K
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    A_DIV: tl.constexpr = 2 if A_FMT == "e2m1" else 1
    B_DIV: tl.constexpr = 2 if B_FMT == "e2m1" else 1
    rka = tl.arange(0, BLOCK_K // A_DIV)
    rkb = tl.arange(0, BLOCK_K // B_DIV)
    rs = tl.arange(0, BLOCK_K // 32)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k // A_DIV + rka)[None, :])
        b = tl.load(b_ptr + (k // B_DIV + rkb)[:, None] * stride_bk + rn[None, :])
        sa = tl.load(a_scale_ptr + rm[:, None] * (K // 32) + (k // 32 + rs)[None, :])
        sb = tl.load(b_scale_ptr + rn[:, None] * (K // 32) + (k // 32 + rs)[None, :])
        acc = tl.dot_scaled(a, sa, A_FMT, b, sb, B_FMT, acc)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc.to(c_ptr.dtype.element_ty))


@triton.jit
def bmm3d_kernel(a_ptr, b_ptr, c_ptr, B, M, N, K,
                 BLOCK_B: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                 SOFTMAX: tl.constexpr):
    # batched tl.dot on rank-3 tiles [BLOCK_B, M, K] x [BLOCK_B, K, N], optional row softmax
    pid_b = tl.program_id(0)
    pid_m = tl.program_id(1)
    rb = pid_b * BLOCK_B + tl.arange(0, BLOCK_B)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_B, BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rb[:, None, None] * M * K + rm[None, :, None] * K + (k + rk)[None, None, :])
        b = tl.load(b_ptr + rb[:, None, None] * K * N + (k + rk)[None, :, None] * N + rn[None, None, :])
        acc = tl.dot(a, b, acc)
    if SOFTMAX:
        acc = acc - tl.max(acc, axis=2)[:, :, None]
        acc = tl.exp(acc)
        acc = acc / tl.sum(acc, axis=2)[:, :, None]
    tl.store(c_ptr + rb[:, None, None] * M * N + rm[None, :, None] * N + rn[None, None, :], acc.to(c_ptr.dtype.element_ty))


@triton.jit
def cross_entropy_fwd_kernel(loss_ptr, lse_ptr, logits_ptr, labels_ptr, n_rows, V, stride, smoothing,
                             BLOCK_M: tl.constexpr, BLOCK_V: tl.constexpr, IGNORE_INDEX: tl.constexpr):
    # chunked-vocabulary cross entropy with label smoothing (Liger / flash-attn style)
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rmask = rows < n_rows
    labels = tl.load(labels_ptr + rows, mask=rmask, other=IGNORE_INDEX)
    m = tl.full([BLOCK_M], -float("inf"), tl.float32)
    s = tl.zeros([BLOCK_M], tl.float32)
    tgt = tl.zeros([BLOCK_M], tl.float32)
    tot = tl.zeros([BLOCK_M], tl.float32)
    for start in range(0, V, BLOCK_V):
        cols = start + tl.arange(0, BLOCK_V)
        mask = rmask[:, None] & (cols[None, :] < V)
        x = tl.load(logits_ptr + rows[:, None] * stride + cols[None, :], mask=mask, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, 1))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new[:, None]), 1)
        m = m_new
        tgt += tl.sum(tl.where(cols[None, :] == labels[:, None], x, 0.), 1)
        tot += tl.sum(tl.where(mask, x, 0.), 1)
    lse = m + tl.log(s)
    loss = (1 - smoothing) * (lse - tgt) + smoothing * (lse - tot / V)
    loss = tl.where(labels == IGNORE_INDEX, 0., loss)
    tl.store(loss_ptr + rows, loss, mask=rmask)
    tl.store(lse_ptr + rows, lse, mask=rmask)


@triton.jit
def cross_entropy_bwd_kernel(dlogits_ptr, logits_ptr, lse_ptr, labels_ptr, dloss_ptr, n_rows, V, stride,
                             BLOCK_M: tl.constexpr, BLOCK_V: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_V + tl.arange(0, BLOCK_V)
    rmask = rows < n_rows
    mask = rmask[:, None] & (cols[None, :] < V)
    labels = tl.load(labels_ptr + rows, mask=rmask, other=0)
    lse = tl.load(lse_ptr + rows, mask=rmask, other=0.)
    dloss = tl.load(dloss_ptr + rows, mask=rmask, other=0.)
    x = tl.load(logits_ptr + rows[:, None] * stride + cols[None, :], mask=mask, other=0.).to(tl.float32)
    p = tl.exp(x - lse[:, None])
    p = tl.where(cols[None, :] == labels[:, None], p - 1., p) * dloss[:, None]
    tl.store(dlogits_ptr + rows[:, None] * stride + cols[None, :], p.to(dlogits_ptr.dtype.element_ty), mask=mask)


@triton.jit
def transpose_kernel(out_ptr, in_ptr, M, N, stride_in, stride_out, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # out[N, M] = in[M, N]^T through tl.trans
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    x = tl.load(in_ptr + rm[:, None] * stride_in + rn[None, :])
    tl.store(out_ptr + rn[:, None] * stride_out + rm[None, :], tl.trans(x))


@triton.jit
def permute3d_kernel(out_ptr, in_ptr, BLOCK_A: tl.constexpr, BLOCK_B: tl.constexpr, BLOCK_C: tl.constexpr,
                     P0: tl.constexpr, P1: tl.constexpr, P2: tl.constexpr):
    # out = in.permute(P0, P1, P2) on a [A, B, C] tile (e.g. BHSD <-> BSHD)
    pid = tl.program_id(0)
    ra = tl.arange(0, BLOCK_A)
    rb = tl.arange(0, BLOCK_B)
    rc = tl.arange(0, BLOCK_C)
    base = pid * BLOCK_A * BLOCK_B * BLOCK_C
    x = tl.load(in_ptr + base + ra[:, None, None] * (BLOCK_B * BLOCK_C) + rb[None, :, None] * BLOCK_C + rc[None, None, :])
    y = tl.permute(x, (P0, P1, P2))
    SA: tl.constexpr = BLOCK_A if P0 == 0 else (BLOCK_B if P0 == 1 else BLOCK_C)
    SB: tl.constexpr = BLOCK_A if P1 == 0 else (BLOCK_B if P1 == 1 else BLOCK_C)
    SC: tl.constexpr = BLOCK_A if P2 == 0 else (BLOCK_B if P2 == 1 else BLOCK_C)
    oa = tl.arange(0, SA)
    ob = tl.arange(0, SB)
    oc = tl.arange(0, SC)
    tl.store(out_ptr + base + oa[:, None, None] * (SB * SC) + ob[None, :, None] * SC + oc[None, None, :], y)


@triton.jit
def colsum_trans_kernel(out_ptr, sum_ptr, in_ptr, M, N, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                        STORE_T: tl.constexpr):
    # column sums of a transposed tile (x^T row sums) plus optional transposed copy
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    x = tl.load(in_ptr + rm[:, None] * stride + rn[None, :])
    xt = tl.trans(x)
    s = tl.sum(xt.to(tl.float32), axis=1)
    tl.atomic_add(sum_ptr + rn, s)
    if STORE_T:
        tl.store(out_ptr + rn[:, None] * M + rm[None, :], xt)


@triton.jit
def colreduce_kernel(out_ptr, in_ptr, M, N, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, OP: tl.constexpr):
    # reduce along columns (axis 0) over a loop of row blocks: bias-grad / column max
    rn = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    if OP == "max":
        acc = tl.full([BLOCK_N], -float("inf"), tl.float32)
    else:
        acc = tl.zeros([BLOCK_N], tl.float32)
    for start in range(0, M, BLOCK_M):
        rm = start + tl.arange(0, BLOCK_M)
        x = tl.load(in_ptr + rm[:, None] * stride + rn[None, :], mask=rm[:, None] < M, other=0.).to(tl.float32)
        if OP == "max":
            acc = tl.maximum(acc, tl.max(x, axis=0))
        else:
            acc += tl.sum(x, axis=0)
    tl.store(out_ptr + rn, acc)


@triton.jit
def cumsum_kernel(out_ptr, in_ptr, M, N, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  AXIS: tl.constexpr, REVERSE: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(in_ptr + rm[:, None] * stride + rn[None, :], mask=mask, other=0)
    y = tl.cumsum(x, axis=AXIS, reverse=REVERSE)
    tl.store(out_ptr + rm[:, None] * stride + rn[None, :], y, mask=mask)


@triton.jit
def _lin_rec(a1, b1, a2, b2):
    return a1 * a2, b1 * a2 + b2


@triton.jit
def linear_scan_kernel(h_ptr, a_ptr, x_ptr, L, D, BLOCK_L: tl.constexpr, BLOCK_D: tl.constexpr):
    # first-order linear recurrence h_t = a_t * h_{t-1} + x_t along time (axis 0), as in SSM/RNN scans
    rd = tl.program_id(0) * BLOCK_D + tl.arange(0, BLOCK_D)
    rl = tl.arange(0, BLOCK_L)
    h0 = tl.zeros([BLOCK_D], tl.float32)
    for start in range(0, L, BLOCK_L):
        offs = (start + rl)[:, None] * D + rd[None, :]
        a = tl.load(a_ptr + offs).to(tl.float32)
        x = tl.load(x_ptr + offs).to(tl.float32)
        ca, h = tl.associative_scan((a, x), 0, _lin_rec)
        h = h + ca * h0[None, :]
        tl.store(h_ptr + offs, h.to(h_ptr.dtype.element_ty))
        h0 = tl.sum(tl.where(rl[:, None] == BLOCK_L - 1, h, 0.), axis=0)


@triton.jit
def chunk_linear_attn_kernel(q_ptr, k_ptr, v_ptr, g_ptr, o_ptr, T, CHUNK: tl.constexpr, DK: tl.constexpr,
                             DV: tl.constexpr):
    # gated linear attention, intra-chunk part (fla-style): cumulative log-decay,
    # causal decay matrix exp(G_i - G_j), (Q K^T * D) V
    i_c = tl.program_id(0)
    i_bh = tl.program_id(1)
    rt = i_c * CHUNK + tl.arange(0, CHUNK)
    rk = tl.arange(0, DK)
    rv = tl.arange(0, DV)
    base = i_bh * T
    q = tl.load(q_ptr + (base + rt)[:, None] * DK + rk[None, :])
    k = tl.load(k_ptr + (base + rt)[:, None] * DK + rk[None, :])
    v = tl.load(v_ptr + (base + rt)[:, None] * DV + rv[None, :])
    g = tl.load(g_ptr + base + rt).to(tl.float32)
    G = tl.cumsum(g, axis=0)
    s = tl.dot(q, tl.trans(k))
    ri = tl.arange(0, CHUNK)
    decay = tl.where(ri[:, None] >= ri[None, :], tl.exp(G[:, None] - G[None, :]), 0.)
    s = s * decay
    o = tl.dot(s.to(v.dtype), v)
    tl.store(o_ptr + (base + rt)[:, None] * DV + rv[None, :], o.to(o_ptr.dtype.element_ty))


@triton.jit
def argmax_kernel(idx_ptr, val_ptr, in_ptr, M, N, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  AXIS: tl.constexpr, ARGMIN: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    x = tl.load(in_ptr + rm[:, None] * stride + rn[None, :])
    if ARGMIN:
        v, i = tl.min(x, axis=AXIS, return_indices=True)
    else:
        v, i = tl.max(x, axis=AXIS, return_indices=True)
    if AXIS == 1:
        tl.store(idx_ptr + rm, i)
        tl.store(val_ptr + rm, v)
    else:
        tl.store(idx_ptr + tl.program_id(0) * BLOCK_N + rn, i)
        tl.store(val_ptr + tl.program_id(0) * BLOCK_N + rn, v)


@triton.jit
def greedy_sample_kernel(tok_ptr, logits_ptr, V, stride, BLOCK_M: tl.constexpr, BLOCK_V: tl.constexpr):
    # chunked argmax over the vocabulary (greedy decoding), tl.argmax per chunk
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    best_v = tl.full([BLOCK_M], -float("inf"), tl.float32)
    best_i = tl.zeros([BLOCK_M], tl.int32)
    for start in range(0, V, BLOCK_V):
        cols = start + tl.arange(0, BLOCK_V)
        x = tl.load(logits_ptr + rm[:, None] * stride + cols[None, :], mask=cols[None, :] < V,
                    other=-float("inf")).to(tl.float32)
        i = tl.argmax(x, axis=1) + start
        v = tl.max(x, axis=1)
        upd = v > best_v
        best_i = tl.where(upd, i, best_i)
        best_v = tl.where(upd, v, best_v)
    tl.store(tok_ptr + rm, best_i)


@triton.jit
def histogram_kernel(hist_ptr, in_ptr, n, BLOCK: tl.constexpr, NUM_BINS: tl.constexpr, MASKED: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if MASKED:
        x = tl.load(in_ptr + offs, mask=offs < n, other=0)
        h = tl.histogram(x, NUM_BINS, mask=offs < n)
    else:
        x = tl.load(in_ptr + offs)
        h = tl.histogram(x, NUM_BINS)
    tl.atomic_add(hist_ptr + tl.arange(0, NUM_BINS), h)


@triton.jit
def moe_count_kernel(counts_ptr, expert_ids_ptr, n, BLOCK: tl.constexpr, NUM_EXPERTS: tl.constexpr):
    # MoE routing: tokens per expert (histogram) and their exclusive prefix sum
    offs = tl.arange(0, BLOCK)
    h = tl.zeros([NUM_EXPERTS], tl.int32)
    for start in range(0, n, BLOCK):
        e = tl.load(expert_ids_ptr + start + offs, mask=start + offs < n, other=0)
        h += tl.histogram(e, NUM_EXPERTS, mask=start + offs < n)
    tl.store(counts_ptr + tl.arange(0, NUM_EXPERTS), tl.cumsum(h, 0) - h)


@triton.jit
def moe_router_kernel(ids_ptr, w_ptr, counts_ptr, logits_ptr, n_tokens, BLOCK_T: tl.constexpr,
                      NUM_EXPERTS: tl.constexpr):
    # top-1 MoE router: expert = argmax of the router logits, gate = its softmax
    # probability, tokens per expert counted with tl.histogram of the argmax
    rt = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    re = tl.arange(0, NUM_EXPERTS)
    tmask = rt < n_tokens
    x = tl.load(logits_ptr + rt[:, None] * NUM_EXPERTS + re[None, :], mask=tmask[:, None], other=0.).to(tl.float32)
    m, e = tl.max(x, axis=1, return_indices=True)
    w = 1.0 / tl.sum(tl.exp(x - m[:, None]), axis=1)
    tl.store(ids_ptr + rt, e, mask=tmask)
    tl.store(w_ptr + rt, w, mask=tmask)
    h = tl.histogram(e, NUM_EXPERTS, mask=tmask)
    tl.atomic_add(counts_ptr + re, h)


@triton.jit
def rope_kernel(out_ptr, x_ptr, cos_ptr, sin_ptr, seqlen, stride_s, stride_h,
                BLOCK_S: tl.constexpr, HEAD_DIM: tl.constexpr, INTERLEAVED: tl.constexpr):
    # rotary position embedding; halves split with reshape/permute/split, put back with join
    pid_s = tl.program_id(0)
    pid_h = tl.program_id(1)
    HALF: tl.constexpr = HEAD_DIM // 2
    rs = pid_s * BLOCK_S + tl.arange(0, BLOCK_S)
    rd = tl.arange(0, HEAD_DIM)
    rh = tl.arange(0, HALF)
    smask = rs[:, None] < seqlen
    offs = rs[:, None] * stride_s + pid_h * stride_h + rd[None, :]
    x = tl.load(x_ptr + offs, mask=smask, other=0.).to(tl.float32)
    cos = tl.load(cos_ptr + rs[:, None] * HALF + rh[None, :], mask=smask, other=1.)
    sin = tl.load(sin_ptr + rs[:, None] * HALF + rh[None, :], mask=smask, other=0.)
    if INTERLEAVED:
        x1, x2 = tl.split(tl.reshape(x, (BLOCK_S, HALF, 2)))
    else:
        x1, x2 = tl.split(tl.permute(tl.reshape(x, (BLOCK_S, 2, HALF)), (0, 2, 1)))
    o1 = x1 * cos - x2 * sin
    o2 = x2 * cos + x1 * sin
    if INTERLEAVED:
        o = tl.reshape(tl.join(o1, o2), (BLOCK_S, HEAD_DIM))
    else:
        o = tl.reshape(tl.permute(tl.join(o1, o2), (0, 2, 1)), (BLOCK_S, HEAD_DIM))
    tl.store(out_ptr + offs, o.to(out_ptr.dtype.element_ty), mask=smask)


@triton.jit
def glu_kernel(out_ptr, x_ptr, M, N, stride_x, stride_o, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
               PACKING: tl.constexpr, ACT: tl.constexpr):
    # SwiGLU / GeGLU on a fused [gate, up] projection output, halves taken with reshape + split
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    if PACKING == "pairs":  # gate/up interleaved element by element
        c2 = tl.program_id(1) * 2 * BLOCK_N + tl.arange(0, 2 * BLOCK_N)
        x = tl.load(x_ptr + rm[:, None] * stride_x + c2[None, :]).to(tl.float32)
        g, u = tl.split(tl.reshape(x, (BLOCK_M, BLOCK_N, 2)))
    else:  # gate and up as two halves of each row: load [M, 2, N] and split the middle axis
        r2 = tl.arange(0, 2)
        x = tl.load(x_ptr + rm[:, None, None] * stride_x + r2[None, :, None] * N + rn[None, None, :]).to(tl.float32)
        g, u = tl.split(tl.permute(x, (0, 2, 1)))
    if ACT == "silu":
        y = g * tl.sigmoid(g) * u
    else:
        y = 0.5 * g * (1 + tl.erf(g * 0.7071067811865476)) * u
    tl.store(out_ptr + rm[:, None] * stride_o + rn[None, :], y.to(out_ptr.dtype.element_ty))


@triton.jit
def sort_kernel(out_ptr, in_ptr, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, DESC: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    x = tl.load(in_ptr + rm[:, None] * stride + rn[None, :])
    y = tl.sort(x, dim=1, descending=DESC)
    tl.store(out_ptr + rm[:, None] * stride + rn[None, :], y)


@triton.jit
def topk_kernel(val_ptr, idx_ptr, in_ptr, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, K: tl.constexpr):
    # top-k of each row with indices: index packed into the low bits of the key (MoE router style)
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    x = tl.load(in_ptr + rm[:, None] * stride + rn[None, :]).to(tl.float32)
    bits = x.to(tl.int32, bitcast=True)
    key = tl.where(bits < 0, bits ^ 0x7FFFFFFF, bits).to(tl.int64)
    key = (key << 32) | (BLOCK_N - 1 - rn[None, :]).to(tl.int64)
    top = tl.topk(key, K, dim=1)
    rk = tl.arange(0, K)
    idx = (BLOCK_N - 1 - (top & 0xFFFFFFFF)).to(tl.int32)
    vb = (top >> 32).to(tl.int32)
    v = tl.where(vb < 0, vb ^ 0x7FFFFFFF, vb).to(tl.float32, bitcast=True)
    tl.store(idx_ptr + rm[:, None] * K + rk[None, :], idx)
    tl.store(val_ptr + rm[:, None] * K + rk[None, :], v)


@triton.jit
def gather_kernel(out_ptr, src_ptr, idx_ptr, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr, AXIS: tl.constexpr):
    # in-register gather along an axis of a loaded tile (tl.gather)
    pid = tl.program_id(0)
    rm = tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    src = tl.load(src_ptr + pid * BLOCK_M * BLOCK_N + rm[:, None] * BLOCK_N + rn[None, :])
    if AXIS == 1:
        rk = tl.arange(0, BLOCK_K)
        idx = tl.load(idx_ptr + pid * BLOCK_M * BLOCK_K + rm[:, None] * BLOCK_K + rk[None, :])
        y = tl.gather(src, idx, 1)
        tl.store(out_ptr + pid * BLOCK_M * BLOCK_K + rm[:, None] * BLOCK_K + rk[None, :], y)
    else:
        rk = tl.arange(0, BLOCK_K)
        idx = tl.load(idx_ptr + pid * BLOCK_K * BLOCK_N + rk[:, None] * BLOCK_N + rn[None, :])
        y = tl.gather(src, idx, 0)
        tl.store(out_ptr + pid * BLOCK_K * BLOCK_N + rk[:, None] * BLOCK_N + rn[None, :], y)


@triton.jit
def fp8_quant_kernel(q_ptr, s_ptr, x_ptr, M, N, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                     MODE: tl.constexpr):
    # fp8 activation quantisation: per-token (row) or per-block (DeepSeek 128x128) absmax scales
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * stride + rn[None, :], mask=mask, other=0.).to(tl.float32)
    if MODE == "token":
        amax = tl.max(tl.abs(x), axis=1)
        scale = tl.maximum(amax, 1e-12) / 448.0
        q = x / scale[:, None]
        tl.store(s_ptr + rm * tl.num_programs(1) + tl.program_id(1), scale, mask=rm < M)
    elif MODE == "col":
        amax = tl.max(tl.abs(x), axis=0)
        scale = tl.maximum(amax, 1e-12) / 448.0
        q = x / scale[None, :]
        tl.store(s_ptr + tl.program_id(0) * N + rn, scale, mask=rn < N)
    else:
        amax = tl.max(tl.max(tl.abs(x), axis=1), axis=0)
        scale = tl.maximum(amax, 1e-12) / 448.0
        q = x / scale
        tl.store(s_ptr + tl.program_id(0) * tl.num_programs(1) + tl.program_id(1), scale)
    tl.store(q_ptr + rm[:, None] * stride + rn[None, :], q.to(q_ptr.dtype.element_ty), mask=mask)


# ----------------------------------------------------------------------------
# Jobs: (family, params) -> kernel, signature, constexprs, options
# ----------------------------------------------------------------------------

Job = collections.namedtuple(
    "Job", "family params kernel types constexprs num_warps num_stages targets")

FAMILIES = {}


def family(name):
    def deco(fn):
        FAMILIES[name] = fn
        return fn
    return deco


def J(family, params, kernel, types, consts, w, s=3, targets=NV + AMD):
    """types: the non-constexpr arguments in order ('*fp16', 'i32', 'fp32', ...)"""
    return Job(family, params, kernel.__name__, tuple(types), tuple(sorted(consts.items())), w, s, tuple(targets))


def P(dt):
    return "*" + SIG[dt]


def sample(configs, n):
    """n configurations spread over a full cartesian product, deterministically.

    Indices follow the golden-ratio sequence frac(k * phi) * len, which never
    locks onto the period of an inner dimension (as a fixed stride would), so
    every dimension keeps varying while the corpus stays small."""
    configs = list(configs)
    if len(configs) <= n:
        return configs
    phi = (5 ** 0.5 - 1) / 2
    picked, k = set(), 0
    while len(picked) < n:
        picked.add(int(((k * phi) % 1.0) * len(configs)))
        k += 1
    return [configs[i] for i in sorted(picked)]


WARPS = (1, 2, 4, 8, 16)
product = itertools.product


@family("softmax")
def _softmax():
    # the fused row softmax keeps one layout end to end: a few configs document that (SKIPPED.tsv)
    for dt, (bm, bn), w in sample(product(("fp16", "fp32", "bf16"), [(1, 1024), (4, 256), (16, 64), (2, 4096)],
                                          WARPS), 4):
        yield J("softmax", f"{dt}_{bm}x{bn}_w{w}", softmax_kernel, [P(dt), P(dt), "i32", "i32", "i32", "i32"],
                dict(BLOCK_M=bm, BLOCK_N=bn), w)
    for dt, (bm, bn), w in sample(product(("fp16", "fp32", "bf16"), [(1, 1024), (4, 256), (16, 128), (8, 512),
                                                                     (2, 2048), (32, 64)], WARPS), 10):
        yield J("softmax", f"online_{dt}_{bm}x{bn}_w{w}", softmax_online_kernel,
                [P(dt), "*fp32", P(dt), "i32", "i32", "i32"], dict(BLOCK_M=bm, BLOCK_N=bn), w)


NORM_TILES = [(1, 1024), (1, 4096), (2, 2048), (4, 1024), (8, 512), (16, 256), (32, 128), (64, 64), (4, 4096),
              (16, 1024)]


@family("layernorm_fwd")
def _ln_fwd():
    for dt, (bm, bn), w in sample(product(("fp16", "bf16", "fp32"), NORM_TILES, WARPS), 20):
        yield J("layernorm_fwd", f"{dt}_{bm}x{bn}_w{w}", layernorm_fwd_kernel,
                [P(dt), P(dt), P(dt), P(dt), "*fp32", "*fp32", "i32", "i32", "i32", "fp32"],
                dict(BLOCK_M=bm, BLOCK_N=bn), w)


@family("layernorm_bwd")
def _ln_bwd():
    for dt, (bm, bn), w in sample(product(("fp16", "bf16", "fp32"), NORM_TILES, WARPS), 20):
        yield J("layernorm_bwd", f"{dt}_{bm}x{bn}_w{w}", layernorm_bwd_kernel,
                [P(dt), P(dt), P(dt), P(dt), "*fp32", "*fp32", "*fp32", "*fp32", "i32", "i32", "i32"],
                dict(BLOCK_M=bm, BLOCK_N=bn), w)


@family("rmsnorm")
def _rms():
    for dt, (bm, bn), w, res in sample(product(("fp16", "bf16"), NORM_TILES, WARPS, (0, 1)), 18):
        yield J("rmsnorm", f"{'add_' if res else ''}{dt}_{bm}x{bn}_w{w}", rmsnorm_kernel,
                [P(dt), P(dt), P(dt), P(dt), "*fp32", "i32", "i32", "i32", "fp32"],
                dict(BLOCK_M=bm, BLOCK_N=bn, RESIDUAL=res), w)
    for dt, (bm, bn), w in sample(product(("fp16", "bf16"), NORM_TILES, WARPS), 8):
        yield J("rmsnorm", f"bwd_{dt}_{bm}x{bn}_w{w}", rmsnorm_bwd_kernel,
                [P(dt), P(dt), P(dt), P(dt), "*fp32", "*fp32", "i32", "i32", "i32"],
                dict(BLOCK_M=bm, BLOCK_N=bn), w)


MM_TILES = [(16, 16, 16), (32, 32, 32), (64, 64, 32), (64, 128, 32), (128, 64, 32), (128, 128, 32), (128, 128, 64),
            (64, 256, 32), (256, 64, 32), (128, 256, 64), (16, 64, 64), (64, 32, 64)]


def _mm_warps(bm, bn):
    n = bm * bn
    if n <= 256:
        return (1, 2)
    if n <= 1024:
        return (1, 2, 4)
    if n <= 4096:
        return (2, 4, 8)
    if n <= 16384:
        return (4, 8)
    return (8, 16)


@family("matmul")
def _matmul():
    # (a dtype, b dtype, c dtype, int accumulator, targets)
    kinds = [("fp16", "fp16", "fp16", 0, NV + AMD), ("bf16", "bf16", "bf16", 0, NV + AMD),
             ("fp32", "fp32", "fp32", 0, NV + AMD), ("i8", "i8", "i32", 1, NV + AMD),
             ("fp8e4nv", "fp8e4nv", "fp16", 0, ("cuda:90", "cuda:100", "hip:gfx950")),
             ("fp8e5", "fp8e5", "fp16", 0, ("cuda:90", "cuda:100", "hip:gfx950"))]
    full = []
    for (adt, bdt, cdt, acc_int, tg), (bm, bn, bk), bt in product(kinds, MM_TILES, (0, 1)):
        if adt.startswith("fp8") or adt == "i8":
            bk = max(bk, 32)
        for w in _mm_warps(bm, bn):
            for s in ((2, 3, 4) if (bm, bn) == (128, 128) else (3, )):
                full.append((adt, bdt, cdt, acc_int, tg, bm, bn, bk, bt, w, s))
    for adt, bdt, cdt, acc_int, tg, bm, bn, bk, bt, w, s in sample(full, 36):
        name = f"{adt}{'_bT' if bt else ''}_{bm}x{bn}x{bk}_w{w}_s{s}"
        yield J("matmul", name, matmul_kernel, [P(adt), P(bdt), P(cdt)] + ["i32"] * 9,
                dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, ACC_INT=acc_int, B_TRANS=bt), w, s, targets=tg)


@family("matmul_epilogue")
def _mm_epi():
    tiles = [(32, 32, 32), (64, 64, 32), (64, 128, 32), (128, 64, 32), (128, 128, 32), (128, 256, 64), (16, 128, 64)]
    variants = [("relu", 0, 0, 0), ("gelu", 1, 0, 0), ("silu", 0, 1, 0), ("relu", 0, 0, 1), ("leaky", 1, 1, 1),
                ("none", 0, 0, 1)]
    full = [(dt, t, v, w) for dt, t, v in product(("fp16", "bf16"), tiles, variants) for w in _mm_warps(*t[:2])]
    for dt, (bm, bn, bk), (act, rs, res, ts), w in sample(full, 14):
        name = f"{dt}_{act}{'_rowscale' if rs else ''}{'_res' if res else ''}{'_Tstore' if ts else ''}_{bm}x{bn}x{bk}_w{w}"
        yield J("matmul_epilogue", name, matmul_epilogue_kernel,
                [P(dt), P(dt), P(dt), P(dt), "*fp32", P(dt)] + ["i32"] * 7,
                dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, ACT=act, ROW_SCALE=rs, RESIDUAL=res, TRANS_STORE=ts), w)
    full = [(dt, t, sk, w) for dt, t, sk in product(("fp16", "bf16"), [(64, 64, 32), (128, 128, 32), (32, 64, 64),
                                                                       (128, 64, 64)], (2, 4))
            for w in _mm_warps(*t[:2])]
    for dt, (bm, bn, bk), sk, w in sample(full, 4):
        yield J("matmul_epilogue", f"splitk{sk}_{dt}_{bm}x{bn}x{bk}_w{w}", matmul_splitk_kernel,
                [P(dt), P(dt), "*fp32"] + ["i32"] * 6, dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, SPLIT_K=sk), w)


ATTN_TILES = [(64, 32, 4), (64, 64, 4), (128, 64, 4), (128, 64, 8), (128, 128, 8), (128, 32, 4), (64, 128, 4),
              (32, 32, 2), (16, 32, 1), (256, 64, 8), (128, 128, 16)]


@family("attn_fwd")
def _attn_fwd():
    kinds = [("fp16", "fp16", NV + AMD), ("bf16", "bf16", NV + AMD),
             ("fp16", "fp8e5", ("cuda:90", "cuda:100", "hip:gfx950")),
             ("fp8e4nv", "fp8e4nv", ("cuda:90", "cuda:100", "hip:gfx950"))]
    for (qdt, vdt, tg), d, (bm, bn, w), causal, kt in sample(product(kinds, (64, 128), ATTN_TILES, (0, 1), (1, 0)),
                                                              20):
        vname = f"{qdt}" if vdt == qdt else f"{qdt}_v{vdt}"
        name = f"{vname}_d{d}_{bm}x{bn}{'_causal' if causal else ''}{'' if kt else '_ktrans'}_w{w}"
        odt = "fp16" if qdt.startswith("fp8") else qdt
        yield J("attn_fwd", name, attn_fwd_kernel, [P(qdt), P(qdt), P(vdt), P(odt), "*fp32", "fp32", "i32"],
                dict(HEAD_DIM=d, BLOCK_M=bm, BLOCK_N=bn, CAUSAL=causal, K_TRANS_LOAD=kt), w, targets=tg)


@family("attn_bwd")
def _attn_bwd():
    tiles = [(32, 64, 4), (64, 64, 4), (32, 128, 4), (64, 128, 8), (16, 64, 2), (128, 128, 8), (32, 32, 1),
             (64, 32, 2)]
    for dt, d, (bm, bn, w), causal in sample(product(("fp16", "bf16"), (64, 128), tiles, (0, 1)), 8):
        yield J("attn_bwd", f"dkdv_{dt}_d{d}_{bm}x{bn}{'_causal' if causal else ''}_w{w}", attn_bwd_dkdv_kernel,
                [P(dt)] * 4 + ["*fp32", "*fp32", P(dt), P(dt), "fp32", "i32"],
                dict(HEAD_DIM=d, BLOCK_M=bm, BLOCK_N=bn, CAUSAL=causal), w)
    for dt, d, (bm, bn, w), causal in sample(product(("bf16", "fp16"), (128, 64), tiles, (1, 0)), 8):
        yield J("attn_bwd", f"dq_{dt}_d{d}_{bn}x{bm}{'_causal' if causal else ''}_w{w}", attn_bwd_dq_kernel,
                [P(dt)] * 4 + ["*fp32", "*fp32", P(dt), "fp32", "i32"],
                dict(HEAD_DIM=d, BLOCK_M=bn, BLOCK_N=bm, CAUSAL=causal), w)
    for dt, d, bm, w in sample(product(("fp16", "bf16"), (64, 128), (32, 64, 128), (2, 4, 8)), 2):
        yield J("attn_bwd", f"pre_{dt}_d{d}_{bm}_w{w}", attn_bwd_preprocess_kernel,
                [P(dt), P(dt), "*fp32", "i32"], dict(HEAD_DIM=d, BLOCK_M=bm), w)


@family("paged_decode")
def _paged():
    for dt, d, page, gqa, w in sample(product(("fp16", "bf16"), (64, 128), (16, 32, 64), (1, 4, 8, 16),
                                              (1, 2, 4, 8)), 6):
        yield J("paged_decode", f"{dt}_d{d}_page{page}_gqa{gqa}_w{w}", paged_decode_kernel,
                [P(dt), P(dt), P(dt), "*i32", "*i32", P(dt), "fp32", "i32", "i32"],
                dict(NUM_KV_HEADS=8, HEAD_DIM=d, GQA=gqa, PAGE_SIZE=page, BLOCK_H=16), w)


@family("grouped_gemm")
def _grouped():
    tiles = [(64, 64, 32), (128, 128, 32), (64, 128, 64), (128, 64, 32), (32, 32, 32), (128, 256, 64)]
    full = [(dt, t, w) for dt, t in product(("fp16", "bf16"), tiles) for w in _mm_warps(*t[:2])]
    for dt, (bm, bn, bk), w in sample(full, 6):
        yield J("grouped_gemm", f"{dt}_{bm}x{bn}x{bk}_w{w}", grouped_gemm_kernel,
                ["*i64", "*i64", "*i64", "*i32", "*i32", "i32"],
                dict(NUM_SM=132, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, DTYPE=TL[dt]), w)


@family("int4_gemm")
def _int4():
    tiles = [(16, 64, 64), (16, 128, 128), (32, 64, 64), (64, 64, 64), (64, 128, 32), (128, 128, 64), (32, 256, 64),
             (128, 64, 128), (16, 32, 256)]
    full = [(dt, pack, gs, t, w) for dt, pack, gs, t in product(("fp16", "bf16"), ("kjoin", "nileave", "awq"),
                                                                (32, 128), tiles) for w in _mm_warps(*t[:2])]
    for dt, pack, gs, (bm, bn, bk), w in sample(full, 14):
        bdt = "u8" if pack == "awq" else "i8"
        yield J("int4_gemm", f"{pack}_{dt}_g{gs}_{bm}x{bn}x{bk}_w{w}", int4_gemm_kernel,
                [P(dt), P(bdt), P(dt), P(dt), P(dt)] + ["i32"] * 7,
                dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_SIZE=gs, PACK=pack), w)


@family("mixed_gemm")
def _mixed():
    kinds = [("fp16", "i8", 0, NV + AMD), ("bf16", "i8", 0, NV + AMD), ("i8", "fp16", 1, NV + AMD),
             ("bf16", "fp8e4nv", 0, ("cuda:90", "cuda:100", "hip:gfx950")),
             ("fp16", "fp8e5", 0, NV + AMD)]
    tiles = [(16, 64, 64), (32, 128, 64), (64, 64, 64), (128, 128, 32), (128, 64, 64), (64, 256, 32)]
    full = [(k, t, w) for k, t in product(kinds, tiles) for w in _mm_warps(*t[:2])]
    for (adt, bdt, ua, tg), (bm, bn, bk), w in sample(full, 10):
        cdt = bdt if ua else adt
        yield J("mixed_gemm", f"{adt}x{bdt}_{bm}x{bn}x{bk}_w{w}", mixed_gemm_kernel,
                [P(adt), P(bdt), "*fp32", P(cdt)] + ["i32"] * 6,
                dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, UPCAST_A=ua), w, targets=tg)


@family("mxfp_gemm")
def _mxfp():
    kinds = [("e2m1", "e2m1"), ("e4m3", "e2m1"), ("e4m3", "e4m3"), ("bf16", "e2m1"), ("e5m2", "e4m3")]
    sig = {"e2m1": "*u8", "e4m3": "*fp8e4nv", "e5m2": "*fp8e5", "bf16": "*bf16"}
    full = [(k, t, w) for k, t in product(kinds, [(128, 128, 128), (64, 64, 128), (128, 256, 128), (32, 64, 64),
                                                  (128, 64, 256)]) for w in _mm_warps(*t[:2])]
    for (af, bf), (bm, bn, bk), w in sample(full, 16):
        yield J("mxfp_gemm", f"{af}x{bf}_{bm}x{bn}x{bk}_w{w}", mxfp_gemm_kernel,
                [sig[af], "*u8", sig[bf], "*u8", "*bf16"] + ["i32"] * 6,
                dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, A_FMT=af, B_FMT=bf), w,
                targets=("cuda:90", "cuda:100", "hip:gfx950"))


@family("bmm3d")
def _bmm3d():
    tiles = [(2, 16, 16, 16), (4, 16, 32, 16), (2, 32, 32, 32), (8, 16, 16, 32), (2, 64, 64, 32), (4, 32, 64, 16),
             (16, 16, 16, 16)]
    for dt, (bb, bm, bn, bk), sm, w in sample(product(("fp16", "bf16", "fp32"), tiles, (0, 1), (1, 2, 4, 8)), 9):
        yield J("bmm3d", f"{dt}_{bb}x{bm}x{bn}x{bk}{'_softmax' if sm else ''}_w{w}", bmm3d_kernel,
                [P(dt), P(dt), P(dt)] + ["i32"] * 4,
                dict(BLOCK_B=bb, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, SOFTMAX=sm), w)


@family("cross_entropy")
def _xent():
    tiles = [(1, 1024), (1, 4096), (2, 2048), (4, 1024), (8, 512), (16, 256), (32, 128)]
    for dt, (bm, bv), w in sample(product(("fp16", "bf16", "fp32"), tiles, WARPS), 16):
        yield J("cross_entropy", f"fwd_{dt}_{bm}x{bv}_w{w}", cross_entropy_fwd_kernel,
                ["*fp32", "*fp32", P(dt), "*i64", "i32", "i32", "i32", "fp32"],
                dict(BLOCK_M=bm, BLOCK_V=bv, IGNORE_INDEX=-100), w)
    # the gradient kernel keeps one layout: a few configs document that (SKIPPED.tsv)
    for dt, (bm, bv), w in sample(product(("fp16", "bf16", "fp32"), tiles, WARPS), 3):
        yield J("cross_entropy", f"bwd_{dt}_{bm}x{bv}_w{w}", cross_entropy_bwd_kernel,
                [P(dt), P(dt), "*fp32", "*i64", "*fp32", "i32", "i32", "i32"], dict(BLOCK_M=bm, BLOCK_V=bv), w)


@family("transpose")
def _transpose():
    tiles = [(16, 16), (32, 32), (64, 64), (32, 128), (128, 32), (128, 128), (16, 256), (64, 16), (256, 64)]
    full = [c for c in product(("fp32", "fp16", "i8", "fp8e4nv", "i64"), tiles, WARPS) if c[1][0] * c[1][1] >= 64 * c[2]]
    for dt, (bm, bn), w in sample(full, 22):
        yield J("transpose", f"{dt}_{bm}x{bn}_w{w}", transpose_kernel, [P(dt), P(dt), "i32", "i32", "i32", "i32"],
                dict(BLOCK_M=bm, BLOCK_N=bn), w,
                targets=("cuda:90", "cuda:100", "hip:gfx950") if dt == "fp8e4nv" else NV + AMD)


@family("permute")
def _permute():
    shapes = [(4, 8, 64), (8, 16, 32), (2, 64, 64), (16, 16, 16), (32, 4, 128), (4, 32, 8)]
    perms = [(0, 2, 1), (1, 0, 2), (2, 1, 0), (1, 2, 0), (2, 0, 1)]
    for dt, (a, b, c), p, w in sample(product(("fp16", "fp32", "i8"), shapes, perms, (1, 2, 4, 8)), 24):
        yield J("permute", f"{dt}_{a}x{b}x{c}_p{''.join(map(str, p))}_w{w}", permute3d_kernel, [P(dt), P(dt)],
                dict(BLOCK_A=a, BLOCK_B=b, BLOCK_C=c, P0=p[0], P1=p[1], P2=p[2]), w)


@family("colsum")
def _colsum():
    tiles = [(32, 32), (64, 64), (128, 32), (32, 128), (64, 128), (128, 128), (16, 64)]
    for dt, (bm, bn), w, st in sample(product(("fp32", "fp16", "i8"), tiles, (1, 2, 4, 8), (0, 1)), 16):
        yield J("colsum", f"trans_{dt}_{bm}x{bn}{'_storeT' if st else ''}_w{w}", colsum_trans_kernel,
                [P(dt), "*fp32", P(dt), "i32", "i32", "i32"], dict(BLOCK_M=bm, BLOCK_N=bn, STORE_T=st), w)
    for dt, (bm, bn), w, op in sample(product(("fp32", "fp16", "bf16"), [(32, 64), (64, 128), (16, 256), (128, 32)],
                                              (1, 2, 4, 8), ("sum", "max")), 10):
        yield J("colsum", f"{op}_{dt}_{bm}x{bn}_w{w}", colreduce_kernel, ["*fp32", P(dt), "i32", "i32", "i32"],
                dict(BLOCK_M=bm, BLOCK_N=bn, OP=op), w)


@family("scan")
def _scan():
    # plain tl.cumsum and the linear-recurrence scan keep one layout: a few configs document that
    tiles = [(1, 1024), (4, 256), (16, 64), (64, 16), (32, 32), (8, 512), (128, 8)]
    for dt, (bm, bn), w, ax, rev in sample(product(("fp32", "i32"), tiles, (1, 2, 4, 8), (0, 1), (0, 1)), 4):
        yield J("scan", f"cumsum_{dt}_{bm}x{bn}_ax{ax}{'_rev' if rev else ''}_w{w}", cumsum_kernel,
                [P(dt), P(dt), "i32", "i32", "i32"], dict(BLOCK_M=bm, BLOCK_N=bn, AXIS=ax, REVERSE=rev), w)
    for dt, (bl, bd), w in sample(product(("fp32", "fp16"), [(16, 64), (32, 32), (64, 16), (128, 8), (8, 128)],
                                          (1, 2, 4, 8)), 3):
        yield J("scan", f"linrec_{dt}_{bl}x{bd}_w{w}", linear_scan_kernel, [P(dt), P(dt), P(dt), "i32", "i32"],
                dict(BLOCK_L=bl, BLOCK_D=bd), w)
    for dt, c, dk, dv, w in sample(product(("fp16", "bf16"), (16, 32, 64), (32, 64, 128), (64, 128), (1, 2, 4, 8)),
                                   24):
        yield J("scan", f"chunk_gla_{dt}_c{c}_k{dk}_v{dv}_w{w}", chunk_linear_attn_kernel,
                [P(dt), P(dt), P(dt), "*fp32", P(dt), "i32"], dict(CHUNK=c, DK=dk, DV=dv), w)


@family("argmax")
def _argmax():
    tiles = [(1, 1024), (4, 256), (16, 64), (64, 16), (32, 32), (8, 512), (128, 8)]
    for dt, (bm, bn), w, ax, amin in sample(product(("fp32", "fp16", "i32"), tiles, (1, 2, 4, 8), (0, 1), (0, 1)),
                                            30):
        yield J("argmax", f"{'argmin_' if amin else ''}{dt}_{bm}x{bn}_ax{ax}_w{w}", argmax_kernel,
                ["*i32", P(dt), P(dt), "i32", "i32", "i32"], dict(BLOCK_M=bm, BLOCK_N=bn, AXIS=ax, ARGMIN=amin), w)
    for dt, (bm, bv), w in sample(product(("fp32", "bf16"), [(1, 1024), (4, 512), (16, 128), (2, 4096)], WARPS), 8):
        yield J("argmax", f"greedy_{dt}_{bm}x{bv}_w{w}", greedy_sample_kernel, ["*i32", P(dt), "i32", "i32"],
                dict(BLOCK_M=bm, BLOCK_V=bv), w)


@family("histogram")
def _hist():
    # a histogram of a 1-D block keeps one layout: a few configs document that (SKIPPED.tsv)
    for dt, blk, bins, w, msk in sample(product(("i32", "i16"), (256, 4096), (16, 256), (1, 4, 16), (0, 1)), 3):
        yield J("histogram", f"{dt}_{blk}_bins{bins}{'_masked' if msk else ''}_w{w}", histogram_kernel,
                ["*i32", P(dt), "i32"], dict(BLOCK=blk, NUM_BINS=bins, MASKED=msk), w)
    for blk, ne, w in sample(product((256, 4096), (8, 64), (1, 4)), 1):
        yield J("histogram", f"moe_count_{blk}_e{ne}_w{w}", moe_count_kernel, ["*i32", "*i32", "i32"],
                dict(BLOCK=blk, NUM_EXPERTS=ne), w)
    full = [c for c in product(("fp32", "bf16"), (16, 64, 128, 256, 1024), (8, 16, 64, 128, 256), WARPS)
            if c[1] * c[2] <= 65536]
    for dt, bt, ne, w in sample(full, 26):
        yield J("histogram", f"moe_router_{dt}_t{bt}_e{ne}_w{w}", moe_router_kernel,
                ["*i32", "*fp32", "*i32", P(dt), "i32"], dict(BLOCK_T=bt, NUM_EXPERTS=ne), w)


@family("rope")
def _rope():
    for dt, bs, d, il, w in sample(product(("fp16", "bf16", "fp32"), (1, 4, 16, 64), (64, 128, 256), (0, 1),
                                           (1, 2, 4, 8)), 28):
        yield J("rope", f"{dt}_s{bs}_d{d}{'_interleaved' if il else '_neox'}_w{w}", rope_kernel,
                [P(dt), P(dt), "*fp32", "*fp32", "i32", "i32", "i32"],
                dict(BLOCK_S=bs, HEAD_DIM=d, INTERLEAVED=il), w)


@family("glu")
def _glu():
    for dt, (bm, bn), pk, act, w in sample(product(("fp16", "bf16"), [(1, 1024), (4, 256), (16, 128), (32, 64),
                                                                      (64, 64), (8, 512)],
                                                   ("pairs", "halves"), ("silu", "gelu"), (1, 2, 4, 8)), 16):
        yield J("glu", f"{act}_{pk}_{dt}_{bm}x{bn}_w{w}", glu_kernel, [P(dt), P(dt), "i32", "i32", "i32", "i32"],
                dict(BLOCK_M=bm, BLOCK_N=bn, PACKING=pk, ACT=act), w)


@family("sort")
def _sort():
    # bitonic sorts unroll into large IR; a plain row sort keeps one layout (SKIPPED.tsv)
    for dt, (bm, bn), desc, w in sample(product(("fp32", "i32"), [(1, 256), (4, 64), (16, 32), (8, 128)], (0, 1),
                                                (1, 4)), 2):
        yield J("sort", f"{dt}_{bm}x{bn}{'_desc' if desc else ''}_w{w}", sort_kernel, [P(dt), P(dt), "i32"],
                dict(BLOCK_M=bm, BLOCK_N=bn, DESC=desc), w)
    for dt, (bm, bn), k, w in sample(product(("fp32", "bf16"), [(1, 256), (16, 64), (32, 32), (4, 128)], (2, 8),
                                             (1, 2, 4, 8)), 4):
        yield J("sort", f"topk{k}_{dt}_{bm}x{bn}_w{w}", topk_kernel, ["*fp32", "*i32", P(dt), "i32"],
                dict(BLOCK_M=bm, BLOCK_N=bn, K=k), w)


@family("gather")
def _gather():
    for dt, (bm, bn, bk), ax, w in sample(product(("fp32", "fp16", "i32"), [(16, 16, 16), (32, 64, 32), (64, 32, 64),
                                                                           (8, 128, 16), (128, 8, 4),
                                                                           (4, 256, 256)], (0, 1), (1, 2, 4, 8)), 28):
        yield J("gather", f"{dt}_{bm}x{bn}_k{bk}_ax{ax}_w{w}", gather_kernel, [P(dt), P(dt), "*i32", "i32"],
                dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, AXIS=ax), w)


@family("fp8_quant")
def _fp8q():
    # per-block (one scalar scale) quantisation keeps one layout: few configs of it
    full = [c for c in product(("fp16", "bf16", "fp32"), [(1, 128), (16, 128), (128, 128), (4, 512), (64, 64),
                                                         (32, 256)], ("token", "col", "block"), WARPS)]
    for dt, (bm, bn), mode, w in sample([c for c in full if c[2] != "block"], 16) + sample(
            [c for c in full if c[2] == "block"], 2):
        yield J("fp8_quant", f"{mode}_{dt}_{bm}x{bn}_w{w}", fp8_quant_kernel,
                ["*fp8e4nv", "*fp32", P(dt), "i32", "i32", "i32"], dict(BLOCK_M=bm, BLOCK_N=bn, MODE=mode), w,
                targets=("cuda:90", "cuda:100", "hip:gfx950"))


def all_jobs():
    """Every (job, target) pair, in a stable order; AMD gets a strided sample."""
    out = []
    for fam in sorted(FAMILIES):
        jobs = list(FAMILIES[fam]())
        for i, job in enumerate(jobs):
            for t in TARGETS:
                if t not in job.targets:
                    continue
                if t in AMD and i % AMD_STRIDE:
                    continue
                out.append((job, t))
    seen = set()
    for job, t in out:
        key = (t, job.family, job.params)
        assert key not in seen, f"duplicate name {key}"
        seen.add(key)
    return out


# ----------------------------------------------------------------------------
# Compilation to TTGIR (no driver, no ptxas)
# ----------------------------------------------------------------------------


def compile_to_ttgir(job, target_key):
    """Triton's compile() pipeline, stopped after the `ttgir` stage."""
    from triton.compiler.compiler import ASTSource, make_backend
    from triton._C.libtriton import ir

    fn = globals()[job.kernel]
    target = TARGETS[target_key][0]
    consts = dict(job.constexprs)
    sig, attrs = {}, {}
    types = iter(job.types)
    for i, name in enumerate(fn.arg_names):
        if name in consts:
            sig[name] = "constexpr"
            continue
        ty = next(types)
        sig[name] = ty
        # what the launcher infers for 16-byte aligned pointers and multiples of 16
        if ty.startswith("*") or ty in ("i32", "i64"):
            attrs[(i, )] = [["tt.divisibility", 16]]
    assert next(types, None) is None, f"{job.kernel}: too many types"
    src = ASTSource(fn, signature=sig, constexprs=consts, attrs=attrs)
    backend = make_backend(target)
    options = backend.parse_options(dict(num_warps=job.num_warps, num_stages=job.num_stages))
    stages = {}
    backend.add_stages(stages, options, src.language)
    context = ir.context()
    ir.load_dialects(context)
    backend.load_dialects(context)
    module = src.make_ir(target, options, backend.get_codegen_implementation(options), backend.get_module_map(),
                         context)
    metadata = {"target": target, **options.__dict__}
    for ext in ("ttir", "ttgir"):
        module = stages[ext](module, metadata)
    # MLIR's printer without debug info: no `loc(...)`, no `#loc` aliases
    text = module.str_nodebug()
    reparse(text, backend)
    return text


def reparse(text, backend):
    """Check that the text is MLIR that Triton's own parser reads back."""
    from triton._C.libtriton import ir
    context = ir.context()
    ir.load_dialects(context)
    backend.load_dialects(context)
    with tempfile.NamedTemporaryFile("w", suffix=".ttgir") as f:
        f.write(text)
        f.flush()
        ir.parse_mlir_module(f.name, context)
    assert "#loc" not in text and "loc(" not in text, "debug locations left in the text"


def _worker(conn, errlog):
    # C++ diagnostics go to fd 2: keep them per job to report why a config failed
    fd = os.open(errlog, os.O_RDWR | os.O_CREAT | os.O_TRUNC)
    os.dup2(fd, 2)
    sys.stderr = os.fdopen(2, "w", buffering=1)
    while True:
        msg = conn.recv()
        if msg is None:
            return
        idx, job, t = msg
        os.lseek(2, 0, os.SEEK_SET)
        os.ftruncate(2, 0)
        try:
            text = compile_to_ttgir(job, t)
            conn.send((idx, "ok", text))
        except BaseException as e:  # noqa: BLE001 - report every refusal
            sys.stderr.flush()
            os.lseek(2, 0, os.SEEK_SET)
            diag = os.read(2, 4000).decode(errors="replace")
            conn.send((idx, "fail", _reason(e, diag)))


def _reason(e, diag):
    lines = [l.strip() for l in diag.splitlines() if "error" in l.lower()]
    while e.__cause__ is not None or (e.__context__ is not None and not str(e).strip()):
        e = e.__cause__ or e.__context__
    msg = [m for m in str(e).strip().splitlines() if m.strip() and not m.startswith("  ")]
    if msg:
        msg = msg[-1]
    else:  # bare assert: name the line that raised it
        tb = traceback.extract_tb(e.__traceback__)
        msg = f"{os.path.basename(tb[-1].filename)}:{tb[-1].lineno} {tb[-1].line}" if tb else ""
    text = f"{type(e).__name__}: {msg}"
    if lines:
        text += " | " + lines[0]
    text = text.replace(os.path.abspath(__file__), os.path.basename(__file__))
    return " ".join(text.split())[:300]


def run_pool(work, nproc):
    """Run [(job, target)] on nproc worker processes; a crashed or hung worker
    only costs its current job. Returns {index: (status, payload)}."""
    ctx = mp.get_context("fork")
    tmp = tempfile.mkdtemp(prefix="gen_real_")
    results = {}
    pending = list(range(len(work)))[::-1]
    workers = {}  # slot -> [proc, conn, current index or None, start time]

    def spawn(slot):
        parent, child = ctx.Pipe()
        p = ctx.Process(target=_worker, args=(child, os.path.join(tmp, f"stderr{slot}")), daemon=True)
        p.start()
        child.close()
        workers[slot] = [p, parent, None, 0.0]

    def feed(slot):
        w = workers[slot]
        if pending:
            i = pending.pop()
            w[2], w[3] = i, time.time()
            w[1].send((i, ) + work[i])
        else:
            w[2] = None

    for s in range(nproc):
        spawn(s)
        feed(s)
    done = 0
    last = time.time()
    while any(w[2] is not None for w in workers.values()):
        conns = {w[1]: s for s, w in workers.items() if w[2] is not None}
        sentinels = {w[0].sentinel: s for s, w in workers.items() if w[2] is not None}
        ready = mpc.wait(list(conns) + list(sentinels), timeout=5)
        for r in ready:
            s = conns.get(r, sentinels.get(r))
            w = workers[s]
            if w[2] is None:
                continue
            if r in conns:
                try:
                    idx, status, payload = r.recv()
                except EOFError:
                    continue  # the sentinel reports the death
                results[idx] = (status, payload)
                done += 1
                feed(s)
            elif not w[0].is_alive():
                results[w[2]] = ("fail", f"compiler process died (exit code {w[0].exitcode})")
                done += 1
                spawn(s)
                feed(s)
        for s, w in list(workers.items()):
            if w[2] is not None and time.time() - w[3] > JOB_TIMEOUT_S:
                w[0].kill()
                w[0].join()
                results[w[2]] = ("fail", f"timeout after {JOB_TIMEOUT_S}s")
                done += 1
                spawn(s)
                feed(s)
        if time.time() - last > 15:
            last = time.time()
            print(f"  {done}/{len(work)} compiled", flush=True)
    for w in workers.values():
        w[1].send(None)
        w[0].join(5)
    shutil.rmtree(tmp, ignore_errors=True)
    return results


# ----------------------------------------------------------------------------
# Output, manifest, summary
# ----------------------------------------------------------------------------


def count_conversions(text):
    return sum(1 for line in text.splitlines() if "ttg.convert_layout" in line)


def file_name(job, t):
    return os.path.join(TARGETS[t][1], f"{job.family}_{job.params}.ttgir")


def clean_output(out):
    for t in TARGETS:
        d = os.path.join(out, TARGETS[t][1])
        if os.path.isdir(d):
            for f in os.listdir(d):
                if f.endswith(".ttgir"):
                    os.remove(os.path.join(d, f))
    for f in ("MANIFEST.tsv", "FAILED.tsv", "SKIPPED.tsv"):
        if os.path.exists(os.path.join(out, f)):
            os.remove(os.path.join(out, f))


def read_manifest(out):
    rows = []
    with open(os.path.join(out, "MANIFEST.tsv")) as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            rows.append(dict(zip(header, line.rstrip("\n").split("\t"))))
    return rows


ALIAS_RE = re.compile(r"^(#[\w.]+) = (.*)$")


def conversion_types(text):
    """Each ttg.convert_layout's `src type -> dst type`, attribute aliases expanded."""
    aliases, out = {}, []
    for line in text.splitlines():
        m = ALIAS_RE.match(line)
        if m:
            aliases[m.group(1)] = m.group(2)
        elif "ttg.convert_layout" in line:
            ty = line.split(" : ", 1)[1].strip()
            out.append(re.sub(r"#[\w.]+", lambda m: aliases.get(m.group(0), m.group(0)), ty))
    return out


def summary(out):
    rows = read_manifest(out)
    targets = [t for t in TARGETS if any(r["target"] == t for r in rows)]
    fams = sorted({r["family"] for r in rows})
    files = collections.Counter()
    conv = collections.Counter()
    for r in rows:
        files[r["family"], r["target"]] += 1
        conv[r["family"], r["target"]] += int(r["conversions"])
    w = max(len(f) for f in fams + ["family"])
    print("\nconversions (files) per family x target")
    print(f"{'family':<{w}}  " + "  ".join(f"{t:>15}" for t in targets) + f"  {'NVIDIA total':>15}")
    for fam in fams:
        cells = [f"{conv[fam, t]:>6} ({files[fam, t]:>4})" for t in targets]
        nv = sum(conv[fam, t] for t in NV)
        nvf = sum(files[fam, t] for t in NV)
        print(f"{fam:<{w}}  " + "  ".join(f"{c:>15}" for c in cells) + f"  {nv:>6} ({nvf:>5})")
    tot = [f"{sum(conv[f, t] for f in fams):>6} ({sum(files[f, t] for f in fams):>4})" for t in targets]
    nv = sum(conv[f, t] for f in fams for t in NV)
    nvf = sum(files[f, t] for f in fams for t in NV)
    print(f"{'TOTAL':<{w}}  " + "  ".join(f"{c:>15}" for c in tot) + f"  {nv:>6} ({nvf:>5})")
    size = 0
    distinct = set()
    for r in rows:
        path = os.path.join(out, r["file"])
        size += os.path.getsize(path)
        if r["target"] in NV:
            with open(path) as f:
                distinct.update((r["target"], t) for t in conversion_types(f.read()))
    nv_fams = {r["family"] for r in rows if r["target"] in NV and int(r["conversions"]) > 0}
    print(f"\n{len(rows)} files, {sum(int(r['conversions']) for r in rows)} conversions "
          f"({nv} on NVIDIA from {len(nv_fams)} families), {size / 1e6:.1f} MB of TTGIR")
    print(f"{len(distinct)} distinct (target, source type -> destination type) conversions on NVIDIA")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=DEFAULT_OUT, help="output directory (default corpus/real)")
    ap.add_argument("--jobs", "-j", type=int, default=2, help="compiler processes (default 2)")
    ap.add_argument("--list", action="store_true", help="print the (family, target, params) jobs and exit")
    ap.add_argument("--count", action="store_true", help="print the summary of an existing MANIFEST.tsv and exit")
    ap.add_argument("--family", action="append", help="only these families (repeatable); keeps other files")
    args = ap.parse_args()

    if args.count:
        summary(args.out)
        return
    work = all_jobs()
    if args.family:
        unknown = set(args.family) - set(FAMILIES)
        if unknown:
            sys.exit(f"unknown families: {sorted(unknown)}; known: {sorted(FAMILIES)}")
        work = [(j, t) for j, t in work if j.family in args.family]
    if args.list:
        for job, t in work:
            print(f"{t}\t{job.family}\t{job.params}")
        print(f"{len(work)} jobs", file=sys.stderr)
        return

    t0 = time.time()
    print(f"triton {triton.__version__}: compiling {len(work)} (kernel config, target) pairs "
          f"to TTGIR on {args.jobs} processes", flush=True)
    results = run_pool(work, args.jobs)

    out = args.out
    if args.family:
        # partial run: keep the rows of other families
        old = read_manifest(out) if os.path.exists(os.path.join(out, "MANIFEST.tsv")) else []
        keep = [r for r in old if r["family"] not in args.family]
        for r in old:
            if r["family"] in args.family and os.path.exists(os.path.join(out, r["file"])):
                os.remove(os.path.join(out, r["file"]))
    else:
        clean_output(out)
        keep = []
    manifest = [[r["file"], r["family"], r["target"], r["num_warps"], r["params"], r["conversions"],
                 r["triton"]] for r in keep]
    failed, skipped = [], []
    for i, (job, t) in enumerate(work):
        status, payload = results[i]
        rel = file_name(job, t)
        if status != "ok":
            failed.append([rel, job.family, t, str(job.num_warps), job.params, payload])
            continue
        n = count_conversions(payload)
        if n == 0:
            skipped.append([rel, job.family, t, str(job.num_warps), job.params, "no ttg.convert_layout"])
            continue
        path = os.path.join(out, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(payload if payload.endswith("\n") else payload + "\n")
        manifest.append([rel, job.family, t, str(job.num_warps), job.params, str(n), triton.__version__])
    n_kept, n_skipped, n_failed = len(manifest) - len(keep), len(skipped), len(failed)
    if args.family and os.path.exists(os.path.join(out, "FAILED.tsv")):
        for name, rows in (("FAILED.tsv", failed), ("SKIPPED.tsv", skipped)):
            p = os.path.join(out, name)
            if os.path.exists(p):
                with open(p) as f:
                    f.readline()
                    rows[:0] = [l.rstrip("\n").split("\t") for l in f if l.split("\t")[1] not in args.family]
    os.makedirs(out, exist_ok=True)
    manifest.sort()
    with open(os.path.join(out, "MANIFEST.tsv"), "w") as f:
        f.write("file\tfamily\ttarget\tnum_warps\tparams\tconversions\ttriton\n")
        for row in manifest:
            f.write("\t".join(row) + "\n")
    for name, rows in (("FAILED.tsv", failed), ("SKIPPED.tsv", skipped)):
        rows.sort()
        with open(os.path.join(out, name), "w") as f:
            f.write("file\tfamily\ttarget\tnum_warps\tparams\treason\n")
            for row in rows:
                f.write("\t".join(row) + "\n")

    print(f"\n{len(work)} compiled in {time.time() - t0:.0f}s: {n_kept} kept, "
          f"{n_skipped} without conversions (SKIPPED.tsv), {n_failed} refused (FAILED.tsv)")
    if failed:
        why = collections.Counter((r[1], r[2], r[5][:140]) for r in failed if r[1] in (args.family or FAMILIES))
        print("refused:")
        for (fam, t, reason), n in sorted(why.items()):
            print(f"  {n:4d}  {fam:<16} {t:<11} {reason}")
    summary(out)


if __name__ == "__main__":
    main()
