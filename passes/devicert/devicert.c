// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/* The device runtime: what host IR expects from compiler-rt and the C library that
 * libdevice does not provide, written for the NVPTX target and linked into GPU modules by
 * passes/LinkDeviceLibraries.cpp.
 *
 * Host IR was generated for x86-64, so these functions use its calling convention for
 * complex numbers: `float _Complex` travels as <2 x float>, `double _Complex` as two doubles
 * in and a {double, double} pair out. The math they call (expf, hypotf ...) is mapped to
 * libdevice like the user's own calls. */

typedef float float2 __attribute__((ext_vector_type(2)));

float fabsf(float);
double fabs(double);
float copysignf(float, float);
double copysign(double, double);
float hypotf(float, float);
double hypot(double, double);
float atan2f(float, float);
double atan2(double, double);
float expf(float);
double exp(double);
float logf(float);
double log(double);
float sqrtf(float);
double sqrt(double);
float sinf(float);
double sin(double);
float cosf(float);
double cos(double);
float sinhf(float);
double sinh(double);
float coshf(float);
double cosh(double);
float powf(float, float);
double pow(double, double);
double tan(double);
double log1p(double);
double asinh(double);

static int isinf_f(float x) { return __builtin_isinf(x); }
static int isnan_f(float x) { return __builtin_isnan(x); }
static int isinf_d(double x) { return __builtin_isinf(x); }
static int isnan_d(double x) { return __builtin_isnan(x); }

static float2 make_f(float re, float im) {
  float2 z;
  z.x = re;
  z.y = im;
  return z;
}

/* (a + ib) * (c + id) with C99 Annex G's recovery of infinities, as compiler-rt does. */
float2 __mulsc3(float a, float b, float c, float d) {
  float ac = a * c, bd = b * d, ad = a * d, bc = b * c;
  float re = ac - bd, im = ad + bc;
  if (isnan_f(re) && isnan_f(im)) {
    int recalc = 0;
    if (isinf_f(a) || isinf_f(b)) {
      a = copysignf(isinf_f(a) ? 1.0f : 0.0f, a);
      b = copysignf(isinf_f(b) ? 1.0f : 0.0f, b);
      if (isnan_f(c))
        c = copysignf(0.0f, c);
      if (isnan_f(d))
        d = copysignf(0.0f, d);
      recalc = 1;
    }
    if (isinf_f(c) || isinf_f(d)) {
      c = copysignf(isinf_f(c) ? 1.0f : 0.0f, c);
      d = copysignf(isinf_f(d) ? 1.0f : 0.0f, d);
      if (isnan_f(a))
        a = copysignf(0.0f, a);
      if (isnan_f(b))
        b = copysignf(0.0f, b);
      recalc = 1;
    }
    if (!recalc && (isinf_f(ac) || isinf_f(bd) || isinf_f(ad) || isinf_f(bc))) {
      if (isnan_f(a))
        a = copysignf(0.0f, a);
      if (isnan_f(b))
        b = copysignf(0.0f, b);
      if (isnan_f(c))
        c = copysignf(0.0f, c);
      if (isnan_f(d))
        d = copysignf(0.0f, d);
      recalc = 1;
    }
    if (recalc) {
      re = __builtin_inff() * (a * c - b * d);
      im = __builtin_inff() * (a * d + b * c);
    }
  }
  return make_f(re, im);
}

double _Complex __muldc3(double a, double b, double c, double d) {
  double ac = a * c, bd = b * d, ad = a * d, bc = b * c;
  double re = ac - bd, im = ad + bc;
  if (isnan_d(re) && isnan_d(im)) {
    int recalc = 0;
    if (isinf_d(a) || isinf_d(b)) {
      a = copysign(isinf_d(a) ? 1.0 : 0.0, a);
      b = copysign(isinf_d(b) ? 1.0 : 0.0, b);
      if (isnan_d(c))
        c = copysign(0.0, c);
      if (isnan_d(d))
        d = copysign(0.0, d);
      recalc = 1;
    }
    if (isinf_d(c) || isinf_d(d)) {
      c = copysign(isinf_d(c) ? 1.0 : 0.0, c);
      d = copysign(isinf_d(d) ? 1.0 : 0.0, d);
      if (isnan_d(a))
        a = copysign(0.0, a);
      if (isnan_d(b))
        b = copysign(0.0, b);
      recalc = 1;
    }
    if (!recalc && (isinf_d(ac) || isinf_d(bd) || isinf_d(ad) || isinf_d(bc))) {
      if (isnan_d(a))
        a = copysign(0.0, a);
      if (isnan_d(b))
        b = copysign(0.0, b);
      if (isnan_d(c))
        c = copysign(0.0, c);
      if (isnan_d(d))
        d = copysign(0.0, d);
      recalc = 1;
    }
    if (recalc) {
      re = __builtin_inf() * (a * c - b * d);
      im = __builtin_inf() * (a * d + b * c);
    }
  }
  double _Complex z;
  __real__ z = re;
  __imag__ z = im;
  return z;
}

