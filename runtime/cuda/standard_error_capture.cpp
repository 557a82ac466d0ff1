// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cuda/standard_error_capture.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string_view>

namespace kernel::runtime::cuda {

namespace {

std::mutex &capture_lock() {
  static std::mutex m;
  return m;
}

void write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return; // standard error is gone: nothing better to do with the text
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

// By position: the offset is the one fd 2 shared until just now.
std::string read_all(int fd) {
  std::string text;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::pread(fd, buffer, sizeof buffer, static_cast<off_t>(text.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return text;
    text.append(buffer, static_cast<std::size_t>(n));
  }
}

} // namespace

standard_error_capture::standard_error_capture(std::string error_prefix, std::vector<std::string> error_starts)
    : prefix_(std::move(error_prefix)), starts_(std::move(error_starts)), lock_(capture_lock()) {
  std::fflush(stderr);
  file_ = ::memfd_create("kernel-standard-error", MFD_CLOEXEC);
  if (file_ < 0) return;
  // Appending: other threads write through fd 2 meanwhile, and a memory file's offset is not
  // taken under a lock as a regular file's is, so two writes at once could land at one offset,
  // another thread's line over the linker's error (its prefix overwritten, the link let
  // through). An append takes the end under the file's lock.
  const int flags = ::fcntl(file_, F_GETFL);
  if (flags < 0 || ::fcntl(file_, F_SETFL, flags | O_APPEND) < 0) {
    ::close(file_);
    file_ = -1;
    return;
  }
  saved_ = ::fcntl(2, F_DUPFD_CLOEXEC, 3);
  if (saved_ < 0 || ::dup2(file_, 2) < 0) {
    if (saved_ >= 0) ::close(saved_);
    ::close(file_);
    saved_ = file_ = -1;
  }
}

standard_error_capture::~standard_error_capture() {
  // On the way out of an exception: whatever finish() cannot do (no memory for the text), the
  // real standard error is back and the file closed.
  try {
    finish();
  } catch (...) {
    restore();
  }
}

void standard_error_capture::restore() noexcept {
  if (saved_ >= 0) {
    std::fflush(stderr);
    ::dup2(saved_, 2);
    ::close(saved_);
    saved_ = -1;
  }
  if (file_ >= 0) {
    ::close(file_);
    file_ = -1;
  }
  if (lock_.owns_lock()) lock_.unlock();
}

std::vector<std::string> standard_error_capture::finish() {
  std::vector<std::string> errors;
  if (saved_ < 0) {
    restore();
    return errors;
  }
  std::fflush(stderr);
  ::dup2(saved_, 2);
  ::close(saved_);
  saved_ = -1;
  const std::string text = read_all(file_);
  ::close(file_);
  file_ = -1;
  std::string passed_on;
  for (std::size_t begin = 0; begin < text.size();) {
    std::size_t end = text.find('\n', begin);
    end = end == std::string::npos ? text.size() : end + 1;
    const std::string_view line(text.data() + begin, end - begin);
    // Anywhere in the line: another thread's text without its newline may come before it.
    std::size_t at = line.find(prefix_), skip = prefix_.size();
    for (const std::string &start : starts_) {
      if (at != std::string_view::npos || start.empty()) continue;
      at = line.find(start);
      skip = 0;
    }
    if (at != std::string_view::npos) {
      passed_on.append(line.substr(0, at));
      if (at > 0) passed_on.push_back('\n');
      std::string_view message = line.substr(at + skip);
      while (!message.empty() && (message.back() == '\n' || message.back() == '\r')) message.remove_suffix(1);
      errors.emplace_back(message);
    } else {
      passed_on.append(line);
    }
    begin = end;
  }
  write_all(2, passed_on);
  restore();
  return errors;
}

} // namespace kernel::runtime::cuda
