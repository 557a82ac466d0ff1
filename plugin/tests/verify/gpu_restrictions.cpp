// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Code that cannot run on a GPU is reported at its line, with the calls that reached it.
#include <cstdio>
#include <cstdlib>
#include <kernel/kernel.h>
#include <stdexcept>
#include <typeinfo>

int counter;
thread_local int per_thread;
constexpr float table[] = {1, 2, 3};
const int computed_at_startup = std::rand();

float throws(float x) {
  if (x < 0)
    throw 1; // expected-error {{GPU code cannot throw exceptions}}
  return x;
}
// expected-note@+2 {{'throws' is called from 'a_throw' here}}
// expected-note@+1 {{'a_throw' is compiled for the GPU because of this kernel::vectorize attribute}}
[[kernel::vectorize]] float a_throw(float x) { return throws(x); }

// expected-note@+1 {{'a_try' is compiled for the GPU because of this kernel::device attribute}}
[[kernel::device]] float a_try(float x) {
  try { // expected-error {{GPU code cannot catch exceptions (try block)}}
    return x;
  } catch (...) {
    return 0;
  }
}

// A generic lambda is checked as instantiated, where its calls are resolved.
// expected-note@+1 {{'generic_lambda_throws' is compiled for the GPU because of this kernel::device attribute}}
[[kernel::device]] float generic_lambda_throws(float x) {
  auto f = [](auto y) {
    if (y < 0)
      throw 2; // expected-error {{GPU code cannot throw exceptions}}
    return y;
  };
  return f(x); // expected-note {{is called from 'generic_lambda_throws' here}}
}

struct Shape {
  virtual float area() const { return 0; }
};
struct Square final : Shape {
  float side = 1;
  float area() const override { return side * side; }
};
// expected-note@+1 {{'virtual_call' is compiled for the GPU because of this kernel::device attribute}}
[[kernel::device]] float virtual_call(const Shape &s) {
  return s.area(); // expected-error {{GPU code cannot make virtual calls; 'area' is called through the vtable}}
}
// A call the compiler resolves statically is fine.
[[kernel::device]] float final_call(const Square &s) { return s.area() + s.Shape::area(); }

// expected-note@+1 {{'polymorphic' is compiled for the GPU because of this kernel::vectorize attribute}}
[[kernel::vectorize]] float polymorphic(float x) {
  Square s; // expected-error {{GPU code cannot create objects of 'Square', a class with virtual functions}}
  return x;
}

// expected-note@+1 2 {{'rtti' is compiled for the GPU because of this kernel::device attribute}}
[[kernel::device]] bool rtti(const Shape &s) {
  return typeid(s) == typeid(Square); // expected-error 2 {{GPU code cannot use RTTI (typeid)}}
}
// expected-note@+1 {{'cast' is compiled for the GPU because of this kernel::device attribute}}
[[kernel::device]] bool cast(const Shape *s) {
  return dynamic_cast<const Square *>(s) != nullptr; // expected-error {{GPU code cannot use RTTI (dynamic_cast)}}
}

// expected-note@+1 {{'assembly' is compiled for the GPU because of this kernel::vectorize attribute}}
[[kernel::vectorize]] float assembly(float x) {
  asm volatile("" ::: "memory"); // expected-error {{GPU code cannot contain inline assembly}}
  return x;
}

// expected-note@+1 3 {{'globals' is compiled for the GPU because of this kernel::vectorize attribute}}
[[kernel::vectorize]] int globals(int i) {
  return counter                 // expected-error {{GPU code cannot access the non-constant global variable 'counter'; make it constexpr or pass its value as an argument}}
         + per_thread            // expected-error {{GPU code cannot access the thread-local variable 'per_thread'}}
         + computed_at_startup   // expected-error {{GPU code cannot access the non-constant global variable 'computed_at_startup'; make it constexpr or pass its value as an argument}}
         + int(table[i % 3])     // constexpr tables are fine
         + int(sizeof(counter)); // unevaluated: fine
}

// expected-note@+1 {{'static_local' is compiled for the GPU because of this kernel::vectorize attribute}}
[[kernel::vectorize]] int static_local(int i) {
  static int calls = 0; // expected-error {{GPU code cannot have the non-constant static variable 'calls'}}
  static constexpr int fixed = 3;
  return i + calls + fixed;
}

// expected-note@+1 {{'extended' is compiled for the GPU because of this kernel::vectorize attribute}}
[[kernel::vectorize]] double extended(double x) {
  long double wide = x; // expected-error {{GPU code cannot use 'long double' (no GPU has it); use double}}
  return double(wide * wide);
}

