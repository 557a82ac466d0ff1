// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The parameters of the random fills (kernel/random_arrays.h's Philox, kernel/random_generators.h's
// cuRAND generators), checked one way for both: a parameter that is itself NaN, infinite or
// past T's range, or a negative spread, is an argument_error naming it (arguments 2 and 3 of
// the fill). Values that overflow from finite parameters (lognormal(100, 1) in float) are
// infinities, as cuRAND's and NumPy's.
#pragma once

#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "kernel/detail/number_text.h"
#include "kernel/errors.h"

namespace kernel::detail {

/// Whether `v` is finite in T (float or double): within its range.
template <class T> bool fits_in(double v) noexcept {
  return std::fabs(v) <= static_cast<double>(std::numeric_limits<T>::max());
}
template <class T> std::string in_range_of() { return std::is_same_v<T, float> ? " and within float's range" : ""; }

/// A normal (or lognormal) fill's mean and standard deviation, for arrays of T.
template <class T> void require_normal_parameters(const std::string &callee, double mean, double stddev) {
  if (!fits_in<T>(mean))
    throw argument_error(callee, 2, "the mean is " + number_text(mean) + "; it must be finite" + in_range_of<T>());
  if (!fits_in<T>(stddev) || !(stddev >= 0))
    throw argument_error(callee, 3,
                         "the standard deviation is " + number_text(stddev) + "; it must be finite, not negative" +
                             in_range_of<T>());
}

/// A uniform fill's ends, for arrays of T: finite, and their distance too (else every value
/// would be inf).
template <class T> void require_uniform_parameters(const std::string &callee, double low, double high) {
  if (!fits_in<T>(low))
    throw argument_error(callee, 2, "the low end is " + number_text(low) + "; it must be finite" + in_range_of<T>());
  if (!fits_in<T>(high))
    throw argument_error(callee, 3, "the high end is " + number_text(high) + "; it must be finite" + in_range_of<T>());
  if (!std::isfinite(static_cast<T>(static_cast<T>(high) - static_cast<T>(low))))
    throw argument_error(callee, 3,
                         "the range from " + number_text(low) + " to " + number_text(high) + " is wider than " +
                             (std::is_same_v<T, float> ? "float" : "double") + " can hold");
}

} // namespace kernel::detail
