// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/* The device runtime's complex functions (passes/devicert/devicert.c), compiled for the host,
 * against the C library's on a grid through both branch cuts, their points and zeros of both
 * signs. devicert.c is written for x86-64's complex calling convention, so on the host its
 * functions replace the C library's in this program, whose own are found behind them with
 * dlsym(RTLD_NEXT). Errors are relative to the result's modulus. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
typedef float float2 __attribute__((ext_vector_type(2)));
typedef struct {
  double re, im;
} pair;
/* devicert.c's assert reports through the CUDA driver's trap, which the host has not. */
void __assertfail(const char *m, const char *f, unsigned l, const char *fn, unsigned long c) {
  (void)m, (void)f, (void)l, (void)fn, (void)c;
}
#define D(name) double _Complex name(double, double);
#define F(name) float2 name(float2);
D(ctan)
D(ctanh)
D(casin)
D(cacos)
D(catan)
D(casinh)
D(cacosh)
D(catanh)
D(cexp)
D(clog)
D(csqrt)
D(csin)
D(ccos)
D(csinh)
D(ccosh)
F(ctanf)
F(ctanhf)
F(casinf)
F(cacosf) F(catanf) F(casinhf) F(cacoshf) F(catanhf) F(cexpf) F(clogf) F(csqrtf) F(csinf) F(ccosf)
    F(csinhf) F(ccoshf) typedef double _Complex (*dfn)(double, double);
typedef float2 (*ffn)(float2);
static const double grid[] = {-30, -3,   -1.5, -1,  -0.7, -0.2, -1e-5, -0.0,
                              0.0, 1e-5, 0.2,  0.7, 1,    1.5,  3,     30};
static int failures;
static void check_d(const char *name, dfn ours) {
  dfn ref = (dfn)dlsym(RTLD_NEXT, name);
  double worst = 0;
  for (unsigned i = 0; i < sizeof grid / sizeof *grid; ++i)
    for (unsigned j = 0; j < sizeof grid / sizeof *grid; ++j) {
      double _Complex a = ours(grid[i], grid[j]), b = ref(grid[i], grid[j]);
      double m = hypot(__real__ b, __imag__ b);
      if (!isfinite(m))
        continue;
      double e =
          hypot(__real__ a - __real__ b, __imag__ a - __imag__ b) / (m > 1e-300 ? m : 1e-300);
      if (!(e <= 4e-15)) {
        if (failures++ < 30)
          printf("%s(%g, %g): ours (%.17g, %.17g) glibc (%.17g, %.17g)\n", name, grid[i], grid[j],
                 __real__ a, __imag__ a, __real__ b, __imag__ b);
      }
      if (e > worst)
        worst = e;
    }
  printf("%-8s worst %.3g\n", name, worst);
}
static void check_f(const char *name, ffn ours) {
  ffn ref = (ffn)dlsym(RTLD_NEXT, name);
  double worst = 0;
  for (unsigned i = 0; i < sizeof grid / sizeof *grid; ++i)
    for (unsigned j = 0; j < sizeof grid / sizeof *grid; ++j) {
      float2 z = {(float)grid[i], (float)grid[j]};
      float2 a = ours(z), b = ref(z);
      double m = hypot(b.x, b.y);
      if (!isfinite(m))
        continue;
      double e = hypot((double)a.x - b.x, (double)a.y - b.y) / (m > 1e-30 ? m : 1e-30);
      if (!(e <= 1e-6)) {
        if (failures++ < 30)
          printf("%s(%g, %g): ours (%.9g, %.9g) glibc (%.9g, %.9g)\n", name, z.x, z.y, a.x, a.y,
                 b.x, b.y);
      }
      if (e > worst)
        worst = e;
    }
  printf("%-8s worst %.3g\n", name, worst);
}
int main(void) {
#define CD(n) check_d(#n, n);
#define CF(n) check_f(#n, n);
  CD(ctan)
  CD(ctanh)
  CD(casin)
  CD(cacos)
  CD(catan)
  CD(casinh)
  CD(cacosh)
  CD(catanh)
  CD(cexp)
  CD(clog)
  CD(csqrt)
  CD(csin)
  CD(ccos)
  CD(csinh)
  CD(ccosh)
  CF(ctanf)
  CF(ctanhf)
  CF(casinf)
  CF(cacosf) CF(catanf) CF(casinhf) CF(cacoshf) CF(catanhf) CF(cexpf) CF(clogf) CF(csqrtf) CF(csinf)
      CF(ccosf) CF(csinhf) CF(ccoshf) printf("%d failures\n", failures);
  return failures != 0;
}
