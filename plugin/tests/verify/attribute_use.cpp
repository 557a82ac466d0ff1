// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Where the kernel attributes may be written, and what their arguments must be.
#include <kernel/kernel.h>

constexpr const char *sig = "float32(float32)";

// expected-error@+1 {{kernel::vectorize arguments are signature strings such as "float32(float32, float32)"}}
[[kernel::vectorize(sig)]] float identifier_argument(float x) { return x; }

// expected-error@+1 {{kernel::vectorize arguments are signature strings such as "float32(float32, float32)"}}
[[kernel::vectorize(42)]] float number_argument(float x) { return x; }

// expected-error@+1 {{kernel::jit signatures must be ordinary (narrow) string literals}}
[[kernel::jit(L"void(float32[:])")]] void wide_string(kernel::array_view<float, 1> a) {}

// expected-error@+1 {{kernel::vectorize only applies to functions}}
[[kernel::vectorize]] int not_a_function;

// expected-error@+1 {{kernel::device only applies to functions}}
struct [[kernel::device]] NotAFunctionEither {};

struct Holder {
  // expected-error@+1 {{kernel::vectorize applies to free functions and static member functions, not to the non-static member function 'member'}}
  [[kernel::vectorize]] float member(float x) { return x; }
  [[kernel::vectorize]] static float static_member(float x) { return x; }
  [[kernel::device]] float device_member(float x) const { return x + scale; }
  float scale = 2;
};

// expected-error@+1 {{kernel::vectorize cannot apply to the variadic function 'variadic'}}
[[kernel::vectorize]] float variadic(float x, ...) { return x; }

template <class T> struct Box {
  // expected-error@+1 {{kernel::vectorize on a member of a class template is not supported; make it a function template with signatures}}
  [[kernel::vectorize]] static T twice(T x) { return x + x; }
};

// expected-error@+1 {{kernel::jit conflicts with the kernel::vectorize attribute already on 'both'}}
[[kernel::vectorize]] [[kernel::jit]] float both(float x) { return x; }

// Clang itself ignores attributes of other scopes.
// expected-warning@+1 {{unknown attribute 'vectorize' ignored}}
[[other::vectorize]] float other_scope(float x) { return x; }

// expected-warning@+1 {{unknown attribute 'jit' ignored; the kernel attributes are spelled [[kernel::jit]]}}
[[jit]] void no_scope() {}

// Redeclarations may repeat the attribute.
[[kernel::vectorize("float32(float32)")]] float declared_twice(float x);
[[kernel::vectorize("float32(float32)")]] float declared_twice(float x) { return x; }

// A bare attribute on a redeclaration repeats the first; so does none.
[[kernel::vectorize("float32(float32)")]] float declared_bare(float x);
[[kernel::vectorize]] float declared_bare(float x) { return x; }
float first_plain(float x);
[[kernel::vectorize("float32(float32)")]] float first_plain(float x);
[[kernel::vectorize("float32(float32)")]] float first_plain(float x) { return x; }

// A redeclaration cannot change the kind of a function, before or after its definition.
// expected-note@+1 {{the earlier kernel::vectorize attribute is here}}
[[kernel::vectorize("int32(int32)")]] int changed_kind(int x);
// expected-error@+1 {{kernel::device conflicts with the kernel::vectorize attribute already on 'changed_kind'}}
[[kernel::device]] int changed_kind(int x) { return x + 1; }
// expected-note@+1 {{the earlier kernel::reduce attribute is here}}
[[kernel::reduce]] int changed_after(int a, int b) { return a + b; }
// expected-error@+1 {{kernel::vectorize conflicts with the kernel::reduce attribute already on 'changed_after'}}
[[kernel::vectorize]] int changed_after(int a, int b);

// ...nor its signatures.
// expected-note@+1 {{the earlier kernel::vectorize attribute is here}}
template <class T> [[kernel::vectorize("float32(float32)")]] T changed_signatures(T x);
// expected-error@+2 {{kernel::vectorize on this declaration of 'changed_signatures' says 'float32(float32), float64(float64)', but an earlier declaration says 'float32(float32)'; write the attribute once, or repeat it exactly}}
template <class T>
[[kernel::vectorize("float32(float32)", "float64(float64)")]] T changed_signatures(T x) { return x; }
template <class T> [[kernel::vectorize("float32(float32)")]] T same_signatures(T x);
template <class T> [[kernel::vectorize("float32(float32)")]] T same_signatures(T x) { return x; }
