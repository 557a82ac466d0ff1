// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- SignatureParser.h - Numba-style signature strings --------*- C++ -*-===//
//
// Parses the signature strings of the kernel attributes, as Numba writes them:
//
//   "float32(float32, float32)"        scalar types, with aliases (f4, i8, c8, b1 ...)
//   "void(float32[:, :], int64)"       arrays of any layout
//   "void(float32[:, ::1])"            C-contiguous ([::1, :] is Fortran order)
//   "(int32, int32)"                   the return type may be left out (void)
//
// Errors carry the byte offset of the offending character so that the plugin can point
// at it inside the string literal.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PLUGIN_SIGNATUREPARSER_H
#define KERNEL_PLUGIN_SIGNATUREPARSER_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace kernel {
namespace plugin {

/// The scalar element types of the signature language.
enum class ScalarKind {
  Boolean,
  Int8,
  Int16,
  Int32,
  Int64,
  UInt8,
  UInt16,
  UInt32,
  UInt64,
  Float32,
  Float64,
  Complex64,
  Complex128,
};

/// Numba's canonical name of a scalar kind ("float32").
llvm::StringRef scalarName(ScalarKind K);

/// Bytes of one value of a scalar kind.
unsigned scalarSize(ScalarKind K);

/// A type in a signature: void, a scalar, or an array of scalars.
struct SignatureType {
  enum class Kind { Void, Scalar, Array };
  enum class Layout { Any, C, F };

  Kind TypeKind = Kind::Void;
  ScalarKind Element = ScalarKind::Float32;
  unsigned Rank = 0;
  Layout ArrayLayout = Layout::Any;
  /// Where this type starts and ends in the signature string (for diagnostics).
  unsigned Begin = 0, End = 0;

  bool isVoid() const { return TypeKind == Kind::Void; }
  bool isScalar() const { return TypeKind == Kind::Scalar; }
  bool isArray() const { return TypeKind == Kind::Array; }

  /// The canonical spelling: "float32", "float32[:, ::1]", "void".
  std::string str() const;
};

/// A parsed signature: return type (void when left out) and parameter types.
struct Signature {
  SignatureType Result;
  bool ResultWritten = false;
  llvm::SmallVector<SignatureType, 4> Params;

  /// The canonical spelling, e.g. "float32(float32, float32)".
  std::string str() const;
  /// The order each parameter declares, one character each (kernel_entry's array_orders):
  /// 'C' for "float32[:, ::1]" and "float32[::1]", 'F' for "float32[::1, :]", 'A' for an
  /// array of any strides or a scalar.
  std::string arrayOrders() const;
};

/// Where and why a signature string is malformed.
struct SignatureError {
  unsigned Offset = 0;
  std::string Message;
};

/// Parses `Text`. On failure returns std::nullopt and fills `Error`.
std::optional<Signature> parseSignature(llvm::StringRef Text, SignatureError &Error);

/// A generalized ufunc's layout, as NumPy and Numba write it: "(m,n),(n,p)->(m,p)". Each
/// operand lists the names of its core dimensions; "()" is a scalar.
struct GufuncLayout {
  struct Operand {
    llvm::SmallVector<std::string, 4> Dims;
    unsigned Begin = 0, End = 0; ///< position in the layout string
  };
  llvm::SmallVector<Operand, 4> Inputs;
  llvm::SmallVector<Operand, 2> Outputs;

  unsigned size() const { return Inputs.size() + Outputs.size(); }
  const Operand &operand(unsigned I) const {
    return I < Inputs.size() ? Inputs[I] : Outputs[I - Inputs.size()];
  }
  /// The canonical spelling, e.g. "(n),(n)->()".
  std::string str() const;
};

/// Parses a gufunc layout. On failure returns std::nullopt and fills `Error`.
std::optional<GufuncLayout> parseLayout(llvm::StringRef Text, SignatureError &Error);

/// True when `Text` reads as a layout rather than a signature (it has "->", or starts with
/// an operand: "(n)").
bool looksLikeLayout(llvm::StringRef Text);

/// Looks up a scalar type name or alias ("float32", "f4", "double", "b1").
std::optional<ScalarKind> lookupScalarName(llvm::StringRef Name);

/// The known type name closest to `Name`, for "did you mean" hints; empty if none is close.
llvm::StringRef closestTypeName(llvm::StringRef Name);

} // namespace plugin
} // namespace kernel

#endif // KERNEL_PLUGIN_SIGNATUREPARSER_H