// expected-note@+1 {{'quad' is compiled for the GPU because of this kernel::vectorize attribute}}
[[kernel::vectorize]] double quad(double x) {
  __float128 q = x; // expected-error {{GPU code cannot use '__float128', a type only x86 CPUs have}}
  return double(q);
}

// expected-note@+1 {{'x86_builtin' is compiled for the GPU because of this kernel::device attribute}}
[[kernel::device]] unsigned long long x86_builtin() {
  return __builtin_ia32_rdtsc(); // expected-error {{GPU code cannot call '__builtin_ia32_rdtsc', a builtin only x86 CPUs have}}
}

// expected-note@+1 2 {{'heap' is compiled for the GPU because of this kernel::vectorize attribute}}
[[kernel::vectorize]] float heap(float x) {
  float *p = new float(x); // expected-error {{GPU code cannot allocate memory with 'new'}}
  float y = *p;
  delete p; // expected-error {{GPU code cannot free memory with 'delete'}}
  return y;
}

float twice(float x) { return 2 * x; }
// expected-note@+1 {{'indirect' is compiled for the GPU because of this kernel::vectorize attribute}}
[[kernel::vectorize]] float indirect(float x) {
  float (*f)(float) = x > 0 ? twice : twice;
  return f(x); // expected-error {{GPU code cannot make indirect calls (through a function pointer or std::function)}}
}

float defined_elsewhere(float x);
// expected-note@+1 {{'undefined' is compiled for the GPU because of this kernel::vectorize attribute}}
[[kernel::vectorize]] float undefined(float x) {
  return defined_elsewhere(x); // expected-error {{GPU code cannot call 'defined_elsewhere': its definition is not visible in this translation unit}}
}

// An extern template's instantiation: clang emits the body of an inline one only to inline
// it (with optimisation, which this test has not), of a noinline or out-of-line one never.
template <class T> inline T inline_tripled(T x) { return x * 3; }
extern template float inline_tripled<float>(float);
template <class T> [[gnu::noinline]] inline T noinline_tripled(T x) { return x * 3; }
extern template float noinline_tripled<float>(float);
template <class T> struct scaler {
  T scaled(T x) const { return x * 2; }
};
extern template struct scaler<float>;
// expected-note@+1 3 {{'uses_extern_templates' is compiled for the GPU because of this kernel::vectorize attribute}}
[[kernel::vectorize]] float uses_extern_templates(float x) {
  // expected-note@+1 {{an explicit instantiation declaration ('extern template') keeps the body out of this translation unit, and GPU code needs it here; instantiate it here without 'extern'}}
  return inline_tripled(x) + // expected-error {{GPU code cannot call 'inline_tripled<float>': its definition is not visible in this translation unit}}
         // expected-note@+1 {{an explicit instantiation declaration ('extern template') keeps the body out of this translation unit, and GPU code needs it here; instantiate it here without 'extern'}}
         noinline_tripled(x) + // expected-error {{GPU code cannot call 'noinline_tripled<float>': its definition is not visible in this translation unit}}
         // expected-note@+1 {{an explicit instantiation declaration ('extern template') keeps the body out of this translation unit, and GPU code needs it here; instantiate it here without 'extern'}}
         scaler<float>{}.scaled(x); // expected-error {{GPU code cannot call 'scaled': its definition is not visible in this translation unit}}
}

// expected-note@+1 2 {{'c_library' is compiled for the GPU because of this kernel::vectorize attribute}}
[[kernel::vectorize]] int c_library(int x) {
  if (x < 0)
    std::exit(x); // expected-error {{GPU code cannot call 'exit': the C library function has no GPU implementation}}
  return std::rand() + x; // expected-error {{GPU code cannot call 'rand': its definition is not visible in this translation unit}}
}

// Each problem is reported once, with the chain through which it was first reached.
float level2(float x) {
  return x + counter; // expected-error {{GPU code cannot access the non-constant global variable 'counter'; make it constexpr or pass its value as an argument}}
}
float level1(float x) { return level2(x); } // expected-note {{'level2' is called from 'level1' here}}
// expected-note@+2 {{'level1' is called from 'chain' here}}
// expected-note@+1 {{'chain' is compiled for the GPU because of this kernel::vectorize attribute}}
[[kernel::vectorize]] float chain(float x) { return level1(x); }
[[kernel::vectorize]] float chain_again(float x) { return level1(x) + 1; }

