// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The formats of device code that kernels link with (nvJitLink inputs, and CUDA-C through
// NVRTC): the one table of file extensions, the names the module ABI stores in
// kernel_link_input::kind, and the message for a file that is none of them. The pass reads it
// when it embeds [[kernel::link]] files, the runtime when it links them and when a program
// adds files at run time; tools/bazel/link_inputs.bzl lists the same extensions for Bazel
// (tests/link_inputs_test.sh keeps the two in step).
#ifndef KERNEL_DETAIL_LINK_INPUTS_H
#define KERNEL_DETAIL_LINK_INPUTS_H

#include <string>
#include <string_view>

namespace kernel::detail {

enum class link_format { object, library, ptx, cubin, fatbin, ltoir, cuda };

struct link_format_info {
  link_format format;
  std::string_view name;      // stored in kernel_link_input::kind
  std::string_view extension; // with the dot
};

inline constexpr link_format_info link_formats[] = {
    {link_format::object, "object", ".o"},   // nvcc -dc, also with -dlto
    {link_format::library, "library", ".a"}, // nvcc -lib
    {link_format::ptx, "ptx", ".ptx"},          {link_format::cubin, "cubin", ".cubin"},
    {link_format::fatbin, "fatbin", ".fatbin"}, {link_format::ltoir, "ltoir", ".ltoir"},
    {link_format::cuda, "cuda", ".cu"}, // compiled by NVRTC for the GPU in hand
};

// The format of a file with this extension ("" or an unknown one: null).
constexpr const link_format_info *link_format_for_extension(std::string_view extension) {
  for (const link_format_info &f : link_formats)
    if (f.extension == extension) return &f;
  return nullptr;
}

// The format stored under this name in a module (null for none).
constexpr const link_format_info *link_format_named(std::string_view name) {
  for (const link_format_info &f : link_formats)
    if (f.name == name) return &f;
  return nullptr;
}

// The name a module stores for `format`.
constexpr std::string_view link_format_name(link_format format) {
  for (const link_format_info &f : link_formats)
    if (f.format == format) return f.name;
  return {};
}

// Why `path` cannot be linked: "'x.txt' is not device code nvJitLink can link: expected a
// .o, .a, .ptx, .cubin, .fatbin, .ltoir or .cu file".
inline std::string not_linkable_message(std::string_view path) {
  std::string m = "'" + std::string(path) + "' is not device code nvJitLink can link: expected a ";
  constexpr std::size_t count = std::size(link_formats);
  for (std::size_t i = 0; i < count; ++i) {
    if (i) m += i + 1 == count ? " or " : ", ";
    m += link_formats[i].extension;
  }
  return m + " file";
}

} // namespace kernel::detail

#endif
