// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- SignatureParser.cpp - Numba-style signature strings ----------------===//

#include "SignatureParser.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace llvm;

namespace kernel {
namespace plugin {

StringRef scalarName(ScalarKind K) {
  switch (K) {
  case ScalarKind::Boolean: return "boolean";
  case ScalarKind::Int8: return "int8";
  case ScalarKind::Int16: return "int16";
  case ScalarKind::Int32: return "int32";
  case ScalarKind::Int64: return "int64";
  case ScalarKind::UInt8: return "uint8";
  case ScalarKind::UInt16: return "uint16";
  case ScalarKind::UInt32: return "uint32";
  case ScalarKind::UInt64: return "uint64";
  case ScalarKind::Float32: return "float32";
  case ScalarKind::Float64: return "float64";
  case ScalarKind::Complex64: return "complex64";
  case ScalarKind::Complex128: return "complex128";
  }
  return "?";
}

unsigned scalarSize(ScalarKind K) {
  switch (K) {
  case ScalarKind::Boolean:
  case ScalarKind::Int8:
  case ScalarKind::UInt8: return 1;
  case ScalarKind::Int16:
  case ScalarKind::UInt16: return 2;
  case ScalarKind::Int32:
  case ScalarKind::UInt32:
  case ScalarKind::Float32: return 4;
  case ScalarKind::Int64:
  case ScalarKind::UInt64:
  case ScalarKind::Float64:
  case ScalarKind::Complex64: return 8;
  case ScalarKind::Complex128: return 16;
  }
  return 0;
}

// Numba's names and aliases (numba.types): the canonical names, NumPy's one-letter codes
// with byte counts, and the C-ish aliases Numba exports.
static const std::pair<StringRef, ScalarKind> ScalarNames[] = {
    {"boolean", ScalarKind::Boolean}, {"bool_", ScalarKind::Boolean},
    {"b1", ScalarKind::Boolean},      {"int8", ScalarKind::Int8},
    {"i1", ScalarKind::Int8},         {"int16", ScalarKind::Int16},
    {"i2", ScalarKind::Int16},        {"int32", ScalarKind::Int32},
    {"i4", ScalarKind::Int32},        {"intc", ScalarKind::Int32},
    {"int64", ScalarKind::Int64},     {"i8", ScalarKind::Int64},
    {"intp", ScalarKind::Int64},      {"int_", ScalarKind::Int64},
    {"uint8", ScalarKind::UInt8},     {"u1", ScalarKind::UInt8},
    {"byte", ScalarKind::UInt8},      {"uint16", ScalarKind::UInt16},
    {"u2", ScalarKind::UInt16},       {"uint32", ScalarKind::UInt32},
    {"u4", ScalarKind::UInt32},       {"uintc", ScalarKind::UInt32},
    {"uint64", ScalarKind::UInt64},   {"u8", ScalarKind::UInt64},
    {"uintp", ScalarKind::UInt64},    {"float32", ScalarKind::Float32},
    {"f4", ScalarKind::Float32},      {"float_", ScalarKind::Float32},
    {"float64", ScalarKind::Float64}, {"f8", ScalarKind::Float64},
    {"double", ScalarKind::Float64},  {"complex64", ScalarKind::Complex64},
    {"c8", ScalarKind::Complex64},    {"complex128", ScalarKind::Complex128},
    {"c16", ScalarKind::Complex128},
};

std::optional<ScalarKind> lookupScalarName(StringRef Name) {
  for (const auto &[Spelling, Kind] : ScalarNames)
    if (Spelling == Name)
      return Kind;
  return std::nullopt;
}

StringRef closestTypeName(StringRef Name) {
  StringRef Best;
  unsigned BestDistance = ~0u;
  for (const auto &[Spelling, Kind] : ScalarNames) {
    unsigned D = Name.edit_distance(Spelling, /*AllowReplacements=*/true);
    if (D < BestDistance) {
      BestDistance = D;
      Best = Spelling;
    }
  }
  // Only suggest what is plausibly a typo, not any short name.
  if (BestDistance == 0 || BestDistance > std::max<size_t>(1, Name.size() / 3))
    return StringRef();
  return Best;
}

std::string SignatureType::str() const {
  switch (TypeKind) {
  case Kind::Void: return "void";
  case Kind::Scalar: return scalarName(Element).str();
  case Kind::Array: {
    std::string S = scalarName(Element).str() + "[";
    for (unsigned D = 0; D < Rank; ++D) {
      if (D)
        S += ", ";
      bool Unit = (ArrayLayout == Layout::C && D + 1 == Rank) ||
                  (ArrayLayout == Layout::F && D == 0 && Rank > 1);
      S += Unit ? "::1" : ":";
    }
    return S + "]";
  }
  }
  return "?";
}

std::string Signature::str() const {
  std::string S = Result.str() + "(";
  for (unsigned I = 0; I < Params.size(); ++I) {
    if (I)
      S += ", ";
    S += Params[I].str();
  }
  return S + ")";
}

std::string Signature::arrayOrders() const {
  std::string Orders;
  for (const SignatureType &P : Params)
    Orders += !P.isArray() || P.ArrayLayout == SignatureType::Layout::Any ? 'A'
              : P.ArrayLayout == SignatureType::Layout::C                 ? 'C'
                                                                          : 'F';
  return Orders;
}

namespace {

/// A position in a signature or layout string and the error slot it reports into: what the
/// signature parser and the layout parser share. Failures record the byte offset of the
/// offending character, which the plugin turns into a column inside the string literal.
class Cursor {
public:
  Cursor(StringRef Text, SignatureError &Error) : Text(Text), Error(Error) {}

