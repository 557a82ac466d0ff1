// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cuda/toolkit.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace kernel::runtime::cuda {

namespace {

std::string in_lib64(const std::string &root, std::string_view soname) {
  return root + "/lib64/" + std::string(soname);
}

} // namespace

std::vector<std::string> toolkit_roots() {
  std::vector<std::string> roots;
  for (const char *var : toolkit_root_variables)
    if (const char *root = std::getenv(var)) roots.emplace_back(root);
  roots.emplace_back("/usr/local/cuda");
  return roots;
}

std::vector<std::string> toolkit_library_candidates(std::string_view soname) {
  std::vector<std::string> candidates{std::string(soname)};
  for (const std::string &root : toolkit_roots()) candidates.push_back(in_lib64(root, soname));
  return candidates;
}

std::string find_toolkit_library(std::string_view soname) {
  std::vector<std::string> files;
  if (const char *path = std::getenv("LD_LIBRARY_PATH"))
    for (std::string_view rest = path; !rest.empty();) {
      const std::size_t colon = rest.find(':');
      if (const std::string_view dir = rest.substr(0, colon); !dir.empty())
        files.push_back((std::filesystem::path(dir) / soname).string());
      rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    }
  for (const std::string &root : toolkit_roots()) files.push_back(in_lib64(root, soname));
  for (const std::string &file : files) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(file, ec)) return std::filesystem::canonical(file, ec).string();
  }
  return {};
}

} // namespace kernel::runtime::cuda
