// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device code added at run time (kernel/device_code.h), kept for every module built later.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace kernel::runtime::device_code {

struct owned_input {
  std::string name;
  std::string kind; ///< as in kernel_link_input: "object", ..., "cuda"
  std::string hash;
  std::shared_ptr<const std::string> bytes;
};

/// A snapshot of what has been added so far.
std::vector<owned_input> runtime_inputs();

/// Forgets what was added (for tests).
void clear_runtime_inputs();

/// The kind of a file from its extension; empty when none fits.
std::string kind_of(const std::string &path);

/// A content hash for cache keys (64-bit FNV-1a of kind and bytes, in hex).
std::string hash_of(const std::string &kind, const void *data, std::size_t size);

} // namespace kernel::runtime::device_code
