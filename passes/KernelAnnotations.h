// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- KernelAnnotations.h - What the plugin tells the passes ----*- C++ -*-===//
//
// The plugin hands the passes what only the front end knows through `annotate` strings on
// functions (llvm.global.annotations in the IR). This file is their one protocol: every
// annotation is a tag and fields joined by \x1f (the unit separator, which cannot appear in
// names, signatures or sane paths), and each kind has a struct that the plugin encodes and
// the passes decode. Nothing else writes or splits these strings.
//
//   kernel.entry           a GPU entry the plugin instantiated (ufunc_kernel<&f> ...): its
//                          kind, the user's name, signature, location, each parameter's
//                          declared array order and its parameter block
//   kernel.declare_device  a CUDA-C function kernels call: convention, C++ signature, location
//   kernel.link            device code to embed: the path to read and the name as written
//   kernel.<attribute>     the annotated function itself (vectorize, jit, device ...) with
//                          its checked signatures; the passes keep `device` functions
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PASSES_KERNELANNOTATIONS_H
#define KERNEL_PASSES_KERNELANNOTATIONS_H

#include "kernel/detail/module_abi.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kernel {
namespace passes {

/// `Tag` and `Fields`, joined by the separator.
std::string encodeAnnotation(llvm::StringRef Tag, llvm::ArrayRef<std::string> Fields);

/// The fields of `Text` when it is an annotation tagged `Tag` (none when it is the bare tag);
/// std::nullopt when it is not.
std::optional<llvm::SmallVector<llvm::StringRef, 8>> decodeAnnotation(llvm::StringRef Text,
                                                                      llvm::StringRef Tag);

/// "ufunc", "jit", "gufunc", "reduce" (kernel/detail/module_abi.h).
const char *entryKindName(kernel_entry_kind Kind);

struct EntryAnnotation {
  static constexpr llvm::StringLiteral Tag = "kernel.entry";

  kernel_entry_kind Kind = KERNEL_ENTRY_UFUNC;
  std::string Name;      ///< "saxpy", "add<float>"
  std::string Signature; ///< "float32(float32, float32)"
  std::string Location;  ///< "saxpy.cpp:12"
  /// One of 'C', 'F' or 'A' per parameter, as its signature type declares (kernel_entry's
  /// array_orders; 'A' for each without a signature); "" for the library's entries.
  std::string ArrayOrders;
  uint64_t ParamSize = 0;
  uint64_t ParamAlign = 1;
  /// The threads a block of this entry has at most (PTX's .maxntid), 0 when unbounded, and
  /// the blocks of that size a multiprocessor should hold at once (.minnctapersm), 0 for any:
  /// an entry laid out for larger blocks than the default says so, so that ptxas keeps its
  /// registers within what such blocks can have, on every architecture.
  uint64_t MaxThreads = 0;
  uint64_t MinBlocks = 0;
  /// The most bytes a kernel's parameters may take in the PTX the passes emit (ISA 7.8,
  /// OffloadOptions::PTXFeatures); ptxas refuses more, and with them the module's every kernel.
  static constexpr uint64_t MaxParamSize = 4352;

  const char *kindName() const { return entryKindName(Kind); }
  std::string encode() const;
  static std::optional<EntryAnnotation> decode(llvm::StringRef Text);
};

struct DeclareDeviceAnnotation {
  static constexpr llvm::StringLiteral Tag = "kernel.declare_device";

  bool NumbaConvention = false; ///< int f(T *result, args...) returning a status
  std::string Signature;        ///< "int bar(int, int)", as declared in C++
  std::string Location;         ///< "foo.cpp:12"

  std::string encode() const;
  static std::optional<DeclareDeviceAnnotation> decode(llvm::StringRef Text);
};

struct LinkAnnotation {
  static constexpr llvm::StringLiteral Tag = "kernel.link";

  std::string Path;    ///< the file to read, resolved against the source's directory
  std::string Written; ///< as the user wrote it: shown in errors

  std::string encode() const;
  static std::optional<LinkAnnotation> decode(llvm::StringRef Text);
};

/// The annotation on a function carrying one of the kernel attributes.
struct AttributeAnnotation {
  std::string Attribute;            ///< "vectorize", "jit", "device" ... (kernel::<attribute>)
  std::vector<std::string> Details; ///< the canonical signatures, then a gufunc's layout

  std::string encode() const;
  /// The annotation of attribute `Attribute`, if `Text` is one.
  static std::optional<AttributeAnnotation> decode(llvm::StringRef Text, llvm::StringRef Attribute);
};

} // namespace passes
} // namespace kernel

#endif // KERNEL_PASSES_KERNELANNOTATIONS_H