  unsigned pos() const { return Pos; }
  bool atEnd() const { return Pos >= Text.size(); }
  /// The next character, or '\0' at the end.
  char peek() const { return atEnd() ? '\0' : Text[Pos]; }
  bool lookingAt(StringRef Prefix) const { return Text.substr(Pos).starts_with(Prefix); }

  void advance(unsigned N = 1) { Pos += N; }
  /// Steps over `C` when it is the next character.
  bool consume(char C) {
    if (atEnd() || Text[Pos] != C)
      return false;
    ++Pos;
    return true;
  }
  void skipSpace() {
    while (!atEnd() && isSpace(peek()))
      ++Pos;
  }

  /// True when a name ([A-Za-z_][A-Za-z0-9_]*) starts here.
  bool atIdentifier() const { return !atEnd() && (isAlpha(peek()) || peek() == '_'); }
  /// Steps over the name that starts here (see atIdentifier) and returns it.
  StringRef identifier() {
    unsigned Begin = Pos;
    while (!atEnd() && (isAlnum(peek()) || peek() == '_'))
      ++Pos;
    return Text.slice(Begin, Pos);
  }

  /// Records the error at byte `At`; returns std::nullopt so that a parse step can
  /// `return fail(...)` whatever optional it returns.
  std::nullopt_t fail(unsigned At, const Twine &Message) {
    Error.Offset = At;
    Error.Message = Message.str();
    return std::nullopt;
  }
  /// Records the error here: `AtEnd` when the text ends here (something is missing),
  /// `Elsewhere` when something else is in the way.
  std::nullopt_t failHere(const Twine &AtEnd, const Twine &Elsewhere) {
    return fail(Pos, atEnd() ? AtEnd : Elsewhere);
  }
  std::nullopt_t failHere(const Twine &Message) { return fail(Pos, Message); }

  /// Skips trailing space; true when the text ends there, else fails with "unexpected text
  /// after the <What>".
  bool finish(StringRef What) {
    skipSpace();
    if (atEnd())
      return true;
    failHere("unexpected text after the " + What);
    return false;
  }

private:
  StringRef Text;
  SignatureError &Error;
  unsigned Pos = 0;
};

/// A recursive-descent parser over the signature string with one character of lookahead.
class Parser {
public:
  Parser(StringRef Text, SignatureError &Error) : In(Text, Error) {}

