// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The cuFFT lesson's image filter: an image and a filter response padded to a common size,
// both transformed in place, multiplied by a complex64 ufunc writing into the image, and the
// product transformed back in place: a convolution. Checked against a direct 2-D convolution;
// run on cpu, parallel, the simulator and, through cuFFT, the GPU when there is one. Writes
// the input and the filtered image as PGM files (argument 1: a directory; by default Bazel's
// test outputs directory, else the current one).
//
//   fft_convolution [DIR] [SIZE]
#include <kernel/fft.h>
#include <kernel/kernel.h>

#include "worst_error.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

using kernel::index_t;
using cf = std::complex<float>;

[[kernel::vectorize("complex64(complex64, complex64)")]] cf multiply(cf a, cf b) { return a * b; }

namespace {

/// A test card: a gradient, filled and hollow shapes and thin lines, so that the blur shows.
kernel::ndarray<float, 2> make_image(index_t n) {
  kernel::ndarray<float, 2> img({n, n});
  for (index_t y = 0; y < n; ++y)
    for (index_t x = 0; x < n; ++x) {
      const double u = static_cast<double>(x) / n, v = static_cast<double>(y) / n;
      double value = 0.15 + 0.2 * u;
      if (std::hypot(u - 0.3, v - 0.3) < 0.15) value = 0.9;
      if (std::abs(u - 0.7) < 0.12 && std::abs(v - 0.35) < 0.12 &&
          (std::abs(u - 0.7) > 0.08 || std::abs(v - 0.35) > 0.08))
        value = 1.0;
      if ((x / 4) % 8 == 0 && v > 0.6) value = 0.0;
      if (std::abs(v - 0.8 + 0.3 * u) < 0.01) value = 1.0;
      img(y, x) = static_cast<float>(value);
    }
  return img;
}

/// A normalised Gaussian of the given radius: the filter response.
kernel::ndarray<float, 2> make_response(index_t radius, double sigma) {
  const index_t k = 2 * radius + 1;
  kernel::ndarray<float, 2> r({k, k});
  double total = 0;
  for (index_t y = 0; y < k; ++y)
    for (index_t x = 0; x < k; ++x)
      total += std::exp(-((x - radius) * (x - radius) + (y - radius) * (y - radius)) / (2 * sigma * sigma));
  for (index_t y = 0; y < k; ++y)
    for (index_t x = 0; x < k; ++x)
      r(y, x) = static_cast<float>(
          std::exp(-((x - radius) * (x - radius) + (y - radius) * (y - radius)) / (2 * sigma * sigma)) / total);
  return r;
}

/// The same-size convolution by its definition (zero outside the image).
kernel::ndarray<float, 2> direct(const kernel::ndarray<float, 2> &img, const kernel::ndarray<float, 2> &r) {
  const index_t n = img.shape(0), k = r.shape(0), c = k / 2;
  kernel::ndarray<float, 2> out({n, n});
  for (index_t y = 0; y < n; ++y)
    for (index_t x = 0; x < n; ++x) {
      double sum = 0;
      for (index_t j = 0; j < k; ++j)
        for (index_t i = 0; i < k; ++i) {
          const index_t sy = y + c - j, sx = x + c - i;
          if (sy >= 0 && sy < n && sx >= 0 && sx < n) sum += static_cast<double>(img(sy, sx)) * r(j, i);
        }
      out(y, x) = static_cast<float>(sum);
    }
  return out;
}

/// `a` placed at the top left of a zero complex array of p x p.
kernel::ndarray<cf, 2> padded(const kernel::ndarray<float, 2> &a, index_t p) {
  kernel::ndarray<cf, 2> out({p, p}, cf{});
  for (index_t y = 0; y < a.shape(0); ++y)
    for (index_t x = 0; x < a.shape(1); ++x) out(y, x) = a(y, x);
  return out;
}

/// The lesson's steps on arrays `image` and `response` (host or device, already padded);
/// returns the padded product's real part on the host.
template <class Array> kernel::ndarray<float, 2> filter(kernel::target t, Array &image, Array &response) {
  constexpr kernel::ufunc<multiply> times;
  kernel::fft_inplace.on(t)(image);
  kernel::fft_inplace.on(t)(response);
  times.on(t)(image, response, image); // out= the image
  kernel::ifft_inplace.on(t)(image);
  kernel::ndarray<cf, 2> host({image.shape(0), image.shape(1)});
  if constexpr (std::is_same_v<Array, kernel::ndarray<cf, 2>>)
    host = image;
  else
    host = image.copy_to_host();
  kernel::ndarray<float, 2> real({host.shape(0), host.shape(1)});
  for (index_t i = 0; i < host.size(); ++i) real.data()[i] = host.data()[i].real();
  return real;
}

/// The n x n window of the padded result that lines up with the image (the "same" mode).
kernel::ndarray<float, 2> same(const kernel::ndarray<float, 2> &full, index_t n, index_t c) {
  kernel::ndarray<float, 2> out({n, n});
  for (index_t y = 0; y < n; ++y)
    for (index_t x = 0; x < n; ++x) out(y, x) = full(y + c, x + c);
  return out;
}

bool write_pgm(const std::string &path, const kernel::ndarray<float, 2> &img) {
  std::ofstream f(path, std::ios::binary);
  f << "P5\n" << img.shape(1) << " " << img.shape(0) << "\n255\n";
  for (index_t i = 0; i < img.size(); ++i)
    f.put(static_cast<char>(std::clamp(std::lround(img.data()[i] * 255.0f), 0L, 255L)));
  return static_cast<bool>(f);
}

} // namespace

