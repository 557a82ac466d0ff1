// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Linking kernels with the user's CUDA-C device code, without a GPU: every input kind
// nvJitLink takes (and .cu through NVRTC) resolves the declared function in cubins for
// sm_75 and sm_90; each failure has its message; on the CPU targets and the simulator a
// declared function without a host implementation is reported, not run.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <numeric>
#include <optional>
#include <regex>
#include <string>

#include "cache/cubin_cache.h"
#include "cuda/module_builder.h"
#include "device_code/runtime_inputs.h"
#include "kernel/detail/device_code_files.h"
#include "kernel/inspect.h"
#include "kernel/kernel.h"
#include "registry/registry.h"
#include "test_device.h"

void double_all(kernel::array_view<int> values);
int twice_plus_one(int a);
void check_all(kernel::array_view<int> values);

namespace {

namespace fs = std::filesystem;
namespace cuda = kernel::runtime::cuda;
const std::string data = "runtime/tests/testdata/";

const kernel_module &module_of(const void *host_key) {
  auto k = kernel::runtime::registry::instance().find(host_key);
  if (!k) throw std::runtime_error("test kernels were compiled without the plugin");
  return *k->module;
}
const kernel_module &twice_module() {
  return module_of(reinterpret_cast<const void *>(&kernel::detail::jit_kernel<double_all>));
}

bool defines(const std::vector<char> &cubin, const std::string &symbol) {
  for (const std::string &s : cuda::cubin_symbols(cubin))
    if (s == symbol) return true;
  return false;
}

std::string link_message(int arch) {
  try {
    cuda::build_cubin(twice_module(), arch, kernel::runtime::cubin_cache{fs::path()}, 0, "'double_all'");
  } catch (const kernel::link_error &e) {
    return e.what();
  }
  return "(linked)";
}

class DeviceCode : public ::testing::Test {
protected:
  void SetUp() override { kernel::runtime::device_code::clear_runtime_inputs(); }
  void TearDown() override { kernel::runtime::device_code::clear_runtime_inputs(); }
};

TEST_F(DeviceCode, EveryInputKindResolvesTheFunction) {
  struct input {
    std::string file;
    std::vector<int> archs;
  };
  for (const input &in : std::vector<input>{{"twice.o", {75, 90}},
                                            {"libtwice.a", {75, 90}},
                                            {"twice.ptx", {75, 90}},
                                            {"twice.fatbin", {75, 90}},
                                            {"twice_lto.fatbin", {75, 90}},
                                            {"twice.ltoir", {90}},
                                            {"twice_sm75.cubin", {75}},
                                            {"twice.cu", {75, 90}}}) {
    kernel::runtime::device_code::clear_runtime_inputs();
    kernel::link_device_code(data + in.file);
    for (int arch : in.archs) {
      auto built = cuda::build_cubin(twice_module(), arch, kernel::runtime::cubin_cache{fs::path()}, 0, "'double_all'");
      EXPECT_TRUE(defines(built.cubin, "twice")) << in.file << " for sm_" << arch;
    }
  }
}

TEST_F(DeviceCode, MissingFunctionNamesKernelFunctionAndInputs) {
  EXPECT_EQ(link_message(90),
            "'double_all': the device function 'int twice(int)' (declared at calls_twice.cpp:6) is not defined in the "
            "device code linked with it (no device code was linked: name the file with [[kernel::link(...)]], "
            "-fplugin-arg-kernel-link, a cuda_device_library in device_deps, or kernel::link_device_code)");
  kernel::link_device_source("other.cu", "extern \"C\" __device__ int other(int a) { return a; }");
  kernel::link_device_code(data + "empty.ptx");
  EXPECT_EQ(link_message(90), "'double_all': the device function 'int twice(int)' (declared at calls_twice.cpp:6) is "
                              "not defined in the device code linked with it (searched: other.cu, " +
                                  data + "empty.ptx)");
}

// nvJitLink prints this on standard error (machine code) or puts it in its log (LTO-IR) and
// then succeeds: the kernel would read its argument from the wrong place. LTO-IR first: a link
// of machine code reporting the difference on the thread of an earlier LTO link crashed.
TEST_F(DeviceCode, DefinitionDifferingFromTheDeclaration) {
  for (const std::string file : {"twice_wide.ltoir", "twice_wide.cu", "libtwice_wide.a"}) {
    kernel::runtime::device_code::clear_runtime_inputs();
    kernel::link_device_code(data + file);
    const std::string message = link_message(90);
    EXPECT_EQ(message.rfind("'double_all': the device function 'int twice(int)' (declared at calls_twice.cpp:6) does "
                            "not match its definition",
                            0),
              0u)
        << file << ": " << message;
    EXPECT_NE(message.find("the number or the sizes of the parameters or of the result differ"), std::string::npos)
        << file << ": " << message;
  }
  kernel::runtime::device_code::clear_runtime_inputs();
  kernel::link_device_code(data + "libtwice_wide.a");
  EXPECT_EQ(link_message(90), "'double_all': the device function 'int twice(int)' (declared at calls_twice.cpp:6) "
                              "does not match its definition in '" +
                                  data +
                                  "libtwice_wide.a': the number or the sizes of the parameters or of the result "
                                  "differ, so a call would pass its arguments in the wrong places");
}

TEST_F(DeviceCode, CubinForAnotherArchitecture) {
  kernel::link_device_code(data + "twice_sm75.cubin");
  EXPECT_EQ(link_message(90), "'double_all': '" + data +
                                  "twice_sm75.cubin' is a cubin for sm_75, but the GPU is sm_90; link code for sm_90 "
                                  "instead (a cubin, an object or a fatbin built with -gencode "
                                  "arch=compute_90,code=sm_90, or PTX)");
}

// An object, library or fat binary with cubins for other GPUs only is named with what it
// holds (nvJitLink said "bad input"); one with PTX or LTO-IR of an older GPU links.
TEST_F(DeviceCode, CodeForOtherGpusOnly) {
  for (const std::string file : {"twice.o", "libtwice.a", "twice.fatbin"}) {
    kernel::runtime::device_code::clear_runtime_inputs();
    kernel::link_device_code(data + file);
    EXPECT_EQ(link_message(86), "'double_all': '" + data + file +
                                    "' has no device code for sm_86: it holds a cubin for sm_75 and a cubin for sm_90; "
                                    "build it for sm_86 too (-gencode arch=compute_86,code=sm_86), or with PTX, which "
                                    "the link compiles for newer GPUs (code=compute_75)");
    EXPECT_EQ(link_message(90), "(linked)") << file;
  }
  for (const std::string file : {"twice_plain.fatbin", "twice_lto.fatbin"}) {
    kernel::runtime::device_code::clear_runtime_inputs();
    kernel::link_device_code(data + file);
    EXPECT_EQ(link_message(86).find("has no device code"), std::string::npos) << file;
  }
}

// Two inputs defining the function are named, both of them (nvJitLink's message was lost
// behind a prototype check naming one).
TEST_F(DeviceCode, TwoDefinitionsAreNamed) {
  kernel::link_device_source("one.cu", "extern \"C\" __device__ int twice(int a) { return 2 * a; }");
  kernel::link_device_source("two.cu", "extern \"C\" __device__ int twice(int a) { return a + a; }");
  EXPECT_EQ(link_message(90), "'double_all': the device function 'int twice(int)' (declared at calls_twice.cpp:6) is "
                              "defined more than once in the device code linked (in 'one.cu' and in 'two.cu'); link "
                              "one definition of it");
}

TEST_F(DeviceCode, NvrtcErrorsNameTheSource) {
  kernel::link_device_source("broken.cu", "extern \"C\" __device__ int twice(int a) { return a +; }");
  const std::string message = link_message(90);
  EXPECT_EQ(message.rfind("NVRTC could not compile 'broken.cu' for compute_90 (NVRTC_ERROR_COMPILATION):\n", 0), 0u)
      << message;
  EXPECT_NE(message.find("expected an expression"), std::string::npos) << message;
}

TEST_F(DeviceCode, RunTimeFilesAreChecked) {
  try {
    kernel::link_device_code("no/such/file.o");
    FAIL();
  } catch (const kernel::link_error &e) {
    EXPECT_EQ(std::string(e.what()),
              "kernel::link_device_code: cannot read 'no/such/file.o': No such file or directory");
  }
  try {
    kernel::link_device_code(data + "twice.cu.txt");
    FAIL();
  } catch (const kernel::link_error &e) {
    EXPECT_EQ(std::string(e.what()), "kernel::link_device_code: '" + data +
                                         "twice.cu.txt' is not device code nvJitLink can link: expected a .o, .a, "
                                         ".ptx, .cubin, .fatbin, .ltoir or .cu file");
  }
  EXPECT_TRUE(kernel::linked_device_code().empty());
}

std::string file_bytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const fs::path &path, std::string_view bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

fs::path scratch_directory(const std::string &name) {
  const fs::path dir =
      fs::temp_directory_path() / ("kernel-device-code-test-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string link_code_message(const std::string &file) {
  try {
    kernel::link_device_code(file);
  } catch (const kernel::link_error &e) {
    return e.what();
  }
  return "(added)";
}

// nvJitLink trusts the sizes a binary states: a truncated cubin or object crashed it and a
// truncated fatbin made it spin. Each is refused when added, naming the file, and nothing is
// added; a whole file of each kind passes the same check.
TEST_F(DeviceCode, DamagedBinariesAreRefusedBeforeNvJitLinkReadsThem) {
  const fs::path dir = scratch_directory("damaged");
  for (const std::string file : {"twice.o", "libtwice.a", "twice.fatbin", "twice_lto.fatbin", "twice_sm75.cubin"}) {
    const std::string whole = file_bytes(data + file);
    ASSERT_GT(whole.size(), 200u) << file;
    const auto format = kernel::detail::link_format_for_extension(fs::path(file).extension().string())->format;
    EXPECT_EQ(kernel::detail::device_code_damage(format, whole), "") << file;
    std::vector<std::size_t> lengths = {0, 100, whole.size() / 2};
    if (!file.ends_with(".a")) lengths.push_back(whole.size() - 1); // an archive may end in a pad byte
    for (std::size_t length : lengths) {
      const fs::path cut = dir / file;
      write_file(cut, std::string_view(whole).substr(0, length));
      const std::string message = link_code_message(cut.string());
      EXPECT_EQ(message.rfind("kernel::link_device_code: '" + cut.string() + "' cannot be linked as ", 0), 0u)
          << file << " cut to " << length << " bytes: " << message;
    }
    // Garbage of the right size is no better.
    write_file(dir / file, std::string(whole.size(), 'x'));
    EXPECT_NE(link_code_message((dir / file).string()).find("cannot be linked as"), std::string::npos) << file;
  }
  EXPECT_TRUE(kernel::linked_device_code().empty());
  // Embedded in a module before this check existed, a damaged file is refused at the link.
  const std::string cubin = file_bytes(data + "twice_sm75.cubin");
  kernel_link_input damaged{"old.cubin", "cubin", "0", cubin.data(), cubin.size() / 2};
  kernel_module m = twice_module();
  m.link_inputs = &damaged;
  m.num_link_inputs = 1;
  try {
    cuda::build_cubin(m, 75, kernel::runtime::cubin_cache{fs::path()}, 0, "'double_all'");
    ADD_FAILURE() << "linked a truncated cubin";
  } catch (const kernel::link_error &e) {
    EXPECT_EQ(std::string(e.what()).rfind("'double_all': the device code 'old.cubin' cannot be linked as cubin: ", 0),
              0u)
        << e.what();
  }
  fs::remove_all(dir);
}

// PTX that is not text with its directives, and LTO-IR without NVVM's magic number, are refused
// when added, naming the file (they were taken, and the link said "bad input: does not match
// type NVJITLINK_INPUT_PTX"); PTX for a newer GPU than the link's is named so (ptxas said its
// .target was higher than the SM version assumed).
TEST_F(DeviceCode, TextAndIntermediateCodeAreCheckedWhenAdded) {
  const fs::path dir = scratch_directory("text");
  const std::string ptx = file_bytes(data + "twice.ptx"), ltoir = file_bytes(data + "twice.ltoir");
  EXPECT_EQ(kernel::detail::device_code_damage(kernel::detail::link_format::ptx, ptx), "");
  EXPECT_EQ(kernel::detail::device_code_damage(kernel::detail::link_format::ltoir, ltoir), "");
  const struct {
    std::string file, bytes, why;
  } refused[] = {
      {"empty.ptx", "", "it is empty"},
      {"blank.ptx", "\n  \n", "it is empty"},
      {"binary.ptx", file_bytes(data + "twice_sm75.cubin"), "it is not PTX text: it holds a NUL byte at offset"},
      {"prose.ptx", "// a comment that mentions .version 7.8 and .target sm_75\n", "it is empty"},
      {"words.ptx", "hello, .version 7.8\n.target sm_75\n", "it does not start with a .version directive"},
      {"untargeted.ptx", ".version 7.8\n.address_size 64\n",
       "its .version directive is not followed by a .target directive"},
      {"empty.ltoir", "", "it is empty"},
      {"ptx.ltoir", ptx, "it is not LTO-IR: it does not start with NVVM's 0x7F4E43ED"},
  };
  for (const auto &r : refused) {
    write_file(dir / r.file, r.bytes);
    const std::string message = link_code_message((dir / r.file).string());
    EXPECT_EQ(message.rfind("kernel::link_device_code: '" + (dir / r.file).string() + "' cannot be linked as ", 0), 0u)
        << r.file << ": " << message;
    EXPECT_NE(message.find(r.why), std::string::npos) << r.file << ": " << message;
  }
  EXPECT_TRUE(kernel::linked_device_code().empty());
  // Headers as PTX may write them: comments before or among the directives, a byte order mark,
  // CRLF or CR line ends, tabs, both on one line, a target with options.
  for (const std::string header : {"// made by hand\n/* two\nlines */ .version 7.8\n.target sm_75\n",
                                   "\xef\xbb\xbf.version 7.8\r\n.target sm_75\r\n", ".version 7.8\r.target sm_75\r",
                                   "\t.version\t7.8 .target sm_75, debug // comment\n"}) {
    EXPECT_EQ(kernel::detail::device_code_damage(kernel::detail::link_format::ptx, header + ".address_size 64\n"), "")
        << header;
    EXPECT_EQ(kernel::detail::device_code_files::ptx_target_arch(header), 75) << header;
  }
  // PTX written for sm_90 linked for sm_75.
  std::string newer = ptx;
  const std::size_t target = newer.find(".target sm_");
  ASSERT_NE(target, std::string::npos);
  newer.replace(target, newer.find('\n', target) - target, ".target sm_90");
  write_file(dir / "newer.ptx", newer);
  kernel::link_device_code((dir / "newer.ptx").string());
  EXPECT_EQ(link_message(75), "'double_all': '" + (dir / "newer.ptx").string() +
                                  "' is PTX for sm_90, newer than the GPU (sm_75), which the link cannot compile it "
                                  "for; make the PTX for sm_75 or an older GPU (nvcc -arch=compute_75 -ptx)");
  fs::remove_all(dir);
}

// A definition without extern "C" has its name mangled ("_Z5twicei"): the message says so,
// for CUDA-C and for PTX.
TEST_F(DeviceCode, DefinitionWithCxxLinkageIsPointedOut) {
  kernel::link_device_source("cxx.cu", "__device__ int twice(int a) { return 2 * a; }");
  EXPECT_EQ(link_message(90), "'double_all': the device function 'int twice(int)' (declared at calls_twice.cpp:6) is "
                              "not defined in the device code linked with it (searched: cxx.cu); 'cxx.cu' seems to "
                              "define 'twice' with C++ linkage, its name mangled: define it extern \"C\" there");
  // One file whose name holds a comma is one file; two are two.
  kernel::runtime::device_code::clear_runtime_inputs();
  kernel::link_device_source("a,b.cu", "__device__ int twice(int a) { return 2 * a; }");
  EXPECT_NE(link_message(90).find("; 'a,b.cu' seems to define 'twice'"), std::string::npos) << link_message(90);
  kernel::link_device_source("c.cu", "__device__ float twice(float a) { return a + a; }");
  EXPECT_NE(link_message(90).find("; 'a,b.cu', 'c.cu' seem to define 'twice'"), std::string::npos) << link_message(90);
  // PTX defining the mangled name; and PTX that only declares it, or CUDA-C that only calls a
  // function whose name ends in it, define nothing.
  const fs::path dir = scratch_directory("mangled");
  const std::string header = ".version 7.8\n.target sm_75\n.address_size 64\n";
  write_file(dir / "cxx.ptx", header + ".visible .func (.param .b32 func_retval0) _Z5twicei(\n"
                                       "\t.param .b32 _Z5twicei_param_0\n)\n{\n\t.reg .b32 %r<3>;\n"
                                       "\tld.param.u32 %r1, [_Z5twicei_param_0];\n\tshl.b32 %r2, %r1, 1;\n"
                                       "\tst.param.b32 [func_retval0], %r2;\n\tret;\n}\n");
  kernel::runtime::device_code::clear_runtime_inputs();
  kernel::link_device_code((dir / "cxx.ptx").string());
  const std::string from_ptx = link_message(90);
  EXPECT_NE(from_ptx.find("; '" + (dir / "cxx.ptx").string() + "' seems to define 'twice' with C++ linkage"),
            std::string::npos)
      << from_ptx;
  write_file(dir / "declares.ptx",
             header + ".extern .func (.param .b32 func_retval0) _Z5twicei(\n\t.param .b32 _Z5twicei_param_0\n);\n");
  kernel::runtime::device_code::clear_runtime_inputs();
  kernel::link_device_code((dir / "declares.ptx").string());
  kernel::link_device_source("calls.cu", "__device__ int thrice(int a) { return 3 * a; }  // unlike entwice(a)");
  const std::string unrelated = link_message(90);
  EXPECT_EQ(unrelated.find("C++ linkage"), std::string::npos) << unrelated;
  fs::remove_all(dir);
}

// A variable named as the function the kernel calls: nvJitLink crashes the process linking it
// (a segmentation fault, in every input kind), so it is refused before, naming the file.
TEST_F(DeviceCode, VariableNamedAsTheFunctionIsRefused) {
  const std::string expected = "' names 'twice' as a variable (__device__ or __constant__ data), but the kernel "
                               "calls it as the device function 'int twice(int)' (declared at calls_twice.cpp:6); "
                               "define it there as an extern \"C\" __device__ function, or give the variable another "
                               "name";
  // LTO-IR, which only nvJitLink reads, is linked alone to see its variables.
  for (const std::string file :
       {"twice_variable.o", "libtwice_variable.a", "twice_variable.ptx", "twice_variable.fatbin",
        "twice_variable_sm90.cubin", "twice_variable.ltoir", "twice_variable_lto.o"}) {
    kernel::runtime::device_code::clear_runtime_inputs();
    kernel::link_device_code(data + file);
    EXPECT_EQ(link_message(90), "'double_all': '" + data + file + expected) << file;
  }
  for (const char *source :
       {"extern \"C\" __device__ int twice = 3;", "extern \"C\" __constant__ int twice[2] = {1, 2};",
        "extern \"C\" __device__ int twice;\n"
        "extern \"C\" __device__ int thrice(int a) { return a * twice; }"}) {
    kernel::runtime::device_code::clear_runtime_inputs();
    kernel::link_device_source("variable.cu", source);
    EXPECT_EQ(link_message(90), "'double_all': 'variable.cu" + expected) << source;
  }
  // A variable of another name is no conflict: the function is missing.
  kernel::runtime::device_code::clear_runtime_inputs();
  kernel::link_device_source("uses.cu", "extern \"C\" __device__ int twice_count;\n"
                                        "extern \"C\" __device__ int twice(int a) { return a * 2 + twice_count; }");
  EXPECT_EQ(link_message(90).find("as a variable"), std::string::npos) << link_message(90);
}

// A function defined as a kernel: device code cannot call one.
TEST_F(DeviceCode, KernelNamedAsTheFunctionIsExplained) {
  kernel::link_device_source("kernel.cu", "extern \"C\" __global__ void twice(int *a) { *a *= 2; }");
  EXPECT_EQ(link_message(90), "'double_all': the device function 'int twice(int)' (declared at calls_twice.cpp:6) is "
                              "defined as a kernel (__global__) in the device code linked (in 'kernel.cu'), which "
                              "device code cannot call; define it there as an extern \"C\" __device__ function");
}

// nvJitLink indexes a cubin's tables without checking them: one byte changed in a symbol's
// section, a relocation's symbol or the prototypes' symbol crashed the process. Each is
// refused when added, also inside an uncompressed fat binary; a relocatable cubin with shared
// memory and uninitialised globals (sections with sizes and no bytes in the file) is whole.
namespace files = kernel::detail::device_code_files;

// An ELF file's sections: where each one's header is, and what it says.
std::vector<std::pair<std::uint64_t, files::elf_section>> sections_of(std::string_view elf) {
  std::uint64_t shoff = 0;
  std::uint16_t shentsize = 0, shnum = 0;
  files::read_at(elf, 0x28, shoff);
  files::read_at(elf, 0x3A, shentsize);
  files::read_at(elf, 0x3C, shnum);
  std::vector<std::pair<std::uint64_t, files::elf_section>> sections;
  for (std::uint16_t i = 0; i < shnum; ++i) {
    const std::uint64_t header = shoff + std::uint64_t{i} * shentsize;
    sections.emplace_back(header, files::elf_section_at(elf, header));
  }
  return sections;
}

TEST_F(DeviceCode, DamagedTablesAreRefused) {
  const fs::path dir = scratch_directory("tables");
  const std::string whole = file_bytes(data + "twice_sm75.cubin");
  // Where the first section of `type` is in the file (its header and its contents).
  const auto find = [&](std::uint32_t type) -> std::optional<std::pair<std::uint64_t, files::elf_section>> {
    for (const auto &section : sections_of(whole))
      if (section.second.type == type) return section;
    return std::nullopt;
  };
  const auto symbols = find(2), relocations = find(9), prototypes = find(0x70000002);
  ASSERT_TRUE(symbols && relocations && prototypes) << "nvcc's cubin has a symbol table, relocations and prototypes";
  const auto with = [&](std::uint64_t at, auto value) {
    std::string bytes = whole;
    std::memcpy(bytes.data() + at, &value, sizeof value);
    return bytes;
  };
  const std::vector<std::pair<std::string, std::string>> damaged = {
      {"entries of no size", with(symbols->first + 0x38, std::uint64_t{0})},
      {"a symbol in section 40000", with(symbols->second.offset + 24 + 6, std::uint16_t{40000})},
      // Reserved for processors, not for a cubin: nvJitLink took it as a section's.
      {"a symbol in section 0xff0d", with(symbols->second.offset + 24 + 6, std::uint16_t{0xff0d})},
      {"a section's name past the names", with(symbols->first, std::uint32_t{0xffffff})},
      {"a relocation of symbol 1000", with(relocations->second.offset + 8 + 4, std::uint32_t{1000})},
      {"the prototype of symbol 65296", with(prototypes->second.offset, std::uint32_t{65296})},
  };
  for (const auto &[what, bytes] : damaged) {
    write_file(dir / "twice.cubin", bytes);
    const std::string message = link_code_message((dir / "twice.cubin").string());
    EXPECT_NE(message.find("cannot be linked as cubin: its section "), std::string::npos) << what << ": " << message;
    EXPECT_NE(message.find("(the file is damaged)"), std::string::npos) << what << ": " << message;
  }
  // The same damage to the cubin in a fat binary.
  const std::string fatbin = file_bytes(data + "twice_plain.fatbin");
  const std::size_t cubin_at = fatbin.find("\x7f"
                                           "ELF");
  ASSERT_NE(cubin_at, std::string::npos) << "the fat binary's cubin is not compressed";
  std::string damaged_fatbin = fatbin;
  const std::string &bad_prototype = damaged.back().second;
  damaged_fatbin.replace(cubin_at + prototypes->second.offset, 4, bad_prototype, prototypes->second.offset, 4);
  EXPECT_EQ(kernel::detail::device_code_damage(kernel::detail::link_format::fatbin, fatbin), "");
  EXPECT_NE(kernel::detail::device_code_damage(kernel::detail::link_format::fatbin, damaged_fatbin)
                .find("its cubin at byte "),
            std::string::npos);
  EXPECT_TRUE(kernel::linked_device_code().empty());
  const std::string shared = file_bytes(data + "with_shared_sm75.cubin");
  bool shared_past_the_end = false, global_past_the_end = false; // what the exemptions are for
  for (const auto &[header, s] : sections_of(shared)) {
    shared_past_the_end |= s.type == 0x7000000a && s.offset + s.size > shared.size();
    global_past_the_end |= s.type == 0x70000007 && s.offset + s.size > shared.size();
  }
  ASSERT_TRUE(shared_past_the_end && global_past_the_end)
      << "the .nv.shared and .nv.global sections fit in the file: the checks are not exercised";
  EXPECT_EQ(kernel::detail::device_code_damage(kernel::detail::link_format::cubin, shared), "");
  fs::remove_all(dir);
}

// Beyond the tables' indices, what else one changed byte crashed nvJitLink with: a section
// aligned to no power of two (it divides by the alignment, and pads to it), no section-name
// table, a section of another kind than its name says, notes and .nv.info records that run
// past their section, a record or prototype or code section that names no function, a
// prototype numbered in the billions, a relocation or symbol of no kind a cubin has, a call
// graph's list marker with a caller.
TEST_F(DeviceCode, DamagedCubinLayoutIsRefused) {
  const fs::path dir = scratch_directory("layout");
  const std::string whole = file_bytes(data + "twice_sm75.cubin");
  const auto sections = sections_of(whole);
  const auto find = [&](auto &&is) -> std::pair<std::uint64_t, files::elf_section> {
    for (const auto &section : sections)
      if (is(section.second)) return section;
    ADD_FAILURE() << "nvcc's cubin has no such section";
    return sections.front();
  };
  const auto of_type = [](std::uint32_t type) { return [=](const files::elf_section &s) { return s.type == type; }; };
  const auto symbols = find(of_type(2)), relocations = find(of_type(9)), note = find(of_type(7)),
             info = find(of_type(0x70000000)), call_graph = find(of_type(0x70000001)),
             prototypes = find(of_type(0x70000002)),
             code = find([](const files::elf_section &s) { return s.type == 1 && (s.flags & 4) != 0; });
  const auto with = [&](std::uint64_t at, auto value) {
    std::string bytes = whole;
    std::memcpy(bytes.data() + at, &value, sizeof value);
    return bytes;
  };
  struct damage {
    std::string what, bytes, why;
  };
  const std::vector<damage> damaged = {
      {"no alignment", with(note.first + 0x30, std::uint64_t{0}), "'s alignment (0) is not a power of two"},
      {"an alignment of 0x7f000080", with(code.first + 0x30, std::uint64_t{0x7f000080}), "is not a power of two"},
      {"no section-name table", with(0x3E, std::uint16_t{0}), "it has no section-name table"},
      {"a note section of another kind", with(note.first + 4, std::uint32_t{1}), "is not of its kind"},
      {"a note past its section", with(note.second.offset + 4, std::uint32_t{0xffff}), "holds a note past its end"},
      {"an .nv.info record of format 0", with(info.second.offset, std::uint8_t{0}), "is not one"},
      {"an .nv.info record past its section", with(info.second.offset + 2, std::uint16_t{0x7f00}), "is not one"},
      {"registers of a section's symbol", with(info.second.offset + 4, std::uint32_t{1}), "not a function"},
      {"an .nv.info section of section 200", with(info.first + 0x2C, std::uint32_t{200}), "names section 200 of"},
      {"an .nv.info section of no symbol table", with(info.first + 0x28, std::uint32_t{1}),
       "is not linked to the symbol table"},
      {"the prototype of symbol 0", with(prototypes.second.offset, std::uint32_t{0}), "not a function"},
      {"prototype 0x7f000001", with(prototypes.second.offset + 4, std::uint32_t{0x7f000001}), "numbers a prototype"},
      {"a relocation of kind 0x7f000002", with(relocations.second.offset + 8, std::uint32_t{0x7f000002}),
       "which no cubin has"},
      {"code of a section's symbol", with(code.first + 0x2C, (code.second.info & 0xff000000u) | 1u),
       "not a function defined in it"},
      {"a symbol bound 15 of type 15", with(symbols.second.offset + 24 + 4, std::uint8_t{0xff}),
       "of no kind a cubin has"},
      {"a call graph of 0-byte entries", with(call_graph.first + 0x38, std::uint64_t{0}), "8-byte entries"},
      // nvcc's call graph: lists, each after a marker record (0, -1), (0, -2)...
      {"a call graph's marker with a caller", with(call_graph.second.offset + 8, std::uint32_t{1}),
       "is no list's start"},
      {"a call graph's marker twice", with(call_graph.second.offset + 8 + 4, std::uint32_t{0xffffffff}),
       "is no list's start"},
      {"a call graph's marker as a caller", with(call_graph.second.offset, std::uint32_t{0xffffffff}),
       "names symbol 4294967295 of"},
      {"a function past its section",
       with(symbols.second.offset + 24 * (code.second.info & 0xffffffu) + 8, std::uint64_t{0x7f000000}),
       "lies outside its section"},
      {"a section-name table from its second byte",
       with(sections[whole[0x3E]].first + 0x18, sections[whole[0x3E]].second.offset + 1),
       "section-name table is not one"},
      {"registers in format 3", with(info.second.offset, std::uint8_t{3}), "is of attribute 47 in format 3, not 4"},
  };
  for (const auto &[what, bytes, why] : damaged) {
    write_file(dir / "twice.cubin", bytes);
    const std::string message = link_code_message((dir / "twice.cubin").string());
    EXPECT_NE(message.find("cannot be linked as cubin: it"), std::string::npos) << what << ": " << message;
    EXPECT_NE(message.find(why), std::string::npos) << what << ": " << message;
    EXPECT_NE(message.find("(the file is damaged)"), std::string::npos) << what << ": " << message;
  }
  // 65280 sections or more are counted in section 0, which the checks do not read: refused,
  // saying so (not as damage).
  EXPECT_EQ(files::elf_damage(with(0x3C, std::uint16_t{0}))
                .rfind("it has 65280 sections or more, which these checks do not read", 0),
            0u);
  // A shared array's symbol holds its alignment, which a huge one made nvJitLink spin on.
  std::string shared = file_bytes(data + "with_shared_sm75.cubin");
  const auto shared_sections = sections_of(shared);
  bool aligned = false;
  for (const auto &[header, s] : shared_sections)
    for (std::uint64_t at = s.offset; s.type == 2 && at < s.offset + s.size; at += 24) {
      std::uint16_t in = 0;
      files::read_at(shared, at + 6, in);
      if (in == 0 || in >= shared_sections.size() || shared_sections[in].second.type != 0x7000000a) continue;
      std::string misaligned = shared;
      const std::uint64_t alignment = 0x7f000004;
      std::memcpy(misaligned.data() + at + 8, &alignment, sizeof alignment);
      EXPECT_NE(kernel::detail::device_code_damage(kernel::detail::link_format::cubin, misaligned)
                    .find("lies outside its section"),
                std::string::npos);
      aligned = true;
    }
  EXPECT_TRUE(aligned) << "with_shared_sm75.cubin has no symbol in shared memory";
  // Its kernel's parameter, whose index nvcc leaves 0.
  const std::size_t parameter = shared.find(std::string_view("\x04\x17\x0c\x00", 4));
  ASSERT_NE(parameter, std::string::npos) << "with_shared_sm75.cubin describes no kernel parameter";
  std::string indexed = shared;
  indexed[parameter + 7] = 0x7f;
  EXPECT_NE(kernel::detail::device_code_damage(kernel::detail::link_format::cubin, indexed)
                .find("describes a kernel parameter of index 2130706432"),
            std::string::npos);
  EXPECT_TRUE(kernel::linked_device_code().empty());
  fs::remove_all(dir);
}

// What those checks require, nvcc's cubins hold whatever else they have: globals, constants,
// shared memory aligned to 1 KiB, printf, indirect calls, recursion, a grid group; relocatable,
// with -G and -lineinfo, sm_75 to sm_120, alone and in fat binaries (the compressed ones'
// cubins are checked decompressed). Each is whole and links. So are the toolkit's own, in
// libcudadevrt.a (sm_75 to sm_121, hundreds of sections each).
TEST_F(DeviceCode, VariedCubinsAreWholeAndLink) {
  struct input {
    std::string file;
    std::vector<int> archs;
  };
  for (const input &in : std::vector<input>{{"varied_sm75.cubin", {75}},
                                            {"varied_debug_sm80.cubin", {80}},
                                            {"varied_lineinfo_sm90.cubin", {90}},
                                            {"varied_sm120.cubin", {120}},
                                            {"varied_plain.fatbin", {86, 100}},
                                            {"varied.fatbin", {75, 120}},
                                            {"varied_lz4.fatbin", {75, 120}}}) {
    const std::string bytes = file_bytes(data + in.file);
    const auto format = kernel::detail::link_format_for_extension(fs::path(in.file).extension().string())->format;
    EXPECT_EQ(kernel::detail::device_code_damage(format, bytes), "") << in.file;
    kernel::runtime::device_code::clear_runtime_inputs();
    kernel::link_device_code(data + in.file);
    for (int arch : in.archs) {
      try {
        auto built =
            cuda::build_cubin(twice_module(), arch, kernel::runtime::cubin_cache{fs::path()}, 0, "'double_all'");
        EXPECT_TRUE(defines(built.cubin, "twice")) << in.file << " for sm_" << arch;
      } catch (const kernel::link_error &e) {
        ADD_FAILURE() << in.file << " for sm_" << arch << ": " << e.what();
      }
    }
  }
  const std::string runtime_library = file_bytes("/usr/local/cuda/lib64/libcudadevrt.a");
  ASSERT_FALSE(runtime_library.empty()) << "the CUDA toolkit has no libcudadevrt.a";
  EXPECT_EQ(kernel::detail::device_code_damage(kernel::detail::link_format::library, runtime_library), "");
}

// `bytes` with `value` written at byte `at`.
template <class T> std::string with_value(std::string bytes, std::uint64_t at, T value) {
  std::memcpy(bytes.data() + at, &value, sizeof value);
  return bytes;
}

std::string fatbin_damage(const std::string &bytes) {
  return kernel::detail::device_code_damage(kernel::detail::link_format::fatbin, bytes);
}

// Every `step`th byte of the compressed stream at [from, to) of the fat binary `whole`, changed:
// refused as a stream that does not decompress, or as the damaged cubin it decompresses to,
// or it decompresses to a cubin the checks find whole (a change in its code's bytes, say).
// Both refusals are seen.
void expect_stream_damage_refused(const std::string &whole, std::uint64_t from, std::uint64_t to, std::uint64_t step) {
  std::size_t broken_streams = 0, damaged_cubins = 0;
  for (std::uint64_t at = from; at < to; at += step) {
    std::string bytes = whole;
    bytes[at] = static_cast<char>(bytes[at] ^ 0x5a);
    const std::string why = fatbin_damage(bytes);
    broken_streams += why.find("does not decompress to the") != std::string::npos;
    damaged_cubins += why.find("its cubin at byte") != std::string::npos;
  }
  EXPECT_GT(broken_streams, 0u);
  EXPECT_GT(damaged_cubins, 0u);
}

// nvcc compresses a fat binary's cubins (with zstd), and nvJitLink decompresses and reads them
// as trustingly as others: a changed byte in the compressed stream, or in the sizes its entry
// states, is refused when added.
TEST_F(DeviceCode, DamagedCompressedCubinsAreRefused) {
  if (!files::system_zstd()) GTEST_SKIP() << "no libzstd.so.1 here: compressed cubins go unchecked";
  const std::string whole = file_bytes(data + "varied.fatbin");
  // The first entry: its header at byte 16, its payload after the header.
  std::uint32_t header = 0, compressed = 0, magic = 0;
  files::read_at(whole, 16 + 4, header);
  files::read_at(whole, 16 + 16, compressed);
  files::read_at(whole, 16 + header, magic);
  ASSERT_EQ(magic, 0xFD2FB528u) << "nvcc did not compress varied.fatbin's cubins with zstd";
  EXPECT_NE(fatbin_damage(with_value(whole, 16 + 56, std::uint64_t{0x7f000000})).find("states sizes it does not have"),
            std::string::npos);
  EXPECT_NE(fatbin_damage(with_value(whole, 16 + 16, compressed + 0x10000)).find("states sizes it does not have"),
            std::string::npos);
  // The stream's frame states the size too, and the two must agree (nothing of a damaged size
  // is allocated).
  EXPECT_NE(fatbin_damage(with_value(whole, 16 + 56, std::uint64_t{100}))
                .find("states 100 bytes decompressed, and its stream another size"),
            std::string::npos);
  // (Past the frame's magic number.)
  expect_stream_damage_refused(whole, 16 + header + 4, 16 + header + compressed, 7);
}

// nvcc -compress-mode=speed compresses with LZ4 blocks, which the checks decode themselves (no
// library needed): the same damage is refused as in zstd's streams.
TEST_F(DeviceCode, DamagedLz4CubinsAreRefused) {
  const std::string whole = file_bytes(data + "varied_lz4.fatbin");
  std::uint32_t header = 0, compressed = 0, flags = 0;
  files::read_at(whole, 16 + 4, header);
  files::read_at(whole, 16 + 16, compressed);
  files::read_at(whole, 16 + 40, flags);
  ASSERT_EQ(flags & 0xA000u, 0x2000u) << "nvcc did not compress varied_lz4.fatbin's cubins with LZ4";
  EXPECT_NE(fatbin_damage(with_value(whole, 16 + 56, std::uint64_t{0x7f000000})).find("states sizes it does not have"),
            std::string::npos);
  EXPECT_NE(fatbin_damage(with_value(whole, 16 + 16, compressed + 0x10000)).find("states sizes it does not have"),
            std::string::npos);
  EXPECT_NE(fatbin_damage(with_value(whole, 16 + 56, std::uint64_t{100}))
                .find("does not decompress to the 100 bytes it states"),
            std::string::npos);
  expect_stream_damage_refused(whole, 16 + header, 16 + header + compressed, 5);
}

// The LZ4 decoder on blocks made by hand: literals, a match that overlaps what it writes, counts
// of 15 and more, and each way a block can lie (a match from before its start or of no
// distance, a count or literals past its end, a match past the size, a size it does not make).
// (A token is written as the character it is where a hex escape would run into the literals:
// '5' is 0x35, 3 literals and a match of 5 + 4; 'P' is 0x50, 5 literals.)
TEST_F(DeviceCode, Lz4BlocksDecodeExactly) {
  const auto decoded = [](std::string_view block, std::size_t size) -> std::optional<std::string> {
    std::string out(size, '\0');
    if (!files::lz4_block_decode(block, out.data(), size)) return std::nullopt;
    return out;
  };
  using namespace std::string_view_literals;
  // "abc", then 9 bytes from 3 back (overlapping: "abcabcabc"), then "!".
  EXPECT_EQ(decoded("5abc\x03\x00\x10!"sv, 13), "abcabcabcabc!");
  // A run: 1 literal, then 15 + 5 + 4 = 24 copies of it from 1 back.
  EXPECT_EQ(decoded("\x1fx\x01\x00\x05\x00"sv, 25), std::string(25, 'x'));
  // 15 + 255 + 2 = 272 literals.
  const std::string many(272, 'q');
  EXPECT_EQ(decoded("\xf0\xff\x02" + many, 272), many);
  EXPECT_FALSE(decoded("5abc\x04\x00\x10!"sv, 13));        // from before the start
  EXPECT_FALSE(decoded("5abc\x00\x00\x10!"sv, 13));        // no distance
  EXPECT_FALSE(decoded("5abc\x03"sv, 13));                 // the distance cut short
  EXPECT_FALSE(decoded("Pabc"sv, 5));                      // literals past its end
  EXPECT_FALSE(decoded("\xf0\xff"sv, 300));                // a count past its end
  EXPECT_FALSE(decoded("5abc\x03\x00\x10!"sv, 14));        // a size it does not make
  EXPECT_FALSE(decoded("5abc\x03\x00\x10!"sv, 12));        // more than the size
  EXPECT_FALSE(decoded("5abc\x03\x00\x10!"sv, 10));        // a match past the size
  EXPECT_FALSE(decoded("\xf0\xff\xff\xff\xff\x10"sv, 20)); // a count past the size
}

// A host program's code named as device code (a host compiler's object, a cc_library's
// archive, an x86-64 file named .cubin) is refused when added, saying so: nvJitLink would find
// no device code in it only on a GPU, at the first launch.
TEST_F(DeviceCode, HostCodeIsNotDeviceCode) {
  const fs::path dir = scratch_directory("host");
  const std::string host = file_bytes("/proc/self/exe");
  ASSERT_TRUE(host.starts_with("\x7f"
                               "ELF"));
  write_file(dir / "host.o", host);
  EXPECT_NE(link_code_message((dir / "host.o").string())
                .find("cannot be linked as object: it holds no device code: it is an object for x86-64 without nvcc's "
                      "fat binary"),
            std::string::npos)
      << link_code_message((dir / "host.o").string());
  write_file(dir / "host.cubin", host);
  EXPECT_NE(link_code_message((dir / "host.cubin").string())
                .find("cannot be linked as cubin: it is not a cubin: an ELF file for x86-64, not for a GPU"),
            std::string::npos)
      << link_code_message((dir / "host.cubin").string());
  // An archive of it, as ar writes one.
  std::string member_header = "host.o/";
  member_header.resize(48, ' ');
  std::string size = std::to_string(host.size());
  size.resize(10, ' ');
  std::string archive = "!<arch>\n" + member_header + size + "`\n" + host + (host.size() % 2 ? "\n" : "");
  write_file(dir / "libhost.a", archive);
  EXPECT_NE(link_code_message((dir / "libhost.a").string())
                .find("none of its objects holds device code: it is a library of objects for x86-64"),
            std::string::npos)
      << link_code_message((dir / "libhost.a").string());
  // With a device object beside it, the archive is device code.
  const std::string device = file_bytes(data + "twice.o");
  std::string device_size = std::to_string(device.size());
  device_size.resize(10, ' ');
  std::string twice_header = "twice.o/";
  twice_header.resize(48, ' ');
  archive += twice_header + device_size + "`\n" + device + (device.size() % 2 ? "\n" : "");
  EXPECT_EQ(kernel::detail::device_code_damage(kernel::detail::link_format::library, archive), "");
  EXPECT_TRUE(kernel::linked_device_code().empty());
  fs::remove_all(dir);
}

// A directory or a FIFO named as device code is an error, not an exception of the stream
// library or a read that blocks for ever.
TEST_F(DeviceCode, OnlyRegularFilesAreRead) {
  const fs::path dir = scratch_directory("irregular");
  fs::create_directory(dir / "code.ptx");
  EXPECT_EQ(link_code_message((dir / "code.ptx").string()),
            "kernel::link_device_code: cannot read '" + (dir / "code.ptx").string() + "': it is a directory");
  ASSERT_EQ(::mkfifo((dir / "pipe.ptx").c_str(), 0600), 0);
  EXPECT_EQ(link_code_message((dir / "pipe.ptx").string()),
            "kernel::link_device_code: cannot read '" + (dir / "pipe.ptx").string() + "': it is not a regular file");
  EXPECT_TRUE(kernel::linked_device_code().empty());
  fs::remove_all(dir);
}

// NVRTC would read a .cu file's quoted includes when the module is built, and the cache key
// held the file's own text: a header edited since ran the old code from the cache. The
// headers are read with the file, compiled as read and part of the key.
TEST_F(DeviceCode, QuotedIncludesOfSourcesAreReadWithThem) {
  const fs::path dir = scratch_directory("includes");
  fs::create_directories(dir / "inc" / "deeper");
  // Included under #if and #else, with a comment that goes on after the name, and again: the
  // copy under #else counts, once (#pragma once, even with a comment after it).
  write_file(dir / "twice.cu", "#if 0\n#include \"inc/body.h\"\n#else\n#include \"inc/body.h\" /* the body,\n"
                               "   over two lines */\n#endif\n#include \"inc/body.h\"\n"
                               "extern \"C\" __device__ int twice(int a) { return BODY; }\n");
  write_file(dir / "inc" / "body.h",
             "#pragma once // once\n#include \"deeper/../deeper/value.h\"\n#define BODY (2 * a + ADD)\n");
  // Headers that include each other, guarded: the inner include of the outer one is nothing.
  write_file(dir / "inc" / "deeper" / "value.h",
             "#ifndef VALUE_H\n#define VALUE_H\n#include \"other.h\"\n#define ADD OTHER\n#endif\n");
  write_file(dir / "inc" / "deeper" / "other.h", "#ifndef OTHER_H\n#define OTHER_H\n#include \"value.h\"\n"
                                                 "#define OTHER 0\n#endif\n");
  const kernel::runtime::cubin_cache cache(dir / "cache");
  kernel::link_device_code((dir / "twice.cu").string());
  const auto first = cuda::build_cubin(twice_module(), 90, cache, 0, "m");
  EXPECT_FALSE(first.from_cache);
  EXPECT_TRUE(defines(first.cubin, "twice"));
  // Edited after it was added: the added code keeps what was read.
  write_file(dir / "inc" / "deeper" / "other.h", "#define OTHER (a / 3 + 17)\n");
  EXPECT_TRUE(cuda::build_cubin(twice_module(), 90, cache, 0, "m").from_cache);
  // Added again: new code, a new key.
  kernel::runtime::device_code::clear_runtime_inputs();
  kernel::link_device_code((dir / "twice.cu").string());
  const auto second = cuda::build_cubin(twice_module(), 90, cache, 0, "m");
  EXPECT_FALSE(second.from_cache);
  EXPECT_NE(first.cubin, second.cubin);
  // NVRTC's messages name the header and its line.
  write_file(dir / "inc" / "deeper" / "other.h", "#define OTHER 0\n__device__ int broken = ;\n");
  kernel::runtime::device_code::clear_runtime_inputs();
  kernel::link_device_code((dir / "twice.cu").string());
  const std::string message = link_message(90);
  EXPECT_NE(message.find((dir / "inc" / "deeper" / "other.h").string() + "(2)"), std::string::npos) << message;
  // A header named through a macro is not read with the file, and NVRTC reads none from disk
  // when the module is built (where the key could not know of it): an error, not stale code.
  write_file(dir / "inc" / "deeper" / "other.h", "#define OTHER 0\n");
  write_file(dir / "macro.cu", "#define BODY_HEADER \"inc/body.h\"\n#include BODY_HEADER\n"
                               "extern \"C\" __device__ int twice(int a) { return BODY; }\n");
  kernel::runtime::device_code::clear_runtime_inputs();
  kernel::link_device_code((dir / "macro.cu").string());
  const std::string macro_message = link_message(90);
  EXPECT_NE(macro_message.find("could not open source file \"inc/body.h\""), std::string::npos) << macro_message;
  EXPECT_NE(macro_message.find("not through a macro"), std::string::npos) << macro_message;
  // Headers that include every one before them, guarded by #pragma once or by a macro: each
  // is written in once (written at every include, they came to 2^24 copies).
  for (int i = 0; i < 24; ++i) {
    std::string once = "#pragma once\n",
                guarded = "#ifndef G" + std::to_string(i) + "_H // guard\n#define G" + std::to_string(i) + "_H\n";
    for (int j = 0; j < i; ++j) {
      once += "#include \"h" + std::to_string(j) + ".h\"\n";
      guarded += "#include \"g" + std::to_string(j) + ".h\"\n";
    }
    once += "__device__ int h" + std::to_string(i) + "(int a) { return a + " + std::to_string(i) + "; }\n";
    guarded += "__device__ int g" + std::to_string(i) + "(int a) { return a - " + std::to_string(i) + "; }\n#endif\n";
    write_file(dir / ("h" + std::to_string(i) + ".h"), once);
    write_file(dir / ("g" + std::to_string(i) + ".h"), guarded);
  }
  // Not skipped: a header whose first include is under #if (not compiled), and one first
  // included from the #else of a macro test that looks like a guard.
  write_file(dir / "late.h", "#pragma once\n__device__ int late(int a) { return a; }\n");
  write_file(dir / "switch.h", "#ifndef NOT_A_GUARD\n#define NOT_A_GUARD\n#else\n#include \"other.h\"\n#endif\n");
  write_file(dir / "other.h", "#pragma once\n__device__ int other(int a) { return -a; }\n");
  write_file(dir / "diamond.cu",
             "#include \"h23.h\"\n#include \"g23.h\"\n#include \"h0.h\"\n"
             "#if 0\n#include \"late.h\"\n#endif\n#include \"late.h\"\n"
             "#include \"switch.h\"\n#include \"other.h\"\n"
             "extern \"C\" __device__ int twice(int a) { return g23(h23(a)) + late(a) + other(0); }\n");
  kernel::runtime::device_code::clear_runtime_inputs();
  kernel::link_device_code((dir / "diamond.cu").string());
  EXPECT_TRUE(defines(cuda::build_cubin(twice_module(), 90, cache, 0, "m").cubin, "twice"));
  // A chain of includes deeper than a compiler goes is an error, not a loop.
  for (int i = 0; i <= 201; ++i)
    write_file(dir / ("chain" + std::to_string(i) + ".h"), "#include \"chain" + std::to_string(i + 1) + ".h\"\n");
  write_file(dir / "chained.cu", "#include \"chain0.h\"\n");
  kernel::runtime::device_code::clear_runtime_inputs();
  EXPECT_NE(link_code_message((dir / "chained.cu").string()).find("quoted includes nest more than 200 deep"),
            std::string::npos);
  EXPECT_TRUE(kernel::linked_device_code().empty());
  fs::remove_all(dir);
}

TEST_F(DeviceCode, ArchitecturesBeforeSm75AreRefused) {
  for (int arch : {-5, 0, 50, 74}) {
    try {
      kernel::link_modules(arch);
      ADD_FAILURE() << arch;
    } catch (const kernel::argument_error &e) {
      EXPECT_EQ(std::string(e.what()).rfind("'kernel::link_modules': argument 1: is " + std::to_string(arch) +
                                                ": expected a GPU architecture as a number, sm_75 or newer",
                                            0),
                0u)
          << e.what();
    }
  }
}

TEST_F(DeviceCode, LinkedCodeIsPartOfTheCacheKey) {
  const fs::path dir = fs::temp_directory_path() / ("kernel-device-code-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const kernel::runtime::cubin_cache cache(dir);
  kernel::link_device_code(data + "twice.ptx");
  EXPECT_FALSE(cuda::build_cubin(twice_module(), 90, cache, 0, "m").from_cache);
  EXPECT_TRUE(cuda::build_cubin(twice_module(), 90, cache, 0, "m").from_cache);
  kernel::runtime::device_code::clear_runtime_inputs();
  kernel::link_device_code(data + "twice.o");
  EXPECT_FALSE(cuda::build_cubin(twice_module(), 90, cache, 0, "m").from_cache);
  fs::remove_all(dir);
}

TEST_F(DeviceCode, NumbaConventionCallsPassAResultSlot) {
  const kernel_module &m = module_of(reinterpret_cast<const void *>(&kernel::detail::jit_kernel<check_all>));
  ASSERT_EQ(m.num_externals, 1u);
  EXPECT_STREQ(m.externals[0].abi, "numba");
  EXPECT_STREQ(m.externals[0].signature, "int checked(int, int)");
  const std::string ptx(m.images[0].ptx, m.images[0].size);
  // int checked(int *result, int a, int b) as the CUDA-C code defines it, and the status slot.
  EXPECT_TRUE(std::regex_search(
      ptx,
      std::regex(
          R"(\.extern \.func\s+\(\.param \.b32 func_retval0\) checked\s*\(\s*\.param \.b64 checked_param_0,\s*\.param \.b32 checked_param_1,\s*\.param \.b32 checked_param_2\s*\))")))
      << ptx;
  EXPECT_NE(ptx.find(".visible .global .align 8 .u64 __kernel_device_status"), std::string::npos) << ptx;
  kernel::link_device_source("checked.cu", R"(extern "C" __device__ int checked(int *r, int a, int b) {
    *r = a * b; return a < 0; })");
  auto built = cuda::build_cubin(m, 90, kernel::runtime::cubin_cache{fs::path()}, 0, "'check_all'");
  EXPECT_TRUE(defines(built.cubin, "checked"));
  EXPECT_TRUE(defines(built.cubin, "__kernel_device_status"));
}

const char *missing_host =
    "'extern \"C\" int twice(int)' is CUDA-C device code (kernel::declare_device at calls_twice.cpp:6) and runs only "
    "on the cuda target; to run it on cpu, parallel or the simulator, define 'extern \"C\" int twice(int)' in a C++ "
    "source file of the program "
    "as its host implementation (with Bazel, in the target's srcs, or in a cc_library with alwayslink = True and "
    "linkstatic = True)";

TEST_F(DeviceCode, SimulatorReportsAMissingHostImplementation) {
  std::vector<int> values(64, 1);
  try {
    kernel::launch<double_all>(1, 64).on(kernel::device::simulator())(values);
    FAIL();
  } catch (const kernel::simulator_error &e) {
    EXPECT_EQ(std::string(e.what()),
              std::string("kernel 'double_all': thread (0,0,0) of block (0,0,0): ") + missing_host);
  }
  EXPECT_EQ(values, std::vector<int>(64, 1)); // nothing copied back from a failed launch
}

TEST_F(DeviceCode, CpuTargetsReportAMissingHostImplementation) {
  constexpr kernel::ufunc<twice_plus_one> f;
  std::vector<int> in(100, 3), out(100, 0);
  for (auto target : {kernel::target::cpu, kernel::target::parallel}) {
    try {
      f.on(target)(in, out);
      FAIL();
    } catch (const kernel::error &e) {
      EXPECT_EQ(std::string(e.what()), missing_host);
    }
  }
}

// On the GPU (KERNEL_TEST_DEVICE=cuda): the linked function runs, and a non-zero status
// from a Numba-convention function is raised on the host, leaving the host array as it was.
TEST_F(DeviceCode, OnTheGpu) {
  if (!kernel_test::on_gpu()) GTEST_SKIP() << "GPU part of the suite: run with KERNEL_TEST_DEVICE=cuda";
  kernel::link_device_code(data + "twice.cu"); // compiled by NVRTC for this GPU
  kernel::link_device_source("checked.cu", R"(extern "C" __device__ int checked(int *r, int a, int b) {
    *r = a * b; return a < 0 ? 7 : 0; })");
  const auto gpu = kernel::target::cuda;
  std::vector<int> values(1000);
  std::iota(values.begin(), values.end(), 0);
  kernel::launch<double_all>(4, 256).on(gpu)(values);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(values[i], 2 * i);

  std::vector<int> fine(1000, 2);
  kernel::launch<check_all>(4, 256).on(gpu)(fine);
  EXPECT_EQ(fine, std::vector<int>(1000, 6));
  std::vector<int> bad(1000, 2);
  bad[500] = -1;
  try {
    kernel::launch<check_all>(4, 256).on(gpu)(bad);
    FAIL() << "the status was not raised";
  } catch (const kernel::device_function_error &e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("'check_all' on " + kernel::device::cuda().name() +
                             ": the CUDA-C device function 'int checked(int, int)' (Numba convention, declared at ",
                         0),
              0u)
        << what;
    EXPECT_NE(what.find("calls_checked.cpp:5"), std::string::npos) << what;
    EXPECT_NE(what.find(") returned status 7"), std::string::npos) << what;
    EXPECT_EQ(e.function(), "int checked(int, int)");
    EXPECT_EQ(e.status(), 7);
  }
  EXPECT_EQ(bad[500], -1); // not copied back from the failed launch
  EXPECT_EQ(bad[0], 2);
  kernel::launch<check_all>(4, 256).on(gpu)(fine); // the status was cleared
  EXPECT_EQ(fine, std::vector<int>(1000, 18));
}

