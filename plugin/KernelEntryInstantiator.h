// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- KernelEntryInstantiator.h - GPU entries for annotated functions -*- C++ -*-===//
//
// Turns an annotated function into what the pass compiles: for a function template, the
// specialization of each signature; for kernel::vectorize and kernel::jit, the entry
// templates of the kernel headers (kernel::detail::ufunc_kernel<&f>,
// kernel::detail::jit_kernel<&f>) instantiated for it, kept by a `used` attribute and
// marked with an entry annotation (passes/KernelAnnotations.h).
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PLUGIN_KERNELENTRYINSTANTIATOR_H
#define KERNEL_PLUGIN_KERNELENTRYINSTANTIATOR_H

#include "KernelDeclTable.h"

#include <string>
#include <vector>

namespace clang {
class Sema;
} // namespace clang

namespace kernel {
namespace plugin {

/// A function whose code is compiled for the GPU, for the device code checks.
struct GpuRoot {
  clang::FunctionDecl *Fn;
  const AnnotatedFunction *Origin;                   ///< null for a function of a fused expression
  std::string Signature;                             ///< or the fused expression
  const clang::FunctionDecl *LibraryEntry = nullptr; ///< the library kernel that calls Fn
};

class KernelEntryInstantiator {
public:
  explicit KernelEntryInstantiator(clang::Sema &S) : S(S) {}

  /// Instantiates the entries of `F`, which has just been defined, and appends the
  /// functions that run on the GPU to `Roots`.
  void instantiate(const AnnotatedFunction &F, std::vector<GpuRoot> &Roots);

private:
  clang::FunctionDecl *specialize(const AnnotatedFunction &F, const WrittenSignature &W);
  /// `Shown` is the signature as the entry shows it; `Declared` the one it is for, null for a
  /// kernel without one.
  void instantiateEntry(clang::FunctionDecl *Fn, const AnnotatedFunction &F,
                        const std::string &Shown, const Signature *Declared);
  clang::SourceLocation signatureLocation(const WrittenSignature &W,
                                          const AnnotatedFunction &F) const;

  clang::Sema &S;
};

} // namespace plugin
} // namespace kernel

#endif // KERNEL_PLUGIN_KERNELENTRYINSTANTIATOR_H
