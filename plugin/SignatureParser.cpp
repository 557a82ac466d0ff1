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
    {"boolean", ScalarKind::Boolean},   {"bool_", ScalarKind::Boolean},
    {"b1", ScalarKind::Boolean},        {"int8", ScalarKind::Int8},
    {"i1", ScalarKind::Int8},           {"int16", ScalarKind::Int16},
    {"i2", ScalarKind::Int16},          {"int32", ScalarKind::Int32},
    {"i4", ScalarKind::Int32},          {"intc", ScalarKind::Int32},
    {"int64", ScalarKind::Int64},       {"i8", ScalarKind::Int64},
    {"intp", ScalarKind::Int64},        {"int_", ScalarKind::Int64},
    {"uint8", ScalarKind::UInt8},       {"u1", ScalarKind::UInt8},
    {"byte", ScalarKind::UInt8},        {"uint16", ScalarKind::UInt16},
    {"u2", ScalarKind::UInt16},         {"uint32", ScalarKind::UInt32},
    {"u4", ScalarKind::UInt32},         {"uintc", ScalarKind::UInt32},
    {"uint64", ScalarKind::UInt64},     {"u8", ScalarKind::UInt64},
    {"uintp", ScalarKind::UInt64},      {"float32", ScalarKind::Float32},
    {"f4", ScalarKind::Float32},        {"float_", ScalarKind::Float32},
    {"float64", ScalarKind::Float64},   {"f8", ScalarKind::Float64},
    {"double", ScalarKind::Float64},    {"complex64", ScalarKind::Complex64},
    {"c8", ScalarKind::Complex64},      {"complex128", ScalarKind::Complex128},
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

namespace {

/// A recursive-descent parser over the signature string with one character of lookahead.
class Parser {
public:
  Parser(StringRef Text, SignatureError &Error) : Text(Text), Error(Error) {}

  std::optional<Signature> parse() {
    Signature Sig;
    skipSpace();
    if (atEnd())
      return fail(Pos, "the signature is empty; write it like \"float32(float32, float32)\"");
    if (peek() != '(') {
      std::optional<SignatureType> R = parseType(/*AllowVoid=*/true);
      if (!R)
        return std::nullopt;
      Sig.Result = *R;
      Sig.ResultWritten = true;
      skipSpace();
      if (peek() != '(')
        return fail(Pos, atEnd() ? "expected '(' and the parameter types after the return type"
                                 : "expected '(' after the return type");
    }
    ++Pos; // '('
    skipSpace();
    if (peek() != ')') {
      while (true) {
        std::optional<SignatureType> P = parseType(/*AllowVoid=*/false);
        if (!P)
          return std::nullopt;
        Sig.Params.push_back(*P);
        skipSpace();
        if (peek() == ',') {
          ++Pos;
          skipSpace();
          continue;
        }
        if (peek() == ')')
          break;
        return fail(Pos, atEnd() ? "expected ')' to close the parameter list"
                                 : "expected ',' or ')' after a parameter type");
      }
    }
    ++Pos; // ')'
    skipSpace();
    if (!atEnd())
      return fail(Pos, "unexpected text after the signature");
    return Sig;
  }

private:
  std::optional<SignatureType> parseType(bool AllowVoid) {
    SignatureType T;
    T.Begin = Pos;
    if (atEnd() || !(isAlpha(peek()) || peek() == '_'))
      return failT(Pos, "expected a type name");
    unsigned NameBegin = Pos;
    while (!atEnd() && (isAlnum(peek()) || peek() == '_'))
      ++Pos;
    StringRef Name = Text.slice(NameBegin, Pos);
    if (Name == "void" || Name == "none") {
      if (!AllowVoid)
        return failT(NameBegin, "'" + Name.str() + "' is only allowed as the return type");
      T.TypeKind = SignatureType::Kind::Void;
      T.End = Pos;
      return T;
    }
    std::optional<ScalarKind> K = lookupScalarName(Name);
    if (!K) {
      std::string Msg = "unknown type '" + Name.str() + "'";
      StringRef Hint = closestTypeName(Name);
      if (!Hint.empty())
        Msg += "; did you mean '" + Hint.str() + "'?";
      else
        Msg += "; types are boolean, int8..int64, uint8..uint64, float32, float64, complex64, "
               "complex128 and their aliases (i4, f8, c8 ...)";
      return failT(NameBegin, Msg);
    }
    T.TypeKind = SignatureType::Kind::Scalar;
    T.Element = *K;
    skipSpace();
    if (peek() == '[') {
      if (!parseDimensions(T))
        return std::nullopt;
    }
    T.End = Pos;
    return T;
  }

