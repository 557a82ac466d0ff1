// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Generalized-ufunc layouts ("(m,n),(n,p)->(m,p)"), parsed at compile time from the
// gufunc's template argument, and the operand kinds of the functions they describe.
#pragma once

#include <cstddef>
#include <string_view>
#include <type_traits>

#include "kernel/array.h"
#include "kernel/types.h"

namespace kernel::detail {

inline constexpr int gu_max_operands = 16;
inline constexpr int gu_max_core = 8;
inline constexpr int gu_max_names = 16;

/// A string usable as a template argument: kernel::gufunc<"(n),(n)->()", dot>.
template <std::size_t N> struct fixed_string {
  char chars[N]{};
  constexpr fixed_string(const char (&s)[N]) {
    for (std::size_t i = 0; i < N; ++i) chars[i] = s[i];
  }
  constexpr std::string_view view() const { return std::string_view(chars, N - 1); }
};

struct gu_layout {
  int nin = 0, nout = 0;
  int core_rank[gu_max_operands] = {};
  int dim[gu_max_operands][gu_max_core] = {}; // name ids
  int names = 0;
  std::string_view name[gu_max_names] = {};
  constexpr int operands() const { return nin + nout; }
};

// Parsed while compiling: a malformed layout is a compile error whose note shows the line of
// the `throw` below that says what is wrong.
constexpr gu_layout parse_gu_layout(std::string_view s) {
  gu_layout l;
  std::size_t i = 0;
  auto space = [&] {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  };
  auto ident_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  };
  bool outputs = false;
  while (true) {
    space();
    if (i >= s.size() || s[i] != '(') throw "expected '(' starting an operand's core dimensions";
    ++i;
    const int op = l.nin + l.nout;
    if (op >= gu_max_operands) throw "too many operands";
    (outputs ? l.nout : l.nin) += 1;
    space();
    while (i < s.size() && s[i] != ')') {
      space();
      const std::size_t begin = i;
      while (i < s.size() && ident_char(s[i])) ++i;
      if (i == begin) throw "expected a dimension name";
      const std::string_view name = s.substr(begin, i - begin);
      int id = -1;
      for (int k = 0; k < l.names; ++k)
        if (l.name[k] == name) id = k;
      if (id < 0) {
        if (l.names >= gu_max_names) throw "too many dimension names";
        id = l.names++;
        l.name[id] = name;
      }
      if (l.core_rank[op] >= gu_max_core) throw "too many core dimensions";
      l.dim[op][l.core_rank[op]++] = id;
      space();
      if (i < s.size() && s[i] == ',')
        ++i;
      else if (i >= s.size() || s[i] != ')')
        throw "expected ',' or ')'";
    }
    if (i >= s.size()) throw "expected ')'";
    ++i;
    space();
    if (i < s.size() && s[i] == ',') {
      ++i;
      continue;
    }
    if (!outputs && i + 1 < s.size() && s[i] == '-' && s[i + 1] == '>') {
      i += 2;
      outputs = true;
      continue;
    }
    if (i != s.size()) throw "unexpected text";
    break;
  }
  if (!outputs || l.nout == 0) throw "expected '->' and at least one output";
  return l;
}

/// How a gufunc's function takes operand P: an array_view of core rank R, a scalar input
/// (by value or const reference) or a scalar output (non-const reference).
template <class P> struct gu_param {
  static constexpr bool supported = false;
};
template <class T, std::size_t R> struct gu_param<array_view<T, R>> {
  static constexpr bool supported = true;
  static constexpr int core_rank = static_cast<int>(R);
  static constexpr bool writable = !std::is_const_v<T>;
  static constexpr bool scalar_output = false;
  using element = std::remove_cv_t<T>;
  using pointer = T *;
};
template <class T, std::size_t R> struct gu_param<const array_view<T, R> &> : gu_param<array_view<T, R>> {};
template <class T>
  requires scalar<T>
struct gu_param<T> {
  static constexpr bool supported = true;
  static constexpr int core_rank = 0;
  static constexpr bool writable = false;
  static constexpr bool scalar_output = false;
  using element = T;
  using pointer = const T *;
};
template <class T>
  requires scalar<T>
struct gu_param<const T &> : gu_param<T> {};
template <class T>
  requires scalar<T>
struct gu_param<T &> {
  static constexpr bool supported = true;
  static constexpr int core_rank = 0;
  static constexpr bool writable = true;
  static constexpr bool scalar_output = true;
  using element = T;
  using pointer = T *;
};

} // namespace kernel::detail
