// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// An object made on first use and never destroyed: the devices and the driver, which a
// program's own static objects (a global device_array, a cache of device buffers) still use
// while the program exits, after function-local statics made later are gone.
#pragma once

#include <new>
#include <utility>

namespace kernel::runtime {

/// Holds a T constructed in place and never runs its destructor. A class with a private
/// constructor befriends `immortal<T>`.
template <class T> class immortal {
public:
  template <class... A> explicit immortal(A &&...args) {
    ::new (static_cast<void *>(storage_)) T(std::forward<A>(args)...);
  }
  immortal(const immortal &) = delete;
  immortal &operator=(const immortal &) = delete;
  T &get() noexcept { return *std::launder(reinterpret_cast<T *>(storage_)); }

private:
  alignas(T) unsigned char storage_[sizeof(T)];
};

} // namespace kernel::runtime
