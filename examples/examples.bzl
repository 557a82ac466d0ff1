# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The example programs, for the targets that build, run and inspect them."""

EXAMPLES = [
    "saxpy",
    "hypot",
    "gaussian_pdf",
    "polar_distance",
    "square_matrix_mult",
    "transpose",
    "thread_counter",
    "histogram",
    "monte_carlo_pi",
    "fused_gaussian",
    "fft_convolution",
]
