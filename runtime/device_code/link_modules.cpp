// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// kernel::link_modules: the cuda target's module build, ahead of time and without a GPU.
#include <map>
#include <string>

#include "cache/cubin_cache.h"
#include "cuda/module_builder.h"
#include "device_code/runtime_inputs.h"
#include "kernel/errors.h"
#include "kernel/inspect.h"
#include "registry/registry.h"

namespace kernel {

std::vector<linked_module> link_modules(int arch) {
  // The oldest architecture CUDA 13 builds for; the toolkit reports the newer ones it lacks.
  constexpr int oldest_arch = 75;
  if (arch < oldest_arch)
    throw argument_error("kernel::link_modules", 1,
                         "is " + std::to_string(arch) + ": expected a GPU architecture as a number, sm_75 or newer (" +
                             std::to_string(oldest_arch) + ", 80, 86, 89, 90, 100, 120, ...)");
  // A module the runtime could not register has device code nothing here links: the check
  // ahead of time would pass having checked nothing of it.
  if (const std::vector<std::string> rejected = runtime::registry::instance().rejected(); !rejected.empty()) {
    std::string msg = "kernel::link_modules: " + std::to_string(rejected.size()) +
                      (rejected.size() == 1 ? " module" : " modules") + " of the program could not be registered";
    for (const std::string &r : rejected) msg += "; " + r;
    throw link_error(msg);
  }
  // Modules in registration order, each once, with the kernels it holds.
  std::vector<const kernel_module *> modules;
  std::map<const kernel_module *, std::vector<std::string>> kernels;
  for (const runtime::registered_kernel &k : runtime::registry::instance().all()) {
    auto [it, fresh] = kernels.try_emplace(k.module);
    if (fresh) modules.push_back(k.module);
    it->second.push_back(k.entry->name);
  }
  const auto extra = runtime::device_code::runtime_inputs();
  std::vector<linked_module> out;
  for (const kernel_module *m : modules) {
    linked_module l;
    l.module_hash = m->hash;
    l.arch = "sm_" + std::to_string(arch);
    l.kernels = kernels[m];
    for (uint32_t i = 0; i < m->num_externals; ++i) l.externals.push_back(m->externals[i].signature);
    for (uint32_t i = 0; i < m->num_link_inputs; ++i) l.linked.push_back(m->link_inputs[i].name);
    for (const auto &in : extra) l.linked.push_back(in.name);
    auto built =
        runtime::cuda::build_cubin(*m, arch, runtime::cubin_cache::process(), 0, "'" + l.kernels.front() + "'");
    l.symbols = runtime::cuda::cubin_symbols(built.cubin);
    l.cubin_bytes = built.cubin.size();
    l.from_cache = built.from_cache;
    out.push_back(std::move(l));
  }
  return out;
}

} // namespace kernel
