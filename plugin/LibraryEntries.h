// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- LibraryEntries.h - GPU entries instantiated by the library -*- C++ -*-===//
//
// Some kernels are not instantiated by the plugin but by the library's own templates: a
// lazy expression's fused kernel, kernel::detail::fused_kernel<E> (or fused_reduce_kernel<E>),
// made where the expression is materialised, and an algorithm's kernels,
// kernel::detail::algorithm_kernel<E>, made where a scan, sort or select runs on a device.
// Once the translation unit is complete, every such instantiation is marked as an entry
// (passes/KernelAnnotations.h), named by the text its argument spells out at compile time
// (E::kernel_name), and the functions its argument names (the expression's loops, a scan's
// operator) are returned as GPU roots so that the device code checks cover them.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PLUGIN_LIBRARYENTRIES_H
#define KERNEL_PLUGIN_LIBRARYENTRIES_H

#include "KernelEntryInstantiator.h"

#include <vector>

namespace clang {
class Sema;
} // namespace clang

namespace kernel {
namespace plugin {

/// Marks the library entries instantiated in the translation unit and appends the functions
/// they call to `Roots`.
void markLibraryEntries(clang::Sema &S, std::vector<GpuRoot> &Roots);

} // namespace plugin
} // namespace kernel

#endif // KERNEL_PLUGIN_LIBRARYENTRIES_H
