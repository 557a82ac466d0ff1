#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""NumPy and Numba on fusion_cpu_bench's chain and map-reduce (2^24 float32): NumPy's eager
expression, a chain of Numba @vectorize ufuncs (cpu and parallel), and Numba
@njit(parallel=True) of the whole expression; for a side-by-side with fusion_cpu_bench.
Needs Debian's python3-numba.

    bench/numba_fusion_compare.py [log2 n]
"""
import math
import sys

import numpy as np
from numba import njit, prange, vectorize

from numba_cpu_compare import best_ms  # this directory is on sys.path when run as a script


def main():
    n = 1 << (int(sys.argv[1]) if len(sys.argv) > 1 else 24)
    x = np.random.default_rng(3).uniform(-1, 1, n).astype(np.float32)
    out = np.empty_like(x)
    half, quarter, two = np.float32(0.5), np.float32(0.25), np.float32(2.0)

    print(f"NumPy and Numba, 2^{int(math.log2(n))} float32, best of 15 runs")
    numpy_chain = best_ms(lambda: np.multiply(np.minimum(np.exp(x * half + quarter), two), half, out=out))
    print(f"  numpy eager chain             {numpy_chain:8.2f} ms")

    for target in ("cpu", "parallel"):
        @vectorize(["float32(float32, float32)"], target=target)
        def scale(v, a):
            return a * v

        @vectorize(["float32(float32, float32)"], target=target)
        def shift(v, b):
            return v + b

        @vectorize(["float32(float32)"], target=target)
        def fexp(v):
            return math.exp(v)

        @vectorize(["float32(float32, float32)"], target=target)
        def clamp_max(v, m):
            return v if v < m else m

        chain = lambda: scale(clamp_max(fexp(shift(scale(x, half), quarter)), two), half, out=out)
        chain()
        print(f"  numba @vectorize chain ({target:8}) {best_ms(chain):8.2f} ms")

    @njit(parallel=True, fastmath=False)
    def fused(v, o):
        for i in prange(v.shape[0]):
            o[i] = min(math.exp(v[i] * np.float32(0.5) + np.float32(0.25)), np.float32(2.0)) * np.float32(0.5)

    fused(x, out)
    print(f"  numba @njit(parallel=True)    {best_ms(lambda: fused(x, out)):8.2f} ms")

    print("map-reduce sum(exp(0.5 x + 0.25))")
    print(f"  numpy                         {best_ms(lambda: np.sum(np.exp(x * half + quarter))):8.2f} ms")

    @njit(parallel=True)
    def sum_exp(v):
        acc = np.float32(0)
        for i in prange(v.shape[0]):
            acc += math.exp(v[i] * np.float32(0.5) + np.float32(0.25))
        return acc

    sum_exp(x)
    print(f"  numba @njit(parallel=True)    {best_ms(lambda: sum_exp(x)):8.2f} ms")


if __name__ == "__main__":
    main()
