// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// kernel::declare_device and kernel::link: what the plugin can see of the calling
// convention, bodies, and the files to link.
#include <kernel/kernel.h>

struct pair { int a, b; };

// Fine: the C ABI with scalars and pointers, and the Numba convention as kernels call it.
extern "C" [[kernel::declare_device]] int c_bar(int a, int b);
extern "C" [[kernel::declare_device("c")]] void c_fill(float *out, long n);
extern "C" [[kernel::declare_device("numba")]] double numba_bar(double a, int b);
[[kernel::declare_device]] int cxx_name(int a); // a C++ name matches nvcc's for the same declaration
extern "C" [[kernel::declare_device, kernel::link("inputs/bar.ptx")]] int linked(int a);

// expected-error@+1 {{kernel::declare_device takes the calling convention of the CUDA-C function: "c" (the default) or "numba"}}
extern "C" [[kernel::declare_device("fortran")]] int bad_abi(int a);

// expected-error@+1 {{kernel::declare_device takes the calling convention of the CUDA-C function: "c" (the default) or "numba"}}
extern "C" [[kernel::declare_device(numba)]] int ident_abi(int a);

// expected-error@+1 {{parameter 'p' of 'by_struct' has type 'pair', which CUDA-C device code cannot take with the C convention: use arithmetic types, enums and pointers}}
extern "C" [[kernel::declare_device]] int by_struct(pair p);

// expected-error@+1 {{parameter 'r' of 'by_ref' has type 'int &', which CUDA-C device code cannot take with the Numba convention: use arithmetic types, enums and pointers}}
extern "C" [[kernel::declare_device("numba")]] int by_ref(int &r);

// expected-error@+1 {{'wide' returns 'long double', which CUDA-C device code cannot return with the C convention: use void, an arithmetic type, an enum or a pointer}}
extern "C" [[kernel::declare_device]] long double wide(int a);

// expected-error@+1 {{with the Numba convention the CUDA-C function returns its value through its first argument; 'numba_void' returns void, so declare it with the C convention}}
extern "C" [[kernel::declare_device("numba")]] void numba_void(int a);

// expected-error@+1 {{with the Numba convention 'numba_cxx' must be declared extern "C": the CUDA-C function takes a result pointer first, so a C++ name would not match its symbol}}
[[kernel::declare_device("numba")]] int numba_cxx(int a);

// The CUDA-C definition's signature copied into C++, perhaps: a warning, as the same shape is
// also a valid declaration (a pointer to read through), and a link reports a copied one.
// expected-warning@+1 {{'copied' takes a pointer to its result type first, as the CUDA-C definition of a Numba-convention function does; if that is its result pointer, declare 'copied' as kernels call it, 'int copied(int, int)': the result pointer and the status are added by the compiler}}
extern "C" [[kernel::declare_device("numba")]] int copied(int *retval, int a, int b);
// A pointer to const is no result pointer.
extern "C" [[kernel::declare_device("numba")]] float load_const(const float *p, int i);

// expected-error@+1 {{kernel::declare_device declares a function that linked CUDA-C device code defines; 'file_local' has internal linkage (static, or in an unnamed namespace), so no other file can define it}}
[[kernel::declare_device]] static int file_local(int a);
static int static_first(int a);
// expected-error@+1 {{kernel::declare_device declares a function that linked CUDA-C device code defines; 'static_first' has internal linkage (static, or in an unnamed namespace), so no other file can define it}}
[[kernel::declare_device]] int static_first(int a);
namespace {
// expected-error@+1 {{kernel::declare_device declares a function that linked CUDA-C device code defines; 'unnamed_local' has internal linkage (static, or in an unnamed namespace), so no other file can define it}}
[[kernel::declare_device]] int unnamed_local(int a);
// C linkage is external even here.
extern "C" [[kernel::declare_device]] int unnamed_but_c(int a);
} // namespace

// expected-error@+1 {{kernel::declare_device declares one CUDA-C function; 'templated' cannot be a template}}
template <class T> [[kernel::declare_device]] T templated(T a);

struct holder {
  // expected-error@+1 {{kernel::declare_device declares a free function; 'member' is a member function}}
  [[kernel::declare_device]] static int member(int a);
};

// expected-error@+1 {{kernel::declare_device only applies to functions}}
[[kernel::declare_device]] int not_a_function;

extern "C" [[kernel::declare_device]] int with_body(int a);
// expected-error@+1 {{'with_body' is declared with kernel::declare_device, so its GPU code comes from linked CUDA-C device code and it cannot have a body here; a host implementation for the CPU targets and the simulator goes in another source file}}
extern "C" int with_body(int a) { return a; }

// expected-error@+1 {{cannot find the device code 'missing.o' to link (looked for '}}
extern "C" [[kernel::link("missing.o")]] int lost(int a);

// A file that is not what its extension says: at the attribute, not later without a line.
// expected-error@+1 {{cannot link the device code 'inputs/garbage.cubin' as cubin: it is not an ELF file}}
extern "C" [[kernel::link("inputs/garbage.cubin")]] int damaged(int a);

// A variable of the function's name, which nvJitLink crashes on: at the attribute, in either
// order of the attributes. The file's function of another name links, and so does a
// C++-linkage declaration of the variable's name (its symbol is mangled).
// expected-error@+1 {{the device code 'inputs/variable.ptx' names 'counter' as a variable (__device__ or __constant__ data), but 'counter' is declared here with kernel::declare_device as a device function; define it there as an extern "C" __device__ function, or give the variable another name}}
extern "C" [[kernel::declare_device, kernel::link("inputs/variable.ptx")]] int counter(int a);
extern "C" [[kernel::declare_device, kernel::link("inputs/variable.ptx")]] int count_up(int a);
// expected-error@+1 {{the device code 'inputs/variable.ptx' names 'limits' as a variable}}
extern "C" [[kernel::link("inputs/variable.ptx"), kernel::declare_device]] int limits(int a);
namespace cxx {
[[kernel::declare_device, kernel::link("inputs/variable.ptx")]] int counter(int a);
} // namespace cxx

// expected-error@+1 {{'bar.txt' is not device code nvJitLink can link: expected a .o, .a, .ptx, .cubin, .fatbin, .ltoir or .cu file}}
[[kernel::link("bar.txt")]] void wrong_kind();

// expected-error@+1 {{kernel::link arguments are paths of device code, such as "bar.o", as string literals}}
[[kernel::link(42)]] void not_a_path();

// A kernel may call the declared functions: they are not "undefined" to the GPU checks.
[[kernel::jit]] void uses(kernel::array_view<int> out, kernel::array_view<float> f) {
  const kernel::index_t i = kernel::grid<1>();
  if (i >= out.size()) return;
  out[i] = c_bar(out[i], 2) + cxx_name(1) + linked(3) + static_cast<int>(numba_bar(1.0, 2));
  c_fill(&f[0], 1);
}
