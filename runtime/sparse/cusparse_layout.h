// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// How a product of kernel/sparse.h (detail/sparse_api.h) maps onto cuSPARSE's generic API,
// whose dense vectors are contiguous and whose dense matrices are row- or column-major with
// a leading dimension, B and C of one order, every array starting on 16 bytes. Other layouts
// (strided vectors, matrices without a unit stride, B and C of different orders, views that
// start inside an allocation's first 16 bytes) and empty products have no mapping: the
// library's own kernel runs them.
#pragma once

#include <optional>

#include "kernel/detail/sparse_api.h"

namespace kernel::detail {

struct cusparse_dense {
  const void *data = nullptr;
  index_t rows = 0, cols = 0, ld = 1;
};

struct cusparse_product {
  bool vector = false;
  bool row_major = true; // the order of B and C (matrices only)
  cusparse_dense b, c;
};

/// The cuSPARSE call computing `p`, or nothing (see above).
std::optional<cusparse_product> cusparse_product_of(const sparse_product_problem &p);

} // namespace kernel::detail
