# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Bazel rules for C++ compiled with the kernel plugin.

    load("@kernel//tools/bazel:kernel_cc.bzl", "kernel_cc_binary", "kernel_cc_library")

    kernel_cc_binary(
        name = "saxpy",
        srcs = ["saxpy.cpp"],
    )

Sources are compiled by clang with -fplugin=kernel_plugin.so, so annotated functions get
their GPU code embedded; the targets depend on the kernel headers and runtime. They are
ordinary CcInfo providers: cc_library and cc_binary targets may depend on them and they on
those.
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")
load("//tools/bazel:link_inputs.bzl", "LINK_INPUT_EXTENSIONS", "describe_link_inputs")

# The flags tools/kernel-clang++ adds too: math without errno, so that std::exp and friends
# vectorize on the CPU (with glibc's libmvec) and become single calls on the GPU. LLVM 19
# picks libmvec's AVX2 variants whatever the target, which are then called with the wrong
# ABI on plain x86-64: libmvec goes with x86-64-v3 (AVX2, FMA; every x86 server since 2013).
KERNEL_COPTS = [
    "-fno-math-errno",
    "-fveclib=libmvec",
    "-march=x86-64-v3",
]

def _shell_words(text, where):
    """`text` split into words as cc_library splits copts and defines (Bazel's
    ShellUtils.tokenize): at blanks and tabs outside quotes; a backslash takes the next
    character, but in double quotes only a backslash or a double quote; "" is a word."""
    words = []
    word = ""
    in_word = False
    quote = ""
    escaped = False
    for c in text.elems():
        if escaped:
            # In double quotes a backslash escapes only these; elsewhere it stays.
            if quote == "\"" and c not in "\"\\":
                word += "\\"
            word += c
            escaped = False
        elif quote == "'":
            if c == "'":
                quote = ""
            else:
                word += c
        elif c == "\\":
            escaped = True
            in_word = True
        elif quote == "\"":
            if c == "\"":
                quote = ""
            else:
                word += c
        elif c in "'\"":
            quote = c
            in_word = True
        elif c in " \t":
            if in_word:
                words.append(word)
            word = ""
            in_word = False
        else:
            word += c
            in_word = True
    if quote or escaped:
        fail("%s: unterminated %s in '%s'" % (where, "quote" if quote else "backslash", text))
    if in_word:
        words.append(word)
    return words

def _expanded(ctx, attribute, targets, one_word = False, tokenize = True):
    """An attribute's strings as cc_library reads them: $(location) and Make variables
    expanded, then split into words (each one word, for defines) unless `tokenize` is off,
    when each string is one word (cc_library's no_copts_tokenization feature)."""
    words = []
    for text in getattr(ctx.attr, attribute):
        text = ctx.expand_location(text, targets)
        text = ctx.expand_make_variables(attribute, text, {})
        split = _shell_words(text, "%s: %s" % (ctx.label, attribute)) if tokenize else [text]
        if one_word and len(split) != 1:
            fail("%s: %s: '%s' is %d words after expansion; a define is exactly one (quote a value with blanks)" %
                 (ctx.label, attribute, text, len(split)))
        words += split
    return words

def _kernel_copts(ctx, copts):
    """KERNEL_COPTS, less -march and -fveclib where the build or the target names a -march:
    as tools/kernel-clang++ does, the user's choice of CPU wins (and libmvec goes with it)."""
    given = ctx.fragments.cpp.copts + ctx.fragments.cpp.cxxopts + copts
    if [f for f in given if f.startswith("-march=") or f.startswith("-mcpu=")]:
        return [f for f in KERNEL_COPTS if not f.startswith("-march=") and not f.startswith("-fveclib=")]
    return KERNEL_COPTS

_HEADER_EXTENSIONS = ["h", "hh", "hpp", "inc"]

def _device_files(ctx):
    return [f for f in ctx.files.device_deps if f.extension in LINK_INPUT_EXTENSIONS]

def _plugin_flags(ctx):
    # libdevice of the toolkit kernel_repositories names: the compile's environment has no
    # CUDA_HOME to find another by, and a new toolkit's recompiles the kernels.
    flags = ["-fplugin=" + ctx.file._plugin.path, "-fplugin-arg-kernel-libdevice=" + ctx.file._libdevice.path]
    if ctx.files.device_srcs:
        # A generated file is in the bin tree at its package's path, where a relative
        # [[kernel::link]] path is looked for after the source's own directory.
        flags.append("-fplugin-arg-kernel-link-root=" + ctx.bin_dir.path)
    if ctx.attr.gpu_archs:
        flags.append("-fplugin-arg-kernel-arch=" + ",".join(ctx.attr.gpu_archs))
    for f in _device_files(ctx):
        flags.append("-fplugin-arg-kernel-link=" + f.path)
    return flags

