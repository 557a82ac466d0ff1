# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""nvcc of the toolkit kernel_repositories names (@cuda), for genrules:

    load("//tools/bazel:nvcc.bzl", "NVCC", "NVCC_TOOLS")
    genrule(..., cmd = NVCC + " -dc $< -o $@", tools = NVCC_TOOLS)

A toolkit elsewhere than /usr/local/cuda (kernel_repositories(cuda_path = ...)) is the one
used, and a new nvcc rebuilds what it built.
"""

NVCC_TOOLS = [
    Label("//tools/bazel:nvcc.sh"),
    Label("@cuda//:bin/nvcc"),
]

NVCC = "bash $(location %s) $(location %s)" % (str(NVCC_TOOLS[0]), str(NVCC_TOOLS[1]))
