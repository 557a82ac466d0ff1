#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""scipy.sparse on sparse_cpu_bench's cases (spmv and spmm of a 2^20 x 2^20 float32 CSR
matrix with 16 entries per row at random columns, csr_matrix of a 4096 x 4096 dense matrix with
1% nonzeros), next to our figures: runs the benchmark binary itself and prints SciPy's time
over ours (above 1: ours is faster). Needs Debian's python3-scipy.

    bazel build --config=ci -c opt //bench:sparse_cpu_bench
    bench/scipy_sparse_compare.py [--binary bazel-bin/bench/sparse_cpu_bench] [--runs 5]
"""
import argparse
import os
import sys

import numpy as np
import scipy.sparse

from numba_cpu_compare import best_ms  # this directory is on sys.path when run as a script
from numpy_algorithm_compare import our_times, print_ratios


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--binary", default="bazel-bin/bench/sparse_cpu_bench")
    args = parser.parse_args()
    if not os.path.exists(args.binary):
        sys.exit(f"{args.binary} not found: bazel build --config=ci -c opt //bench:sparse_cpu_bench")
    ours = our_times([args.binary, str(args.runs)])
    rng = np.random.default_rng(1)
    n, per_row = 2**20, 16
    columns = np.sort(rng.integers(0, n, (n, per_row), dtype=np.int32), axis=1).ravel()
    offsets = np.arange(0, n * per_row + 1, per_row, dtype=np.int32)
    values = rng.uniform(-1, 1, n * per_row).astype(np.float32)
    a = scipy.sparse.csr_matrix((values, columns, offsets), shape=(n, n))
    x = rng.uniform(-1, 1, n).astype(np.float32)
    b = rng.uniform(-1, 1, (n, 8)).astype(np.float32)
    d = np.where(rng.uniform(0, 1, (4096, 4096)) < 0.01, rng.uniform(-1, 1, (4096, 4096)), 0).astype(np.float32)
    theirs = {
        "spmv": best_ms(lambda: a @ x, args.runs),
        "spmm": best_ms(lambda: a @ b, args.runs),
        "from_dense": best_ms(lambda: scipy.sparse.csr_matrix(d), args.runs),
    }
    print(f"best of {args.runs}; ratio = SciPy / ours")
    print_ratios(theirs, ours)


if __name__ == "__main__":
    main()
