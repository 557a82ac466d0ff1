# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""CUDA-C device code for kernels to call: nvcc -dc for the listed architectures.

    load("@kernel//tools/bazel:cuda_device_library.bzl", "cuda_device_library")

    cuda_device_library(
        name = "bar",
        srcs = ["bar.cu"],          # extern "C" __device__ int bar(int a, int b) { ... }
        hdrs = ["bar.cuh"],
        archs = ["sm_75", "sm_90"], # the default
    )

    kernel_cc_binary(
        name = "foo",
        srcs = ["foo.cpp"],         # [[kernel::declare_device]] extern "C" int bar(int, int);
        device_deps = [":bar"],
    )

Each source is compiled with `nvcc -dc` (relocatable device code) with a cubin for each
architecture and PTX for the oldest and the newest: a cubin runs only on its own GPU
generation, so the oldest's PTX is what GPUs between the listed ones (sm_80 to sm_89
between sm_75 and sm_90) JIT, and the newest's what newer GPUs do. The objects are archived
with `nvcc -lib` into lib<name>.a. A kernel_cc_* target lists it in `device_deps`: the
archive is embedded in the program and nvJitLink links it with the target's kernels at run
time. `lto = True` compiles to LTO-IR (`-dlto`) instead, so that nvJitLink can inline the
device functions into the kernels.
"""

CudaDeviceCodeInfo = provider(
    doc = "Device code files (.a, .o, .ptx, .cubin, .fatbin, .ltoir) to link with kernels.",
    fields = {"files": "depset of File"},
)

def _arch_number(arch):
    """90 for sm_90 and sm_90a; None for what is not an architecture."""
    number = arch[len("sm_"):]
    if number.endswith("a"):
        number = number[:-1]
    if not arch.startswith("sm_") or not number.isdigit():
        return None
    return int(number)

def _gencode(archs, lto):
    flags = []
    for arch in archs:
        number = arch[len("sm_"):]
        code = "lto_" + number if lto else "sm_" + number
        flags.append("-gencode=arch=compute_{n},code={c}".format(n = number, c = code))
    if not lto:
        # PTX of an arch-specific target (sm_90a) runs on that GPU alone: not for the JIT.
        portable = sorted([_arch_number(a) for a in archs if not a.endswith("a")])
        ptx = ([portable[0]] + ([portable[-1]] if portable[-1] != portable[0] else [])) if portable else []
        for n in ptx:
            flags.append("-gencode=arch=compute_{n},code=compute_{n}".format(n = n))
    return flags

def _object_name(src):
    """The object of `src`, under its path: a/math.cu and b/math.cu do not collide."""
    path = src.short_path
    if path.startswith("../"):
        path = "external/" + path[len("../"):]
    return path[:-len(".cu")] + ".o"

def _cuda_device_library_impl(ctx):
    if not ctx.attr.archs:
        fail("cuda_device_library %s: archs is empty; name the GPU architectures, such as [\"sm_75\", \"sm_90\"]" %
             ctx.label)
    for arch in ctx.attr.archs:
        if _arch_number(arch) == None:
            fail("cuda_device_library %s: '%s' is not a GPU architecture such as sm_90 or sm_90a" % (ctx.label, arch))
    objects = []
    # Workspace-relative includes (#include "lib/bar.cuh") work as in cc_library, generated
    # headers among them; and so do includes next to each header.
    root = ctx.label.workspace_root or "."
    includes = [root, ctx.bin_dir.path + ("/" + ctx.label.workspace_root if ctx.label.workspace_root else "")]
    includes += depset([f.dirname for f in ctx.files.hdrs]).to_list()
    for src in ctx.files.srcs:
        obj = ctx.actions.declare_file("_objs/%s/%s" % (ctx.label.name, _object_name(src)))
        args = ctx.actions.args()
        args.add("-dc")
        args.add_all(_gencode(ctx.attr.archs, ctx.attr.lto))
        args.add("-O3")
        args.add_all(includes, format_each = "-I%s")
        args.add_all(ctx.attr.copts)
        args.add(src)
        args.add("-o", obj)
        ctx.actions.run(
            executable = ctx.executable._nvcc_wrapper,
            arguments = [ctx.file._nvcc.path, args],
            inputs = [src, ctx.file._nvcc] + ctx.files.hdrs,
            outputs = [obj],
            mnemonic = "NvccDeviceCompile",
            progress_message = "nvcc -dc %s" % src.short_path,
            use_default_shell_env = True,
        )
        objects.append(obj)
    archive = ctx.actions.declare_file("lib%s.a" % ctx.label.name)
    args = ctx.actions.args()
    args.add("-lib")
    args.add_all(objects)
    args.add("-o", archive)
    ctx.actions.run(
        executable = ctx.executable._nvcc_wrapper,
        arguments = [ctx.file._nvcc.path, args],
        inputs = objects + [ctx.file._nvcc],
        outputs = [archive],
        mnemonic = "NvccDeviceArchive",
        progress_message = "nvcc -lib %s" % archive.short_path,
        use_default_shell_env = True,
    )
    return [
        DefaultInfo(files = depset([archive])),
        CudaDeviceCodeInfo(files = depset([archive])),
    ]

cuda_device_library = rule(
    implementation = _cuda_device_library_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = [".cu"], mandatory = True, allow_empty = False),
        "hdrs": attr.label_list(allow_files = [".h", ".cuh", ".hpp"]),
        "archs": attr.string_list(default = ["sm_75", "sm_90"]),
        "lto": attr.bool(default = False),
        "copts": attr.string_list(),
        # The toolkit kernel_repositories names, run where it is installed (nvcc.sh).
        "_nvcc": attr.label(default = Label("@cuda//:bin/nvcc"), allow_single_file = True, cfg = "exec"),
        "_nvcc_wrapper": attr.label(
            default = Label("//tools/bazel:nvcc.sh"),
            allow_single_file = True,
            executable = True,
            cfg = "exec",
        ),
    },
    provides = [CudaDeviceCodeInfo],
)
