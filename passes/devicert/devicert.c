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

/* exp, sin, cos, sinh, cosh: below, with the rest of the complex functions. */

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

double _Complex csqrt(double re, double im) {
  if (re == 0.0 && im == 0.0)
    return make_d(0.0, im);
  if (__builtin_isinf(im)) /* C99: +inf + i im, whatever re is */
    return make_d(__builtin_inf(), im);
  if (__builtin_isinf(re)) /* C99: +inf + i0 for +inf, 0 + i inf for -inf (signs of im) */
    return re > 0 ? make_d(re, copysign(0.0, im)) : make_d(0.0, copysign(-re, im));
  /* Above 1e300, |re| + hypot would overflow: a quarter of z, and twice its root. */
  if (fabs(re) > 1e300 || fabs(im) > 1e300) {
    double _Complex r = csqrt(re * 0.25, im * 0.25);
    return make_d(2.0 * __real__ r, 2.0 * __imag__ r);
  }
  double t = sqrt((fabs(re) + hypot(re, im)) * 0.5);
  if (re >= 0.0)
    return make_d(t, im / (2.0 * t));
  return make_d(fabs(im) / (2.0 * t), copysign(t, im));
}
/* In double: no overflow or underflow of the float's own range on the way. */
float2 csqrtf(float2 z) {
  double _Complex r = csqrt(z.x, z.y);
  return make_f((float)__real__ r, (float)__imag__ r);
}

float2 cexpf(float2 z);
double _Complex cexp(double re, double im);
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
  if (!__builtin_isfinite(z.im) && !__builtin_isinf(z.re)) /* C99: NaN, but +-0 + i NaN at x = 0 */
    return cd_make(z.re == 0.0 ? z.re : __builtin_nan(""), __builtin_nan(""));
  if (fabs(z.re) > 22.0) {
    const double e = exp(-2.0 * fabs(z.re));
    /* C99: tanh(+-inf + i y) = +-1 + i0 (sign of sin 2y), also for an infinite y. */
    const double im =
        __builtin_isfinite(z.im) ? 4.0 * sin(z.im) * cos(z.im) * e : copysign(0.0, z.im);
    return cd_make(copysign(1.0, z.re), im);
  }
  const double t = tan(z.im), b = 1.0 + t * t, s = sinh(z.re), rho = sqrt(1.0 + s * s);
  const double d = 1.0 + b * s * s;
  return cd_make(b * rho * s / d, t / d);
}

static const double ln2 = 0.69314718055994530942;
/* Past this |re| or |im|, z^2 would overflow, and asinh z = log 2z to the last bit (the next
 * term is 1/(4 z^2)): also the infinities' results. */
static int huge(cd z) { return fabs(z.re) > 1e150 || fabs(z.im) > 1e150; }
static cd log_of_twice(cd z) { return cd_make(log(hypot(z.re, z.im)) + ln2, atan2(z.im, z.re)); }

/* asinh(z), odd: for re >= 0, log 2z when |z| is huge, else -i asin(iz) by Kahan's formula. */
static cd cd_asin_kahan(cd z);
static cd cd_asinh(cd z) {
  if (__builtin_signbit(z.re)) {
    const cd w = cd_asinh(cd_make(-z.re, -z.im));
    return cd_make(-w.re, -w.im);
  }
  if (huge(z))
    return log_of_twice(z);
  return times_minus_i(cd_asin_kahan(times_i(z)));
}

/* asin(z) and acos(z) as Kahan gives them ("Branch cuts for complex elementary functions",
 * 1987), from s = sqrt(1 - z) and t = sqrt(1 + z): no cancellation near 0 or near +-1, C99's
 * cuts with the signs of zeros (1 - z negates z's parts, so a zero keeps its sign); through
 * asinh where |z| is huge. */