int main(int argc, char **argv) {
  const char *outputs = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR");
  const std::string dir = argc > 1 ? argv[1] : outputs ? outputs : ".";
  const index_t n = argc > 2 ? std::atol(argv[2]) : 256, radius = 7;
  const auto image = make_image(n);
  const auto response = make_response(radius, 3.0);
  // Padded so that the circular convolution of the transforms is the linear one.
  const index_t p = n + 2 * radius;
  const auto want = direct(image, response);
  bool ok = true;
  kernel::ndarray<float, 2> result;
  const auto check = [&](const char *where, const kernel::ndarray<float, 2> &full) {
    const auto got = same(full, n, radius);
    double worst = 0;
    for (index_t i = 0; i < got.size(); ++i) worst = worse(worst, double(std::abs(got.data()[i] - want.data()[i])));
    const bool good = worst < 1e-4;
    std::printf("fft convolution on %-9s %lld x %lld, padded to %lld: worst difference from the direct "
                "convolution %.1e %s\n",
                where, static_cast<long long>(n), static_cast<long long>(n), static_cast<long long>(p), worst,
                good ? "ok" : "WRONG");
    ok &= good;
    result = got;
  };
  for (auto [name, t] : {std::pair{"cpu", kernel::target::cpu}, std::pair{"parallel", kernel::target::parallel}}) {
    auto img = padded(image, p), resp = padded(response, p);
    check(name, filter(t, img, resp));
  }
  const auto on_device = [&](kernel::device d, kernel::target t) {
    auto img = kernel::to_device(padded(image, p), d), resp = kernel::to_device(padded(response, p), d);
    check(d.name().c_str(), filter(t, img, resp));
  };
  on_device(kernel::device::simulator(), kernel::target::simulator);
  try {
    on_device(kernel::device::cuda(), kernel::target::cuda);
  } catch (const kernel::target_unavailable_error &e) {
    std::printf("fft convolution on cuda: not run here (%s)\n", e.what());
  }
  const std::string in = dir + "/fft_convolution_input.pgm", out = dir + "/fft_convolution_filtered.pgm";
  if (write_pgm(in, image) && write_pgm(out, result))
    std::printf("wrote %s and %s\n", in.c_str(), out.c_str());
  else
    std::printf("could not write the images to %s\n", dir.c_str());
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
