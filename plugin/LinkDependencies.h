// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- LinkDependencies.h - Embedded device code as dependencies -*- C++ -*-===//
//
// The device code a translation unit links ([[kernel::link]], -fplugin-arg-kernel-link), and
// the files a .cu one's quoted includes name, are embedded in its object when it is compiled.
// Build systems that read clang's dependency files (-MD, -MMD: Make, CMake, Ninja) must
// recompile the source when one of them changes, so they are reported to the dependency
// collectors there, as an #embed of each would be.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PLUGIN_LINKDEPENDENCIES_H
#define KERNEL_PLUGIN_LINKDEPENDENCIES_H

#include "clang/Lex/Preprocessor.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kernel {
namespace plugin {

/// At the end of the main file, reports to the callbacks `PP` has now (the dependency
/// collectors among them) the files of `CommandLineFiles` and of `Attributes` (the
/// [[kernel::link]] attributes seen by then, as (path, as written)), with their quoted
/// includes.
void reportLinkDependencies(
    clang::Preprocessor &PP,
    std::shared_ptr<const std::vector<std::pair<std::string, std::string>>> Attributes,
    std::vector<std::string> CommandLineFiles);

} // namespace plugin
} // namespace kernel

#endif // KERNEL_PLUGIN_LINKDEPENDENCIES_H
