#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Sparse PCA (examples/sparse_pca) against NumPy on the same problem size: the original talk's
spca_unopt as written (one direction per Python iteration, np.argsort of each a) and the same
algorithm vectorised over a batch of directions the way NumPy does it fastest
(np.argpartition down each column: the k largest without sorting the rest). Runs the example
binary for our high-level version on cpu and parallel and prints NumPy's time over ours (above
1: ours is faster). NumPy runs on one core (its sort and partition are single-threaded; the
products are too small for BLAS threads to help), ours parallel on every core. NumPy draws its
own random directions: the times compare, the answers do not.

    bazel build --config=ci //examples/sparse_pca:sparse_pca
    bench/numpy_spca_compare.py [--p 1000] [--epsilon 0.1] [--batch 2000] [--binary bazel-bin/examples/sparse_pca/sparse_pca]
"""
import argparse
import os
import sys
import time

import numpy as np

from numpy_algorithm_compare import our_times


def spca_unopt(vd, epsilon, d, k, rng):
    p = vd.shape[0]
    best_x, best_v = np.zeros((p, 1)), -np.inf
    for _ in range(int(np.ceil((4.0 / epsilon) ** d - 1e-9))):
        c = rng.standard_normal((d, 1))
        c = c / np.linalg.norm(c)
        a = vd.dot(c)
        i = np.argsort(a, axis=0)[-k:]
        val = np.linalg.norm(a[i])
        if val > best_v:
            best_v = val
            best_x = np.zeros((p, 1))
            best_x[i] = a[i] / val
    return best_x, best_v


def spca_batched(vd, epsilon, d, k, batch, rng):
    p = vd.shape[0]
    m = int(np.ceil((4.0 / epsilon) ** d - 1e-9))
    best_x, best_v = np.zeros(p), -np.inf
    for start in range(0, m, batch):
        c = rng.standard_normal((d, min(batch, m - start)), dtype=np.float32)
        c /= np.linalg.norm(c, axis=0)
        a = vd @ c
        i = np.argpartition(a, p - k, axis=0)[p - k:]
        top = np.take_along_axis(a, i, 0)
        vals = np.linalg.norm(top, axis=0)
        j = int(np.argmax(vals))
        if vals[j] > best_v:
            best_v = vals[j]
            best_x = np.zeros(p)
            best_x[i[:, j]] = top[:, j] / vals[j]
    return best_x, best_v


def seconds(f):
    t0 = time.perf_counter()
    f()
    return time.perf_counter() - t0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--p", type=int, default=1000)
    parser.add_argument("--d", type=int, default=3)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--epsilon", type=float, default=0.1)
    parser.add_argument("--batch", type=int, default=2000)  # the CPU sweet spot: A stays in cache
    parser.add_argument("--binary", default="bazel-bin/examples/sparse_pca/sparse_pca")
    args = parser.parse_args()
    if not os.path.exists(args.binary):
        sys.exit(f"{args.binary} not found: bazel build --config=ci //examples/sparse_pca:sparse_pca")
    common = ["--p", str(args.p), "--d", str(args.d), "--k", str(args.k), "--epsilon", str(args.epsilon),
              "--batch", str(args.batch), "--version", "high"]
    ours = {}
    for target in ("cpu", "parallel"):
        ours.update(our_times([args.binary, *common, "--target", target]))
    rng = np.random.default_rng(1)
    vd = rng.standard_normal((args.p, args.d)).astype(np.float32)
    unopt = 1000 * seconds(lambda: spca_unopt(vd.astype(np.float64), args.epsilon, args.d, args.k, rng))
    batched = 1000 * min(seconds(lambda: spca_batched(vd, args.epsilon, args.d, args.k, args.batch, rng))
                         for _ in range(3))
    print(f"p={args.p} d={args.d} k={args.k} epsilon={args.epsilon}, batches of {args.batch}; ratio = NumPy / ours")
    print(f"{'':28} {'ms':>9} {'/ ours cpu':>11} {'/ ours parallel':>16}")
    for name, ms in (("NumPy spca_unopt (loop)", unopt), ("NumPy batched (argpartition)", batched),
                     ("ours reference (C++ loops)", ours[("reference", "cpu")])):
        print(f"{name:28} {ms:9.1f} {ms / ours[('high_level', 'cpu')]:10.1f}x "
              f"{ms / ours[('high_level', 'parallel')]:15.1f}x")
    print(f"{'ours high-level cpu':28} {ours[('high_level', 'cpu')]:9.1f}")
    print(f"{'ours high-level parallel':28} {ours[('high_level', 'parallel')]:9.1f}")


if __name__ == "__main__":
    main()
