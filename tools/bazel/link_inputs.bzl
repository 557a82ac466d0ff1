# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The device code formats kernels link with, for the Bazel rules.

The same list as kernel::detail::link_formats in stdlib/include/kernel/detail/link_inputs.h
(the one table the compiler and the runtime use); //tests:link_inputs_test fails when the two
differ.
"""

# File extensions, without the dot, in the table's order.
LINK_INPUT_EXTENSIONS = ["o", "a", "ptx", "cubin", "fatbin", "ltoir", "cu"]

def describe_link_inputs():
    """'.o, .a, ..., .cu' for documentation strings."""
    return ", ".join(["." + e for e in LINK_INPUT_EXTENSIONS])