  std::optional<Signature> parse() {
    Signature Sig;
    In.skipSpace();
    if (In.atEnd())
      return In.failHere("the signature is empty; write it like \"float32(float32, float32)\"");
    if (In.peek() != '(') {
      std::optional<SignatureType> R = parseType(/*AllowVoid=*/true);
      if (!R)
        return std::nullopt;
      Sig.Result = *R;
      Sig.ResultWritten = true;
      In.skipSpace();
      if (!In.consume('('))
        return In.failHere("expected '(' and the parameter types after the return type",
                           "expected '(' after the return type");
    } else {
      In.advance(); // '('
    }
    if (!parseParams(Sig) || !In.finish("signature"))
      return std::nullopt;
    return Sig;
  }

private:
  // The parameter types after '(', up to and including the closing ')'.
  bool parseParams(Signature &Sig) {
    In.skipSpace();
    if (In.consume(')'))
      return true;
    while (true) {
      std::optional<SignatureType> P = parseType(/*AllowVoid=*/false);
      if (!P)
        return false;
      Sig.Params.push_back(*P);
      In.skipSpace();
      if (In.consume(',')) {
        In.skipSpace();
        continue;
      }
      if (In.consume(')'))
        return true;
      In.failHere("expected ')' to close the parameter list",
                  "expected ',' or ')' after a parameter type");
      return false;
    }
  }

  std::optional<SignatureType> parseType(bool AllowVoid) {
    SignatureType T;
    T.Begin = In.pos();
    if (!In.atIdentifier())
      return In.failHere("expected a type name");
    unsigned NameBegin = In.pos();
    StringRef Name = In.identifier();
    if (Name == "void" || Name == "none") {
      if (!AllowVoid)
        return In.fail(NameBegin, "'" + Name.str() + "' is only allowed as the return type");
      T.TypeKind = SignatureType::Kind::Void;
      T.End = In.pos();
      return T;
    }
    std::optional<ScalarKind> K = lookupScalarName(Name);
    if (!K)
      return In.fail(NameBegin, unknownTypeMessage(Name));
    T.TypeKind = SignatureType::Kind::Scalar;
    T.Element = *K;
    In.skipSpace();
    if (In.peek() == '[') {
      if (!parseDimensions(T))
        return std::nullopt;
    }
    T.End = In.pos();
    return T;
  }

  static std::string unknownTypeMessage(StringRef Name) {
    std::string Msg = "unknown type '" + Name.str() + "'";
    StringRef Hint = closestTypeName(Name);
    if (!Hint.empty())
      return Msg + "; did you mean '" + Hint.str() + "'?";
    return Msg + "; types are boolean, int8..int64, uint8..uint64, float32, float64, complex64, "
                 "complex128 and their aliases (i4, f8, c8 ...)";
  }

  // "[:, :, ::1]": one ':' per dimension; '::1' marks the unit-stride dimension, which may
  // only be the last (C order) or, with more than one dimension, the first (Fortran order).
  bool parseDimensions(SignatureType &T) {
    In.advance(); // '['
    T.TypeKind = SignatureType::Kind::Array;
    int UnitDim = -1;
    unsigned UnitPos = 0;
    while (true) {
      In.skipSpace();
      unsigned DimPos = In.pos();
      if (!In.consume(':')) {
        In.fail(DimPos, "expected ':' or '::1' for an array dimension");
        return false;
      }
      if (In.consume(':')) {
        if (!In.consume('1')) {
          In.failHere("expected '1' after '::' (unit stride)");
          return false;
        }
        if (UnitDim >= 0) {
          In.fail(DimPos, "only one dimension can have unit stride ('::1')");
          return false;
        }
        UnitDim = static_cast<int>(T.Rank);
        UnitPos = DimPos;
      }
      ++T.Rank;
      In.skipSpace();
      if (In.consume(','))
        continue;
      if (In.consume(']'))
        break;
      In.failHere("expected ']' to close the array dimensions",
                  "expected ',' or ']' in the array dimensions");
      return false;
    }
    return setUnitStrideLayout(T, UnitDim, UnitPos);
  }

