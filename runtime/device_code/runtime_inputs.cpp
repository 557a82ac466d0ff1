// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "device_code/runtime_inputs.h"

#include "cache/checksum.h"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>

#include "kernel/detail/link_inputs.h"
#include "kernel/device_code.h"
#include "kernel/errors.h"

namespace kernel::runtime::device_code {

namespace {
std::mutex inputs_mutex;
std::vector<owned_input> &inputs() {
  static std::vector<owned_input> list;
  return list;
}

void add(owned_input in) {
  std::lock_guard lock(inputs_mutex);
  inputs().push_back(std::move(in));
}
} // namespace

std::vector<owned_input> runtime_inputs() {
  std::lock_guard lock(inputs_mutex);
  return inputs();
}

void clear_runtime_inputs() {
  std::lock_guard lock(inputs_mutex);
  inputs().clear();
}

std::string kind_of(const std::string &path) {
  const kernel::detail::link_format_info *format =
      kernel::detail::link_format_for_extension(std::filesystem::path(path).extension().string());
  return format ? std::string(format->name) : std::string();
}

std::string hash_of(const std::string &kind, const void *data, std::size_t size) {
  // The kind with its NUL, then the bytes: a file cannot pass for another kind.
  const std::uint64_t h = fnv1a(std::string_view(kind.c_str(), kind.size() + 1));
  return hex64(fnv1a(std::string_view(static_cast<const char *>(data), size), h));
}

} // namespace kernel::runtime::device_code

namespace kernel {

void link_device_code(const std::string &file) {
  using namespace runtime::device_code;
  const std::string kind = kind_of(file);
  if (kind.empty()) throw link_error("kernel::link_device_code: " + kernel::detail::not_linkable_message(file));
  std::ifstream in(file, std::ios::binary);
  if (!in) throw link_error("kernel::link_device_code: cannot read '" + file + "'");
  auto bytes = std::make_shared<std::string>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (in.bad()) throw link_error("kernel::link_device_code: error reading '" + file + "'");
  add({file, kind, hash_of(kind, bytes->data(), bytes->size()), std::move(bytes)});
}

void link_device_source(const std::string &name, const std::string &cuda_source) {
  using namespace runtime::device_code;
  auto bytes = std::make_shared<const std::string>(cuda_source);
  const std::string kind(kernel::detail::link_format_name(kernel::detail::link_format::cuda));
  add({name, kind, hash_of(kind, bytes->data(), bytes->size()), std::move(bytes)});
}

std::vector<std::string> linked_device_code() {
  std::vector<std::string> names;
  for (const auto &in : runtime::device_code::runtime_inputs()) names.push_back(in.name);
  return names;
}

} // namespace kernel