def _package_includes(ctx):
    """`includes` as cc_library reads them, relative to the package (cc_common takes paths
    from the execution root), in the source tree and among generated files."""
    package = "/".join([p for p in [ctx.label.workspace_root, ctx.label.package] if p])
    found = []
    for include in ctx.attr.includes:
        include = ctx.expand_make_variables("includes", include, {})
        path = "/".join([p for p in [package, include] if p and p != "."]) or "."
        found += [path, ctx.bin_dir.path + "/" + path if path != "." else ctx.bin_dir.path]
    return found

def _kernel_cc_compile_impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    # Bazel's autoconfigured toolchain says "clang" for clang and "compiler" for anything else.
    if cc_toolchain.compiler in ("gcc", "compiler"):
        fail("%s: the kernel plugin is a clang plugin, and this build's C++ compiler is not clang (the toolchain says '%s'); " %
             (ctx.label, cc_toolchain.compiler) +
             "build with clang 19: --repo_env=CC=clang-19 (in .bazelrc: build --repo_env=CC=clang-19)")
    feature_configuration = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    deps = [d[CcInfo] for d in ctx.attr.deps + ctx.attr._kernel_deps]
    targets = ctx.attr.srcs + ctx.attr.deps + ctx.attr.device_deps + ctx.attr.device_srcs
    # As cc_library: with the no_copts_tokenization feature a copt is one word, blanks and all.
    copts = _expanded(ctx, "copts", targets, tokenize = "no_copts_tokenization" not in ctx.features)
    headers = [f for f in ctx.files.srcs if f.extension in _HEADER_EXTENSIONS]
    sources = [f for f in ctx.files.srcs if f.extension not in _HEADER_EXTENSIONS]
    compilation_context, compilation_outputs = cc_common.compile(
        name = ctx.label.name,
        actions = ctx.actions,
        feature_configuration = feature_configuration,
        cc_toolchain = cc_toolchain,
        srcs = sources,
        private_hdrs = headers,
        public_hdrs = ctx.files.hdrs,
        compilation_contexts = [d.compilation_context for d in deps],
        defines = _expanded(ctx, "defines", targets, one_word = True),
        local_defines = _expanded(ctx, "local_defines", targets, one_word = True),
        includes = _package_includes(ctx),
        user_compile_flags = _kernel_copts(ctx, copts) + _plugin_flags(ctx) + copts,
        # Device code is read by the compile (embedded in the object), so it is an input;
        # files named by [[kernel::link("...")]] in the sources come in through device_deps or srcs.
        additional_inputs = [ctx.file._plugin, ctx.file._libdevice] + ctx.files.device_deps + ctx.files.device_srcs,
    )
    linking_context, linking_outputs = cc_common.create_linking_context_from_compilation_outputs(
        name = ctx.label.name,
        actions = ctx.actions,
        feature_configuration = feature_configuration,
        cc_toolchain = cc_toolchain,
        compilation_outputs = compilation_outputs,
        linking_contexts = [d.linking_context for d in deps],
        # A translation unit that only defines kernels is referenced by nothing but its
        # registration constructor; keep it.
        alwayslink = True,
    )
    files = []
    if linking_outputs.library_to_link:
        lib = linking_outputs.library_to_link
        files = [f for f in [lib.static_library, lib.pic_static_library] if f]
    # The deps' runfiles (the runtime's data: CUB's library) reach the programs built on this.
    runfiles = ctx.runfiles()
    for d in ctx.attr.deps + ctx.attr._kernel_deps:
        runfiles = runfiles.merge(d[DefaultInfo].default_runfiles)
    return [
        DefaultInfo(files = depset(files), runfiles = runfiles),
        CcInfo(
            compilation_context = compilation_context,
            linking_context = linking_context,
        ),
        # `bazel coverage` counts these sources as it counts a cc_library's.
        coverage_common.instrumented_files_info(
            ctx,
            source_attributes = ["srcs", "hdrs"],
            dependency_attributes = ["deps"],
            extensions = ["cc", "cpp", "cxx", "c++", "C", "h", "hh", "hpp", "inc"],
        ),
    ]