static cd cd_asin_kahan(cd z) {
  const cd s = cd_sqrt(cd_make(1.0 - z.re, -z.im)), t = cd_sqrt(cd_make(1.0 + z.re, z.im));
  return cd_make(atan2(z.re, s.re * t.re - s.im * t.im), asinh(s.re * t.im - s.im * t.re));
}
static cd cd_asin(cd z) { return huge(z) ? times_minus_i(cd_asinh(times_i(z))) : cd_asin_kahan(z); }
static cd cd_acos(cd z) {
  if (huge(z)) {
    const cd a = cd_asin(z);
    return cd_make(1.57079632679489661923 - a.re, -a.im);
  }
  const cd s = cd_sqrt(cd_make(1.0 - z.re, -z.im)), t = cd_sqrt(cd_make(1.0 + z.re, z.im));
  return cd_make(2.0 * atan2(s.re, t.re), asinh(t.re * s.im - t.im * s.re));
}

/* atanh(z) for re >= 0 (odd): the real part through log1p, or through the logarithm of the
 * distance to 1 where that distance squared would underflow; the imaginary part through
 * atan2 of halved arguments, which do not overflow for a large |y|. */
static cd cd_atanh(cd z) {
  if (__builtin_signbit(z.re)) {
    const cd w = cd_atanh(cd_make(-z.re, -z.im));
    return cd_make(-w.re, -w.im);
  }
  const double x = z.re, y = z.im, one_minus = 1.0 - x;
  if (__builtin_isinf(x) || __builtin_isinf(y)) /* C99: +0 + i pi/2 (sign of y) */
    return cd_make(0.0, copysign(1.57079632679489661923, y));
  const double d = one_minus * one_minus + y * y;
  const double re =
      d < 1e-280 ? 0.25 * log(4.0 * x) - 0.5 * log(hypot(one_minus, y)) : 0.25 * log1p(4.0 * x / d);
  const double im = 0.5 * atan2(y, 0.5 * (one_minus * (1.0 + x) - y * y));
  return cd_make(re, im);
}

/* acosh(z), Kahan's too, from s = sqrt(z - 1) and t = sqrt(z + 1): C99's cut along
 * (-inf, 1]; log 2z where |z| is huge. */
static cd cd_acosh(cd z) {
  if (huge(z)) {
    const cd l = log_of_twice(z);
    return cd_make(l.re, l.im);
  }
  const cd s = cd_sqrt(cd_make(z.re - 1.0, z.im)), t = cd_sqrt(cd_make(z.re + 1.0, z.im));
  return cd_make(asinh(s.re * t.re + s.im * t.im), 2.0 * atan2(s.im, t.re));
}

/* a * t where t is a sine or cosine: an exact zero t gives a zero (of the product's sign)
 * where a is infinite, as C99 asks (sinh(inf) sin(0) is 0, not NaN). */
static double times_trig(double a, double t) {
  if (t == 0.0)
    return __builtin_signbit(a) ? -t : t;
  return a * t;
}

/* exp(x + iy), with C99's infinities: exp(-inf + iy) is +-0, exp(+inf + i inf) inf + i NaN. */
static cd cd_exp(cd z) {
  const double m = exp(z.re);
  if (__builtin_isinf(z.re) && !__builtin_isfinite(z.im)) {
    if (m == 0.0)
      return cd_make(0.0, copysign(0.0, z.im));
    if (__builtin_isinf(m))
      return cd_make(m, __builtin_nan(""));
  }
  return cd_make(times_trig(m, cos(z.im)), times_trig(m, sin(z.im)));
}

/* sinh and cosh of x + iy, with C99's zeros and infinities; sin z = -i sinh(iz), cos z =
 * cosh(iz). */
static cd cd_sinh(cd z) {
  if (!__builtin_isfinite(z.im) && (z.re == 0.0 || __builtin_isinf(z.re)))
    return cd_make(z.re, __builtin_nan(""));
  return cd_make(times_trig(sinh(z.re), cos(z.im)), times_trig(cosh(z.re), sin(z.im)));
}
static cd cd_cosh(cd z) {
  if (!__builtin_isfinite(z.im) && (z.re == 0.0 || __builtin_isinf(z.re)))
    return cd_make(z.re == 0.0 ? __builtin_nan("") : __builtin_inf(),
                   z.re == 0.0 ? 0.0 : __builtin_nan(""));
  return cd_make(times_trig(cosh(z.re), cos(z.im)), times_trig(sinh(z.re), sin(z.im)));
}

