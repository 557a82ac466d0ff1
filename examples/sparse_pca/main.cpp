// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Sparse PCA from the command line: every version on a chosen target, timed, checked against
// the reference.
//
//   sparse_pca [--p N] [--d N] [--k N] [--epsilon E] [--batch N] [--seed N]
//              [--target cpu|parallel|simulator|cuda] [--version high|kernels|reference|all]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unistd.h>

#include "spca.h"

namespace {

[[noreturn]] void usage(const char *why) {
  std::fprintf(stderr,
               "sparse_pca: %s\nusage: sparse_pca [--p N] [--d N] [--k N] [--epsilon E] [--batch N] [--seed N]\n"
               "                  [--target cpu|parallel|simulator|cuda] [--version high|kernels|reference|all]\n",
               why);
  std::exit(2);
}

kernel::target parse_target(std::string_view s) {
  for (kernel::target t :
       {kernel::target::cpu, kernel::target::parallel, kernel::target::simulator, kernel::target::cuda})
    if (kernel::target_name(t) == s) return t;
  usage("unknown target");
}

void print(const char *what, const spca::result &r, double ms) {
  std::printf("%-22s %10.2f ms  value %.6f  direction %lld  support", what, ms, r.value,
              static_cast<long long>(r.direction));
  for (kernel::index_t i : r.support) std::printf(" %lld", static_cast<long long>(i));
  std::printf("\n");
}

/// The same x as the reference: the same support, values within float rounding; or a
/// direction whose value ties the reference's within rounding.
bool agrees(const spca::problem &pr, const kernel::ndarray<float, 2> &vd, const spca::result &want,
            const spca::result &got) {
  // Written so that a NaN anywhere disagrees.
  if (!(std::abs(got.value - want.value) <= 1e-5f * want.value)) return false;
  if (got.direction < 0 || got.direction >= pr.directions() || want.direction < 0) return false;
  if (got.direction != want.direction)
    return std::abs(spca::reference_value(pr, vd, got.direction) - want.value) <= 1e-5f * want.value;
  if (got.support != want.support || got.x.size() != want.x.size()) return false;
  for (std::size_t i = 0; i < want.x.size(); ++i)
    if (!(std::abs(got.x[i] - want.x[i]) <= 1e-5f)) return false;
  return true;
}

} // namespace

int main(int argc, char **argv) {
  spca::problem pr;
  kernel::target target = kernel::target::parallel;
  std::string version = "all";
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (i + 1 >= argc) usage("a flag without its value");
    const char *v = argv[++i];
    if (flag == "--p")
      pr.p = std::atoll(v);
    else if (flag == "--d")
      pr.d = std::atoll(v);
    else if (flag == "--k")
      pr.k = std::atoll(v);
    else if (flag == "--epsilon")
      pr.epsilon = std::atof(v);
    else if (flag == "--batch")
      pr.batch = std::atoll(v);
    else if (flag == "--seed")
      pr.seed = std::strtoull(v, nullptr, 10);
    else if (flag == "--target")
      target = parse_target(v);
    else if (flag == "--version")
      version = v;
    else
      usage("unknown flag");
  }
  kernel::ndarray<float, 2> vd;
  try {
    pr.check();
    vd = spca::example_input(pr);
    pr.check(vd);
  } catch (const std::invalid_argument &e) {
    usage(e.what());
  }
  if (pr.k > spca::max_kernel_k && (version == "all" || version == "kernels") &&
      (target == kernel::target::simulator || target == kernel::target::cuda))
    usage(("the kernel version takes k up to " + std::to_string(spca::max_kernel_k) +
           ": choose --version high or reference")
              .c_str());
  // Whole blocks of four draws per batch, so that the directions do not depend on it.
  while (pr.batch * pr.d % 4 != 0) ++pr.batch;
  const bool tty = isatty(STDERR_FILENO);
  const spca::progress report = [&](kernel::index_t done, kernel::index_t all) {
    if (tty) std::fprintf(stderr, "\r  batch %lld/%lld", static_cast<long long>(done), static_cast<long long>(all));
    if (tty && done == all) std::fprintf(stderr, "\r%40s\r", "");
  };
  std::printf("sparse PCA: p=%lld d=%lld k=%lld epsilon=%g -> %lld directions, batches of %lld, target %s\n",
              static_cast<long long>(pr.p), static_cast<long long>(pr.d), static_cast<long long>(pr.k), pr.epsilon,
              static_cast<long long>(pr.directions()), static_cast<long long>(pr.batch),
              kernel::target_name(target).data());
  auto timed = [](auto &&f) {
    const auto t0 = std::chrono::steady_clock::now();
    spca::result r = f();
    return std::pair{r, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count()};
  };
  bool ok = true;
  const auto [ref, ref_ms] = timed([&] { return spca::reference(pr, vd, report); });
  print("reference (loops)", ref, ref_ms);
  if (version == "all" || version == "high") {
    const auto [r, ms] = timed([&] { return spca::high_level(pr, vd, target, report); });
    print("high-level", r, ms);
    std::printf("result high_level %s %.3f\nresult reference cpu %.3f\n", kernel::target_name(target).data(), ms,
                ref_ms);
    ok &= agrees(pr, vd, ref, r);
  }
  if ((version == "all" || version == "kernels") &&
      (target == kernel::target::simulator || target == kernel::target::cuda)) {
    const kernel::device dev =
        target == kernel::target::simulator ? kernel::device::simulator() : kernel::device::cuda();
    const auto [r, ms] = timed([&] { return spca::with_kernels(pr, vd, dev, report); });
    print("kernels", r, ms);
    std::printf("result kernels %s %.3f\n", kernel::target_name(target).data(), ms);
    ok &= agrees(pr, vd, ref, r);
  }
  std::printf("%s\n", ok ? "every version agrees with the reference" : "MISMATCH");
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
