// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A cuBLAS that does nothing, as libcublas.so.13, beside null_cuda.cpp: the functions
// kernel/linalg.h calls succeed at once, so that a benchmark run on the null driver measures
// the runtime's own host time per product. Products compute nothing; dots and norms are 0.
#include <cublas_v2.h>

#include <atomic>
#include <cstdint>
#include <cstring>

#define NULL_LIBRARY_COUNTS null_cublas_calls
#include "null_calls.h"

#define NULL_CUBLAS_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

std::atomic<std::uintptr_t> next_handle{0x1000};

/// The bytes of a result of `type` in host memory (the runtime keeps cuBLAS's default
/// pointer mode): zero.
void zero_result(void *result, cudaDataType type) {
  const std::size_t bytes = type == CUDA_R_32F ? 4 : type == CUDA_R_64F || type == CUDA_C_32F ? 8 : 16;
  std::memset(result, 0, bytes);
}

} // namespace

NULL_CUBLAS_EXPORT cublasStatus_t cublasCreate_v2(cublasHandle_t *h) {
  NULL_COUNTED();
  *h = reinterpret_cast<cublasHandle_t>(next_handle += 16);
  return CUBLAS_STATUS_SUCCESS;
}
NULL_CUBLAS_EXPORT cublasStatus_t cublasDestroy_v2(cublasHandle_t) {
  NULL_COUNTED();
  return CUBLAS_STATUS_SUCCESS;
}
NULL_CUBLAS_EXPORT cublasStatus_t cublasSetStream_v2(cublasHandle_t, cudaStream_t) {
  NULL_COUNTED();
  return CUBLAS_STATUS_SUCCESS;
}
NULL_CUBLAS_EXPORT cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t, cublasOperation_t, cublasOperation_t, int,
                                                             int, int, const void *, const void *, cudaDataType, int,
                                                             long long, const void *, cudaDataType, int, long long,
                                                             const void *, void *, cudaDataType, int, long long, int,
                                                             cublasComputeType_t, cublasGemmAlgo_t) {
  NULL_COUNTED();
  return CUBLAS_STATUS_SUCCESS;
}
NULL_CUBLAS_EXPORT cublasStatus_t cublasDotEx(cublasHandle_t, int, const void *, cudaDataType, int, const void *,
                                              cudaDataType, int, void *result, cudaDataType type, cudaDataType) {
  NULL_COUNTED();
  zero_result(result, type);
  return CUBLAS_STATUS_SUCCESS;
}
NULL_CUBLAS_EXPORT cublasStatus_t cublasDotcEx(cublasHandle_t, int, const void *, cudaDataType, int, const void *,
                                               cudaDataType, int, void *result, cudaDataType type, cudaDataType) {
  NULL_COUNTED();
  zero_result(result, type);
  return CUBLAS_STATUS_SUCCESS;
}
NULL_CUBLAS_EXPORT cublasStatus_t cublasNrm2Ex(cublasHandle_t, int, const void *, cudaDataType, int, void *result,
                                               cudaDataType type, cudaDataType) {
  NULL_COUNTED();
  zero_result(result, type);
  return CUBLAS_STATUS_SUCCESS;
}
