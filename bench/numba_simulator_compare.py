#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""This project's kernel simulator against Numba's (NUMBA_ENABLE_CUDASIM=1) on the same
kernels and sizes, in one run of this script: the tiled matmul, the tiled transpose and the
shared-memory histogram of bench/simulator_bench.cpp, written here as Numba writes them.

    bazel build -c opt //bench:simulator_bench
    bench/numba_simulator_compare.py                       # the issue's sizes: 256, 1024, 2^20
    bench/numba_simulator_compare.py --sizes 64 128 16     # smaller, for a quick look

Numba's simulator runs each CUDA thread as a Python thread: at the full sizes it needs
tens of minutes on two cores. Each Numba kernel runs once (its first call includes no
compilation: the simulator interprets Python); ours is the best of three, with the race
checks on (the default) and off (KERNEL_SIMULATOR_RACES=0).
"""
import argparse
import os
import subprocess
import sys
import time

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"

import numpy as np  # noqa: E402
from numba import cuda, float32, uint32  # noqa: E402

TILE = 16
BINS = 64


@cuda.jit
def matmul_tiled(a, b, c):
    sa = cuda.shared.array((TILE, TILE), float32)
    sb = cuda.shared.array((TILE, TILE), float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    s = float32(0.0)
    for i in range(cuda.gridDim.x):
        sa[tx, ty] = a[x, ty + i * TILE]
        sb[tx, ty] = b[tx + i * TILE, y]
        cuda.syncthreads()
        for j in range(TILE):
            s += sa[tx, j] * sb[j, ty]
        cuda.syncthreads()
    c[x, y] = s


@cuda.jit
def transpose_tiled(a, t):
    buf = cuda.shared.array((32, 33), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bx = cuda.blockIdx.x * 32
    by = cuda.blockIdx.y * 32
    buf[ty, tx] = a[by + ty, bx + tx]
    cuda.syncthreads()
    t[bx + ty, by + tx] = buf[tx, ty]


@cuda.jit
def histogram(values, low, high, counts):
    local = cuda.shared.array(BINS, uint32)
    b = cuda.threadIdx.x
    while b < BINS:
        local[b] = 0
        b += cuda.blockDim.x
    cuda.syncthreads()
    scale = BINS / (high - low)
    i = cuda.grid(1)
    while i < values.size:
        k = int((values[i] - low) * scale)
        k = 0 if k < 0 else (BINS - 1 if k >= BINS else k)
        cuda.atomic.add(local, k, 1)
        i += cuda.gridsize(1)
    cuda.syncthreads()
    b = cuda.threadIdx.x
    while b < BINS:
        cuda.atomic.add(counts, b, local[b])
        b += cuda.blockDim.x


def timed(f):
    t0 = time.perf_counter()
    f()
    return (time.perf_counter() - t0) * 1e3


def numba_times(mm_n, tr_n, hist_log2):
    times = {}
    i, j = np.indices((mm_n, mm_n))
    a = (((i * 7 + j * 3) % 11) * 0.25).astype(np.float32)
    b = (((i * 5 + j) % 13) * 0.5 - 2.0).astype(np.float32)
    c = np.zeros_like(a)
    blocks = mm_n // TILE
    times["matmul_tiled"] = timed(lambda: matmul_tiled[(blocks, blocks), (TILE, TILE)](a, b, c))
    assert np.allclose(c, a @ b, atol=1e-2), "Numba's matmul is wrong"

    a = np.arange(tr_n * tr_n, dtype=np.float32).reshape(tr_n, tr_n)
    t = np.zeros_like(a)
    blocks = tr_n // 32
    times["transpose_tiled"] = timed(lambda: transpose_tiled[(blocks, blocks), (32, 32)](a, t))
    assert np.array_equal(t, a.T), "Numba's transpose is wrong"

    values = np.random.default_rng(11).normal(size=1 << hist_log2).astype(np.float32)
    counts = np.zeros(BINS, np.uint32)
    times["histogram"] = timed(lambda: histogram[32, 256](values, np.float32(-4), np.float32(4), counts))
    assert counts.sum() == values.size, "Numba's histogram is wrong"
    return times


def our_times(binary, sizes, races):
    env = dict(os.environ)
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    env["KERNEL_SIMULATOR_RACES"] = "1" if races else "0"
    out = subprocess.run([binary, *map(str, sizes)], env=env, check=True, capture_output=True, text=True).stdout
    times = {}
    for line in out.splitlines():
        if line.startswith("kernel "):
            _, name, sim_ms, _loop_ms, *_ = line.split()
            times[name] = float(sim_ms)
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", nargs=3, type=int, default=[256, 1024, 20],
                        metavar=("MATMUL_N", "TRANSPOSE_N", "HIST_LOG2"))
    parser.add_argument("--binary", default="bazel-bin/bench/simulator_bench")
    args = parser.parse_args()
    if not os.path.exists(args.binary):
        sys.exit(f"{args.binary} not found: bazel build -c opt //bench:simulator_bench")
    mm_n, tr_n, hist_log2 = args.sizes
    ours = our_times(args.binary, args.sizes, races=True)
    ours_fast = our_times(args.binary, args.sizes, races=False)
    theirs = numba_times(mm_n, tr_n, hist_log2)
    print(f"Numba {__import__('numba').__version__} simulator vs this project's, "
          f"matmul {mm_n}x{mm_n}, transpose {tr_n}x{tr_n}, histogram of 2^{hist_log2} values")
    print(f"{'kernel':16} {'numba ms':>11} {'ours ms':>9} {'ratio':>8} {'no-race ms':>11} {'ratio':>8}")
    for name in ("matmul_tiled", "transpose_tiled", "histogram"):
        print(f"{name:16} {theirs[name]:11.0f} {ours[name]:9.1f} {theirs[name] / ours[name]:7.0f}x "
              f"{ours_fast[name]:11.1f} {theirs[name] / ours_fast[name]:7.0f}x")


if __name__ == "__main__":
    main()
