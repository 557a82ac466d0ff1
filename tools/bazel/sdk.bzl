# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""kernel_sdk: the toolchain as one directory, for builds outside Bazel.

    bazel build //tools:sdk
    bazel-bin/tools/sdk/bin/kernel-clang++ -O2 saxpy.cpp -o saxpy

Layout: bin/ (kernel-clang++, kernel-ptx), lib/ (kernel_plugin.so, libkernel_runtime.so and
the libraries it loads from beside itself: libkernel_cub.so), include/ (kernel/*.h).
"""

def _kernel_sdk_impl(ctx):
    out = ctx.actions.declare_directory(ctx.label.name)
    commands = ["mkdir -p {o}/bin {o}/lib {o}/include".format(o = out.path)]
    for f in ctx.files.programs:
        commands.append("cp {} {}/bin/".format(f.path, out.path))
    for f in [ctx.file.plugin, ctx.file.runtime] + ctx.files.libraries:
        commands.append("cp {} {}/lib/".format(f.path, out.path))
    for f in ctx.files.headers:
        relative = f.short_path.split("/include/", 1)[1]
        commands.append("mkdir -p {o}/include/{d} && cp {src} {o}/include/{rel}".format(
            o = out.path,
            d = relative.rpartition("/")[0],
            src = f.path,
            rel = relative,
        ))
    ctx.actions.run_shell(
        outputs = [out],
        inputs = ctx.files.programs + ctx.files.headers + ctx.files.libraries + [ctx.file.plugin, ctx.file.runtime],
        command = " && ".join(commands),
        progress_message = "Assembling the kernel SDK",
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

kernel_sdk = rule(
    implementation = _kernel_sdk_impl,
    attrs = {
        "programs": attr.label_list(allow_files = True),
        "plugin": attr.label(allow_single_file = True),
        "runtime": attr.label(allow_single_file = True),
        "libraries": attr.label_list(allow_files = True),
        "headers": attr.label(allow_files = True),
    },
)