/* (a + ib) / (c + id), scaling by a power of two to avoid overflow (Smith's method's
 * logb variant, as compiler-rt). */
float2 __divsc3(float a, float b, float c, float d) {
  int ilogbw = 0;
  float logbw = __builtin_logbf(__builtin_fmaxf(fabsf(c), fabsf(d)));
  if (__builtin_isfinite(logbw)) {
    ilogbw = (int)logbw;
    c = __builtin_scalbnf(c, -ilogbw);
    d = __builtin_scalbnf(d, -ilogbw);
  }
  float denom = c * c + d * d;
  float re = __builtin_scalbnf((a * c + b * d) / denom, -ilogbw);
  float im = __builtin_scalbnf((b * c - a * d) / denom, -ilogbw);
  if (isnan_f(re) && isnan_f(im)) {
    if (denom == 0.0f && (!isnan_f(a) || !isnan_f(b))) {
      re = copysignf(__builtin_inff(), c) * a;
      im = copysignf(__builtin_inff(), c) * b;
    } else if ((isinf_f(a) || isinf_f(b)) && __builtin_isfinite(c) && __builtin_isfinite(d)) {
      a = copysignf(isinf_f(a) ? 1.0f : 0.0f, a);
      b = copysignf(isinf_f(b) ? 1.0f : 0.0f, b);
      re = __builtin_inff() * (a * c + b * d);
      im = __builtin_inff() * (b * c - a * d);
    } else if (isinf_f(logbw) && logbw > 0.0f && __builtin_isfinite(a) && __builtin_isfinite(b)) {
      c = copysignf(isinf_f(c) ? 1.0f : 0.0f, c);
      d = copysignf(isinf_f(d) ? 1.0f : 0.0f, d);
      re = 0.0f * (a * c + b * d);
      im = 0.0f * (b * c - a * d);
    }
  }
  return make_f(re, im);
}

double _Complex __divdc3(double a, double b, double c, double d) {
  int ilogbw = 0;
  double logbw = __builtin_logb(__builtin_fmax(fabs(c), fabs(d)));
  if (__builtin_isfinite(logbw)) {
    ilogbw = (int)logbw;
    c = __builtin_scalbn(c, -ilogbw);
    d = __builtin_scalbn(d, -ilogbw);
  }
  double denom = c * c + d * d;
  double re = __builtin_scalbn((a * c + b * d) / denom, -ilogbw);
  double im = __builtin_scalbn((b * c - a * d) / denom, -ilogbw);
  if (isnan_d(re) && isnan_d(im)) {
    if (denom == 0.0 && (!isnan_d(a) || !isnan_d(b))) {
      re = copysign(__builtin_inf(), c) * a;
      im = copysign(__builtin_inf(), c) * b;
    } else if ((isinf_d(a) || isinf_d(b)) && __builtin_isfinite(c) && __builtin_isfinite(d)) {
      a = copysign(isinf_d(a) ? 1.0 : 0.0, a);
      b = copysign(isinf_d(b) ? 1.0 : 0.0, b);
      re = __builtin_inf() * (a * c + b * d);
      im = __builtin_inf() * (b * c - a * d);
    } else if (isinf_d(logbw) && logbw > 0.0 && __builtin_isfinite(a) && __builtin_isfinite(b)) {
      c = copysign(isinf_d(c) ? 1.0 : 0.0, c);
      d = copysign(isinf_d(d) ? 1.0 : 0.0, d);
      re = 0.0 * (a * c + b * d);
      im = 0.0 * (b * c - a * d);
    }
  }
  double _Complex z;
  __real__ z = re;
  __imag__ z = im;
  return z;
}

/* The C99 complex functions std::complex uses (libstdc++ calls __builtin_cabsf etc.). */
static double _Complex make_d(double re, double im) {
  double _Complex z;
  __real__ z = re;
  __imag__ z = im;
  return z;
}

float cabsf(float2 z) { return hypotf(z.x, z.y); }
double cabs(double re, double im) { return hypot(re, im); }
float cargf(float2 z) { return atan2f(z.y, z.x); }
double carg(double re, double im) { return atan2(im, re); }

float2 cexpf(float2 z) {
  float m = expf(z.x);
  return make_f(m * cosf(z.y), m * sinf(z.y));
}
double _Complex cexp(double re, double im) {
  double m = exp(re);
  return make_d(m * cos(im), m * sin(im));
}

