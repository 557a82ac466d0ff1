// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the runtime reads from nvJitLink's error log, checked against the nvJitLink installed:
// a PTX module calling a function no input defines fails with a log naming it after
// undefined_reference_marker. If an nvJitLink release rewords it, this fails, not the
// explanation users get. Needs no GPU.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cuda/nvjitlink.h"

namespace {

namespace cuda = kernel::runtime::cuda;

constexpr const char *calls_undefined = R"(.version 7.8
.target sm_75
.address_size 64
.extern .func (.param .b32 result) bar_undefined(.param .b32 a);
.visible .entry calls_bar(.param .u64 out) {
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.b32 %r1, 1;
  {
    .param .b32 a0;
    st.param.b32 [a0], %r1;
    .param .b32 rv;
    call.uni (rv), bar_undefined, (a0);
    ld.param.b32 %r2, [rv];
  }
  st.global.u32 [%rd1], %r2;
  ret;
}
)";

TEST(NvJitLinkLog, UndefinedFunctionsAreNamedAfterTheMarker) {
  const cuda::nvjitlink &linker = cuda::nvjitlink::get();
  if (!linker.available()) GTEST_SKIP() << linker.unavailable_reason();
  const std::vector<cuda::link_input> inputs{{kernel::detail::link_format::ptx, "calls_bar", calls_undefined}};
  try {
    linker.link(90, inputs, "calls_bar", {});
    FAIL() << "linked a call to a function nothing defines";
  } catch (const std::exception &e) {
    const std::string log = e.what();
    EXPECT_NE(log.find(std::string(cuda::undefined_reference_marker) + "bar_undefined'"), std::string::npos) << log;
  }
}

// PTX given without its terminating NUL (as a .ptx file's bytes are embedded in a program),
// followed in memory by other bytes: nvJitLink reads PTX as a C string, so the runtime passes
// a terminated copy.
TEST(NvJitLinkLog, PtxWithoutATerminatingNul) {
  const cuda::nvjitlink &linker = cuda::nvjitlink::get();
  if (!linker.available()) GTEST_SKIP() << linker.unavailable_reason();
  const std::string defines = R"(.version 7.8
.target sm_75
.address_size 64
.visible .entry does_nothing() {
  ret;
}
)";
  std::string memory = defines + "garbage after the text, as the next embedded input would be";
  const std::vector<cuda::link_input> inputs{
      {kernel::detail::link_format::ptx, "does_nothing.ptx", std::string_view(memory.data(), defines.size())}};
  EXPECT_FALSE(linker.link(75, inputs, "does_nothing", {}).empty());
}

} // namespace