static cd cd_proj(cd z) {
  if (__builtin_isinf(z.re) || __builtin_isinf(z.im))
    return cd_make(__builtin_inf(), copysign(0.0, z.im));
  return z;
}

double _Complex cexp(double re, double im) { return cd_out(cd_exp(cd_make(re, im))); }
double _Complex csinh(double re, double im) { return cd_out(cd_sinh(cd_make(re, im))); }
double _Complex ccosh(double re, double im) { return cd_out(cd_cosh(cd_make(re, im))); }
double _Complex csin(double re, double im) {
  return cd_out(times_minus_i(cd_sinh(times_i(cd_make(re, im)))));
}
double _Complex ccos(double re, double im) { return cd_out(cd_cosh(times_i(cd_make(re, im)))); }
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

/* exp, sinh and cosh of complex64 in float, as above: they are common in GPU code, where
 * double is slow on most GPUs (the inverse functions compute in double). */
static float times_trig_f(float a, float t) {
  if (t == 0.0f)
    return __builtin_signbit(a) ? -t : t;
  return a * t;
}
float2 cexpf(float2 z) {
  const float m = expf(z.x);
  if (__builtin_isinf(z.x) && !__builtin_isfinite(z.y)) {
    if (m == 0.0f)
      return make_f(0.0f, copysignf(0.0f, z.y));
    return make_f(m, __builtin_nanf(""));
  }
  return make_f(times_trig_f(m, cosf(z.y)), times_trig_f(m, sinf(z.y)));
}
float2 csinhf(float2 z) {
  if (!__builtin_isfinite(z.y) && (z.x == 0.0f || __builtin_isinf(z.x)))
    return make_f(z.x, __builtin_nanf(""));
  return make_f(times_trig_f(sinhf(z.x), cosf(z.y)), times_trig_f(coshf(z.x), sinf(z.y)));
}
float2 ccoshf(float2 z) {
  if (!__builtin_isfinite(z.y) && (z.x == 0.0f || __builtin_isinf(z.x)))
    return make_f(z.x == 0.0f ? __builtin_nanf("") : __builtin_inff(),
                  z.x == 0.0f ? 0.0f : __builtin_nanf(""));
  return make_f(times_trig_f(coshf(z.x), cosf(z.y)), times_trig_f(sinhf(z.x), sinf(z.y)));
}
float2 csinf(float2 z) { /* -i sinh(iz) */
  const float2 w = csinhf(make_f(-z.y, z.x));
  return make_f(w.y, -w.x);
}
float2 ccosf(float2 z) { return ccoshf(make_f(-z.y, z.x)); }
float2 ctanhf(float2 z) { return cd_outf(cd_tanh(cd_make(z.x, z.y))); }
float2 ctanf(float2 z) { return cd_outf(times_minus_i(cd_tanh(times_i(cd_make(z.x, z.y))))); }
float2 casinhf(float2 z) { return cd_outf(cd_asinh(cd_make(z.x, z.y))); }
float2 casinf(float2 z) { return cd_outf(cd_asin(cd_make(z.x, z.y))); }
float2 cacosf(float2 z) { return cd_outf(cd_acos(cd_make(z.x, z.y))); }
float2 cacoshf(float2 z) { return cd_outf(cd_acosh(cd_make(z.x, z.y))); }
float2 catanhf(float2 z) { return cd_outf(cd_atanh(cd_make(z.x, z.y))); }
float2 catanf(float2 z) { return cd_outf(times_minus_i(cd_atanh(times_i(cd_make(z.x, z.y))))); }
float2 cprojf(float2 z) { return cd_outf(cd_proj(cd_make(z.x, z.y))); }

/* assert(): report through the CUDA driver's assertion trap, which prints the message
 * with the failing block and thread and stops the kernel. */
void __assertfail(const char *message, const char *file, unsigned line, const char *function,
                  unsigned long char_size);
void __assert_fail(const char *assertion, const char *file, unsigned line, const char *function) {
  __assertfail(assertion, file, line, function, 1);
}
