// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- GufuncLayouts.h - A gufunc's layout against its functions' -*- C++ -*-===//
//
// A gufunc's layout is written twice: in the function's kernel::guvectorize attribute, which
// the GPU entry and the function's body assume, and as kernel::gufunc's template argument,
// which the library checks the arguments' core dimensions against. Where the two differ
// ("(n),(m)->()" for a function written for "(n),(n)->()"), calls pass the checks and the
// function reads past its shorter operand. Once the translation unit is complete, each such
// gufunc is an error at the user's line.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PLUGIN_GUFUNCLAYOUTS_H
#define KERNEL_PLUGIN_GUFUNCLAYOUTS_H

namespace clang {
class Sema;
} // namespace clang

namespace kernel {
namespace plugin {

class KernelDeclTable;

/// Reports the kernel::gufunc specializations whose layout differs from a function's
/// kernel::guvectorize layout (dimension names may differ; which operands share them may not).
void checkGufuncLayouts(clang::Sema &S, const KernelDeclTable &Table);

} // namespace plugin
} // namespace kernel

#endif // KERNEL_PLUGIN_GUFUNCLAYOUTS_H
