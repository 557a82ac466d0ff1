// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The examples' checks keep the worst error seen. std::max(worst, e) drops a NaN e (no
// comparison with it holds), so a result of NaNs passed them; here a NaN is the worst error
// of all, and fails every bound.
#pragma once

#include <cmath>
#include <limits>

template <class T> T worse(T worst, T error) {
  if (std::isnan(error)) return std::numeric_limits<T>::infinity();
  return error > worst ? error : worst;
}
