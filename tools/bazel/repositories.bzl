# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The external repositories the kernel rules build with, all from the machine (Debian packages
and the CUDA toolkit at /usr/local/cuda): nothing is downloaded. A workspace that uses the rules:

    local_repository(name = "kernel", path = "path/to/this/repository")
    load("@kernel//tools/bazel:repositories.bzl", "kernel_repositories")
    kernel_repositories(kernel_path = "path/to/this/repository")

Repositories the workspace already defines (by name) are left as they are.
"""

def _maybe(rule, name, **kwargs):
    if name not in native.existing_rules():
        rule(name = name, **kwargs)

def kernel_repositories(kernel_path = ".", cuda_path = "/usr/local/cuda", llvm_path = "/usr/lib/llvm-19"):
    """Defines rules_cc, rules_java, remote_coverage_tools, llvm19, cuda and googletest.

    Args:
      kernel_path: this repository, relative to the workspace root (or absolute).
      cuda_path: the CUDA toolkit.
      llvm_path: LLVM 19 (Debian's llvm-19-dev and libclang-19-dev).
    """
    _maybe(native.local_repository, "rules_cc", path = kernel_path + "/third_party/rules_cc")
    _maybe(native.local_repository, "rules_java", path = "/usr/share/bazel/rules/java")
    _maybe(native.local_repository, "remote_coverage_tools", path = kernel_path + "/third_party/remote_coverage_tools")
    _maybe(
        native.new_local_repository,
        "googletest",
        build_file = str(Label("//third_party:googletest.BUILD")),
        path = "/usr/src/googletest",
    )
    _maybe(native.new_local_repository, "llvm19", build_file = str(Label("//third_party:llvm.BUILD")), path = llvm_path)
    _maybe(native.new_local_repository, "cuda", build_file = str(Label("//third_party:cuda.BUILD")), path = cuda_path)