// In templates, the instantiation of each signature is checked.
template <class T>
T template_body(T x) {
  return x + T(counter); // expected-error {{GPU code cannot access the non-constant global variable 'counter'; make it constexpr or pass its value as an argument}}
}
// expected-note@+2 {{'template_body<float>' is called from 'from_template<float>' here}}
// expected-note@+1 {{'from_template<float>' is compiled for the GPU because of this kernel::vectorize attribute}}
template <class T> [[kernel::vectorize("float32(float32)")]] T from_template(T x) { return template_body(x); }

// Stack memory sized at run time, and builtins of every target that a GPU has no operation
// for (the backend used to stop with "Cannot select").
// expected-note@+1 3 {{'run_time_sizes' is compiled for the GPU because of this kernel::jit attribute}}
[[kernel::jit]] void run_time_sizes(kernel::array_view<int> out) {
  const unsigned n = (kernel::threadIdx.x & 7) + 1;
  int buffer[n]; // expected-error {{GPU code cannot have the variable-length array 'buffer' (its size is known only at run time); use kernel::local_array<T, N> with a constant size}}
  // expected-warning@-1 {{variable length arrays in C++ are a Clang extension}}
  // expected-note@-2 {{initializer of 'n' is not a constant expression}}
  // expected-note@-4 {{declared here}}
  buffer[0] = 1;
  int *more = static_cast<int *>(__builtin_alloca(n * sizeof(int))); // expected-error {{GPU code cannot call '__builtin_alloca': the GPU has no such operation}}
  out[0] = buffer[0] + more[0];
  out[1] = __builtin_thread_pointer() != nullptr; // expected-error {{GPU code cannot call '__builtin_thread_pointer': the GPU has no such operation}}
}

// A non-constant global reached through a constant: a pointer, a reference, a struct holding a
// pointer. The GPU would use a copy of its own that the host never sees.
int mutable_setting = 5;
int *const to_setting = &mutable_setting;
int &setting_ref = mutable_setting;
struct holds_pointer {
  int *p;
};
constexpr holds_pointer holder{&mutable_setting};
constexpr const float *to_table = table; // a constant reaching a constant: fine
// expected-note@+1 4 {{'through_constants' is compiled for the GPU because of this kernel::vectorize attribute}}
[[kernel::vectorize]] int through_constants(int a) {
  *holder.p = a; // expected-error {{GPU code cannot access the non-constant global variable 'mutable_setting' (reached through 'holder')}}
  return *to_setting + setting_ref + static_cast<int>(to_table[1]) + // expected-error {{GPU code cannot access the non-constant global variable 'mutable_setting' (reached through 'to_setting')}} expected-error {{GPU code cannot access the non-constant global variable 'mutable_setting' (reached through 'setting_ref')}}
         computed_at_startup; // expected-error {{GPU code cannot access the non-constant global variable 'computed_at_startup'}}
}

// Computed goto: the GPU copy and the simulator's copy of a function cannot share its label
// addresses (clang crashed now and then).
// expected-note@+1 {{'computed_goto' is compiled for the GPU because of this kernel::vectorize attribute}}
[[kernel::vectorize]] int computed_goto(int x) {
  void *targets[] = {&&even, &&odd}; // expected-error {{GPU code cannot jump to the address of a label (computed goto); use a switch}}
  goto *targets[x & 1];
even:
  return x;
odd:
  return -x;
}

// Atomics of sizes the GPU has no instructions for: a 16-byte struct became a call to
// __atomic_load that no GPU library defines, found only when linking on the GPU.
struct two_longs {
  long a, b;
};
struct three_bytes {
  char c[3];
};
// expected-note@+1 2 {{'odd_atomics' is compiled for the GPU because of this kernel::jit attribute}}
[[kernel::jit]] void odd_atomics(kernel::array_view<two_longs> wide, kernel::array_view<three_bytes> narrow,
                                 kernel::array_view<long> words) {
  two_longs w;
  __atomic_load(&wide[0], &w, __ATOMIC_RELAXED); // expected-error {{GPU atomic operations work on values of 1, 2, 4 or 8 bytes; this one is on 'two_longs', of 16 bytes}}
  three_bytes t;
  __atomic_load(&narrow[0], &t, __ATOMIC_RELAXED); // expected-error {{GPU atomic operations work on values of 1, 2, 4 or 8 bytes; this one is on 'three_bytes', of 3 bytes}}
  words[0] = __atomic_load_n(&words[1], __ATOMIC_RELAXED) + w.a + t.c[0]; // 8 bytes: fine
}

