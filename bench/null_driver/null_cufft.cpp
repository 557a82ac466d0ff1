// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A cuFFT that does nothing, as libcufft.so.12, beside null_cuda.cpp: plans are made and
// executed at no cost, so that a benchmark run on the null driver measures the runtime's own
// host time per transform. Executions compute nothing.
#include <cufft.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

#define NULL_LIBRARY_COUNTS null_cufft_calls
#include "null_calls.h"

#define NULL_CUFFT_EXPORT extern "C" __attribute__((visibility("default")))

namespace {
std::atomic<int> next_plan{1};
/// A new plan's handle; not the exported cufftCreate, so that making a plan in one call is
/// counted as that call alone.
cufftResult new_plan(cufftHandle *plan) {
  *plan = next_plan++;
  return CUFFT_SUCCESS;
}
} // namespace

NULL_CUFFT_EXPORT cufftResult cufftCreate(cufftHandle *plan) {
  NULL_COUNTED();
  return new_plan(plan);
}
NULL_CUFFT_EXPORT cufftResult cufftDestroy(cufftHandle) {
  NULL_COUNTED();
  return CUFFT_SUCCESS;
}
/// With NULL_CUFFT_TRACE set, each plan made is printed (which plans a call makes).
NULL_CUFFT_EXPORT cufftResult cufftMakePlanMany64(cufftHandle plan, int rank, long long *n, long long *inembed,
                                                  long long istride, long long idist, long long *onembed,
                                                  long long ostride, long long odist, cufftType type, long long batch,
                                                  std::size_t *work) {
  NULL_COUNTED();
  if (work) *work = 0;
  if (std::getenv("NULL_CUFFT_TRACE")) {
    std::fprintf(stderr, "null cuFFT: plan %d, type %#x, rank %d, n", plan, static_cast<unsigned>(type), rank);
    for (int i = 0; i < rank; ++i) std::fprintf(stderr, " %lld", n[i]);
    std::fprintf(stderr, ", inembed");
    for (int i = 0; inembed && i < rank; ++i) std::fprintf(stderr, " %lld", inembed[i]);
    std::fprintf(stderr, ", onembed");
    for (int i = 0; onembed && i < rank; ++i) std::fprintf(stderr, " %lld", onembed[i]);
    std::fprintf(stderr, ", stride %lld/%lld, dist %lld/%lld, batch %lld\n", istride, ostride, idist, odist, batch);
  }
  return CUFFT_SUCCESS;
}
NULL_CUFFT_EXPORT cufftResult cufftPlan2d(cufftHandle *plan, int, int, cufftType) {
  NULL_COUNTED();
  return new_plan(plan);
}
NULL_CUFFT_EXPORT cufftResult cufftPlanMany(cufftHandle *plan, int, int *, int *, int, int, int *, int, int, cufftType,
                                            int) {
  NULL_COUNTED();
  return new_plan(plan);
}
NULL_CUFFT_EXPORT cufftResult cufftSetStream(cufftHandle, cudaStream_t) {
  NULL_COUNTED();
  return CUFFT_SUCCESS;
}
NULL_CUFFT_EXPORT cufftResult cufftExecC2C(cufftHandle, cufftComplex *, cufftComplex *, int) {
  NULL_COUNTED();
  return CUFFT_SUCCESS;
}
NULL_CUFFT_EXPORT cufftResult cufftExecZ2Z(cufftHandle, cufftDoubleComplex *, cufftDoubleComplex *, int) {
  NULL_COUNTED();
  return CUFFT_SUCCESS;
}
NULL_CUFFT_EXPORT cufftResult cufftExecR2C(cufftHandle, cufftReal *, cufftComplex *) {
  NULL_COUNTED();
  return CUFFT_SUCCESS;
}
NULL_CUFFT_EXPORT cufftResult cufftExecD2Z(cufftHandle, cufftDoubleReal *, cufftDoubleComplex *) {
  NULL_COUNTED();
  return CUFFT_SUCCESS;
}
NULL_CUFFT_EXPORT cufftResult cufftExecC2R(cufftHandle, cufftComplex *, cufftReal *) {
  NULL_COUNTED();
  return CUFFT_SUCCESS;
}
NULL_CUFFT_EXPORT cufftResult cufftExecZ2D(cufftHandle, cufftDoubleComplex *, cufftDoubleReal *) {
  NULL_COUNTED();
  return CUFFT_SUCCESS;
}
