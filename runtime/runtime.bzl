# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The layers of the runtime.

Each layer is a cc_library that names the headers of the layers below it by their path under
runtime/ ("cuda/driver.h"). That include path is a copt of each layer, not an `includes`, so
it does not reach the targets that depend on //runtime: users see //stdlib alone. The layers
are built with layering_check, so a layer includes only headers of the layers it depends on.
"""

# runtime/ in the execution root, also when this workspace is an external repository.
_INCLUDE_ROOT = "/".join([p for p in [Label("//runtime:runtime.bzl").workspace_root, "runtime"] if p])

def runtime_library(name, visibility = ["//runtime:__subpackages__"], **kwargs):
    """A layer of the runtime: a cc_library private to //runtime and its tests.

    Every layer is alwayslink, as the runtime was as one library: the linker keeps what
    nothing references strongly (the registry, reached from generated constructors through a
    weak reference), and //runtime:libkernel_runtime.so exports all of it.
    """
    native.cc_library(
        name = name,
        copts = ["-iquote", _INCLUDE_ROOT],
        features = ["layering_check"],
        alwayslink = True,
        visibility = visibility,
        **kwargs
    )

def _built_once_impl(ctx):
    return [DefaultInfo(files = depset(ctx.files.src), runfiles = ctx.runfiles(files = ctx.files.src))]

built_once = rule(
    implementation = _built_once_impl,
    attrs = {"src": attr.label(cfg = "exec", allow_files = True, mandatory = True)},
    doc = """`src`'s files built in the execution configuration, as data: one build serves every
configuration of the targets that use them (fastbuild, opt, the sanitizers' own), for files
whose build does not depend on it (nvcc's, which ignores the C++ options).""",
)
