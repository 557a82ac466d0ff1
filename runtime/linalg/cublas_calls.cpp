// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// kernel/detail/linalg_api.h's cuBLAS calls: kernel/linalg.h's products, dots and norms of
// CUDA memory, with cuBLAS loaded on first use. A cuBLAS handle keeps a workspace that its
// calls use, so two streams never share one: handles are cached per device and stream
// (runtime/cuda/library_handles.h).
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include <cublas_v2.h>

#include "cuda/library_handles.h"
#include "cuda/math_library.h"
#include "device/device_state.h"
#include "kernel/detail/linalg_api.h"
#include "kernel/errors.h"
#include "linalg/blas_scalar.h"
#include "linalg/cublas_layout.h"

namespace kernel::detail {

namespace {

// cublas_api.h overloads cublasGemmStridedBatchedEx for C++; this is the one the library exports.
using gemm_fn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void *,
                                   const void *, cudaDataType, int, long long, const void *, cudaDataType, int,
                                   long long, const void *, void *, cudaDataType, int, long long, int,
                                   cublasComputeType_t, cublasGemmAlgo_t);

struct cublas_functions {
  decltype(&::cublasCreate_v2) create = nullptr;
  decltype(&::cublasDestroy_v2) destroy = nullptr;
  decltype(&::cublasSetStream_v2) set_stream = nullptr;
  gemm_fn gemm = nullptr;
  decltype(&::cublasDotEx) dot = nullptr;
  decltype(&::cublasDotcEx) dotc = nullptr;
  decltype(&::cublasNrm2Ex) nrm2 = nullptr;

