// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Copies between a device array and a host array that does not fit it (element type, rank,
// const, a device array) are one error each, with the chain from the user's line: the copy is
// not compiled after it (a pointer conversion or a shape comparison gave one or two more).
// (Clang reports a failed specialization once: each copy here has a host type of its own.)
#include <kernel/kernel.h>
#include <vector>

void copies(kernel::device_array<float> &d, std::vector<double> &doubles, kernel::ndarray<float, 2> &matrix,
            const std::vector<float> &read_only, const kernel::ndarray<float, 2> &read_only_matrix,
            kernel::device_array<float> &other) {
  d.copy_to_host(doubles);      // expected-note {{in instantiation of}}
  d.copy_to_host(matrix);       // expected-note {{in instantiation of}}
  d.copy_to_host(read_only);    // expected-note {{in instantiation of}}
  d.copy_from_host(read_only_matrix); // expected-note {{in instantiation of}}
  d.copy_to_host(other);        // expected-note {{in instantiation of}}
  std::vector<float> fine(16);
  d.copy_to_host(fine);
  d.copy_from_host(fine);
}

// expected-error@* {{the host array's element type differs from the device array's}}
// expected-error@* 2 {{the host array's rank differs}}
// expected-error@* {{copy_to_host needs a writable host array}}
// expected-error@* {{copy_to_host copies into a host array; device to device is copy() or a view}}
// The rest of each chain, inside the library.
// expected-note@* 0+ {{in instantiation of}}
// expected-note@* 0+ {{evaluates to}}
