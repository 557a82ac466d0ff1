// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// nvjitlink_check FILE.ptx...: links each PTX module with the runtime's nvJitLink path for
// sm_75 and sm_90 (those not older than the PTX's .target: PTX compiles forward only) and
// checks that every kernel (.entry) of the PTX is in the cubin.
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>

#include "cuda/module_builder.h"
#include "cuda/nvjitlink.h"

int main(int argc, char **argv) {
  namespace cuda = kernel::runtime::cuda;
  const cuda::nvjitlink &linker = cuda::nvjitlink::get();
  if (!linker.available()) {
    std::cerr << linker.unavailable_reason() << "\n";
    return 1;
  }
  int failures = 0;
  for (int i = 1; i < argc; ++i) {
    std::ifstream in(argv[i]);
    std::stringstream text;
    text << in.rdbuf();
    const std::string ptx = text.str();
    std::vector<std::string> entries;
    const std::regex entry(R"(\.visible \.entry (\S+)\()");
    for (std::sregex_iterator it(ptx.begin(), ptx.end(), entry), end; it != end; ++it) entries.push_back((*it)[1]);
    std::smatch target;
    if (!std::regex_search(ptx, target, std::regex(R"(\.target sm_(\d+))"))) {
      std::cerr << argv[i] << ": no .target\n";
      ++failures;
      continue;
    }
    const int ptx_arch = std::stoi(target[1]);
    for (int arch : {75, 90}) {
      if (arch < ptx_arch) continue;
      try {
        const cuda::link_input input{kernel::detail::link_format::ptx, argv[i], ptx};
        const std::vector<char> cubin = linker.link(arch, std::span<const cuda::link_input>(&input, 1), argv[i]);
        const std::vector<std::string> symbols = cuda::cubin_symbols(cubin);
        for (const std::string &e : entries)
          if (std::find(symbols.begin(), symbols.end(), e) == symbols.end()) {
            std::cerr << argv[i] << ": sm_" << arch << " cubin lacks kernel " << e << "\n";
            ++failures;
          }
        std::cout << argv[i] << ": sm_" << arch << " cubin, " << cubin.size() << " bytes, " << entries.size()
                  << " kernels\n";
      } catch (const std::exception &e) {
        std::cerr << e.what() << "\n";
        ++failures;
      }
    }
  }
  return failures == 0 ? 0 : 1;
}
