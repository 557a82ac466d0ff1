// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the runtime reads from nvJitLink's error log, checked against the nvJitLink installed:
// a PTX module calling a function no input defines fails with a log naming it after
// undefined_reference_marker; one declaring a function its definition does not match fails
// with prototype_mismatch_marker (which nvJitLink prints on standard error, see
// standard_error_capture.h). If an nvJitLink release rewords them, this fails, not the
// explanation users get. Needs no GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "cuda/nvjitlink.h"
#include "cuda/standard_error_capture.h"

namespace {

namespace cuda = kernel::runtime::cuda;

// The log of a link for sm_90 expected to fail, `failure` saying what it would have linked
// ("" where it links: the test fails).
std::string failed_link_log(const std::vector<cuda::link_input> &inputs, std::string_view what,
                            std::string_view failure, std::span<const std::string> options = {}) {
  try {
    cuda::nvjitlink::get().link(90, inputs, what, options);
    ADD_FAILURE() << "linked " << failure;
  } catch (const std::exception &e) {
    return e.what();
  }
  return {};
}

// Whether `log` names `name` right after `marker`: the pins of nvJitLink's wording.
testing::AssertionResult names_after(const std::string &log, std::string_view marker, std::string_view name) {
  if (log.find(std::string(marker) + std::string(name)) != std::string::npos) return testing::AssertionSuccess();
  return testing::AssertionFailure() << "no '" << marker << name << "' in the log:\n" << log;
}

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
  const std::string log = failed_link_log(inputs, "calls_bar", "a call to a function nothing defines");
  EXPECT_TRUE(names_after(log, cuda::undefined_reference_marker, "bar_undefined'"));
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

// A PTX definition of bar_undefined with two parameters where calls_undefined declares one.
constexpr const char *defines_wider = R"(.version 7.8
.target sm_75
.address_size 64
.visible .func (.param .b32 result) bar_undefined(.param .b32 a, .param .b64 b) {
  .reg .b32 %r<2>;
  ld.param.b32 %r1, [a];
  st.param.b32 [result], %r1;
  ret;
}
)";

// nvJitLink (CUDA 13.0) prints this on standard error with the error prefix and succeeds;
// the runtime fails the link, naming the function and the input with the definition.
TEST(NvJitLinkLog, DifferingPrototypesFailTheLink) {
  const cuda::nvjitlink &linker = cuda::nvjitlink::get();
  if (!linker.available()) GTEST_SKIP() << linker.unavailable_reason();
  const std::vector<cuda::link_input> inputs{{kernel::detail::link_format::ptx, "calls_bar", calls_undefined},
                                             {kernel::detail::link_format::ptx, "wider.ptx", defines_wider}};
  const std::string log =
      failed_link_log(inputs, "calls_bar", "a call through a declaration its definition does not match");
  EXPECT_TRUE(names_after(log, cuda::prototype_mismatch_marker, "bar_undefined'"));
  EXPECT_TRUE(names_after(log, cuda::prototype_definition_marker, "wider.ptx'"));
}

// A function two inputs define: the log names it after multiple_definition_marker, and the
// inputs after it.
TEST(NvJitLinkLog, MultipleDefinitionsAreNamedAfterTheMarker) {
  const cuda::nvjitlink &linker = cuda::nvjitlink::get();
  if (!linker.available()) GTEST_SKIP() << linker.unavailable_reason();
  const std::string defines = R"(.version 7.8
.target sm_75
.address_size 64
.visible .func (.param .b32 result) bar_undefined(.param .b32 a) {
  .reg .b32 %r<2>;
  ld.param.b32 %r1, [a];
  st.param.b32 [result], %r1;
  ret;
}
)";
  const std::vector<cuda::link_input> inputs{{kernel::detail::link_format::ptx, "calls_bar", calls_undefined},
                                             {kernel::detail::link_format::ptx, "one.ptx", defines},
                                             {kernel::detail::link_format::ptx, "two.ptx", defines}};
  const std::string log = failed_link_log(inputs, "calls_bar", "two definitions of one function");
  EXPECT_TRUE(names_after(log, cuda::multiple_definition_marker, "bar_undefined' in 'two.ptx'"));
  EXPECT_TRUE(names_after(log, cuda::prototype_definition_marker, "one.ptx'"));
}

// A function the caller declares as a device function and an input defines as a kernel: the
// log names it between kernel_definition_start and kernel_definition_end.
TEST(NvJitLinkLog, KernelsCalledAsFunctionsAreNamedBetweenTheMarkers) {
  const cuda::nvjitlink &linker = cuda::nvjitlink::get();
  if (!linker.available()) GTEST_SKIP() << linker.unavailable_reason();
  const std::string defines_kernel = R"(.version 7.8
.target sm_75
.address_size 64
.visible .entry bar_undefined(.param .u64 p) {
  ret;
}
)";
  const std::vector<cuda::link_input> inputs{{kernel::detail::link_format::ptx, "calls_bar", calls_undefined},
                                             {kernel::detail::link_format::ptx, "kernel.ptx", defines_kernel}};
  const std::string log = failed_link_log(inputs, "calls_bar", "a call of a kernel");
  EXPECT_TRUE(
      names_after(log, cuda::kernel_definition_start, "bar_undefined" + std::string(cuda::kernel_definition_end)));
}

