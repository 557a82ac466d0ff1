// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// kernel/detail/fft_api.h's fft_cuda: the passes of kernel/fft.h on CUDA memory through
// cuFFT, loaded on first use (a program that never transforms device memory never loads
// it). A plan holds a work area that its executions use, so two streams never share one:
// plans are cached per layout, type, device and stream.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <cufft.h>

#include "cuda/library_handles.h"
#include "cuda/math_library.h"
#include "device/device_state.h"
#include "fft/cufft_layout.h"
#include "kernel/detail/fft_api.h"
#include "kernel/errors.h"

namespace kernel::detail {

namespace {

struct cufft_functions {
  decltype(&::cufftCreate) create = nullptr;
  decltype(&::cufftDestroy) destroy = nullptr;
  decltype(&::cufftMakePlanMany64) make_plan = nullptr;
  decltype(&::cufftSetStream) set_stream = nullptr;
  decltype(&::cufftExecC2C) c2c = nullptr;
  decltype(&::cufftExecZ2Z) z2z = nullptr;
  decltype(&::cufftExecR2C) r2c = nullptr;
  decltype(&::cufftExecD2Z) d2z = nullptr;
  decltype(&::cufftExecC2R) c2r = nullptr;
  decltype(&::cufftExecZ2D) z2d = nullptr;

