#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""One table, and a plot, of saxpy on the GPU: this project's ufunc on device arrays, the
nvcc-compiled CUDA-C kernel and cuMemcpyDtoD (all three from gpu_ufunc_bench, same process),
and, when they are installed, numba-cuda's @vectorize(target='cuda') and a CuPy
ElementwiseKernel on the same sizes; plus host overhead per call for each.

    bazel build -c opt //bench:gpu_ufunc_bench
    bench/gpu_compare.py [--binary PATH] [--csv out.csv] [--png out.png] [--sizes 16 20 24 28]
    bench/gpu_compare.py --plot-only out.csv --png out.png    # plot a saved run elsewhere

Bandwidth counts bytes read + written (12 bytes per saxpy element, 8 per copied one).
"""
import argparse
import csv
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_events  # noqa: E402


def ours(binary, sizes):
    out = subprocess.run([binary, *map(str, sizes)], check=True, capture_output=True, text=True).stdout
    print(out.rstrip())
    rows, overhead = {}, None
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "bandwidth":
            rows[int(f[1][2:])] = {"ufunc": float(f[2]), "nvcc": float(f[3]), "copy": float(f[4])}
        elif f and f[0] == "overhead":
            # "overhead 4.39 us per ufunc call, 3.85 us per raw cuLaunchKernel: 1.14x"
            us = [float(w) for w, unit in zip(f, f[1:]) if unit == "us"]
            overhead = {"ufunc": us[0], "raw cuLaunchKernel": us[1]}
    if not rows:
        sys.exit("gpu_ufunc_bench measured nothing (no GPU?)")
    return rows, overhead


def event_ms(cuda, f, reps):
    return gpu_events.event_ms(f, reps, cuda.event, cuda.event_elapsed_time)


def host_us(f, sync):
    best = 1e300
    for _ in range(30):
        sync()
        t0 = time.perf_counter()
        for _ in range(500):
            f()
        best = min(best, (time.perf_counter() - t0) / 500 * 1e6)
    sync()
    return best


def numba_cuda(sizes):
    try:
        import numpy as np
        # numba-cuda (0.2x) still registers an overload for np.row_stack, an alias NumPy 2.4
        # removed; it names the same function as np.vstack.
        if not hasattr(np, "row_stack"):
            np.row_stack = np.vstack
        from numba import cuda, vectorize

        @vectorize(["float32(float32, float32, float32)"], target="cuda")
        def saxpy(a, x, y):
            return a * x + y
    except Exception as e:  # an install that cannot compile is reported, not fatal to the table
        print(f"numba-cuda not measured: {type(e).__name__}: {e}")
        return {}, None

    rows = {}
    for log2n in sizes:
        n = 1 << log2n
        x = cuda.device_array(n, np.float32)
        y = cuda.device_array(n, np.float32)
        out = cuda.device_array(n, np.float32)
        reps = max(5, min(2000, (1 << 30) // n))
        ms = event_ms(cuda, lambda: saxpy(np.float32(2), x, y, out=out), reps)
        rows[log2n] = 12 * n / ms / 1e6
    x = cuda.device_array(1 << 10, np.float32)
    y = cuda.device_array(1 << 10, np.float32)
    out = cuda.device_array(1 << 10, np.float32)
    overhead = host_us(lambda: saxpy(np.float32(2), x, y, out=out), cuda.synchronize)
    return rows, overhead


def cupy_bench(sizes):
    try:
        import cupy as cp
    except ImportError as e:
        print(f"CuPy not measured: {e}")
        return {}, None
    saxpy = cp.ElementwiseKernel("float32 a, float32 x, float32 y", "float32 out", "out = a * x + y", "saxpy")

    class Ev:
        def event(self):
            return cp.cuda.Event()

        def event_elapsed_time(self, a, b):
            return cp.cuda.get_elapsed_time(a, b)

    rows = {}
    for log2n in sizes:
        n = 1 << log2n
        x = cp.empty(n, cp.float32)
        y = cp.empty(n, cp.float32)
        out = cp.empty(n, cp.float32)
        reps = max(5, min(2000, (1 << 30) // n))
        ms = event_ms(Ev(), lambda: saxpy(cp.float32(2), x, y, out), reps)
        rows[log2n] = 12 * n / ms / 1e6
    x = cp.empty(1 << 10, cp.float32)
    y = cp.empty(1 << 10, cp.float32)
    out = cp.empty(1 << 10, cp.float32)
    overhead = host_us(lambda: saxpy(cp.float32(2), x, y, out), cp.cuda.Device().synchronize)
    return rows, overhead


def plot(table, png):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"matplotlib is not installed: no plot; plot the CSV with --plot-only elsewhere")
        return
    sizes = sorted(table)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for column in ("ufunc", "nvcc", "copy", "numba-cuda", "cupy"):
        points = [(s, table[s][column]) for s in sizes if table[s].get(column)]
        if points:
            ax.plot([2 ** s for s, _ in points], [v for _, v in points], marker="o", label=column)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("float32 elements")
    ax.set_ylabel("GB/s (read + written)")
    ax.set_title("saxpy bandwidth")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(png, dpi=120)
    print(f"plot: {png}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--binary", default="bazel-bin/bench/gpu_ufunc_bench")
    p.add_argument("--sizes", nargs="+", type=int, default=[16, 20, 24, 28])
    p.add_argument("--csv", default="gpu_saxpy.csv")
    p.add_argument("--png", default="gpu_saxpy.png")
    p.add_argument("--plot-only", metavar="CSV")
    args = p.parse_args()

    if args.plot_only:
        with open(args.plot_only) as f:
            table = {int(r["log2n"]): {k: float(v) for k, v in r.items() if k != "log2n" and v} for r in csv.DictReader(f)}
        plot(table, args.png)
        return
    if not os.path.exists(args.binary):
        sys.exit(f"{args.binary} not found: bazel build -c opt //bench:gpu_ufunc_bench")

    table, overhead = ours(args.binary, args.sizes)
    nb, nb_overhead = numba_cuda(args.sizes)
    cp, cp_overhead = cupy_bench(args.sizes)
    for s in table:
        table[s]["numba-cuda"] = nb.get(s)
        table[s]["cupy"] = cp.get(s)

    print(f"\n{'n':6} {'ufunc':>8} {'nvcc':>8} {'copy':>8} {'numba':>8} {'cupy':>8}   "
          f"{'ufunc/nvcc':>10} {'ufunc/copy':>10} {'ufunc/numba':>11} {'ufunc/cupy':>10}   (GB/s)")
    fmt = lambda v: f"{v:8.1f}" if v else f"{'-':>8}"  # noqa: E731
    ratio = lambda a, b: f"{a / b:.3f}" if b else "-"  # noqa: E731
    for s in sorted(table):
        r = table[s]
        print(f"2^{s:<4} {fmt(r['ufunc'])} {fmt(r['nvcc'])} {fmt(r['copy'])} {fmt(r['numba-cuda'])} {fmt(r['cupy'])}   "
              f"{ratio(r['ufunc'], r['nvcc']):>10} {ratio(r['ufunc'], r['copy']):>10} "
              f"{ratio(r['ufunc'], r['numba-cuda']):>11} {ratio(r['ufunc'], r['cupy']):>10}")
    print(f"\nhost overhead per call (1024 elements, 3 device arrays), µs:")
    print(f"  ufunc {overhead['ufunc']:.2f}   raw cuLaunchKernel {overhead['raw cuLaunchKernel']:.2f}   "
          f"ufunc/raw {overhead['ufunc'] / overhead['raw cuLaunchKernel']:.2f}x")
    if nb_overhead:
        print(f"  numba-cuda {nb_overhead:.2f}: ours is {nb_overhead / overhead['ufunc']:.1f}x lower")
    if cp_overhead:
        print(f"  cupy {cp_overhead:.2f}: ours is {cp_overhead / overhead['ufunc']:.1f}x lower")

    with open(args.csv, "w", newline="") as f:
        w = csv.writer(f)
        columns = ["ufunc", "nvcc", "copy", "numba-cuda", "cupy"]
        w.writerow(["log2n", *columns])
        for s in sorted(table):
            w.writerow([s, *[table[s][c] if table[s][c] else "" for c in columns]])
    print(f"csv: {args.csv}")
    plot(table, args.png)


if __name__ == "__main__":
    main()
