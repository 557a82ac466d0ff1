// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cuda/nvjitlink.h"

#include <nvJitLink.h>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>

#include "cuda/standard_error_capture.h"
#include "cuda/toolkit.h"
#include "kernel/errors.h"

namespace kernel::runtime::cuda {

struct nvjitlink::api {
  nvJitLinkResult (*create)(nvJitLinkHandle *, uint32_t, const char **) = nullptr;
  nvJitLinkResult (*destroy)(nvJitLinkHandle *) = nullptr;
  nvJitLinkResult (*add_data)(nvJitLinkHandle, nvJitLinkInputType, const void *, size_t, const char *) = nullptr;
  nvJitLinkResult (*complete)(nvJitLinkHandle) = nullptr;
  nvJitLinkResult (*cubin_size)(nvJitLinkHandle, size_t *) = nullptr;
  nvJitLinkResult (*cubin)(nvJitLinkHandle, void *) = nullptr;
  nvJitLinkResult (*error_log_size)(nvJitLinkHandle, size_t *) = nullptr;
  nvJitLinkResult (*error_log)(nvJitLinkHandle, char *) = nullptr;
  nvJitLinkResult (*version)(unsigned *, unsigned *) = nullptr;
};

namespace {

constexpr const char *soname = "libnvJitLink.so.13";

// What to dlopen, in order: first the file identity() describes, so that the cache key
// names the library that links.
std::vector<std::string> library_candidates() {
  std::vector<std::string> names;
  if (std::string located = find_toolkit_library(soname); !located.empty()) names.push_back(located);
  for (std::string &name : toolkit_library_candidates(soname)) names.push_back(std::move(name));
  return names;
}

const char *result_name(nvJitLinkResult r) {
  switch (r) {
  case NVJITLINK_SUCCESS: return "NVJITLINK_SUCCESS";
  case NVJITLINK_ERROR_UNRECOGNIZED_OPTION: return "NVJITLINK_ERROR_UNRECOGNIZED_OPTION";
  case NVJITLINK_ERROR_MISSING_ARCH: return "NVJITLINK_ERROR_MISSING_ARCH";
  case NVJITLINK_ERROR_INVALID_INPUT: return "NVJITLINK_ERROR_INVALID_INPUT";
  case NVJITLINK_ERROR_PTX_COMPILE: return "NVJITLINK_ERROR_PTX_COMPILE";
  case NVJITLINK_ERROR_NVVM_COMPILE: return "NVJITLINK_ERROR_NVVM_COMPILE";
  case NVJITLINK_ERROR_INTERNAL: return "NVJITLINK_ERROR_INTERNAL";
  case NVJITLINK_ERROR_ARCH_MISMATCH: return "NVJITLINK_ERROR_ARCH_MISMATCH";
  case NVJITLINK_ERROR_UNRECOGNIZED_ARCH: return "NVJITLINK_ERROR_UNRECOGNIZED_ARCH";
  case NVJITLINK_ERROR_UNSUPPORTED_ARCH: return "NVJITLINK_ERROR_UNSUPPORTED_ARCH";
  default: return "NVJITLINK_ERROR";
  }
}

nvJitLinkInputType input_type(kernel::detail::link_format k) {
  using kernel::detail::link_format;
  switch (k) {
  case link_format::ptx: return NVJITLINK_INPUT_PTX;
  case link_format::cubin: return NVJITLINK_INPUT_CUBIN;
  case link_format::object: return NVJITLINK_INPUT_OBJECT;
  case link_format::library: return NVJITLINK_INPUT_LIBRARY;
  case link_format::fatbin: return NVJITLINK_INPUT_FATBIN;
  case link_format::ltoir: return NVJITLINK_INPUT_LTOIR;
  case link_format::cuda: break; // NVRTC's PTX is given as link_format::ptx
  }
  return NVJITLINK_INPUT_ANY;
}

} // namespace

nvjitlink::~nvjitlink() = default;

const std::string &nvjitlink::identity() {
  static const std::string id = [] {
    const std::string file = find_toolkit_library(soname);
    std::error_code ec;
    const auto size = file.empty() ? 0 : std::filesystem::file_size(file, ec);
    const auto mtime = file.empty() ? std::filesystem::file_time_type() : std::filesystem::last_write_time(file, ec);
    if (file.empty() || ec) return "nvJitLink " + get().version();
    return file + " " + std::to_string(size) + " bytes, modified " + std::to_string(mtime.time_since_epoch().count());
  }();
  return id;
}

const nvjitlink &nvjitlink::get() {
  static const nvjitlink n;
  return n;
}

nvjitlink::nvjitlink() {
  lib_ = shared_library(library_candidates());
  if (!lib_) {
    reason_ = "nvJitLink could not be loaded (" + lib_.error() + ")";
    return;
  }
  auto table = std::make_unique<api>();
  bool ok = lib_.bind(table->create, "nvJitLinkCreate") && lib_.bind(table->destroy, "nvJitLinkDestroy") &&
            lib_.bind(table->add_data, "nvJitLinkAddData") && lib_.bind(table->complete, "nvJitLinkComplete") &&
            lib_.bind(table->cubin_size, "nvJitLinkGetLinkedCubinSize") &&
            lib_.bind(table->cubin, "nvJitLinkGetLinkedCubin") &&
            lib_.bind(table->error_log_size, "nvJitLinkGetErrorLogSize") &&
            lib_.bind(table->error_log, "nvJitLinkGetErrorLog") && lib_.bind(table->version, "nvJitLinkVersion");
  if (!ok) {
    reason_ = "the loaded libnvJitLink lacks functions this runtime needs";
    return;
  }
  unsigned major = 0, minor = 0;
  table->version(&major, &minor);
  version_ = std::to_string(major) + "." + std::to_string(minor);
  api_ = std::move(table);
  available_ = true;
}

std::vector<char> nvjitlink::link(int arch, std::span<const link_input> inputs, std::string_view what,
                                  std::span<const std::string> options) const {
  // nvJitLink (CUDA 13.0) keeps state per thread from a link with -lto that makes a later link
  // on the same thread crash when it reports a differing prototype. Each link runs on a
  // thread of its own, so that no link sees what another left.
  std::vector<char> cubin;
  std::exception_ptr failure;
  try {
    std::thread([&] {
      try {
        cubin = link_on_this_thread(arch, inputs, what, options);
      } catch (...) {
        failure = std::current_exception();
      }
    }).join();
  } catch (const std::system_error &) {
    return link_on_this_thread(arch, inputs, what, options); // no thread to be had
  }
  if (failure) std::rethrow_exception(failure);
  return cubin;
}

std::vector<char> nvjitlink::link_on_this_thread(int arch, std::span<const link_input> inputs, std::string_view what,
                                                 std::span<const std::string> options) const {
  if (!available_) throw cuda_error(std::string(what) + ": " + reason_, -1);
  std::vector<std::string> opts = {"-arch=sm_" + std::to_string(arch)};
  opts.insert(opts.end(), options.begin(), options.end());
  std::vector<const char *> argv;
  for (const std::string &o : opts) argv.push_back(o.c_str());

  nvJitLinkHandle raw = nullptr;
  if (nvJitLinkResult r = api_->create(&raw, static_cast<uint32_t>(argv.size()), argv.data()); r != NVJITLINK_SUCCESS)
    throw cuda_error(std::string(what) + ": nvJitLinkCreate failed with " + result_name(r) + " for sm_" +
                         std::to_string(arch),
                     static_cast<int>(r));
  auto destroy = [this](nvJitLinkHandle h) { api_->destroy(&h); };
  std::unique_ptr<std::remove_pointer_t<nvJitLinkHandle>, decltype(destroy)> handle(raw, destroy);

  // Linking the user's code with the module, nvJitLink (CUDA 13.0) reports a prototype that
  // differs between a declaration and its definition and then succeeds: on standard error
  // where it links machine code, in its error log where it links LTO-IR. Both are read after
  // a link that succeeded. The generated module alone has nothing to disagree with.
  std::optional<standard_error_capture> capture;
  if (inputs.size() > 1)
    capture.emplace(std::string(linker_error_prefix),
                    std::vector<std::string>{std::string(linker_error_start), std::string(linker_fatal_start)});
  auto error_log = [&] {
    std::string log;
    size_t size = 0;
    if (api_->error_log_size(handle.get(), &size) == NVJITLINK_SUCCESS && size > 1) {
      log.resize(size);
      api_->error_log(handle.get(), log.data());
      while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
    }
    return log;
  };
  auto fail = [&](const char *step, nvJitLinkResult r) {
    std::string log = error_log();
    if (capture)
      for (const std::string &e : capture->finish())
        if (log.find(e) == std::string::npos) log += (log.empty() ? "" : "\n") + e;
    std::string message = std::string(what) + ": nvJitLink " + step + " failed for sm_" + std::to_string(arch) +
                          " with " + result_name(r);
    if (!log.empty()) message += ":\n" + log;
    throw cuda_error(message, static_cast<int>(r));
  };
  for (const link_input &in : inputs) {
    // nvJitLink reads PTX as a C string: text without its terminating NUL (a .ptx file's
    // bytes embedded by the compiler) runs on into whatever follows it.
    std::string terminated;
    std::string_view bytes = in.bytes;
    if (in.kind == kernel::detail::link_format::ptx && (bytes.empty() || bytes.back() != '\0')) {
      terminated.reserve(bytes.size() + 1);
      terminated.assign(bytes);
      terminated.push_back('\0');
      bytes = terminated;
    }
    if (nvJitLinkResult r =
            api_->add_data(handle.get(), input_type(in.kind), bytes.data(), bytes.size(), in.name.c_str());
        r != NVJITLINK_SUCCESS)
      fail(("adding '" + in.name + "'").c_str(), r);
  }
  if (nvJitLinkResult r = api_->complete(handle.get()); r != NVJITLINK_SUCCESS) fail("linking", r);
  if (capture) {
    std::vector<std::string> errors = capture->finish();
    const std::string log = error_log();
    for (std::size_t begin = 0; begin < log.size();) {
      const std::size_t end = std::min(log.find('\n', begin), log.size());
      if (std::string_view(log).substr(begin, end - begin).starts_with("error"))
        errors.push_back(log.substr(begin, end - begin));
      begin = end + 1;
    }
    if (!errors.empty()) {
      std::string message = std::string(what) + ": nvJitLink linking for sm_" + std::to_string(arch) +
                            " reported errors and returned success:";
      for (const std::string &e : errors) message += "\n" + e;
      throw cuda_error(message, static_cast<int>(NVJITLINK_ERROR_INVALID_INPUT));
    }
  }
  size_t size = 0;
  if (nvJitLinkResult r = api_->cubin_size(handle.get(), &size); r != NVJITLINK_SUCCESS) fail("reading the cubin", r);
  std::vector<char> cubin(size);
  if (nvJitLinkResult r = api_->cubin(handle.get(), cubin.data()); r != NVJITLINK_SUCCESS) fail("reading the cubin", r);
  return cubin;
}

} // namespace kernel::runtime::cuda
