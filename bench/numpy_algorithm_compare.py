#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""NumPy on algorithm_cpu_bench's cases, same sizes, next to our figures: np.sort of float32 and
uint32, np.cumsum of float32, the 10 largest of a long array (np.argpartition, then sorting the
10) and of each column of a 1000 x 32000 matrix. Runs the benchmark binary itself and prints
NumPy's time over ours (above 1: ours is faster). Needs Debian's python3-numpy.

    bazel build --config=ci //bench:algorithm_cpu_bench
    bench/numpy_algorithm_compare.py [--log2n 24] [--binary bazel-bin/bench/algorithm_cpu_bench]
"""
import argparse
import os
import subprocess
import sys

import numpy as np

from numba_cpu_compare import best_ms  # this directory is on sys.path when run as a script


def top10(x):
    part = np.argpartition(x, -10)[-10:]
    return part[np.argsort(-x[part], kind="stable")]


def top10_columns(m):
    part = np.argpartition(m, -10, axis=0)[-10:]
    return np.take_along_axis(part, np.argsort(-np.take_along_axis(m, part, 0), axis=0, kind="stable"), 0)


def numpy_times(n, runs):
    rng = np.random.default_rng(1)
    f32 = rng.uniform(-1e6, 1e6, n).astype(np.float32)
    u32 = rng.integers(0, 2**32, n, dtype=np.uint32)
    matrix = rng.uniform(-1e6, 1e6, (1000, 32000)).astype(np.float32)
    out = np.empty_like(f32)
    return {
        # np.sort (its default, unstable kind) copies; the copy's time is taken off, as the C++
        # benchmark does with its own.
        "sort_float32": best_ms(lambda: np.sort(f32), runs) - best_ms(lambda: f32.copy(), runs),
        "sort_uint32": best_ms(lambda: np.sort(u32), runs) - best_ms(lambda: u32.copy(), runs),
        "cumsum_float32": best_ms(lambda: np.cumsum(f32, out=out), runs),
        "top10": best_ms(lambda: top10(f32), runs),
        "top10_columns": best_ms(lambda: top10_columns(matrix), runs),
    }


def our_times(command):
    """The `result CASE TARGET MS` lines a C++ benchmark prints, as {(case, target): ms}."""
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    times = {}
    for line in out.splitlines():
        if line.startswith("result "):
            _, case, target, ms = line.split()
            times[(case, target)] = float(ms)
    return times


def print_ratios(theirs, ours):
    """NumPy's time for each case next to ours on cpu and parallel, as NumPy / ours."""
    width = max(len(case) for case in theirs)
    print(f"{'case':{width}} {'numpy ms':>10} {'cpu ms':>9} {'ratio':>7} {'parallel ms':>12} {'ratio':>7}")
    for case, numpy_ms in theirs.items():
        cpu, par = ours[(case, "cpu")], ours[(case, "parallel")]
        print(f"{case:{width}} {numpy_ms:10.2f} {cpu:9.2f} {numpy_ms / cpu:6.2f}x {par:12.2f} {numpy_ms / par:6.2f}x")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log2n", type=int, default=24)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--binary", default="bazel-bin/bench/algorithm_cpu_bench")
    args = parser.parse_args()
    if not os.path.exists(args.binary):
        sys.exit(f"{args.binary} not found: bazel build --config=ci //bench:algorithm_cpu_bench")
    ours = our_times([args.binary, str(args.log2n), str(args.runs)])
    theirs = numpy_times(1 << args.log2n, args.runs)
    print(f"2^{args.log2n} elements (top10_columns: 1000 x 32000), best of {args.runs}; ratio = NumPy / ours")
    print_ratios(theirs, ours)


if __name__ == "__main__":
    main()
