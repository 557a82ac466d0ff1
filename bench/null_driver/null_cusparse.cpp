// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A cuSPARSE that does nothing, as libcusparse.so.12, beside null_cuda.cpp: handles and
// descriptors are made at no cost and products compute nothing, so that a benchmark run on
// the null driver measures the runtime's own host time per sparse product.
#include <cusparse.h>

#include <atomic>
#include <cstdint>

#define NULL_LIBRARY_COUNTS null_cusparse_calls
#include "null_calls.h"

#define NULL_CUSPARSE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

std::atomic<std::uintptr_t> next_handle{0x1000};

template <class Handle> Handle made() { return reinterpret_cast<Handle>(next_handle += 16); }

/// The work area the products ask for: a real cuSPARSE asks for some, and the runtime
/// allocates it per call as the direct call does.
constexpr std::size_t work_bytes = 256;

} // namespace

NULL_CUSPARSE_EXPORT cusparseStatus_t cusparseCreate(cusparseHandle_t *h) {
  NULL_COUNTED();
  *h = made<cusparseHandle_t>();
  return CUSPARSE_STATUS_SUCCESS;
}
NULL_CUSPARSE_EXPORT cusparseStatus_t cusparseDestroy(cusparseHandle_t) {
  NULL_COUNTED();
  return CUSPARSE_STATUS_SUCCESS;
}
NULL_CUSPARSE_EXPORT cusparseStatus_t cusparseSetStream(cusparseHandle_t, cudaStream_t) {
  NULL_COUNTED();
  return CUSPARSE_STATUS_SUCCESS;
}
NULL_CUSPARSE_EXPORT const char *cusparseGetErrorName(cusparseStatus_t) {
  NULL_COUNTED();
  return "CUSPARSE_STATUS_NULL_LIBRARY";
}
NULL_CUSPARSE_EXPORT cusparseStatus_t cusparseCreateCsr(cusparseSpMatDescr_t *d, int64_t, int64_t, int64_t, void *,
                                                        void *, void *, cusparseIndexType_t, cusparseIndexType_t,
                                                        cusparseIndexBase_t, cudaDataType) {
  NULL_COUNTED();
  *d = made<cusparseSpMatDescr_t>();
  return CUSPARSE_STATUS_SUCCESS;
}
NULL_CUSPARSE_EXPORT cusparseStatus_t cusparseDestroySpMat(cusparseConstSpMatDescr_t) {
  NULL_COUNTED();
  return CUSPARSE_STATUS_SUCCESS;
}
NULL_CUSPARSE_EXPORT cusparseStatus_t cusparseCreateDnVec(cusparseDnVecDescr_t *d, int64_t, void *, cudaDataType) {
  NULL_COUNTED();
  *d = made<cusparseDnVecDescr_t>();
  return CUSPARSE_STATUS_SUCCESS;
}
NULL_CUSPARSE_EXPORT cusparseStatus_t cusparseDestroyDnVec(cusparseConstDnVecDescr_t) {
  NULL_COUNTED();
  return CUSPARSE_STATUS_SUCCESS;
}
NULL_CUSPARSE_EXPORT cusparseStatus_t cusparseCreateDnMat(cusparseDnMatDescr_t *d, int64_t, int64_t, int64_t, void *,
                                                          cudaDataType, cusparseOrder_t) {
  NULL_COUNTED();
  *d = made<cusparseDnMatDescr_t>();
  return CUSPARSE_STATUS_SUCCESS;
}
NULL_CUSPARSE_EXPORT cusparseStatus_t cusparseDestroyDnMat(cusparseConstDnMatDescr_t) {
  NULL_COUNTED();
  return CUSPARSE_STATUS_SUCCESS;
}
NULL_CUSPARSE_EXPORT cusparseStatus_t cusparseSpMV_bufferSize(cusparseHandle_t, cusparseOperation_t, const void *,
                                                              cusparseConstSpMatDescr_t, cusparseConstDnVecDescr_t,
                                                              const void *, cusparseDnVecDescr_t, cudaDataType,
                                                              cusparseSpMVAlg_t, size_t *bytes) {
  NULL_COUNTED();
  *bytes = work_bytes;
  return CUSPARSE_STATUS_SUCCESS;
}
NULL_CUSPARSE_EXPORT cusparseStatus_t cusparseSpMV(cusparseHandle_t, cusparseOperation_t, const void *,
                                                   cusparseConstSpMatDescr_t, cusparseConstDnVecDescr_t, const void *,
                                                   cusparseDnVecDescr_t, cudaDataType, cusparseSpMVAlg_t, void *) {
  NULL_COUNTED();
  return CUSPARSE_STATUS_SUCCESS;
}
NULL_CUSPARSE_EXPORT cusparseStatus_t cusparseSpMM_bufferSize(cusparseHandle_t, cusparseOperation_t,
                                                              cusparseOperation_t, const void *,
                                                              cusparseConstSpMatDescr_t, cusparseConstDnMatDescr_t,
                                                              const void *, cusparseDnMatDescr_t, cudaDataType,
                                                              cusparseSpMMAlg_t, size_t *bytes) {
  NULL_COUNTED();
  *bytes = work_bytes;
  return CUSPARSE_STATUS_SUCCESS;
}
NULL_CUSPARSE_EXPORT cusparseStatus_t cusparseSpMM(cusparseHandle_t, cusparseOperation_t, cusparseOperation_t,
                                                   const void *, cusparseConstSpMatDescr_t, cusparseConstDnMatDescr_t,
                                                   const void *, cusparseDnMatDescr_t, cudaDataType, cusparseSpMMAlg_t,
                                                   void *) {
  NULL_COUNTED();
  return CUSPARSE_STATUS_SUCCESS;
}
