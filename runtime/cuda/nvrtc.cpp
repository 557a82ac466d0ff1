// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cuda/nvrtc.h"

#include <nvrtc.h>

#include <iterator>

#include "cuda/toolkit.h"
#include "kernel/errors.h"

namespace kernel::runtime::cuda {

struct nvrtc::api {
  nvrtcResult (*create)(nvrtcProgram *, const char *, const char *, int, const char *const *,
                        const char *const *) = nullptr;
  nvrtcResult (*destroy)(nvrtcProgram *) = nullptr;
  nvrtcResult (*compile)(nvrtcProgram, int, const char *const *) = nullptr;
  nvrtcResult (*ptx_size)(nvrtcProgram, size_t *) = nullptr;
  nvrtcResult (*ptx)(nvrtcProgram, char *) = nullptr;
  nvrtcResult (*log_size)(nvrtcProgram, size_t *) = nullptr;
  nvrtcResult (*log)(nvrtcProgram, char *) = nullptr;
  nvrtcResult (*version)(int *, int *) = nullptr;
  const char *(*error_string)(nvrtcResult) = nullptr;
};

nvrtc::~nvrtc() = default;

const nvrtc &nvrtc::get() {
  static const nvrtc n;
  return n;
}

nvrtc::nvrtc() {
  lib_ = shared_library(toolkit_library_candidates("libnvrtc.so.13"));
  if (!lib_) {
    reason_ = "NVRTC could not be loaded (" + lib_.error() + ")";
    return;
  }
  auto t = std::make_unique<api>();
  if (!(lib_.bind(t->create, "nvrtcCreateProgram") && lib_.bind(t->destroy, "nvrtcDestroyProgram") &&
        lib_.bind(t->compile, "nvrtcCompileProgram") && lib_.bind(t->ptx_size, "nvrtcGetPTXSize") &&
        lib_.bind(t->ptx, "nvrtcGetPTX") && lib_.bind(t->log_size, "nvrtcGetProgramLogSize") &&
        lib_.bind(t->log, "nvrtcGetProgramLog") && lib_.bind(t->version, "nvrtcVersion") &&
        lib_.bind(t->error_string, "nvrtcGetErrorString"))) {
    reason_ = "the loaded NVRTC lacks functions this runtime needs";
    return;
  }
  int major = 0, minor = 0;
  t->version(&major, &minor);
  version_ = std::to_string(major) + "." + std::to_string(minor);
  api_ = std::move(t);
  available_ = true;
}

std::string nvrtc::compile(const std::string &source, const std::string &name, int arch) const {
  if (!available_) throw link_error("cannot compile '" + name + "': " + reason_);
  nvrtcProgram raw = nullptr;
  if (nvrtcResult r = api_->create(&raw, source.c_str(), name.c_str(), 0, nullptr, nullptr); r != NVRTC_SUCCESS)
    throw link_error("cannot compile '" + name + "': nvrtcCreateProgram: " + api_->error_string(r));
  auto destroy = [this](nvrtcProgram p) { api_->destroy(&p); };
  std::unique_ptr<std::remove_pointer_t<nvrtcProgram>, decltype(destroy)> program(raw, destroy);
  const std::string gpu = "--gpu-architecture=compute_" + std::to_string(arch);
  // The quoted headers were read when the source was (and are in the cache's key): NVRTC must
  // not read others beside it, which the key would not know of, so that an edited header could
  // leave a stale module in the cache.
  const char *options[] = {gpu.c_str(), "--relocatable-device-code=true", "--std=c++17", "--no-source-include"};
  if (nvrtcResult r = api_->compile(program.get(), static_cast<int>(std::size(options)), options); r != NVRTC_SUCCESS) {
    std::string log;
    size_t size = 0;
    if (api_->log_size(program.get(), &size) == NVRTC_SUCCESS && size > 1) {
      log.resize(size);
      api_->log(program.get(), log.data());
      while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
    }
    // NVRTC's words with no include directories, and with some.
    const bool missing_header = log.find("could not open source file") != std::string::npos ||
                                log.find("cannot open source file") != std::string::npos;
    throw link_error("NVRTC could not compile '" + name + "' for compute_" + std::to_string(arch) + " (" +
                     api_->error_string(r) + ")" + (log.empty() ? "" : ":\n" + log) +
                     (missing_header ? "\n(NVRTC reads no file: a .cu file's quoted headers are read with it, "
                                       "from its `#include \"name\"` lines, not through a macro, after a "
                                       "comment or over several lines; NVRTC has no CUDA runtime or toolkit "
                                       "headers of its own)"
                                     : ""));
  }
  size_t size = 0;
  if (nvrtcResult r = api_->ptx_size(program.get(), &size); r != NVRTC_SUCCESS)
    throw link_error("cannot compile '" + name + "': nvrtcGetPTXSize: " + api_->error_string(r));
  std::string ptx(size, '\0');
  if (nvrtcResult r = api_->ptx(program.get(), ptx.data()); r != NVRTC_SUCCESS)
    throw link_error("cannot compile '" + name + "': nvrtcGetPTX: " + api_->error_string(r));
  while (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();
  if (ptx.empty()) throw link_error("cannot compile '" + name + "': NVRTC returned no PTX");
  return ptx;
}

} // namespace kernel::runtime::cuda