/* log|z|, through log1p near |z| = 1, where log(hypot) keeps only the rounding of hypot. */
static double log_modulus(double re, double im) {
  const double h = hypot(re, im);
  if (h > 0.7 && h < 1.4)
    return 0.5 * log1p((re - 1.0) * (re + 1.0) + im * im);
  return log(h);
}
/* In double: near |z| = 1, hypotf rounds to 1 and the real part to 0 (log(1 + 1e-10)). */
float2 clogf(float2 z) { return make_f((float)log_modulus(z.x, z.y), atan2f(z.y, z.x)); }
double _Complex clog(double re, double im) { return make_d(log_modulus(re, im), atan2(im, re)); }

float2 csqrtf(float2 z) {
  if (z.x == 0.0f && z.y == 0.0f)
    return make_f(0.0f, z.y);
  float t = sqrtf((fabsf(z.x) + hypotf(z.x, z.y)) * 0.5f);
  if (z.x >= 0.0f)
    return make_f(t, z.y / (2.0f * t));
  return make_f(fabsf(z.y) / (2.0f * t), copysignf(t, z.y));
}
double _Complex csqrt(double re, double im) {
  if (re == 0.0 && im == 0.0)
    return make_d(0.0, im);
  double t = sqrt((fabs(re) + hypot(re, im)) * 0.5);
  if (re >= 0.0)
    return make_d(t, im / (2.0 * t));
  return make_d(fabs(im) / (2.0 * t), copysign(t, im));
}

float2 csinf(float2 z) { return make_f(sinf(z.x) * coshf(z.y), cosf(z.x) * sinhf(z.y)); }
double _Complex csin(double re, double im) {
  return make_d(sin(re) * cosh(im), cos(re) * sinh(im));
}
float2 ccosf(float2 z) { return make_f(cosf(z.x) * coshf(z.y), -sinf(z.x) * sinhf(z.y)); }
double _Complex ccos(double re, double im) {
  return make_d(cos(re) * cosh(im), -sin(re) * sinh(im));
}
float2 csinhf(float2 z) { return make_f(sinhf(z.x) * cosf(z.y), coshf(z.x) * sinf(z.y)); }
double _Complex csinh(double re, double im) {
  return make_d(sinh(re) * cos(im), cosh(re) * sin(im));
}
float2 ccoshf(float2 z) { return make_f(coshf(z.x) * cosf(z.y), sinhf(z.x) * sinf(z.y)); }
double _Complex ccosh(double re, double im) {
  return make_d(cosh(re) * cos(im), sinh(re) * sin(im));
}

float2 cpowf(float2 x, float2 y) {
  float2 l = clogf(x);
  float2 e = make_f(y.x * l.x - y.y * l.y, y.x * l.y + y.y * l.x);
  return cexpf(e);
}
double _Complex cpow(double xr, double xi, double yr, double yi) {
  double lr = log(hypot(xr, xi)), li = atan2(xi, xr);
  return cexp(yr * lr - yi * li, yr * li + yi * lr);
}

/* The rest of C99's complex functions, for std::tan, std::asinh ... of std::complex. Each is
 * computed in double (the float ones too) from the real functions libdevice has, with the
 * symmetries that keep the formulas away from cancellation, and C99's branch cuts. */
typedef struct {
  double re, im;
} cd;

static cd cd_make(double re, double im) {
  cd z = {re, im};
  return z;
}
static cd cd_of(double _Complex z) { return cd_make(__real__ z, __imag__ z); }
static double _Complex cd_out(cd z) { return make_d(z.re, z.im); }
static float2 cd_outf(cd z) { return make_f((float)z.re, (float)z.im); }
static cd cd_sqrt(cd z) { return cd_of(csqrt(z.re, z.im)); }
/* -i f(i z): the circular functions from the hyperbolic ones. */
static cd times_i(cd z) { return cd_make(-z.im, z.re); }
static cd times_minus_i(cd z) { return cd_make(z.im, -z.re); }

/* tanh(x + iy), as Kahan computes it: no overflow for large x, exact signs of zeros. */
static cd cd_tanh(cd z) {
  if (fabs(z.re) > 22.0) {
    const double e = exp(-2.0 * fabs(z.re));
    return cd_make(copysign(1.0, z.re), 4.0 * sin(z.im) * cos(z.im) * e);
  }
  const double t = tan(z.im), b = 1.0 + t * t, s = sinh(z.re), rho = sqrt(1.0 + s * s);
  const double d = 1.0 + b * s * s;
  return cd_make(b * rho * s / d, t / d);
}

/* asin(z) and acos(z) as Kahan gives them ("Branch cuts for complex elementary functions",
 * 1987), from s = sqrt(1 - z) and t = sqrt(1 + z): no cancellation near 0 or near +-1, no
 * overflow for large |z|, C99's cuts with the signs of zeros (1 - z negates z's parts, so a
 * zero keeps its sign). asinh(z) = -i asin(iz). */
