#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""kernel/algorithm.h on a GPU next to CUB and CuPy: runs gpu_algorithm_bench (ours and CUB,
same process) and times what a CuPy user writes for the same work on the same GPU and sizes
(ndarray.sort in place, less the copy that restores its input, as for ours; a stable argsort
and two takes for key-value pairs; cupy.cumsum; cupy.sum read to the host; x[x > 0];
cupy.argpartition per column; cuRAND's Philox normals through cupy.random). One table; speed
is the other's time over ours (above 1: ours is faster).

    bazel build -c opt //bench:gpu_algorithm_bench
    bench/gpu_algorithm_compare.py [--binary PATH] [--log2n 28]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_events import NUMBER, benchmark_rows, cupy_ms, cupy_or_nothing, print_table  # noqa: E402

LINE = r"^(.*?)\s+ours\s+" + NUMBER + r" ms\s+(?:CUB|cuRAND)\s+" + NUMBER + " ms"


def cupy_figures(log2n, reps=10):
    import cupy

    def event_ms(f):
        return cupy_ms(f, reps)

    n, pairs = 1 << log2n, 1 << (log2n - 2)
    rs = cupy.random.RandomState(1)
    keys = (rs.random_sample(n) * 2.0**32).astype(cupy.uint32)
    work = cupy.empty_like(keys)
    pair_keys = keys[:pairs].copy()
    pair_values = cupy.arange(pairs, dtype=cupy.uint32)
    x = rs.uniform(-1, 1, size=n).astype(cupy.float32)
    out = cupy.empty_like(x)
    matrix = rs.uniform(-1, 1, size=(1000, 32000)).astype(cupy.float32)
    philox = cupy.random.RandomState(7, method=cupy.cuda.curand.CURAND_RNG_PSEUDO_PHILOX4_32_10)

    def sort_by_key():
        order = cupy.argsort(pair_keys, kind="stable")
        return pair_keys[order], pair_values[order]

    def top10():
        rows = matrix.shape[0]
        where = cupy.argpartition(matrix, rows - 10, axis=0)[rows - 10:]
        return cupy.take_along_axis(matrix, where, axis=0)

    def sort_in_place():
        cupy.copyto(work, keys)
        work.sort()

    # As for ours, the copy that restores the keys before each in-place sort is taken off.
    return {
        "sort uint32 keys": event_ms(sort_in_place) - event_ms(lambda: cupy.copyto(work, keys)),
        "sort_by_key uint32 -> uint32": event_ms(sort_by_key),
        "cumsum float32": event_ms(lambda: cupy.cumsum(x, out=out)),
        "reduce float32 (sum to the host)": event_ms(lambda: float(cupy.sum(x))),
        "select_if float32 > 0": event_ms(lambda: x[x > 0]),
        "top-10 of each column, 1000 x 32000": event_ms(top10),
        "random normal float32 (Philox)": event_ms(lambda: philox.standard_normal(n, dtype=cupy.float32)),
    }


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--binary", default="bazel-bin/bench/gpu_algorithm_bench")
    p.add_argument("--log2n", type=int, default=28)
    a = p.parse_args()
    rows = benchmark_rows([a.binary, str(a.log2n)], LINE)
    if not rows:
        sys.exit("gpu_algorithm_bench measured nothing (no GPU?)")
    cp = cupy_or_nothing(cupy_figures, a.log2n)
    print_table("primitive", "CUB/cuRAND", rows, cp)


if __name__ == "__main__":
    main()