  // "[:, :, ::1]": one ':' per dimension; '::1' marks the unit-stride dimension, which may
  // only be the last (C order) or, with more than one dimension, the first (Fortran order).
  bool parseDimensions(SignatureType &T) {
    ++Pos; // '['
    T.TypeKind = SignatureType::Kind::Array;
    int UnitDim = -1;
    unsigned UnitPos = 0;
    while (true) {
      skipSpace();
      if (peek() != ':') {
        failT(Pos, "expected ':' or '::1' for an array dimension");
        return false;
      }
      unsigned DimPos = Pos;
      ++Pos;
      if (peek() == ':') {
        ++Pos;
        if (peek() != '1') {
          failT(Pos, "expected '1' after '::' (unit stride)");
          return false;
        }
        ++Pos;
        if (UnitDim >= 0) {
          failT(DimPos, "only one dimension can have unit stride ('::1')");
          return false;
        }
        UnitDim = static_cast<int>(T.Rank);
        UnitPos = DimPos;
      }
      ++T.Rank;
      skipSpace();
      if (peek() == ',') {
        ++Pos;
        continue;
      }
      if (peek() == ']') {
        ++Pos;
        break;
      }
      failT(Pos, atEnd() ? "expected ']' to close the array dimensions"
                         : "expected ',' or ']' in the array dimensions");
      return false;
    }
    if (UnitDim >= 0) {
      if (static_cast<unsigned>(UnitDim) + 1 == T.Rank)
        T.ArrayLayout = SignatureType::Layout::C;
      else if (UnitDim == 0)
        T.ArrayLayout = SignatureType::Layout::F;
      else {
        failT(UnitPos, "'::1' must be the last dimension (C order) or the first (Fortran order)");
        return false;
      }
    }
    return true;
  }

  char peek() const { return atEnd() ? '\0' : Text[Pos]; }
  bool atEnd() const { return Pos >= Text.size(); }
  void skipSpace() {
    while (!atEnd() && isSpace(peek()))
      ++Pos;
  }

  std::nullopt_t fail(unsigned At, const Twine &Message) {
    Error.Offset = At;
    Error.Message = Message.str();
    return std::nullopt;
  }
  std::optional<SignatureType> failT(unsigned At, const Twine &Message) {
    fail(At, Message);
    return std::nullopt;
  }

  StringRef Text;
  SignatureError &Error;
  unsigned Pos = 0;
};

/// The layout grammar: operands '->' operands, operands = '(' [name {',' name}] ')' {',' ...}.
class LayoutParser {
public:
  LayoutParser(StringRef Text, SignatureError &Error) : Text(Text), Error(Error) {}

  std::optional<GufuncLayout> parse() {
    GufuncLayout L;
    skipSpace();
    if (!operands(L.Inputs, "an input"))
      return std::nullopt;
    skipSpace();
    if (!Text.substr(Pos).starts_with("->"))
      return fail(Pos, atEnd() ? "expected '->' and the outputs after the inputs"
                               : "expected ',' or '->' after an input");
    Pos += 2;
    skipSpace();
    if (!operands(L.Outputs, "an output"))
      return std::nullopt;
    skipSpace();
    if (!atEnd())
      return fail(Pos, "unexpected text after the layout");
    return L;
  }

private:
  template <class Vec> bool operands(Vec &Out, const char *What) {
    while (true) {
      skipSpace();
      if (peek() != '(') {
        fail(Pos, std::string("expected '(' to start ") + What + " (core dimensions like \"(n)\" or \"()\")");
        return false;
      }
      GufuncLayout::Operand Op;
      Op.Begin = Pos++;
      skipSpace();
      if (peek() != ')') {
        while (true) {
          skipSpace();
          if (atEnd() || !(isAlpha(peek()) || peek() == '_')) {
            fail(Pos, "expected a dimension name");
            return false;
          }
          unsigned NameBegin = Pos;
          while (!atEnd() && (isAlnum(peek()) || peek() == '_'))
            ++Pos;
          Op.Dims.push_back(Text.slice(NameBegin, Pos).str());
          skipSpace();
          if (peek() == ',') {
            ++Pos;
            continue;
          }
          if (peek() == ')')
            break;
          fail(Pos, atEnd() ? "expected ')' to close the dimensions" : "expected ',' or ')' after a dimension name");
          return false;
        }
      }
      ++Pos; // ')'
      Op.End = Pos;
      Out.push_back(std::move(Op));
      skipSpace();
      if (peek() == ',') {
        ++Pos;
        continue;
      }
      return true;
    }
  }

  char peek() const { return atEnd() ? '\0' : Text[Pos]; }
  bool atEnd() const { return Pos >= Text.size(); }
  void skipSpace() {
    while (!atEnd() && isSpace(peek()))
      ++Pos;
  }
  std::nullopt_t fail(unsigned At, const Twine &Message) {
    Error.Offset = At;
    Error.Message = Message.str();
    return std::nullopt;
  }

  StringRef Text;
  SignatureError &Error;
  unsigned Pos = 0;
};

} // namespace

std::optional<Signature> parseSignature(StringRef Text, SignatureError &Error) {
  return Parser(Text, Error).parse();
}

std::optional<GufuncLayout> parseLayout(StringRef Text, SignatureError &Error) {
  return LayoutParser(Text, Error).parse();
}

bool looksLikeLayout(StringRef Text) { return Text.contains("->"); }

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