  bool bind(const runtime::shared_library &l) {
    return l.bind(create, "cublasCreate_v2") && l.bind(destroy, "cublasDestroy_v2") &&
           l.bind(set_stream, "cublasSetStream_v2") && l.bind(gemm, "cublasGemmStridedBatchedEx") &&
           l.bind(dot, "cublasDotEx") && l.bind(dotc, "cublasDotcEx") && l.bind(nrm2, "cublasNrm2Ex");
  }
};
using cublas_library = runtime::cuda::math_library<cublas_functions>;

// The toolkit's libcublas finds its libcublasLt beside it.
constexpr runtime::cuda::math_library_spec cublas_spec{"cuBLAS", "libcublas.so.13", "KERNEL_CUBLAS_LIBRARY"};

std::shared_ptr<const cublas_library> cublas(const char *name) {
  return runtime::cuda::load_math_library<cublas_functions>(
      cublas_spec, [name] { return std::string(name) + " of CUDA memory needs"; });
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

/// check() for calls on the common path: `what()` describes the call, and is asked only on
/// a failure (building the description on every product cost host time per call).
template <class Describe>
  requires std::is_invocable_r_v<std::string, const Describe &>
void check(cublasStatus_t s, const char *name, const char *call, const Describe &what) {
  if (s != CUBLAS_STATUS_SUCCESS) check(s, name, call, std::string(what()));
}

using handle_key = runtime::cuda::stream_key;
using handle_cache = runtime::cuda::handle_cache<handle_key, cublasHandle_t>;

/// The cuBLAS handle of `stream`, set to it when made, lent to the caller; the device is
/// current. Handles are kept per stream, so none is set again: cublasSetStream also resets
/// the handle's workspace, which a call per product would pay for.
template <class Describe>
runtime::cuda::handle_lease<cublasHandle_t> handle_for(const std::shared_ptr<const cublas_library> &lib,
                                                       device_state &device, stream_state &stream, const char *name,
                                                       const Describe &what) {
  handle_cache &cache = runtime::cuda::process_handle_cache<handle_key, cublasHandle_t>();
  runtime::cuda::handle_lease<cublasHandle_t> h =
      cache.lend({lib.get(), &device, stream.id()}, device, stream.liveness(), [&] {
        cublasHandle_t made = nullptr;
        check(lib->create(&made), name, "cublasCreate", device.name());
        auto owned = std::make_unique<runtime::cuda::device_handle<cublasHandle_t>>(
            made, device, [lib](cublasHandle_t dropped) { lib->destroy(dropped); });
        check(lib->set_stream(made, static_cast<cudaStream_t>(stream.native())), name, "cublasSetStream", what);
        return owned;
      });
  return h;
}

/// The precision cuBLAS's level-1 "Ex" calls compute in: the data's own.
cudaDataType execution_type(blas_type t) noexcept { return data_type(t); }

cublasComputeType_t compute_type(blas_type t) noexcept {
  // Full precision: CUBLAS_COMPUTE_32F is not TF32 unless asked for.
  return t == blas_type::float32 || t == blas_type::complex64 ? CUBLAS_COMPUTE_32F : CUBLAS_COMPUTE_64F;
}

cublasOperation_t op(const cublas_operand &o) noexcept {
  return !o.transposed ? CUBLAS_OP_N : o.conjugated ? CUBLAS_OP_C : CUBLAS_OP_T;
}

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
  const auto what = [&] {
    return "m=" + std::to_string(g->m) + ", n=" + std::to_string(g->n) + ", k=" + std::to_string(g->k) +
           ", batch=" + std::to_string(g->batch);
  };
  const auto h = handle_for(lib, device, stream, name, what);
  check(lib->gemm(h.get(), op(g->a), op(g->b), static_cast<int>(g->m), static_cast<int>(g->n), static_cast<int>(g->k),
                  alpha.bytes, g->a.data, type, static_cast<int>(g->a.ld), g->a.batch_stride, g->b.data, type,
                  static_cast<int>(g->b.ld), g->b.batch_stride, beta.bytes, const_cast<void *>(g->c.data), type,
                  static_cast<int>(g->c.ld), g->c.batch_stride, static_cast<int>(g->batch), compute_type(p.type),
                  CUBLAS_GEMM_DEFAULT),
        name, "cublasGemmStridedBatchedEx", what);
  return true;
}

std::optional<std::array<double, 2>> dot_cuda(const char *name, blas_type type, const blas_vector &x,
                                              const blas_vector &y, bool conjugate, device_state &device,
                                              stream_state &stream) {
  const std::optional<int> incx = cublas_increment(x), incy = cublas_increment(y);
  if (!incx || !incy || x.size != y.size) return std::nullopt;
  std::shared_ptr<const cublas_library> lib = cublas(name);
  device.make_current();
  const cudaDataType t = data_type(type);
  const auto what = [&] { return "n=" + std::to_string(x.size); };
  // The result in host memory (cuBLAS's default pointer mode): the call returns once it is there.
  host_scalar result(type, {0, 0});
  {
    const auto h = handle_for(lib, device, stream, name, what);
    const auto call = conjugate && is_complex(type) ? lib->dotc : lib->dot;
    check(call(h.get(), static_cast<int>(x.size), x.data, t, *incx, y.data, t, *incy, result.bytes, t,
               execution_type(type)),
          name, conjugate && is_complex(type) ? "cublasDotcEx" : "cublasDotEx", what);
  }
  return result.value(type);
}

std::optional<double> two_norm_cuda(const char *name, blas_type type, const blas_vector &x, device_state &device,
                                    stream_state &stream) {
  const std::optional<int> incx = cublas_increment(x);
  if (!incx) return std::nullopt;
  std::shared_ptr<const cublas_library> lib = cublas(name);
  device.make_current();
  const blas_type real = real_type(type);
  const auto what = [&] { return "n=" + std::to_string(x.size); };
  host_scalar result(real, {0, 0});
  const auto h = handle_for(lib, device, stream, name, what);
  check(lib->nrm2(h.get(), static_cast<int>(x.size), x.data, data_type(type), *incx, result.bytes, data_type(real),
                  execution_type(real)),
        name, "cublasNrm2Ex", what);
  return result.value(real)[0];
}

} // namespace kernel::detail