// On the GPU: launches of a Numba-convention kernel from several threads on their own streams
// each report their own status, never another launch's, and none is lost.
TEST_F(DeviceCode, ConcurrentStatusesBelongToTheirLaunch) {
  if (!kernel_test::on_gpu()) GTEST_SKIP() << "GPU part of the suite: run with KERNEL_TEST_DEVICE=cuda";
  kernel::link_device_source("checked.cu", R"(extern "C" __device__ int checked(int *r, int a, int b) {
    *r = a * b; return a < 0 ? 7 : 0; })");
  const kernel::device gpu = kernel::device::cuda();
  constexpr int threads = 8, rounds = 20;
  std::atomic<int> wrong{0}, raised{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      kernel::stream s(gpu);
      for (int r = 0; r < rounds; ++r) {
        const bool fails = (t + r) % 2 == 0;
        std::vector<int> values(4096, 1);
        if (fails) values[t * 100 + r] = -1;
        auto dv = kernel::to_device(values, s);
        try {
          kernel::launch<check_all>(16, 256, s)(dv);
          if (fails) ++wrong; // lost: another launch took its status
        } catch (const kernel::device_function_error &e) {
          ++raised;
          if (!fails || e.status() != 7) ++wrong; // another launch's status
        }
      }
    });
  for (auto &t : pool) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(raised.load(), threads * rounds / 2);
}

} // namespace
