// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The direct cuBLAS and cuSPARSE calls the benchmarks compare the library's with, found in
// the libraries the runtime loaded (make one call of the library's first): what a CUDA
// programmer writes, on handles they make once.
#pragma once

#include <cublas_v2.h>
#include <cusparse.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <kernel/kernel.h>
#include <kernel/sparse.h>

#include "gpu_timing.h"

namespace bench {

struct cublas_calls : loaded_library {
  cublas_calls() : loaded_library("libcublas.so.13", "cuBLAS") {}
  // cublas_api.h overloads cublasGemmStridedBatchedEx for C++; this is the one it exports.
  using gemm_fn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void *,
                                     const void *, cudaDataType, int, long long, const void *, cudaDataType, int,
                                     long long, const void *, void *, cudaDataType, int, long long, int,
                                     cublasComputeType_t, cublasGemmAlgo_t);
  cublasStatus_t (*create)(cublasHandle_t *) = get<cublasStatus_t (*)(cublasHandle_t *)>("cublasCreate_v2");
  cublasStatus_t (*destroy)(cublasHandle_t) = get<cublasStatus_t (*)(cublasHandle_t)>("cublasDestroy_v2");
  cublasStatus_t (*set_stream)(cublasHandle_t, cudaStream_t) =
      get<cublasStatus_t (*)(cublasHandle_t, cudaStream_t)>("cublasSetStream_v2");
  gemm_fn gemm = get<gemm_fn>("cublasGemmStridedBatchedEx");
  decltype(&::cublasDotEx) dot = get<decltype(&::cublasDotEx)>("cublasDotEx");
};

inline void check(cublasStatus_t r, const char *what) {
  if (r != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + " failed with cublasStatus " + std::to_string(r));
}

struct cusparse_calls : loaded_library {
  cusparse_calls() : loaded_library("libcusparse.so.12", "cuSPARSE") {}
#define KERNEL_BENCH_BIND(member, fn) decltype(&::fn) member = get<decltype(&::fn)>(#fn)
  KERNEL_BENCH_BIND(create, cusparseCreate);
  KERNEL_BENCH_BIND(destroy, cusparseDestroy);
  KERNEL_BENCH_BIND(set_stream, cusparseSetStream);
  KERNEL_BENCH_BIND(create_csr, cusparseCreateCsr);
  KERNEL_BENCH_BIND(destroy_sparse, cusparseDestroySpMat);
  KERNEL_BENCH_BIND(create_vector, cusparseCreateDnVec);
  KERNEL_BENCH_BIND(destroy_vector, cusparseDestroyDnVec);
  KERNEL_BENCH_BIND(create_matrix, cusparseCreateDnMat);
  KERNEL_BENCH_BIND(destroy_matrix, cusparseDestroyDnMat);
  KERNEL_BENCH_BIND(spmv_work, cusparseSpMV_bufferSize);
  KERNEL_BENCH_BIND(spmv, cusparseSpMV);
  KERNEL_BENCH_BIND(spmm_work, cusparseSpMM_bufferSize);
  KERNEL_BENCH_BIND(spmm, cusparseSpMM);
#undef KERNEL_BENCH_BIND
};

inline void check(cusparseStatus_t r, const char *what) {
  if (r != CUSPARSE_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + " failed with cusparseStatus " + std::to_string(r));
}

/// A rows x cols float32 matrix with `per_row` entries per row at scattered, sorted columns.
inline kernel::sparse::csr_matrix<float> scattered(std::int64_t rows, std::int64_t cols, int per_row) {
  std::vector<int> offsets{0}, columns;
  std::vector<float> values;
  for (std::int64_t r = 0; r < rows; ++r) {
    for (int k = 0; k < per_row; ++k) {
      columns.push_back(static_cast<int>((r * 7919 + std::int64_t(k) * (cols / per_row)) % cols));
      values.push_back(1.0f + static_cast<float>(k) / 8);
    }
    std::sort(columns.end() - per_row, columns.end());
    offsets.push_back(static_cast<int>(columns.size()));
  }
  return {rows, cols, offsets, columns, values};
}

/// cuSPARSE's descriptor of `a` (32-bit indices from 0, float values); the caller destroys it.
inline cusparseSpMatDescr_t csr_descriptor(cusparse_calls &cu, const kernel::sparse::device_csr_matrix<float> &a) {
  cusparseSpMatDescr_t m = nullptr;
  check(cu.create_csr(&m, a.rows(), a.cols(), a.nnz(), const_cast<int *>(a.row_offsets().data()),
                      const_cast<int *>(a.column_indices().data()), const_cast<float *>(a.values().data()),
                      CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F),
        "cusparseCreateCsr");
  return m;
}

/// y = A x directly: descriptors, work area and the call, as the library makes them.
inline void direct_spmv(cusparse_calls &cu, cusparseHandle_t h, const kernel::sparse::device_csr_matrix<float> &a,
                        const float *x, float *y, kernel::stream &s) {
  const float one = 1, zero = 0;
  cusparseSpMatDescr_t m = csr_descriptor(cu, a);
  cusparseDnVecDescr_t vx = nullptr, vy = nullptr;
  check(cu.create_vector(&vx, a.cols(), const_cast<float *>(x), CUDA_R_32F), "cusparseCreateDnVec");
  check(cu.create_vector(&vy, a.rows(), y, CUDA_R_32F), "cusparseCreateDnVec");
  std::size_t bytes = 0;
  check(cu.spmv_work(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, m, vx, &zero, vy, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT,
                     &bytes),
        "cusparseSpMV_bufferSize");
  kernel::device_array<unsigned char, 1> work(static_cast<kernel::index_t>(bytes), s);
  check(cu.spmv(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, m, vx, &zero, vy, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT,
                work.data()),
        "cusparseSpMV");
  cu.destroy_vector(vy);
  cu.destroy_vector(vx);
  cu.destroy_sparse(m);
}

} // namespace bench