_kernel_cc_compile = rule(
    implementation = _kernel_cc_compile_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = [".cc", ".cpp", ".cxx", ".c++", ".C", ".h", ".hh", ".hpp", ".inc"]),
        "hdrs": attr.label_list(allow_files = [".h", ".hpp", ".hh", ".inc"]),
        "deps": attr.label_list(providers = [CcInfo]),
        "copts": attr.string_list(doc = "As cc_library's: $(location) and Make variables expanded, split as the shell splits."),
        "defines": attr.string_list(doc = "As cc_library's: for these sources and those that depend on them (expanded as copts)."),
        "local_defines": attr.string_list(doc = "As cc_library's: for these sources only (expanded as copts)."),
        "includes": attr.string_list(doc = "As cc_library's: directories, relative to the package, to include from (Make variables expanded)."),
        "device_deps": attr.label_list(
            allow_files = True,
            doc = "cuda_device_library targets and device code files (" + describe_link_inputs() +
                  ") linked with every kernel of these sources.",
        ),
        "device_srcs": attr.label_list(
            allow_files = True,
            doc = "Files the sources name with [[kernel::link(\"...\")]], relative to the source file.",
        ),
        "gpu_archs": attr.string_list(
            doc = "GPU architectures to emit PTX for (default: sm_75 and sm_90).",
        ),
        # Built in the target configuration: on one machine it is the same compiler, and
        # sharing the build with tests that load the plugin directly saves a second one.
        "_plugin": attr.label(
            default = Label("//plugin:kernel_plugin.so"),
            allow_single_file = True,
            cfg = "target",
        ),
        "_libdevice": attr.label(default = Label("@cuda//:libdevice"), allow_single_file = True),
        # The kernel headers and runtime, apart from deps: a user listing them there too is no
        # duplicate label.
        "_kernel_deps": attr.label_list(
            default = [Label("//stdlib"), Label("//runtime")],
            providers = [CcInfo],
        ),
        "_cc_toolchain": attr.label(default = Label("@bazel_tools//tools/cpp:current_cc_toolchain")),
    },
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    fragments = ["cpp"],
)

def kernel_cc_library(name, srcs = [], hdrs = [], deps = [], copts = [], gpu_archs = [], device_deps = [],
                      device_srcs = [], **kwargs):
    """A cc_library whose sources are compiled with the kernel plugin.

    device_deps: cuda_device_library targets and device code files linked with its kernels.
    device_srcs: files its sources name with [[kernel::link("...")]].
    """
    _kernel_cc_compile(
        name = name,
        srcs = srcs,
        hdrs = hdrs,
        deps = deps,
        copts = copts,
        gpu_archs = gpu_archs,
        device_deps = device_deps,
        device_srcs = device_srcs,
        **kwargs
    )

# Attributes of a binary or test that only its objects' compile takes (they reach its
# sources), and those it shares with them (features, and where and whether it builds).
_COMPILE_ATTRS = ["defines", "local_defines", "includes"]
_SHARED_ATTRS = ["tags", "target_compatible_with", "exec_compatible_with", "exec_properties", "features"]

def _kernel_cc_executable(rule, name, srcs, deps, copts, gpu_archs, device_deps, device_srcs, testonly, kwargs):
    objects = {a: kwargs.pop(a) for a in _COMPILE_ATTRS if a in kwargs}
    objects.update({a: kwargs[a] for a in _SHARED_ATTRS if a in kwargs})
    kernel_cc_library(
        name = name + "_objects",
        srcs = srcs,
        deps = deps,
        copts = copts,
        gpu_archs = gpu_archs,
        device_deps = device_deps,
        device_srcs = device_srcs,
        visibility = ["//visibility:private"],
        testonly = testonly,
        **objects
    )
    rule(name = name, deps = [":" + name + "_objects"], **kwargs)

def kernel_cc_binary(name, srcs = [], deps = [], copts = [], gpu_archs = [], device_deps = [], device_srcs = [],
                     **kwargs):
    """A cc_binary whose sources are compiled with the kernel plugin."""
    _kernel_cc_executable(native.cc_binary, name, srcs, deps, copts, gpu_archs, device_deps, device_srcs,
                          kwargs.get("testonly", False), kwargs)

def kernel_cc_test(name, srcs = [], deps = [], copts = [], gpu_archs = [], device_deps = [], device_srcs = [],
                   **kwargs):
    """A cc_test whose sources are compiled with the kernel plugin."""
    _kernel_cc_executable(native.cc_test, name, srcs, deps, copts, gpu_archs, device_deps, device_srcs, True,
                          kwargs)
