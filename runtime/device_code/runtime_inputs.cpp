// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "device_code/runtime_inputs.h"

#include "cache/checksum.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string_view>

#include "kernel/detail/device_code_files.h"
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
// A file's bytes; nullopt where there is none. Anything but a regular file (a directory, a
// FIFO that would block the read for ever, a device) and a failed read are link_errors.
std::optional<std::string> read_file(const char *caller, const std::string &path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return std::nullopt;
    throw link_error(std::string(caller) + ": cannot read '" + path + "': " + std::strerror(errno));
  }
  struct closer {
    int fd;
    ~closer() { ::close(fd); }
  } close_at_end{fd};
  struct stat st{};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    throw link_error(std::string(caller) + ": cannot read '" + path +
                     "': " + (S_ISDIR(st.st_mode) ? "it is a directory" : "it is not a regular file"));
  std::string bytes;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw link_error(std::string(caller) + ": error reading '" + path + "': " + std::strerror(errno));
    if (n == 0) return bytes;
    bytes.append(buffer, static_cast<std::size_t>(n));
  }
}

// CUDA-C `source` (the file or name `name`) with its quoted includes read now and written in
// (kernel/detail/device_code_files.h), so that they are part of its hash and compiled as read.
void add_source(const char *caller, const std::string &name, std::string_view source) {
  auto bytes = std::make_shared<std::string>();
  std::string error;
  if (!kernel::detail::with_quoted_includes(
          name, source, [&](const std::string &path) { return read_file(caller, path); }, *bytes, error))
    throw link_error(std::string(caller) + ": " + error);
  const std::string kind(kernel::detail::link_format_name(kernel::detail::link_format::cuda));
  const std::string hash = hash_of(kind, bytes->data(), bytes->size());
  add({name, kind, hash, std::move(bytes)});
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
  constexpr const char *caller = "kernel::link_device_code";
  const std::string kind = kind_of(file);
  if (kind.empty()) throw link_error(std::string(caller) + ": " + kernel::detail::not_linkable_message(file));
  std::optional<std::string> bytes = read_file(caller, file);
  if (!bytes) throw link_error(std::string(caller) + ": cannot read '" + file + "': " + std::strerror(ENOENT));
  const kernel::detail::link_format format = kernel::detail::link_format_named(kind)->format;
  if (format == kernel::detail::link_format::cuda) {
    add_source(caller, file, *bytes);
    return;
  }
  if (const std::string why = kernel::detail::device_code_damage(format, *bytes); !why.empty())
    throw link_error(std::string(caller) + ": '" + file + "' cannot be linked as " + kind + ": " + why);
  const std::string hash = hash_of(kind, bytes->data(), bytes->size());
  add({file, kind, hash, std::make_shared<const std::string>(std::move(*bytes))});
}

void link_device_source(const std::string &name, const std::string &cuda_source) {
  runtime::device_code::add_source("kernel::link_device_source", name, cuda_source);
}

std::vector<std::string> linked_device_code() {
  std::vector<std::string> names;
  for (const auto &in : runtime::device_code::runtime_inputs()) names.push_back(in.name);
  return names;
}

} // namespace kernel
