// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Functions whose C++ shape an attribute cannot use are reported at the attribute or the
// parameter, never inside the library's templates.
#include <cstdio>
#include <kernel/kernel.h>
#include <string>
#include <vector>

using kernel::array_view;

// expected-error@+1 {{kernel::jit kernels return void and write results through array arguments; 'returns_value' returns 'int'}}
[[kernel::jit]] int returns_value(array_view<int> a) { return a[0]; }

// expected-error@+1 {{kernel::jit cannot apply to the deleted function 'deleted'}}
[[kernel::jit]] void deleted(array_view<int> a) = delete;

// expected-error@+1 {{kernel::vectorize cannot apply to the consteval function 'at_compile_time': it runs only at compile time, so it has no code for any target}}
[[kernel::vectorize]] consteval float at_compile_time(float x) { return x; }

// A kernel whose arguments the GPU cannot take: ptxas refused them, and with them every kernel
// of the translation unit, only when a GPU first ran one.
struct large {
  double values[550];
};
// expected-error@+1 {{the arguments of 'too_large' take 4432 bytes, more than the 4352 bytes that a GPU kernel's parameters may take; pass large data in an array}}
[[kernel::jit]] void too_large(large l, array_view<double> out) { out[0] = l.values[0]; }

// expected-error@+1 {{kernel::vectorize functions take at least one argument, which the ufunc maps element by element; 'no_arguments' takes none}}
[[kernel::vectorize]] float no_arguments() { return 1; }

// expected-error@+1 {{kernel::vectorize functions return their result; 'returns_void' returns void (use kernel::guvectorize or kernel::jit to write results through arguments)}}
[[kernel::vectorize]] void returns_void(float) {}

// expected-error@+1 {{kernel::reduce cannot combine bool values ('both_true' returns bool); reduce integers instead}}
[[kernel::reduce]] bool both_true(bool a, bool b) { return a && b; }
// expected-error@+1 {{kernel::reduce cannot combine bool values (signature 'boolean(boolean, boolean)'); reduce integers instead}}
template <class T> [[kernel::reduce("bool_(bool_, bool_)")]] T all_true(T a, T b) { return a && b; }

// expected-error@+1 {{kernel::jit kernel arguments are copied to the GPU, so parameter 'out' of 'by_reference' cannot be the non-const reference 'array_view<int> &'; take it by value (an array_view to write through)}}
[[kernel::jit]] void by_reference(array_view<int> &out) { out[0] = 1; }
[[kernel::jit]] void by_const_reference(const array_view<int> &out) { out[0] = 1; }

// expected-error@+1 {{kernel::jit kernel arguments are copied to the GPU byte for byte, so parameter 'name' of 'takes_string' cannot have the type 'std::string' (aka 'basic_string<char>'), which is not trivially copyable; pass its data as an array_view}}
[[kernel::jit]] void takes_string(std::string name, array_view<int> out) { out[0] = int(name.size()); }
// expected-error@+1 {{kernel::jit kernel arguments are copied to the GPU byte for byte, so parameter 'v' of 'takes_vector' cannot have the type 'std::vector<int>', which is not trivially copyable; pass its data as an array_view}}
[[kernel::jit]] void takes_vector(const std::vector<int> &v, array_view<int> out) { out[0] = v[0]; }

// expected-error@+1 {{kernel::declare_device cannot declare the variadic function 'log_values': CUDA-C device functions take a fixed list of arguments}}
extern "C" [[kernel::declare_device]] int log_values(int count, ...);

int sum_all(int count, ...) { return count; }
// expected-note@+1 {{'calls_variadic' is compiled for the GPU because of this kernel::vectorize attribute}}
[[kernel::vectorize]] int calls_variadic(int x) {
  return sum_all(2, x, x); // expected-error {{GPU code cannot call the variadic function 'sum_all' (GPUs have no C variable argument lists)}}
}
// printf is variadic too, and lowered to the GPU's vprintf.
[[kernel::vectorize]] int prints(int x) {
  std::printf("%d\n", x);
  return x;
}

// expected-error@+1 {{kernel::vectorize cannot apply to 'main'}}
[[kernel::vectorize]] int main() { return 0; }
