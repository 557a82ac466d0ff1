// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- UnlistedSpecializations.h - Library uses of unsigned instances -*- C++ -*-===//
//
// An annotated function template is instantiated with its signatures, and only those get GPU
// code. A specialization of another type given to kernel::ufunc, kernel::reduce,
// kernel::gufunc or kernel::launch (launch<k<float>> for a kernel whose signatures are int32)
// would have none: on a GPU its first call fails, and the simulator runs it unchecked. Once
// the translation unit is complete, each such use is an error at the user's line.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PLUGIN_UNLISTEDSPECIALIZATIONS_H
#define KERNEL_PLUGIN_UNLISTEDSPECIALIZATIONS_H

#include "KernelEntryInstantiator.h"

#include "llvm/ADT/ArrayRef.h"

namespace clang {
class Sema;
} // namespace clang

namespace kernel {
namespace plugin {

class KernelDeclTable;

/// Reports the specializations of annotated templates that the library's callables name but
/// no signature instantiated (`Roots` holds those that were).
void checkUnlistedSpecializations(clang::Sema &S, const KernelDeclTable &Table,
                                  llvm::ArrayRef<GpuRoot> Roots);

} // namespace plugin
} // namespace kernel

#endif // KERNEL_PLUGIN_UNLISTEDSPECIALIZATIONS_H