  bool setUnitStrideLayout(SignatureType &T, int UnitDim, unsigned UnitPos) {
    if (UnitDim < 0)
      return true;
    if (static_cast<unsigned>(UnitDim) + 1 == T.Rank) {
      T.ArrayLayout = SignatureType::Layout::C;
      return true;
    }
    if (UnitDim == 0) {
      T.ArrayLayout = SignatureType::Layout::F;
      return true;
    }
    In.fail(UnitPos, "'::1' must be the last dimension (C order) or the first (Fortran order)");
    return false;
  }

  Cursor In;
};

/// The layout grammar: operands '->' operands, operands = '(' [name {',' name}] ')' {',' ...}.
class LayoutParser {
public:
  LayoutParser(StringRef Text, SignatureError &Error) : In(Text, Error) {}

  std::optional<GufuncLayout> parse() {
    GufuncLayout L;
    In.skipSpace();
    if (!operands(L.Inputs, "an input"))
      return std::nullopt;
    In.skipSpace();
    if (!In.lookingAt("->"))
      return In.failHere("expected '->' and the outputs after the inputs",
                         "expected ',' or '->' after an input");
    In.advance(2);
    In.skipSpace();
    if (!operands(L.Outputs, "an output") || !In.finish("layout"))
      return std::nullopt;
    return L;
  }

private:
  // A comma-separated list of "(dims)" operands.
  template <class Vec> bool operands(Vec &Out, const char *What) {
    while (true) {
      In.skipSpace();
      GufuncLayout::Operand Op;
      Op.Begin = In.pos();
      if (!In.consume('(')) {
        In.failHere(Twine("expected '(' to start ") + What +
                    " (core dimensions like \"(n)\" or \"()\")");
        return false;
      }
      if (!dimensionNames(Op))
        return false;
      Op.End = In.pos();
      Out.push_back(std::move(Op));
      In.skipSpace();
      if (!In.consume(','))
        return true;
    }
  }

  // The names of one operand's core dimensions after '(', up to and including the ')'.
  bool dimensionNames(GufuncLayout::Operand &Op) {
    In.skipSpace();
    if (In.consume(')'))
      return true;
    while (true) {
      In.skipSpace();
      if (!In.atIdentifier()) {
        In.failHere("expected a dimension name");
        return false;
      }
      Op.Dims.push_back(In.identifier().str());
      In.skipSpace();
      if (In.consume(','))
        continue;
      if (In.consume(')'))
        return true;
      In.failHere("expected ')' to close the dimensions",
                  "expected ',' or ')' after a dimension name");
      return false;
    }
  }

  Cursor In;
};

} // namespace

std::optional<Signature> parseSignature(StringRef Text, SignatureError &Error) {
  return Parser(Text, Error).parse();
}

std::optional<GufuncLayout> parseLayout(StringRef Text, SignatureError &Error) {
  return LayoutParser(Text, Error).parse();
}

bool looksLikeLayout(StringRef Text) {
  // A signature starts with its result's type; a layout with its first operand, "(n)", even
  // when its '->' is missing (which the layout parser then reports as such).
  return Text.contains("->") || Text.ltrim().starts_with("(");
}

std::string GufuncLayout::str() const {
  auto List = [](const auto &Ops) {
    std::string S;
    for (unsigned I = 0; I < Ops.size(); ++I) {
      S += I ? ",(" : "(";
      for (unsigned D = 0; D < Ops[I].Dims.size(); ++D)
        S += (D ? "," : "") + Ops[I].Dims[D];
      S += ")";
    }
    return S;
  };
  return List(Inputs) + "->" + List(Outputs);
}

} // namespace plugin
} // namespace kernel
