// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// kernel/detail/linalg_api.h's gemm_cuda: kernel/linalg.h's products of CUDA memory through
// cuBLAS, loaded on first use. A cuBLAS handle keeps a workspace that its calls use, so two
// streams never share one: handles are cached per device and stream.
#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <cublas_v2.h>

#include "cuda/shared_library.h"
#include "cuda/toolkit.h"
#include "device/device_state.h"
#include "kernel/detail/linalg_api.h"
#include "kernel/errors.h"
#include "linalg/cublas_layout.h"

namespace kernel::detail {

namespace {

using gemm_fn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void *,
                                   const void *, cudaDataType, int, long long, const void *, cudaDataType, int,
                                   long long, const void *, void *, cudaDataType, int, long long, int,
                                   cublasComputeType_t, cublasGemmAlgo_t);

struct cublas_library {
  runtime::shared_library lib;
  std::string failure;
  cublasStatus_t (*create)(cublasHandle_t *) = nullptr;
  cublasStatus_t (*destroy)(cublasHandle_t) = nullptr;
  cublasStatus_t (*set_stream)(cublasHandle_t, cudaStream_t) = nullptr;
  gemm_fn gemm = nullptr;
};

/// Where cuBLAS is looked for: $KERNEL_CUBLAS_LIBRARY alone when set, else the toolkit's
/// libcublas (runtime/cuda/toolkit.h), which finds its libcublasLt beside it.
std::vector<std::string> cublas_candidates() {
  const char *chosen = std::getenv("KERNEL_CUBLAS_LIBRARY");
  if (chosen && *chosen) return {chosen};
  return runtime::cuda::toolkit_library_candidates("libcublas.so.13");
}

std::string joined(const std::vector<std::string> &names) {
  std::string s;
  for (const std::string &n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

std::shared_ptr<cublas_library> load_cublas(const std::vector<std::string> &where) {
  auto c = std::make_shared<cublas_library>();
  c->lib = runtime::shared_library(where);
  if (!c->lib) {
    c->failure = c->lib.error();
    return c;
  }
  const runtime::shared_library &l = c->lib;
  const bool ok = l.bind(c->create, "cublasCreate_v2") && l.bind(c->destroy, "cublasDestroy_v2") &&
                  l.bind(c->set_stream, "cublasSetStream_v2") && l.bind(c->gemm, "cublasGemmStridedBatchedEx");
  if (!ok) c->failure = "the library loaded from " + joined(where) + " lacks cuBLAS's functions";
  return c;
}

/// cuBLAS for the current $KERNEL_CUBLAS_LIBRARY; each setting is tried once per process.
std::shared_ptr<const cublas_library> cublas(const char *name) {
  static std::mutex lock;
  static std::map<std::vector<std::string>, std::shared_ptr<cublas_library>> loaded;
  const std::vector<std::string> where = cublas_candidates();
  std::lock_guard guard(lock);
  std::shared_ptr<cublas_library> &lib = loaded[where];
  if (!lib) lib = load_cublas(where);
  if (!lib->failure.empty())
    throw target_unavailable_error(std::string(name) + ": products of CUDA memory need cuBLAS, which could not be " +
                                   "loaded from " + joined(where) + " (" + lib->failure +
                                   "); install the CUDA toolkit's libcublas or set KERNEL_CUBLAS_LIBRARY to its path");
  return lib;
}

const char *status_name(cublasStatus_t s) noexcept {
  switch (s) {
  case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
  case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
  case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
  case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
  case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
  case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
  case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
  case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
  case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
  case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
  }
  return "an unknown cuBLAS status";
}

void check(cublasStatus_t s, const char *name, const char *call, const std::string &what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw cuda_error(std::string(name) + ": " + call + " (" + what + ") failed: " + status_name(s) + " (" +
                         std::to_string(static_cast<int>(s)) + ")",
                     static_cast<int>(s));
}

/// One cuBLAS handle, destroyed with its owner.
class cublas_handle {
public:
  cublas_handle(std::shared_ptr<const cublas_library> lib, cublasHandle_t h, const device_state &device)
      : lib_(std::move(lib)), handle_(h), device_(device) {}
  cublas_handle(const cublas_handle &) = delete;
  cublas_handle &operator=(const cublas_handle &) = delete;
  ~cublas_handle() {
    try {
      device_.make_current();
    } catch (...) {
      return; // the driver is gone, and the handle with it
    }
    lib_->destroy(handle_);
  }
  cublasHandle_t get() const noexcept { return handle_; }

private:
  std::shared_ptr<const cublas_library> lib_;
  cublasHandle_t handle_;
  const device_state &device_;
};

/// The handles made so far, per library, device and stream, the least recently used dropped
/// beyond `capacity`.
class handle_cache {
public:
  static constexpr std::size_t capacity = 64;

  /// The handle for `stream`, made when there is none; the caller holds `lock`, and the
  /// device is current.
  cublasHandle_t handle(const std::shared_ptr<const cublas_library> &lib, const device_state &device,
                        const stream_state &stream, const char *name) {
    const key k{lib.get(), &device, stream.id()};
    const std::uint64_t now = ++clock_;
    auto found = handles_.find(k);
    if (found != handles_.end()) {
      found->second.used = now;
      return found->second.handle->get();
    }
    cublasHandle_t h = nullptr;
    check(lib->create(&h), name, "cublasCreate", device.name());
    auto made = std::make_unique<cublas_handle>(lib, h, device);
    if (handles_.size() >= capacity) {
      handles_.erase(std::min_element(handles_.begin(), handles_.end(),
                                      [](const auto &a, const auto &b) { return a.second.used < b.second.used; }));
      // Destroying it made its device current, which may be another.
      device.make_current();
    }
    handles_.emplace(k, entry{std::move(made), now});
    return h;
  }

  std::mutex lock;

private:
  struct key {
    const cublas_library *library;
    const device_state *device;
    std::uint64_t stream;
    bool operator<(const key &o) const noexcept {
      return std::tie(library, device, stream) < std::tie(o.library, o.device, o.stream);
    }
  };
  struct entry {
    std::unique_ptr<cublas_handle> handle;
    std::uint64_t used;
  };
  std::map<key, entry> handles_;
  std::uint64_t clock_ = 0;
};

handle_cache &handles() {
  // Never destroyed: at exit, the CUDA runtime inside libcublas may be torn down before a
  // static cache would be, and the driver frees what the handles hold with the process.
  static handle_cache &cache = *std::make_unique<handle_cache>().release();
  return cache;
}

/// A scalar as cuBLAS reads it for `type` (host memory, cuBLAS's default pointer mode).
struct host_scalar {
  alignas(16) unsigned char bytes[16] = {};
  host_scalar(blas_type type, const std::array<double, 2> &v) noexcept {
    switch (type) {
    case blas_type::float32: {
      const float f = static_cast<float>(v[0]);
      std::memcpy(bytes, &f, sizeof f);
      break;
    }
    case blas_type::float64: std::memcpy(bytes, &v[0], sizeof(double)); break;
    case blas_type::complex64: {
      const float f[2] = {static_cast<float>(v[0]), static_cast<float>(v[1])};
      std::memcpy(bytes, f, sizeof f);
      break;
    }
    case blas_type::complex128: std::memcpy(bytes, v.data(), 2 * sizeof(double)); break;
    }
  }
};

cudaDataType data_type(blas_type t) noexcept {
  switch (t) {
  case blas_type::float32: return CUDA_R_32F;
  case blas_type::float64: return CUDA_R_64F;
  case blas_type::complex64: return CUDA_C_32F;
  case blas_type::complex128: return CUDA_C_64F;
  }
  return CUDA_R_32F;
}

cublasComputeType_t compute_type(blas_type t) noexcept {
  // Full precision: CUBLAS_COMPUTE_32F is not TF32 unless asked for.
  return t == blas_type::float32 || t == blas_type::complex64 ? CUBLAS_COMPUTE_32F : CUBLAS_COMPUTE_64F;
}

cublasOperation_t op(const cublas_operand &o) noexcept { return o.transposed ? CUBLAS_OP_T : CUBLAS_OP_N; }

} // namespace

void cublas_require(const char *name) { cublas(name); }

bool gemm_cuda(const char *name, const gemm_problem &p, device_state &device, stream_state &stream) {
  const std::optional<cublas_gemm> g = cublas_gemm_of(p);
  if (!g) return false;
  std::shared_ptr<const cublas_library> lib = cublas(name);
  device.make_current();
  // beta multiplies C (E is C, or absent with beta 0).
  const host_scalar alpha(p.type, p.alpha), beta(p.type, p.beta);
  const cudaDataType type = data_type(p.type);
  const std::string what = "m=" + std::to_string(g->m) + ", n=" + std::to_string(g->n) + ", k=" + std::to_string(g->k) +
                           ", batch=" + std::to_string(g->batch);
  handle_cache &cache = handles();
  std::lock_guard guard(cache.lock);
  const cublasHandle_t h = cache.handle(lib, device, stream, name);
  check(lib->set_stream(h, static_cast<cudaStream_t>(stream.native())), name, "cublasSetStream", what);
  check(lib->gemm(h, op(g->a), op(g->b), static_cast<int>(g->m), static_cast<int>(g->n), static_cast<int>(g->k),
                  alpha.bytes, g->a.data, type, static_cast<int>(g->a.ld), g->a.batch_stride, g->b.data, type,
                  static_cast<int>(g->b.ld), g->b.batch_stride, beta.bytes, const_cast<void *>(g->c.data), type,
                  static_cast<int>(g->c.ld), g->c.batch_stride, static_cast<int>(g->batch), compute_type(p.type),
                  CUBLAS_GEMM_DEFAULT),
        name, "cublasGemmStridedBatchedEx", what);
  return true;
}

} // namespace kernel::detail
