// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- OffloadOptions.h - What the GPU compilation is asked to do -*- C++ -*-===//

#ifndef KERNEL_PASSES_OFFLOADOPTIONS_H
#define KERNEL_PASSES_OFFLOADOPTIONS_H

#include <string>
#include <utility>
#include <vector>

namespace kernel {
namespace passes {

struct OffloadOptions {
  /// Architectures to emit PTX for: a baseline every supported GPU can JIT (CUDA 13
  /// supports sm_75 and newer) and the Hopper GPUs we run on.
  std::vector<std::string> Archs = {"sm_75", "sm_90"};
  /// PTX ISA version; 7.8 is the first with sm_90 and is accepted by every CUDA 12/13 tool.
  std::string PTXFeatures = "+ptx78";
  /// libdevice bitcode; empty to look in $CUDA_HOME, $CUDA_PATH and /usr/local/cuda.
  std::string LibdevicePath;
  /// When set, each module's PTX and a list of its kernels are written to this directory.
  std::string InspectDir;
  /// Device code to embed with every module of the translation unit and link at run time
  /// (-fplugin-arg-kernel-link=FILE), besides what [[kernel::link]] names in the source.
  std::vector<std::string> LinkFiles;
  /// The files [[kernel::link]] names, as (path, as written), from the attributes the
  /// plugin saw: a declaration nothing calls is not in the module, nor its annotation.
  std::vector<std::pair<std::string, std::string>> LinkAttributeFiles;
};

} // namespace passes
} // namespace kernel

#endif // KERNEL_PASSES_OFFLOADOPTIONS_H
