// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The runtime's host BLAS (runtime/linalg/): kernel/linalg.h's products, dots and norms on the
// cpu and parallel targets, through OpenBLAS loaded on first use. Operands are strided views
// of host memory; the runtime decides which layouts OpenBLAS can take as they are and copies
// the others.
#pragma once

#include <array>
#include <optional>

#include "kernel/types.h"

namespace kernel::detail {

enum class blas_type : int { float32, float64, complex64, complex128 };

/// A batch of matrices: element (b, i, j) at data + b * batch_stride + i * row_stride +
/// j * col_stride (in elements). A batch stride of 0 shares one matrix across the batch.
struct blas_matrix {
  const void *data = nullptr;
  index_t rows = 0, cols = 0;
  index_t row_stride = 0, col_stride = 0, batch_stride = 0;
};

/// C = alpha A' B' + beta E' for each of `batch` matrices, X' being X or, where conj_x, its
/// conjugate; E is C itself when `e.data` is null (and then ignored when beta is 0), else
/// copied into C first. alpha and beta are (real, imaginary); the imaginary parts are ignored
/// for real types.
struct gemm_problem {
  blas_type type = blas_type::float32;
  index_t batch = 1;
  blas_matrix a, b, c, e;
  std::array<double, 2> alpha{1, 0}, beta{0, 0};
  bool parallel = false;
  bool conj_a = false, conj_b = false, conj_e = false; // operands read conjugated (complex types)
};

/// A strided vector: element i at data + i * stride.
struct blas_vector {
  const void *data = nullptr;
  index_t size = 0, stride = 1;
};

/// Runs `p` through OpenBLAS. `name` prefixes the errors: target_unavailable_error when
/// OpenBLAS cannot be loaded, argument_error for sizes past its 32-bit integers.
void gemm_host(const char *name, const gemm_problem &p);

/// x . y, or conj(x) . y with `conjugate`, as (real, imaginary).
std::array<double, 2> dot_host(const char *name, blas_type type, const blas_vector &x, const blas_vector &y,
                               bool conjugate, bool parallel);

/// The Euclidean norm of x, without overflow or underflow in between (BLAS nrm2).
double two_norm_host(const char *name, blas_type type, const blas_vector &x, bool parallel);

class device_state;
class stream_state;

/// Queues `p` (device memory of CUDA device `device`) on `stream` through cuBLAS (one
/// strided-batched GEMM), and returns true; returns false, queuing nothing, when cuBLAS cannot
/// take its layouts (runtime/linalg/cublas_layout.h), which the caller then computes itself.
/// Throws target_unavailable_error when cuBLAS cannot be loaded ($KERNEL_CUBLAS_LIBRARY, else
/// the toolkit's libcublas) and cuda_error naming the cuBLAS function and its status when it
/// fails; `name` begins each message.
bool gemm_cuda(const char *name, const gemm_problem &p, device_state &device, stream_state &stream);

/// x . y, or conj(x) . y with `conjugate`, of device memory through cuBLAS (the host waits
/// for it), or nothing when cuBLAS cannot take the strides (cublas_increment), queuing nothing.
/// Errors as gemm_cuda's.
std::optional<std::array<double, 2>> dot_cuda(const char *name, blas_type type, const blas_vector &x,
                                              const blas_vector &y, bool conjugate, device_state &device,
                                              stream_state &stream);

/// The Euclidean norm of device memory through cuBLAS, as dot_cuda.
std::optional<double> two_norm_cuda(const char *name, blas_type type, const blas_vector &x, device_state &device,
                                    stream_state &stream);

/// Loads cuBLAS as gemm_cuda does, or throws target_unavailable_error as it would.
void cublas_require(const char *name);

} // namespace kernel::detail
