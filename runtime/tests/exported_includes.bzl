# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""What a target that depends on a C++ library is given of it to compile with."""

def _exported_includes_impl(ctx):
    cc = ctx.attr.library[CcInfo].compilation_context
    flags = (["-I" + d for d in cc.includes.to_list()] +
             ["-iquote" + d for d in cc.quote_includes.to_list()] +
             ["-isystem" + d for d in cc.system_includes.to_list()] +
             ["-D" + d for d in cc.defines.to_list()])
    out = ctx.actions.declare_file(ctx.label.name + ".flags")
    ctx.actions.write(out, "\n".join(flags) + "\n")

    # This workspace's headers among them, so that a header that cannot be included is
    # known to be there all the same.
    headers = [h for h in cc.headers.to_list() if not h.owner.workspace_name]
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out] + headers))]

exported_includes = rule(
    implementation = _exported_includes_impl,
    doc = "The include paths and defines that `library` exports to its dependents, one compiler " +
          "flag a line, with this workspace's headers it exports in the runfiles.",
    attrs = {"library": attr.label(providers = [CcInfo])},
)
