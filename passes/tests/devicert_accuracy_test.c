// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/* The device runtime's complex functions (passes/devicert/devicert.c), compiled for the host,
 * against the C library's on a grid through both branch cuts, their points, zeros of both
 * signs, tiny and huge parts and infinities. devicert.c is written for x86-64's complex
 * calling convention, so on the host its functions replace the C library's in this program,
 * whose own are found behind them with dlsym(RTLD_NEXT). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>

typedef float float2 __attribute__((ext_vector_type(2)));
typedef double _Complex (*dfn)(double, double);
typedef float2 (*ffn)(float2);

/* devicert.c's assert reports through the CUDA driver's trap, which the host has not. */
void __assertfail(const char *m, const char *f, unsigned l, const char *fn, unsigned long c) {
  (void)m, (void)f, (void)l, (void)fn, (void)c;
}

// clang-format off
#define DEVICERT_FUNCTIONS(X) \
  X(ctan) X(ctanh) X(casin) X(cacos) X(catan) X(casinh) X(cacosh) X(catanh) \
  X(cexp) X(clog) X(csqrt) X(csin) X(ccos) X(csinh) X(ccosh)
#define DECLARE(name) double _Complex name(double, double); float2 name##f(float2);
DEVICERT_FUNCTIONS(DECLARE)
// clang-format on

static const double grid[] = {-INFINITY, -1e300,  -30,  -3,  -1.5,   -1,      -0.7, -0.2,
                              -1e-5,     -1e-200, -0.0, 0.0, 1e-200, 1e-5,    0.2,  0.7,
                              1,         1.5,     3,    30,  1e300,  INFINITY};
enum { grid_size = sizeof grid / sizeof *grid };
static int failures;

/* Whether (ar, ai) is within `tol` of (br, bi): infinities and NaNs where the reference has
 * them (an infinity of the same sign, but of either beside a NaN, where C99 leaves the sign
 * unspecified; a NaN of either), the finite parts within tol of the finite reference parts'
 * modulus. */
static int close_enough(double ar, double ai, double br, double bi, double tol) {
  const double a[2] = {ar, ai}, b[2] = {br, bi};
  double m = 0, e = 0;
  for (int k = 0; k < 2; ++k) {
    if (isnan(b[k])) {
      if (!isnan(a[k]))
        return 0;
    } else if (isinf(b[k])) {
      if (!isinf(a[k]) || (a[k] != b[k] && !isnan(b[1 - k])))
        return 0;
    } else {
      if (!isfinite(a[k]))
        return 0;
      m = hypot(m, b[k]);
      e = hypot(e, a[k] - b[k]);
    }
  }
  return e <= tol * (m > 1e-300 ? m : 1e-300);
}

static void check_d(const char *name, dfn ours) {
  dfn ref = (dfn)dlsym(RTLD_NEXT, name);
  for (int i = 0; i < grid_size; ++i)
    for (int j = 0; j < grid_size; ++j) {
      const double _Complex a = ours(grid[i], grid[j]), b = ref(grid[i], grid[j]);
      if (!close_enough(__real__ a, __imag__ a, __real__ b, __imag__ b, 4e-15) && failures++ < 40)
        printf("%s(%g, %g): ours (%.17g, %.17g), the C library's (%.17g, %.17g)\n", name, grid[i],
               grid[j], __real__ a, __imag__ a, __real__ b, __imag__ b);
    }
}

static void check_f(const char *name, ffn ours) {
  ffn ref = (ffn)dlsym(RTLD_NEXT, name);
  for (int i = 0; i < grid_size; ++i)
    for (int j = 0; j < grid_size; ++j) {
      const float2 z = {(float)grid[i], (float)grid[j]};
      const float2 a = ours(z), b = ref(z);
      if (!close_enough(a.x, a.y, b.x, b.y, 1e-6) && failures++ < 40)
        printf("%s(%g, %g): ours (%.9g, %.9g), the C library's (%.9g, %.9g)\n", name, z.x, z.y, a.x,
               a.y, b.x, b.y);
    }
}

int main(void) {
#define CHECK(name)                                                                                \
  check_d(#name, name);                                                                            \
  check_f(#name "f", name##f);
  DEVICERT_FUNCTIONS(CHECK)
  printf("%d differences\n", failures);
  return failures != 0;
}
