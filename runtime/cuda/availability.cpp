// Why a GPU call cannot run here, in words a user can act on.
#include <string>

#include "cuda/driver.h"
#include "kernel/detail/runtime_api.h"
#include "kernel/errors.h"
#include "registry/registry.h"

namespace kernel::detail {

void throw_cuda_unavailable(std::string_view callee, const void *host_key) {
  const std::string who = "'" + std::string(callee) + "' on target cuda: ";
  if (!runtime::registry::instance().find(host_key)) {
    std::string msg = who + "no GPU code was compiled for it; build its translation unit with the "
                            "kernel plugin (tools/kernel-clang++ or a kernel_cc_* Bazel rule)";
    for (const std::string &r : runtime::registry::instance().rejected()) msg += "; " + r;
    throw target_unavailable_error(msg);
  }
  const runtime::cuda::driver &drv = runtime::cuda::driver::get();
  if (!drv.available())
    throw target_unavailable_error(who + drv.unavailable_reason() +
                                   ". Targets that work on this machine: cpu, parallel");
  throw target_unavailable_error(who + "launching GPU ufuncs needs the device runtime, which "
                                       "this build does not include");
}

} // namespace kernel::detail
