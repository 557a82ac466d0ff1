# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""What the GPU comparison scripts share: timing by GPU events, running one of our benchmarks
and reading its rows, and the table of ratios."""
import os
import re
import subprocess
import sys

# A figure as the benchmarks print it: also negative, NaN or infinite (a difference of times).
NUMBER = r"(-?[\d.]+(?:e[-+]?\d+)?|-?nan|-?inf)"


def event_ms(f, reps, event, elapsed, trials=3):
    """Milliseconds per call of `f`, by GPU events (`event()` makes one, `elapsed(start, stop)`
    reads the milliseconds between two), after a warm-up call: the best of `trials` batches."""
    f()
    start, stop = event(), event()
    best = 1e300
    for _ in range(trials):
        start.record()
        for _ in range(reps):
            f()
        stop.record()
        stop.synchronize()
        best = min(best, elapsed(start, stop) / reps)
    return best


def cupy_ms(f, reps=20):
    """event_ms on CuPy's current stream."""
    import cupy

    return event_ms(f, reps, cupy.cuda.Event, cupy.cuda.get_elapsed_time)


def cupy_or_nothing(figures, *args):
    """`figures(*args)`, CuPy's times by name, or none where CuPy is not installed."""
    try:
        return figures(*args)
    except ImportError:
        print("CuPy is not installed: its column is empty")
        return {}


def benchmark_rows(command, line):
    """Runs one of our benchmarks and returns {name: (ours, direct)} from the lines `line` (a
    regular expression: name, ours, direct) matches. A failing status (a wrong result, which
    the benchmark prints) is reported, and the other rows stand."""
    run = subprocess.run(command, capture_output=True, text=True)
    print(run.stdout.rstrip())
    if run.returncode != 0:
        print(run.stderr.rstrip(), file=sys.stderr)
        print(f"warning: {os.path.basename(command[0])} exited with {run.returncode}", file=sys.stderr)
    rows = {}
    for text in run.stdout.splitlines():
        m = re.match(line, text)
        if m and m.group(1).strip():
            rows[m.group(1).strip()] = (float(m.group(2)), float(m.group(3)))
    return rows


def ratio(a, b):
    return f"{a / b:6.2f}x" if b > 0 and a == a else f"{'-':>7}"


def print_table(first, direct, rows, cupy):
    """Ours, the direct call and CuPy per row, and the speeds over ours (above 1: ours is faster)."""
    print()
    print(f"{first:38} {'ours ms':>9} {direct:>10} {'CuPy ms':>9} {'vs direct':>9} {'vs CuPy':>8}")
    for name, (mine, theirs_direct) in rows.items():
        theirs = cupy.get(name)
        cupy_ms_text = f"{theirs:9.3f}" if theirs else f"{'-':>9}"
        vs_cupy = " " + ratio(theirs, mine) if theirs else f"{'-':>8}"
        print(f"{name:38} {mine:9.3f} {theirs_direct:10.3f} {cupy_ms_text} {ratio(theirs_direct, mine):>9} {vs_cupy}")
