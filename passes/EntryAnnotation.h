//===- EntryAnnotation.h - What the plugin tells the pass about an entry -*- C++ -*-===//
//
// The plugin marks every GPU entry it instantiates (kernel::detail::ufunc_kernel<&f>,
// kernel::detail::jit_kernel<&f>) with an `annotate` attribute whose string carries what
// only the front end knows: the user's name for the kernel, its signature, its source
// location and the size and alignment of its parameter block. This is that string's format,
// shared by the plugin (which writes it) and the pass (which reads it from
// llvm.global.annotations).
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PASSES_ENTRYANNOTATION_H
#define KERNEL_PASSES_ENTRYANNOTATION_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace kernel {
namespace passes {

/// How the runtime launches an entry (values as in kernel/detail/module_abi.h).
enum class EntryKind : uint32_t { Ufunc = 1, Jit = 2, Gufunc = 3, Reduce = 4 };

struct EntryAnnotation {
  EntryKind Kind = EntryKind::Ufunc;
  std::string Name;      ///< "saxpy", "add<float>"
  std::string Signature; ///< "float32(float32, float32)"
  std::string Location;  ///< "saxpy.cpp:12"
  uint64_t ParamSize = 0;
  uint64_t ParamAlign = 1;

  /// "ufunc", "jit", "gufunc", "reduce".
  const char *kindName() const;
  /// The annotation string: "kernel.entry" and the fields, separated by \x1f.
  std::string encode() const;
  /// Parses an annotation string; std::nullopt if it is not an entry annotation.
  static std::optional<EntryAnnotation> decode(llvm::StringRef Text);
};

/// The prefix of every entry annotation.
inline constexpr llvm::StringLiteral EntryAnnotationTag = "kernel.entry";

} // namespace passes
} // namespace kernel

#endif // KERNEL_PASSES_ENTRYANNOTATION_H
