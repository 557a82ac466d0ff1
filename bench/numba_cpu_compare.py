#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Numba's @vectorize on the same data as ufunc_cpu_bench (saxpy and gaussian_pdf over 2^24
float32), for a side-by-side with this project's CPU ufuncs. Needs Debian's python3-numba.

    bench/numba_cpu_compare.py [log2 n]
"""
import math
import sys
import time

import numpy as np
from numba import vectorize

SQRT_2PI = np.float32((2 * math.pi) ** 0.5)
MINUS_HALF = np.float32(-0.5)


def define(target):
    @vectorize(["float32(float32, float32, float32)"], target=target)
    def saxpy(a, x, y):
        return a * x + y

    @vectorize(["float32(float32, float32, float32)"], target=target)
    def gaussian_pdf(x, mean, sigma):
        # A float32 constant: with a Python float -0.5 Numba computes the whole expression,
        # and the exp, in float64, which ours (float32) does not.
        return math.exp(MINUS_HALF * ((x - mean) / sigma) ** 2) / (sigma * SQRT_2PI)

    return saxpy, gaussian_pdf


def best_ms(f, runs=15):
    best = 1e30
    for _ in range(runs):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    return best * 1e3


def main():
    n = 1 << (int(sys.argv[1]) if len(sys.argv) > 1 else 24)
    rng = np.random.default_rng(3)
    x = rng.uniform(-3, 3, n).astype(np.float32)
    y = rng.uniform(-3, 3, n).astype(np.float32)
    out = np.empty_like(x)
    a, mean, sigma = np.float32(2), np.float32(0), np.float32(1)
    print(f"Numba {__import__('numba').__version__}, {n} float32 elements, best of 15 runs")
    print(f"{'function':14} {'cpu ms':>10} {'parallel ms':>12}")
    cpu = define("cpu")
    par = define("parallel")
    for name, fc, fp, args in [("saxpy", cpu[0], par[0], (a, x, y)),
                               ("gaussian_pdf", cpu[1], par[1], (x, mean, sigma))]:
        fc(*args, out=out)
        fp(*args, out=out)
        print(f"{name:14} {best_ms(lambda: fc(*args, out=out)):10.2f} "
              f"{best_ms(lambda: fp(*args, out=out)):12.2f}")


if __name__ == "__main__":
    main()
