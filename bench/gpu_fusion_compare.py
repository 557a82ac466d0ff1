#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""cupy.fuse on gpu_fusion_bench's expressions and sizes (CuPy is on the GPU machine), next
to gpu_fusion_bench's own figures: GB/s of the bytes each expression must move.

    bench/gpu_fusion_compare.py [path/to/gpu_fusion_bench] [log2 sizes...]
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_events import cupy_ms  # noqa: E402


def main():
    bench = sys.argv[1] if len(sys.argv) > 1 else "bazel-bin/bench/gpu_fusion_bench"
    sizes = [int(a) for a in sys.argv[2:]] or [16, 20, 24, 26, 28]
    print(subprocess.run([bench] + [str(s) for s in sizes], check=True, capture_output=True, text=True).stdout)
    try:
        import cupy as cp
    except ImportError:
        print("CuPy is not installed here: no cupy.fuse figures")
        return

    @cp.fuse()
    def chain(x):
        return cp.minimum(cp.exp(x * cp.float32(0.5) + cp.float32(0.25)), cp.float32(2.0)) * cp.float32(0.5)

    @cp.fuse()
    def sum_exp(x):
        return cp.sum(cp.exp(x * cp.float32(0.5) + cp.float32(0.25)))

    print(f"{'n':9} {'cupy.fuse GB/s':>15} {'cupy.fuse mr GB/s':>18}")
    for log2n in sizes:
        n = 1 << log2n
        x = cp.random.uniform(-1, 1, n, dtype=cp.float32)
        reps = max(5, min(1000, (1 << 30) // n))
        times = []
        for f, nbytes in ((lambda: chain(x), 8.0 * n), (lambda: float(sum_exp(x)), 4.0 * n)):
            times.append(nbytes / cupy_ms(f, reps) / 1e6)
        print(f"2^{log2n:<7} {times[0]:15.1f} {times[1]:18.1f}")


if __name__ == "__main__":
    main()