  bool bind(const runtime::shared_library &l) {
    return l.bind(create, "cufftCreate") && l.bind(destroy, "cufftDestroy") &&
           l.bind(make_plan, "cufftMakePlanMany64") && l.bind(set_stream, "cufftSetStream") &&
           l.bind(c2c, "cufftExecC2C") && l.bind(z2z, "cufftExecZ2Z") && l.bind(r2c, "cufftExecR2C") &&
           l.bind(d2z, "cufftExecD2Z") && l.bind(c2r, "cufftExecC2R") && l.bind(z2d, "cufftExecZ2D");
  }
};
using cufft_library = runtime::cuda::math_library<cufft_functions>;

constexpr runtime::cuda::math_library_spec cufft_spec{"cuFFT", "libcufft.so.12", "KERNEL_CUFFT_LIBRARY"};

std::shared_ptr<const cufft_library> cufft(std::string_view name) {
  return runtime::cuda::load_math_library<cufft_functions>(
      cufft_spec, [name] { return std::string(name) + ": transforms of CUDA memory need"; });
}

const char *status_name(cufftResult s) noexcept {
  switch (s) {
  case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
  case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
  case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
  case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
  case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
  case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
  case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
  case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
  case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
  case CUFFT_UNALIGNED_DATA: return "CUFFT_UNALIGNED_DATA";
  case CUFFT_INVALID_DEVICE: return "CUFFT_INVALID_DEVICE";
  case CUFFT_NO_WORKSPACE: return "CUFFT_NO_WORKSPACE";
  case CUFFT_NOT_IMPLEMENTED: return "CUFFT_NOT_IMPLEMENTED";
  case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
  case CUFFT_MISSING_DEPENDENCY: return "CUFFT_MISSING_DEPENDENCY";
  case CUFFT_NVRTC_FAILURE: return "CUFFT_NVRTC_FAILURE";
  case CUFFT_NVJITLINK_FAILURE: return "CUFFT_NVJITLINK_FAILURE";
  case CUFFT_NVSHMEM_FAILURE: return "CUFFT_NVSHMEM_FAILURE";
  }
  return "an unknown cuFFT status";
}

void check(cufftResult s, std::string_view name, const char *call, const std::string &what) {
  if (s != CUFFT_SUCCESS)
    throw cuda_error(std::string(name) + ": " + call + " (" + what + ") failed: " + status_name(s) + " (" +
                         std::to_string(static_cast<int>(s)) + ")",
                     static_cast<int>(s));
}

cufftType type_of(fft_transform t, bool double_precision) noexcept {
  switch (t) {
  case fft_transform::r2c: return double_precision ? CUFFT_D2Z : CUFFT_R2C;
  case fft_transform::c2r: return double_precision ? CUFFT_Z2D : CUFFT_C2R;
  default: return double_precision ? CUFFT_Z2Z : CUFFT_C2C;
  }
}

/// Bytes of an element of the pass's input and of its output.
std::size_t in_bytes(const fft_pass &p) noexcept {
  const std::size_t real = p.double_precision ? 8 : 4;
  return p.transform == fft_transform::r2c ? real : 2 * real;
}
std::size_t out_bytes(const fft_pass &p) noexcept {
  const std::size_t real = p.double_precision ? 8 : 4;
  return p.transform == fft_transform::c2r ? real : 2 * real;
}

struct plan_key {
  const cufft_library *library;
  const device_state *device;
  std::uint64_t stream;
  cufftType type;
  // cuFFT's n, inembed and onembed, outermost axis first (rank of them used).
  int rank;
  std::array<long long, 3> n, in_embed, out_embed;
  index_t in_stride, in_dist, out_stride, out_dist, batch;
  auto tie() const noexcept {
    return std::tie(library, device, stream, type, rank, n, in_embed, out_embed, in_stride, in_dist, out_stride,
                    out_dist, batch);
  }
  bool operator<(const plan_key &o) const noexcept { return tie() < o.tie(); }
};

/// The key of `l`'s plan.
plan_key key_of(const cufft_library *lib, const device_state &device, std::uint64_t stream, cufftType type,
                const cufft_layout &l) {
  const cufft_layout::plan_arrays a = l.arrays();
  return {lib,         &device,     stream,    type,         l.rank(),   a.n,    a.in_embed,
          a.out_embed, l.in_stride, l.in_dist, l.out_stride, l.out_dist, l.batch};
}

std::string describe(const plan_key &k) {
  std::string n;
  for (int i = 0; i < k.rank; ++i) n += (i ? "x" : "") + std::to_string(k.n[static_cast<std::size_t>(i)]);
  return "n=" + n + ", batch=" + std::to_string(k.batch);
}

/// check() for a call on the plan of `key`, which it describes only in the error: a call
/// on the common path builds no string (host time per transform is a few microseconds).
void check(cufftResult s, std::string_view name, const char *call, const plan_key &key) {
  if (s != CUFFT_SUCCESS) check(s, name, call, describe(key));
}

using plan_cache = runtime::cuda::handle_cache<plan_key, cufftHandle>;

/// The plan for `key`, made when there is none and set to `stream` then (a plan is kept per
/// stream, so it is never set again: the direct call a user would write sets it once too),
/// lent to the caller; the device is current.
runtime::cuda::handle_lease<cufftHandle> plan_for(const plan_key &key, const std::shared_ptr<const cufft_library> &lib,
                                                  const device_state &device, stream_state &stream,
                                                  std::string_view name) {
  plan_cache &cache = runtime::cuda::process_handle_cache<plan_key, cufftHandle>();
  return cache.lend(key, device, stream.liveness(), [&] {
    const std::string what = describe(key);
    cufftHandle h = 0;
    check(lib->create(&h), name, "cufftCreate", what);
    // Owned before the plan is made, so that a failure frees it.
    auto made = std::make_unique<runtime::cuda::device_handle<cufftHandle>>(
        h, device, [lib](cufftHandle dropped) { lib->destroy(dropped); });
    std::array<long long, 3> n = key.n, in_embed = key.in_embed, out_embed = key.out_embed;
    std::size_t work = 0;
    check(lib->make_plan(h, key.rank, n.data(), in_embed.data(), key.in_stride, key.in_dist, out_embed.data(),
                         key.out_stride, key.out_dist, key.type, key.batch, &work),
          name, "cufftMakePlanMany64", what);
    check(lib->set_stream(h, static_cast<cudaStream_t>(stream.native())), name, "cufftSetStream", what);
    return made;
  });
}

/// The bytes from an array's first element to just past its last one.
std::size_t span_bytes(const index_t *shape, const index_t *strides, int rank, std::size_t element) noexcept {
  index_t last = 0;
  for (int d = 0; d < rank; ++d) last += (shape[d] - 1) * strides[d];
  return static_cast<std::size_t>(last + 1) * element;
}

/// Queues `p`'s transforms, laid out as `l`, on `stream`.
void execute(std::string_view name, const fft_pass &p, const cufft_layout &l, device_state &device,
             stream_state &stream) {
  std::shared_ptr<const cufft_library> lib = cufft(name);
  const index_t executions = l.executions();
  if (executions == 0) return;
  device.make_current();
  const char *in = static_cast<const char *>(p.in);
  // cuFFT's complex-to-real transforms overwrite their input: they read a copy.
  std::shared_ptr<void> copy;
  if (p.transform == fft_transform::c2r && !p.input_disposable) {
    const std::size_t bytes = span_bytes(p.in_shape, p.in_strides, p.rank, in_bytes(p));
    copy = std::shared_ptr<void>(device.allocate(bytes, stream),
                                 [&device, &stream](void *m) { device.release(m, stream); });
    device.copy(copy.get(), in, bytes, copy_direction::device_to_device, stream);
    in = static_cast<const char *>(copy.get());
  }
  const plan_key key = key_of(lib.get(), device, stream.id(), type_of(p.transform, p.double_precision), l);
  const int direction = p.transform == fft_transform::c2c_inverse ? CUFFT_INVERSE : CUFFT_FORWARD;
  const runtime::cuda::handle_lease<cufftHandle> lease = plan_for(key, lib, device, stream, name);
  const cufftHandle plan = lease.get();
  const plan_key &what = key;
  // cuFFT's real transforms fail (CUFFT_INVALID_VALUE) on real arrays that do not start where
  // a complex value could, as the lines of an odd length inside a larger array may not (seen
  // on an H100): such an execution reads (r2c) or writes (c2r) its real side through memory
  // of its own, which holds a copy of its span (of the output too, so that copying the span
  // back leaves the elements of other executions in it as they were).
  const std::size_t complex_bytes = p.double_precision ? 16 : 8;
  const auto misaligned = [&](const void *at) { return reinterpret_cast<std::uintptr_t>(at) % complex_bytes != 0; };
  const auto staged = [&](const void *from, std::size_t bytes) {
    std::shared_ptr<void> m(device.allocate(bytes, stream), [&device, &stream](void *q) { device.release(q, stream); });
    device.copy(m.get(), from, bytes, copy_direction::device_to_device, stream);
    return m;
  };
  for (index_t e = 0; e < executions; ++e) {
    index_t in_at = 0, out_at = 0;
    l.offsets(e, in_at, out_at);
    // cuFFT takes non-const inputs; only c2r writes them, and that input is a copy.
    void *src = const_cast<char *>(in) + static_cast<std::size_t>(in_at) * in_bytes(p);
    void *dst = static_cast<char *>(p.out) + static_cast<std::size_t>(out_at) * out_bytes(p);
    std::shared_ptr<void> aligned_in, aligned_out;
    const std::size_t out_span = static_cast<std::size_t>(l.out_span()) * out_bytes(p);
    void *const user_dst = dst;
    if (p.transform == fft_transform::r2c && misaligned(src)) {
      aligned_in = staged(src, static_cast<std::size_t>(l.in_span()) * in_bytes(p));
      src = aligned_in.get();
    }
    if (p.transform == fft_transform::c2r && misaligned(dst)) {
      aligned_out = staged(dst, out_span);
      dst = aligned_out.get();
    }
    switch (p.transform) {
    case fft_transform::c2c_forward:
    case fft_transform::c2c_inverse:
      if (p.double_precision)
        check(lib->z2z(plan, static_cast<cufftDoubleComplex *>(src), static_cast<cufftDoubleComplex *>(dst), direction),
              name, "cufftExecZ2Z", what);
      else
        check(lib->c2c(plan, static_cast<cufftComplex *>(src), static_cast<cufftComplex *>(dst), direction), name,
              "cufftExecC2C", what);
      break;
    case fft_transform::r2c:
      if (p.double_precision)
        check(lib->d2z(plan, static_cast<cufftDoubleReal *>(src), static_cast<cufftDoubleComplex *>(dst)), name,
              "cufftExecD2Z", what);
      else
        check(lib->r2c(plan, static_cast<cufftReal *>(src), static_cast<cufftComplex *>(dst)), name, "cufftExecR2C",
              what);
      break;
    case fft_transform::c2r:
      if (p.double_precision)
        check(lib->z2d(plan, static_cast<cufftDoubleComplex *>(src), static_cast<cufftDoubleReal *>(dst)), name,
              "cufftExecZ2D", what);
      else
        check(lib->c2r(plan, static_cast<cufftComplex *>(src), static_cast<cufftReal *>(dst)), name, "cufftExecC2R",
              what);
      break;
    }
    if (aligned_out) device.copy(user_dst, aligned_out.get(), out_span, copy_direction::device_to_device, stream);
  }
}

void check_pass(std::string_view name, const fft_pass &p) {
  if (p.scale != 1 || p.real_input)
    throw std::invalid_argument(std::string(name) + ": a cuFFT pass takes no scale and no real input to a complex "
                                                    "transform");
}

} // namespace

void cufft_require(std::string_view name) { cufft(name); }

void fft_cuda(std::string_view name, const fft_pass &p, device_state &device, stream_state &stream) {
  check_pass(name, p);
  execute(name, p, cufft_layout_of(p), device, stream);
}

int fft_cuda_passes(std::string_view name, const fft_pass *passes, int count, device_state &device,
                    stream_state &stream) {
  check_pass(name, passes[0]);
  const cufft_plan_choice plan = cufft_plan_of_passes(passes, count);
  execute(name, plan.pass, plan.layout, device, stream);
  return plan.passes;
}

} // namespace kernel::detail
