// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Lazy expressions: what the type system rejects is reported at the user's line; what the
// library's templates reject (no loop for the composed types) is reported by the library with
// the chain of instantiations from the user's call; a function of an expression that cannot
// run on a GPU is reported at its line, with the fused expression that compiles it.
#include <kernel/kernel.h>
#include <utility>
#include <vector>

template <class T>
[[kernel::vectorize("float32(float32, float32)", "float64(float64, float64)")]]
T plus(T a, T b) {
  return a + b;
}
[[kernel::vectorize("int32(float32)")]] int bucket(float x) { return static_cast<int>(x); }

float checked(float x) {
  if (x < 0)
    throw 1; // expected-error {{GPU code cannot throw exceptions}}
  return x;
}

constexpr kernel::ufunc<plus<float>, plus<double>> vplus;
constexpr kernel::ufunc<bucket> vbucket;
constexpr kernel::ufunc<checked> vchecked; // not annotated: fine eagerly on the CPU

void dangling(const kernel::ndarray<float> &x) {
  // A const temporary can be neither moved into the expression nor safely referenced.
  (void)kernel::lazy(std::move(x)); // expected-error {{call to deleted function 'lazy'}}
}

void no_loop(const std::vector<double> &xd) {
  // plus picks its float64 loop for a float64 array; bucket has no loop for float64 values.
  auto e = vbucket(vplus(kernel::lazy(xd), 1.0));
  (void)e;
}
// expected-error@* {{no loop of this ufunc accepts these argument types}}
// The arguments' types and the loops', in the name of the template the library names for this:
// expected-error@*:* {{implicit instantiation of undefined template 'kernel::detail::no_loop_accepts<std::tuple<const kernel::array_view<const double> &>, int (*)(float)>'}}
// expected-note@*:* {{template is declared here}}

void assign_into_a_scalar(const std::vector<float> &x) {
  float total = 0;
  kernel::eval(kernel::assign(total, vplus(kernel::lazy(x), 1.0f)));
}
// The first error and the only one (the library's internals gave a page of others first).
// expected-error@*:* {{kernel::assign writes an expression into an array (an ndarray, array_view, std::vector or device_array), not into a scalar}}

void not_gpu_code(const kernel::ndarray<float> &x) {
  kernel::ndarray<float> out(x.shape());
  vchecked(vplus(kernel::lazy(x), 1.0f), out); // eager: a CPU loop; fused: also a GPU kernel
  auto eager = vchecked(x);                     // no GPU code needed, no error
  (void)eager;
}
// expected-note@* {{'checked' is compiled for the GPU as part of the fused expression 'checked(plus(float32}}

// Only the loops an expression runs are GPU code: bad_double, a loop of the same ufunc that
// the expression does not select, is not checked (no diagnostic expected for it).
float fine_float(float x) { return x; }
double bad_double(double x) {
  if (x < 0)
    throw 2;
  return x;
}
constexpr kernel::ufunc<fine_float, bad_double> vpick;

void unselected_loops(const kernel::ndarray<float> &x) {
  const auto t = vpick(kernel::lazy(x)); // the float32 loop
  kernel::ndarray<float> out(x.shape());
  vplus(t, t, out); // t twice: the shared program, whose keys name every loop of vpick
}

// Operands take only what they need of the kernel's parameter block: a chain of 64 calls with
// a scalar each fits; one reading 60 arrays does not, and says what to do.
template <int N, class E, class A> auto chain(const E &e, const A &operand) {
  if constexpr (N == 0)
    return e;
  else
    return chain<N - 1>(vplus(e, operand), operand);
}
void deep_chains(const kernel::ndarray<float> &x) {
  kernel::ndarray<float> out(x.shape());
  kernel::eval(kernel::assign(out, chain<64>(kernel::lazy(x), 1.0f)));
  kernel::eval(kernel::assign(out, chain<60>(kernel::lazy(x), x)));
}
// expected-error@* {{reads 4544 bytes of array addresses, strides and scalars, more than the 4352 bytes that a GPU kernel's parameters may take; evaluate part of it into an array first}}

// expected-note@* 0+ {{candidate}}
// expected-note@* 0+ {{in instantiation of}}
// expected-note@* 0+ {{requested here}}
// expected-note@* 0+ {{while substituting}}
// expected-note@* 0+ {{evaluates to}}
