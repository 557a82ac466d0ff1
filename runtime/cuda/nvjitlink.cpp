#include "cuda/nvjitlink.h"

#include <nvJitLink.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string_view>

#include "kernel/errors.h"

namespace kernel::runtime::cuda {

struct nvjitlink::api {
  nvJitLinkResult (*create)(nvJitLinkHandle *, uint32_t, const char **) = nullptr;
  nvJitLinkResult (*destroy)(nvJitLinkHandle *) = nullptr;
  nvJitLinkResult (*add_data)(nvJitLinkHandle, nvJitLinkInputType, const void *, size_t,
                              const char *) = nullptr;
  nvJitLinkResult (*complete)(nvJitLinkHandle) = nullptr;
  nvJitLinkResult (*cubin_size)(nvJitLinkHandle, size_t *) = nullptr;
  nvJitLinkResult (*cubin)(nvJitLinkHandle, void *) = nullptr;
  nvJitLinkResult (*error_log_size)(nvJitLinkHandle, size_t *) = nullptr;
  nvJitLinkResult (*error_log)(nvJitLinkHandle, char *) = nullptr;
  nvJitLinkResult (*version)(unsigned *, unsigned *) = nullptr;
};

namespace {

constexpr const char *soname = "libnvJitLink.so.13";

// The library file that the loader would open first for the soname on LD_LIBRARY_PATH, or
// the one in the CUDA toolkit; empty when only the loader's own search can find it.
std::string located_library() {
  std::vector<std::string> dirs;
  if (const char *path = std::getenv("LD_LIBRARY_PATH"))
    for (std::string_view rest = path; !rest.empty();) {
      const std::size_t colon = rest.find(':');
      if (const std::string_view dir = rest.substr(0, colon); !dir.empty()) dirs.emplace_back(dir);
      rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    }
  for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *root = std::getenv(var)) dirs.push_back(std::string(root) + "/lib64");
  dirs.push_back("/usr/local/cuda/lib64");
  for (const std::string &dir : dirs) {
    std::error_code ec;
    const std::filesystem::path file = std::filesystem::path(dir) / soname;
    if (std::filesystem::is_regular_file(file, ec)) return std::filesystem::canonical(file, ec).string();
  }
  return {};
}

std::vector<std::string> library_candidates() {
  std::vector<std::string> names;
  if (std::string located = located_library(); !located.empty()) names.push_back(located);
  names.push_back(soname);
  for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *root = std::getenv(var)) names.push_back(std::string(root) + "/lib64/libnvJitLink.so.13");
  names.push_back("/usr/local/cuda/lib64/libnvJitLink.so.13");
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

nvJitLinkInputType input_type(link_input_kind k) {
  switch (k) {
  case link_input_kind::ptx: return NVJITLINK_INPUT_PTX;
  case link_input_kind::cubin: return NVJITLINK_INPUT_CUBIN;
  case link_input_kind::object: return NVJITLINK_INPUT_OBJECT;
  case link_input_kind::library: return NVJITLINK_INPUT_LIBRARY;
  case link_input_kind::fatbin: return NVJITLINK_INPUT_FATBIN;
  case link_input_kind::ltoir: return NVJITLINK_INPUT_LTOIR;
  }
  return NVJITLINK_INPUT_ANY;
}

} // namespace

nvjitlink::~nvjitlink() = default;

const std::string &nvjitlink::identity() {
  static const std::string id = [] {
    const std::string file = located_library();
    std::error_code ec;
    const auto size = file.empty() ? 0 : std::filesystem::file_size(file, ec);
    const auto mtime = file.empty() ? std::filesystem::file_time_type() : std::filesystem::last_write_time(file, ec);
    if (file.empty() || ec) return "nvJitLink " + get().version();
    return file + " " + std::to_string(size) + " bytes, modified " +
           std::to_string(mtime.time_since_epoch().count());
  }();
  return id;
}

const nvjitlink &nvjitlink::get() {
  static const nvjitlink n;
  return n;
}

nvjitlink::nvjitlink() {
  std::string errors;
  for (const std::string &name : library_candidates()) {
    lib_ = shared_library({name.c_str()});
    if (lib_) break;
    errors += (errors.empty() ? "" : "; ") + lib_.error();
  }
  if (!lib_) {
    reason_ = "nvJitLink could not be loaded (" + errors + ")";
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
  if (!available_) throw cuda_error(std::string(what) + ": " + reason_, -1);
  std::vector<std::string> opts = {"-arch=sm_" + std::to_string(arch)};
  opts.insert(opts.end(), options.begin(), options.end());
  std::vector<const char *> argv;
  for (const std::string &o : opts) argv.push_back(o.c_str());

  nvJitLinkHandle raw = nullptr;
  if (nvJitLinkResult r = api_->create(&raw, static_cast<uint32_t>(argv.size()), argv.data());
      r != NVJITLINK_SUCCESS)
    throw cuda_error(std::string(what) + ": nvJitLinkCreate failed with " + result_name(r) +
                         " for sm_" + std::to_string(arch),
                     static_cast<int>(r));
  auto destroy = [this](nvJitLinkHandle h) { api_->destroy(&h); };
  std::unique_ptr<std::remove_pointer_t<nvJitLinkHandle>, decltype(destroy)> handle(raw, destroy);

  auto fail = [&](const char *step, nvJitLinkResult r) {
    std::string log;
    size_t size = 0;
    if (api_->error_log_size(handle.get(), &size) == NVJITLINK_SUCCESS && size > 1) {
      log.resize(size);
      api_->error_log(handle.get(), log.data());
      while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
    }
    std::string message = std::string(what) + ": nvJitLink " + step + " failed for sm_" +
                          std::to_string(arch) + " with " + result_name(r);
    if (!log.empty()) message += ":\n" + log;
    throw cuda_error(message, static_cast<int>(r));
  };
  for (const link_input &in : inputs)
    if (nvJitLinkResult r = api_->add_data(handle.get(), input_type(in.kind), in.bytes.data(),
                                           in.bytes.size(), in.name.c_str());
        r != NVJITLINK_SUCCESS)
      fail(("adding '" + in.name + "'").c_str(), r);
  if (nvJitLinkResult r = api_->complete(handle.get()); r != NVJITLINK_SUCCESS) fail("linking", r);
  size_t size = 0;
  if (nvJitLinkResult r = api_->cubin_size(handle.get(), &size); r != NVJITLINK_SUCCESS)
    fail("reading the cubin", r);
  std::vector<char> cubin(size);
  if (nvJitLinkResult r = api_->cubin(handle.get(), cubin.data()); r != NVJITLINK_SUCCESS)
    fail("reading the cubin", r);
  return cubin;
}

} // namespace kernel::runtime::cuda
