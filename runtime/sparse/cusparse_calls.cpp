// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// kernel/detail/sparse_api.h's sparse_product_cuda: kernel/sparse.h's products of CUDA memory
// through cuSPARSE's generic API, loaded on first use. A cuSPARSE handle is cached per
// device and stream (runtime/cuda/library_handles.h); the matrix and vector descriptors and
// the work area are made per call, the work area freed in stream order after it.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include <cusparse.h>

#include "cuda/library_handles.h"
#include "cuda/math_library.h"
#include "device/device_state.h"
#include "kernel/detail/sparse_api.h"
#include "kernel/errors.h"
#include "linalg/blas_scalar.h"
#include "sparse/cusparse_layout.h"

namespace kernel::detail {

namespace {

struct cusparse_functions {
  decltype(&::cusparseCreate) create = nullptr;
  decltype(&::cusparseDestroy) destroy = nullptr;
  decltype(&::cusparseSetStream) set_stream = nullptr;
  decltype(&::cusparseGetErrorName) error_name = nullptr;
  decltype(&::cusparseCreateCsr) create_csr = nullptr;
  decltype(&::cusparseDestroySpMat) destroy_sparse = nullptr;
  decltype(&::cusparseCreateDnVec) create_vector = nullptr;
  decltype(&::cusparseDestroyDnVec) destroy_vector = nullptr;
  decltype(&::cusparseCreateDnMat) create_matrix = nullptr;
  decltype(&::cusparseDestroyDnMat) destroy_matrix = nullptr;
  decltype(&::cusparseSpMV_bufferSize) spmv_work = nullptr;
  decltype(&::cusparseSpMV) spmv = nullptr;
  decltype(&::cusparseSpMM_bufferSize) spmm_work = nullptr;
  decltype(&::cusparseSpMM) spmm = nullptr;