// Questions about the x86 CPU, and an instruction cache the GPU does not expose.
__attribute__((target_clones("avx2", "default"))) float per_cpu(float x) { return x * 2; }
// expected-note@+1 4 {{'asks_the_cpu' is compiled for the GPU because of this kernel::vectorize attribute}}
[[kernel::vectorize]] float asks_the_cpu(float x) {
  char code[4] = {};
  __builtin___clear_cache(code, code + 4); // expected-error {{GPU code cannot call '__builtin___clear_cache': the GPU has no such operation}}
  if (__builtin_cpu_supports("avx2")) // expected-error {{GPU code cannot call '__builtin_cpu_supports', a builtin only x86 CPUs have}}
    return x;
  if (__builtin_cpu_is("intel")) // expected-error {{GPU code cannot call '__builtin_cpu_is', a builtin only x86 CPUs have}}
    return -x;
  return per_cpu(x); // expected-error {{GPU code cannot call 'per_cpu': it has a version for each x86 CPU (target or target_clones attribute), chosen when the program starts}}
}

// A static data member named through an object is the global all the same, and a mutable
// member makes a constant object writable: the GPU's copies would drift from the host's.
struct with_static {
  static inline int level = 3;
};
struct with_mutable {
  int value;
  mutable int hits;
  int count() const { return ++hits; }
};
constexpr with_mutable counted{5, 0};
constexpr with_mutable counters[2] = {{1, 0}, {2, 0}};
// expected-note@+1 5 {{'through_objects' is compiled for the GPU because of this kernel::vectorize attribute}}
[[kernel::vectorize]] int through_objects(int x) {
  with_static s;
  const with_static *p = &s;
  counted.hits++;                // expected-error {{GPU code cannot access the non-constant global variable 'counted'; make it constexpr or pass its value as an argument}}
  counters[1].hits = x;          // expected-error {{GPU code cannot access the non-constant global variable 'counters'; make it constexpr or pass its value as an argument}}
  x += counted.count();          // expected-error {{GPU code cannot access the non-constant global variable 'counted'; make it constexpr or pass its value as an argument}}
  static constexpr with_mutable local{3, 0};
  x += counted.value + counters[0].value + local.value; // its other members are constants
  return x + s.level + p->level; // expected-error 2 {{GPU code cannot access the non-constant global variable 'level'; make it constexpr or pass its value as an argument}}
}

// Objects made without a constructor call (aggregates, brace-initialised temporaries) are
// destroyed in GPU code all the same.
int destroyed = 0;
struct counts_destruction {
  int v;
  ~counts_destruction() { destroyed++; } // expected-error {{GPU code cannot access the non-constant global variable 'destroyed'; make it constexpr or pass its value as an argument}}
};
struct counts_too {
  int v;
  ~counts_too() { destroyed--; } // expected-error {{GPU code cannot access the non-constant global variable 'destroyed'; make it constexpr or pass its value as an argument}}
};
// expected-note@+2 {{'~counts_destruction' is called from 'aggregate_destroyed' here}}
// expected-note@+1 {{'aggregate_destroyed' is compiled for the GPU because of this kernel::vectorize attribute}}
[[kernel::vectorize]] int aggregate_destroyed(int x) { counts_destruction a{x}; return a.v; }
// expected-note@+2 {{'~counts_too' is called from 'temporary_destroyed' here}}
// expected-note@+1 {{'temporary_destroyed' is compiled for the GPU because of this kernel::vectorize attribute}}
[[kernel::vectorize]] int temporary_destroyed(int x) { return counts_too{x}.v; }

// C's printf takes kernel::threadIdx.x (an object) as its bytes; printf found by
// argument-dependent lookup converts it.
// expected-note@+1 {{'prints_registers' is compiled for the GPU because of this kernel::jit attribute}}
[[kernel::jit]] void prints_registers(kernel::array_view<int> out) {
  // expected-warning@+2 {{format specifies type 'unsigned int'}}
  // expected-error@+1 {{argument 2 of 'printf' is an object of type 'const component<&__kernel_tid_x>', which '...' passes as its bytes, not as a number}}
  std::printf("%u\n", kernel::threadIdx.x);
  printf("%u %u\n", kernel::threadIdx.x, unsigned(kernel::blockIdx.y));
  std::printf("%u\n", unsigned(kernel::threadIdx.x));
}
