//===- EntryAnnotation.cpp - What the plugin tells the pass about an entry -===//

#include "EntryAnnotation.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace kernel {
namespace passes {

// Unit separator: cannot appear in names, signatures or sane paths.
static constexpr char Separator = '\x1f';

const char *EntryAnnotation::kindName() const {
  switch (Kind) {
  case EntryKind::Ufunc: return "ufunc";
  case EntryKind::Jit: return "jit";
  case EntryKind::Gufunc: return "gufunc";
  case EntryKind::Reduce: return "reduce";
  }
  return "?";
}

std::string EntryAnnotation::encode() const {
  std::string S(EntryAnnotationTag);
  for (const std::string &Field : {std::string(kindName()), Name, Signature, Location,
                                   std::to_string(ParamSize), std::to_string(ParamAlign)}) {
    S += Separator;
    S += Field;
  }
  return S;
}

std::optional<EntryAnnotation> EntryAnnotation::decode(StringRef Text) {
  SmallVector<StringRef, 8> Fields;
  Text.split(Fields, Separator);
  if (Fields.size() != 7 || Fields[0] != EntryAnnotationTag)
    return std::nullopt;
  EntryAnnotation A;
  if (Fields[1] == "ufunc")
    A.Kind = EntryKind::Ufunc;
  else if (Fields[1] == "jit")
    A.Kind = EntryKind::Jit;
  else if (Fields[1] == "gufunc")
    A.Kind = EntryKind::Gufunc;
  else if (Fields[1] == "reduce")
    A.Kind = EntryKind::Reduce;
  else
    return std::nullopt;
  A.Name = Fields[2].str();
  A.Signature = Fields[3].str();
  A.Location = Fields[4].str();
  if (Fields[5].getAsInteger(10, A.ParamSize) || Fields[6].getAsInteger(10, A.ParamAlign))
    return std::nullopt;
  return A;
}

} // namespace passes
} // namespace kernel
