// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once

#include <kernel/target.h>

#include <vector>

/// x times SCALE_FACTOR (a define of the library that its users see too), on `where`.
std::vector<float> scaled(const std::vector<float> &x, kernel::target where);