static cd cd_asin(cd z) {
  const cd s = cd_sqrt(cd_make(1.0 - z.re, -z.im)), t = cd_sqrt(cd_make(1.0 + z.re, z.im));
  return cd_make(atan2(z.re, s.re * t.re - s.im * t.im), asinh(s.re * t.im - s.im * t.re));
}
static cd cd_acos(cd z) {
  const cd s = cd_sqrt(cd_make(1.0 - z.re, -z.im)), t = cd_sqrt(cd_make(1.0 + z.re, z.im));
  return cd_make(2.0 * atan2(s.re, t.re), asinh(t.re * s.im - t.im * s.re));
}
static cd cd_asinh(cd z) { return times_minus_i(cd_asin(times_i(z))); }

/* atanh(z) for re >= 0 (odd): the real part through log1p, the imaginary through atan2. */
static cd cd_atanh(cd z) {
  if (__builtin_signbit(z.re)) {
    cd w = cd_atanh(cd_make(-z.re, -z.im));
    return cd_make(-w.re, -w.im);
  }
  const double x = z.re, y = z.im, one_minus = 1.0 - x;
  const double re = 0.25 * log1p(4.0 * x / (one_minus * one_minus + y * y));
  const double im = 0.5 * atan2(2.0 * y, one_minus * (1.0 + x) - y * y);
  return cd_make(re, im);
}

/* acosh(z), Kahan's too, from s = sqrt(z - 1) and t = sqrt(z + 1): C99's cut along
 * (-inf, 1]. */
static cd cd_acosh(cd z) {
  const cd s = cd_sqrt(cd_make(z.re - 1.0, z.im)), t = cd_sqrt(cd_make(z.re + 1.0, z.im));
  return cd_make(asinh(s.re * t.re + s.im * t.im), 2.0 * atan2(s.im, t.re));
}

static cd cd_proj(cd z) {
  if (__builtin_isinf(z.re) || __builtin_isinf(z.im))
    return cd_make(__builtin_inf(), copysign(0.0, z.im));
  return z;
}

double _Complex ctanh(double re, double im) { return cd_out(cd_tanh(cd_make(re, im))); }
double _Complex ctan(double re, double im) {
  return cd_out(times_minus_i(cd_tanh(times_i(cd_make(re, im)))));
}
double _Complex casinh(double re, double im) { return cd_out(cd_asinh(cd_make(re, im))); }
double _Complex casin(double re, double im) { return cd_out(cd_asin(cd_make(re, im))); }
double _Complex cacos(double re, double im) { return cd_out(cd_acos(cd_make(re, im))); }
double _Complex cacosh(double re, double im) { return cd_out(cd_acosh(cd_make(re, im))); }
double _Complex catanh(double re, double im) { return cd_out(cd_atanh(cd_make(re, im))); }
double _Complex catan(double re, double im) {
  return cd_out(times_minus_i(cd_atanh(times_i(cd_make(re, im)))));
}
double _Complex cproj(double re, double im) { return cd_out(cd_proj(cd_make(re, im))); }

float2 ctanhf(float2 z) { return cd_outf(cd_tanh(cd_make(z.x, z.y))); }
float2 ctanf(float2 z) { return cd_outf(times_minus_i(cd_tanh(times_i(cd_make(z.x, z.y))))); }
float2 casinhf(float2 z) { return cd_outf(cd_asinh(cd_make(z.x, z.y))); }
float2 casinf(float2 z) { return cd_outf(cd_asin(cd_make(z.x, z.y))); }
float2 cacosf(float2 z) { return cd_outf(cd_acos(cd_make(z.x, z.y))); }
float2 cacoshf(float2 z) { return cd_outf(cd_acosh(cd_make(z.x, z.y))); }
float2 catanhf(float2 z) { return cd_outf(cd_atanh(cd_make(z.x, z.y))); }
float2 catanf(float2 z) { return cd_outf(times_minus_i(cd_atanh(times_i(cd_make(z.x, z.y))))); }
float2 cprojf(float2 z) {
  if (__builtin_isinf(z.x) || __builtin_isinf(z.y))
    return make_f(__builtin_inff(), copysignf(0.0f, z.y));
  return z;
}

/* assert(): report through the CUDA driver's assertion trap, which prints the message
 * with the failing block and thread and stops the kernel. */
void __assertfail(const char *message, const char *file, unsigned line, const char *function,
                  unsigned long char_size);
void __assert_fail(const char *assertion, const char *file, unsigned line, const char *function) {
  __assertfail(assertion, file, line, function, 1);
}
