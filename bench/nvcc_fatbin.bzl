# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The CUDA-C baselines of the GPU benchmarks, compiled by nvcc -O3 and embedded as bytes."""

load("//tools/bazel:nvcc.bzl", "NVCC", "NVCC_TOOLS")

def nvcc_fatbin(name):
    """`cuda/<name>.cu` as a fatbin for sm_75 and sm_90 (with PTX), in `<name>_fatbin.h`
    as the array `<name>_fatbin`, so that a benchmark needs no file at run time."""
    native.genrule(
        name = name + "_fatbin",
        srcs = ["cuda/%s.cu" % name],
        outs = [name + "_fatbin.h"],
        tools = NVCC_TOOLS,
        cmd = (NVCC + " -O3 -fatbin " +
               "-gencode arch=compute_75,code=sm_75 -gencode arch=compute_90,code=[sm_90,compute_90] " +
               "$< -o $(@D)/{n}.fatbin && xxd -i -n {n}_fatbin $(@D)/{n}.fatbin > $@").format(n = name),
    )
