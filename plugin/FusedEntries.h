//===- FusedEntries.h - GPU entries of fused expressions --------*- C++ -*-===//
//
// A lazy expression's fused kernel is not instantiated by the plugin: it is an ordinary
// instantiation of kernel::detail::fused_kernel<E> (or fused_reduce_kernel<E>) made where
// the expression is materialised. Once the translation unit is complete, every such
// instantiation is marked as an entry (passes/KernelAnnotations.h), named by the composed
// expression its argument spells out at compile time (E::kernel_name), and returned as a
// GPU root so that the device code checks cover the functions the expression calls.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PLUGIN_FUSEDENTRIES_H
#define KERNEL_PLUGIN_FUSEDENTRIES_H

#include "KernelEntryInstantiator.h"

#include <vector>

namespace clang {
class Sema;
} // namespace clang

namespace kernel {
namespace plugin {

/// Marks the fused entries instantiated in the translation unit and appends them to `Roots`.
void markFusedEntries(clang::Sema &S, std::vector<GpuRoot> &Roots);

} // namespace plugin
} // namespace kernel

#endif // KERNEL_PLUGIN_FUSEDENTRIES_H