  bool bind(const runtime::shared_library &l) {
    return l.bind(create, "cusparseCreate") && l.bind(destroy, "cusparseDestroy") &&
           l.bind(set_stream, "cusparseSetStream") && l.bind(error_name, "cusparseGetErrorName") &&
           l.bind(create_csr, "cusparseCreateCsr") && l.bind(destroy_sparse, "cusparseDestroySpMat") &&
           l.bind(create_vector, "cusparseCreateDnVec") && l.bind(destroy_vector, "cusparseDestroyDnVec") &&
           l.bind(create_matrix, "cusparseCreateDnMat") && l.bind(destroy_matrix, "cusparseDestroyDnMat") &&
           l.bind(spmv_work, "cusparseSpMV_bufferSize") && l.bind(spmv, "cusparseSpMV") &&
           l.bind(spmm_work, "cusparseSpMM_bufferSize") && l.bind(spmm, "cusparseSpMM");
  }
};
using cusparse_library = runtime::cuda::math_library<cusparse_functions>;

constexpr runtime::cuda::math_library_spec cusparse_spec{"cuSPARSE", "libcusparse.so.12", "KERNEL_CUSPARSE_LIBRARY"};

std::shared_ptr<const cusparse_library> cusparse(const char *name) {
  return runtime::cuda::load_math_library<cusparse_functions>(
      cusparse_spec, [name] { return std::string(name) + ": sparse products of CUDA memory need"; });
}

void check(const cusparse_library &lib, cusparseStatus_t s, const char *name, const char *call,
           const std::string &what) {
  if (s != CUSPARSE_STATUS_SUCCESS)
    throw cuda_error(std::string(name) + ": " + call + " (" + what + ") failed: " + lib.error_name(s) + " (" +
                         std::to_string(static_cast<int>(s)) + ")",
                     static_cast<int>(s));
}

/// check() for calls on the common path: `what()` describes the call, asked only on a failure.
template <class Describe>
  requires std::is_invocable_r_v<std::string, const Describe &>
void check(const cusparse_library &lib, cusparseStatus_t s, const char *name, const char *call, const Describe &what) {
  if (s != CUSPARSE_STATUS_SUCCESS) check(lib, s, name, call, std::string(what()));
}

/// A descriptor made by the call that fills out(), destroyed with its owner.
template <class Descriptor, class Destroy> class descriptor {
public:
  explicit descriptor(Destroy destroy) noexcept : destroy_(destroy) {}
  descriptor(const descriptor &) = delete;
  descriptor &operator=(const descriptor &) = delete;
  ~descriptor() {
    if (d_) destroy_(d_);
  }
  Descriptor *out() noexcept { return &d_; }
  Descriptor get() const noexcept { return d_; }

private:
  Descriptor d_ = nullptr;
  Destroy destroy_;
};

using handle_key = runtime::cuda::stream_key;

/// Device memory for one call's work area, freed in stream order after the work queued
/// before the owner goes.
class work_area {
public:
  work_area(device_state &device, stream_state &stream, std::size_t bytes)
      : device_(device), stream_(stream), data_(bytes ? device.allocate(bytes, stream) : nullptr) {}
  work_area(const work_area &) = delete;
  work_area &operator=(const work_area &) = delete;
  ~work_area() {
    if (data_) device_.release(data_, stream_);
  }
  void *get() const noexcept { return data_; }

private:
  device_state &device_;
  stream_state &stream_;
  void *data_;
};

cusparseIndexType_t index_type(const csr_descriptor &a) noexcept {
  return a.index64 ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I;
}

} // namespace

void cusparse_require(const char *name) { cusparse(name); }

bool sparse_product_cuda(const char *name, const sparse_product_problem &p, device_state &device, stream_state &stream,
                         void (*zero_c)(void *context), void *context) {
  const std::optional<cusparse_product> g = cusparse_product_of(p);
  if (!g) return false;
  std::shared_ptr<const cusparse_library> lib = cusparse(name);
  device.make_current();
  const csr_descriptor &a = p.a;
  const cudaDataType type = data_type(a.type);
  const host_scalar alpha(a.type, p.alpha), beta(a.type, p.beta);
  const bool beta_is_zero = p.beta == std::array<double, 2>{0, 0};
  const auto what = [&] {
    return std::to_string(a.rows) + "x" + std::to_string(a.cols) + ", " + std::to_string(a.nnz) + " entries" +
           (g->vector ? "" : ", " + std::to_string(g->c.cols) + " columns");
  };

  runtime::cuda::handle_cache<handle_key, cusparseHandle_t> &cache =
      runtime::cuda::process_handle_cache<handle_key, cusparseHandle_t>();
  const runtime::cuda::handle_lease<cusparseHandle_t> lease =
      cache.lend({lib.get(), &device, stream.id()}, device, stream.liveness(), [&] {
        cusparseHandle_t made = nullptr;
        check(*lib, lib->create(&made), name, "cusparseCreate", device.name());
        auto owned = std::make_unique<runtime::cuda::device_handle<cusparseHandle_t>>(
            made, device, [lib](cusparseHandle_t dropped) { lib->destroy(dropped); });
        // Handles are kept per stream: set once, when made.
        check(*lib, lib->set_stream(made, static_cast<cudaStream_t>(stream.native())), name, "cusparseSetStream", what);
        return owned;
      });
  const cusparseHandle_t h = lease.get();

  // cuSPARSE's descriptors take non-const pointers; it reads A and B only.
  descriptor<cusparseSpMatDescr_t, decltype(lib->destroy_sparse)> sparse(lib->destroy_sparse);
  check(*lib,
        lib->create_csr(sparse.out(), a.rows, a.cols, a.nnz, const_cast<void *>(a.offsets),
                        const_cast<void *>(a.columns), const_cast<void *>(a.values), index_type(a), index_type(a),
                        CUSPARSE_INDEX_BASE_ZERO, type),
        name, "cusparseCreateCsr", what);
  if (g->vector) {
    descriptor<cusparseDnVecDescr_t, decltype(lib->destroy_vector)> x(lib->destroy_vector), y(lib->destroy_vector);
    check(*lib, lib->create_vector(x.out(), g->b.rows, const_cast<void *>(g->b.data), type), name,
          "cusparseCreateDnVec", what);
    check(*lib, lib->create_vector(y.out(), g->c.rows, const_cast<void *>(g->c.data), type), name,
          "cusparseCreateDnVec", what);
    std::size_t bytes = 0;
    check(*lib,
          lib->spmv_work(h, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha.bytes, sparse.get(), x.get(), beta.bytes, y.get(),
                         type, CUSPARSE_SPMV_ALG_DEFAULT, &bytes),
          name, "cusparseSpMV_bufferSize", what);
    const work_area work(device, stream, bytes);
    if (beta_is_zero) zero_c(context);
    check(*lib,
          lib->spmv(h, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha.bytes, sparse.get(), x.get(), beta.bytes, y.get(), type,
                    CUSPARSE_SPMV_ALG_DEFAULT, work.get()),
          name, "cusparseSpMV", what);
    return true;
  }
  const cusparseOrder_t order = g->row_major ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL;
  descriptor<cusparseDnMatDescr_t, decltype(lib->destroy_matrix)> b(lib->destroy_matrix), c(lib->destroy_matrix);
  check(*lib, lib->create_matrix(b.out(), g->b.rows, g->b.cols, g->b.ld, const_cast<void *>(g->b.data), type, order),
        name, "cusparseCreateDnMat", what);
  check(*lib, lib->create_matrix(c.out(), g->c.rows, g->c.cols, g->c.ld, const_cast<void *>(g->c.data), type, order),
        name, "cusparseCreateDnMat", what);
  std::size_t bytes = 0;
  check(*lib,
        lib->spmm_work(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha.bytes, sparse.get(),
                       b.get(), beta.bytes, c.get(), type, CUSPARSE_SPMM_ALG_DEFAULT, &bytes),
        name, "cusparseSpMM_bufferSize", what);
  const work_area work(device, stream, bytes);
  if (beta_is_zero) zero_c(context);
  check(*lib,
        lib->spmm(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha.bytes, sparse.get(),
                  b.get(), beta.bytes, c.get(), type, CUSPARSE_SPMM_ALG_DEFAULT, work.get()),
        name, "cusparseSpMM", what);
  return true;
}

} // namespace kernel::detail
