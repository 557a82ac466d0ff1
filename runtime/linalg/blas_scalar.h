// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The element types of kernel/linalg.h and kernel/sparse.h (detail/linalg_api.h's blas_type)
// as cuBLAS and cuSPARSE name them, and their scalars (alpha, beta, results) in host memory.
#pragma once

#include <array>
#include <cstring>

#include <library_types.h>

#include "kernel/detail/linalg_api.h"

namespace kernel::detail {

/// A scalar of `type` in host memory, as the math libraries read and write them in their
/// default pointer mode.
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
  /// What cuBLAS wrote here, as (real, imaginary).
  std::array<double, 2> value(blas_type type) const noexcept {
    switch (type) {
    case blas_type::float32: {
      float f;
      std::memcpy(&f, bytes, sizeof f);
      return {f, 0};
    }
    case blas_type::float64: {
      double d;
      std::memcpy(&d, bytes, sizeof d);
      return {d, 0};
    }
    case blas_type::complex64: {
      float f[2];
      std::memcpy(f, bytes, sizeof f);
      return {f[0], f[1]};
    }
    case blas_type::complex128: {
      double d[2];
      std::memcpy(d, bytes, sizeof d);
      return {d[0], d[1]};
    }
    }
    return {0, 0};
  }
};

inline bool is_complex(blas_type t) noexcept { return t == blas_type::complex64 || t == blas_type::complex128; }

inline cudaDataType data_type(blas_type t) noexcept {
  switch (t) {
  case blas_type::float32: return CUDA_R_32F;
  case blas_type::float64: return CUDA_R_64F;
  case blas_type::complex64: return CUDA_C_32F;
  case blas_type::complex128: return CUDA_C_64F;
  }
  return CUDA_R_32F;
}

/// The real type of `t`'s elements: `t` itself for a real type.
inline blas_type real_type(blas_type t) noexcept {
  if (t == blas_type::complex64) return blas_type::float32;
  if (t == blas_type::complex128) return blas_type::float64;
  return t;
}

} // namespace kernel::detail