// A function one input calls and LTO-IR defines as a variable: the log names it after
// memory_space_marker (in this order of inputs; PTX defining it crashes nvJitLink, which the
// runtime refuses before linking).
TEST(NvJitLinkLog, VariablesCalledAsFunctionsAreNamedAfterTheMarker) {
  const cuda::nvjitlink &linker = cuda::nvjitlink::get();
  if (!linker.available()) GTEST_SKIP() << linker.unavailable_reason();
  std::string calls_twice = calls_undefined;
  for (std::size_t at; (at = calls_twice.find("bar_undefined")) != std::string::npos;)
    calls_twice.replace(at, 13, "twice");
  std::ifstream in("runtime/tests/testdata/twice_variable.ltoir", std::ios::binary);
  const std::string ltoir((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(ltoir.empty());
  const std::vector<cuda::link_input> inputs{{kernel::detail::link_format::ptx, "calls_twice", calls_twice},
                                             {kernel::detail::link_format::ltoir, "twice_variable.ltoir", ltoir}};
  const std::string lto = "-lto";
  const std::string log = failed_link_log(inputs, "calls_twice", "a call of a variable", std::span(&lto, 1));
  EXPECT_TRUE(names_after(log, cuda::memory_space_marker, "twice'"));
}

// The test's own standard error as a file while alive, to read what a capture passed on.
class standard_error_in_file {
public:
  standard_error_in_file() : file_(std::tmpfile()) {
    std::fflush(stderr);
    real_ = ::dup(2);
    if (file_ && real_ >= 0) ::dup2(::fileno(file_), 2);
  }
  ~standard_error_in_file() { (void)text(); }
  standard_error_in_file(const standard_error_in_file &) = delete;
  standard_error_in_file &operator=(const standard_error_in_file &) = delete;

  bool ready() const { return file_ != nullptr && real_ >= 0; }

  /// Puts the real standard error back; what was written meanwhile.
  std::string text() {
    std::string written;
    if (real_ >= 0) {
      std::fflush(stderr);
      ::dup2(real_, 2);
      ::close(real_);
      real_ = -1;
    }
    if (file_) {
      std::rewind(file_);
      char buffer[4096];
      for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, file_)) > 0;) written.append(buffer, n);
      std::fclose(file_);
      file_ = nullptr;
    }
    return written;
  }

private:
  std::FILE *file_;
  int real_ = -1;
};

TEST(StandardErrorCapture, TakesPrefixedLinesAndPassesTheRestOn) {
  standard_error_in_file standard_error;
  ASSERT_TRUE(standard_error.ready());
  std::vector<std::string> errors;
  {
    cuda::standard_error_capture capture{std::string(cuda::linker_error_prefix),
                                         {std::string(cuda::linker_error_start)}};
    // Tagged as this machine's nvJitLink prints them, and untagged as the H200 machine's did.
    std::fputs("ptxas info: kept\n@E@error   : first\nanother thread's text @E@error   : second\n"
               "error   : untagged\ntext error   : untagged too\n@E@third",
               stderr);
    errors = capture.finish();
    std::fputs("after the capture\n", stderr);
  }
  const std::string passed_on = standard_error.text();
  EXPECT_EQ(errors, (std::vector<std::string>{"error   : first", "error   : second", "error   : untagged",
                                              "error   : untagged too", "third"}));
  EXPECT_EQ(passed_on, "ptxas info: kept\nanother thread's text \ntext \nafter the capture\n");
}

// Another thread writing to standard error all the while: each write lands whole, none over
// another (a memory file's offset is not locked: a line of the other thread's could land on the
// linker's error, its prefix overwritten and the link let through), and every error is taken.
TEST(StandardErrorCapture, WritesOfOtherThreadsLandApart) {
  standard_error_in_file standard_error;
  ASSERT_TRUE(standard_error.ready());
  constexpr int errors_written = 2000;
  std::atomic<bool> stop{false};
  long lines = 0;
  std::vector<std::string> errors;
  {
    cuda::standard_error_capture capture{std::string(cuda::linker_error_prefix)};
    std::thread other([&] {
      while (!stop.load()) {
        const std::string line = "other thread " + std::to_string(lines++) + "\n";
        (void)!::write(2, line.data(), line.size());
      }
    });
    const std::string error = "@E@error   : Prototype doesn't match for 'f'\n";
    for (int i = 0; i < errors_written; ++i) (void)!::write(2, error.data(), error.size());
    // Stopped before the capture ends: a write under way as it ends may be lost (see the header).
    stop = true;
    other.join();
    errors = capture.finish();
  }
  const std::string passed_on = standard_error.text();
  EXPECT_EQ(errors.size(), static_cast<std::size_t>(errors_written));
  for (const std::string &e : errors) ASSERT_EQ(e, "error   : Prototype doesn't match for 'f'");
  // The other thread's lines, each whole and once, passed on.
  std::vector<long> seen;
  for (std::size_t begin = 0; begin < passed_on.size();) {
    const std::size_t end = passed_on.find('\n', begin);
    ASSERT_NE(end, std::string::npos);
    const std::string line = passed_on.substr(begin, end - begin);
    ASSERT_EQ(line.rfind("other thread ", 0), 0u) << line;
    seen.push_back(std::stol(line.substr(13)));
    begin = end + 1;
  }
  std::sort(seen.begin(), seen.end());
  ASSERT_EQ(seen.size(), static_cast<std::size_t>(lines));
  for (long i = 0; i < lines; ++i) ASSERT_EQ(seen[static_cast<std::size_t>(i)], i);
}

// Leaving the scope without finish() (an exception on the way) puts standard error back.
TEST(StandardErrorCapture, RestoresStandardErrorOnDestruction) {
  struct stat before{}, after{};
  ASSERT_EQ(::fstat(2, &before), 0);
  {
    cuda::standard_error_capture capture("@E@");
  }
  ASSERT_EQ(::fstat(2, &after), 0);
  EXPECT_TRUE(before.st_dev == after.st_dev && before.st_ino == after.st_ino) << "fd 2 is another file";
  // A second capture gets the lock the first released.
  cuda::standard_error_capture again("@E@");
  EXPECT_TRUE(again.finish().empty());
}

} // namespace
