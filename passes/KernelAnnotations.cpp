// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- KernelAnnotations.cpp - What the plugin tells the passes -----------===//

#include "KernelAnnotations.h"

using namespace llvm;

namespace kernel {
namespace passes {

static constexpr char Separator = '\x1f';

std::string encodeAnnotation(StringRef Tag, ArrayRef<std::string> Fields) {
  std::string S = Tag.str();
  for (const std::string &Field : Fields) {
    S += Separator;
    S += Field;
  }
  return S;
}

std::optional<SmallVector<StringRef, 8>> decodeAnnotation(StringRef Text, StringRef Tag) {
  SmallVector<StringRef, 8> Fields;
  if (!Text.consume_front(Tag))
    return std::nullopt;
  if (Text.empty())
    return Fields;
  if (!Text.consume_front(StringRef(&Separator, 1)))
    return std::nullopt; // another tag that starts with this one
  Text.split(Fields, Separator);
  return Fields;
}

const char *entryKindName(kernel_entry_kind Kind) {
  const char *Name = kernel_entry_kind_name(Kind);
  return Name ? Name : "?";
}

std::string EntryAnnotation::encode() const {
  std::vector<std::string> Fields = {kindName(),
                                     Name,
                                     Signature,
                                     Location,
                                     ArrayOrders,
                                     std::to_string(ParamSize),
                                     std::to_string(ParamAlign)};
  // Optional, last: most entries have no bound.
  if (MaxThreads > 0) {
    Fields.push_back(std::to_string(MaxThreads));
    Fields.push_back(std::to_string(MinBlocks));
  }
  return encodeAnnotation(Tag, Fields);
}

std::optional<EntryAnnotation> EntryAnnotation::decode(StringRef Text) {
  std::optional<SmallVector<StringRef, 8>> Fields = decodeAnnotation(Text, Tag);
  if (!Fields || (Fields->size() != 7 && Fields->size() != 9))
    return std::nullopt;
  EntryAnnotation A;
  const uint32_t Kind = kernel_entry_kind_from_name((*Fields)[0].str().c_str());
  if (!Kind)
    return std::nullopt;
  A.Kind = static_cast<kernel_entry_kind>(Kind);
  A.Name = (*Fields)[1].str();
  A.Signature = (*Fields)[2].str();
  A.Location = (*Fields)[3].str();
  A.ArrayOrders = (*Fields)[4].str();
  if (A.ArrayOrders.find_first_not_of("CFA") != std::string::npos ||
      (*Fields)[5].getAsInteger(10, A.ParamSize) || (*Fields)[6].getAsInteger(10, A.ParamAlign) ||
      (Fields->size() == 9 && ((*Fields)[7].getAsInteger(10, A.MaxThreads) || A.MaxThreads == 0 ||
                               (*Fields)[8].getAsInteger(10, A.MinBlocks))))
    return std::nullopt;
  return A;
}

std::string DeclareDeviceAnnotation::encode() const {
  return encodeAnnotation(Tag, {NumbaConvention ? "numba" : "c", Signature, Location});
}

std::optional<DeclareDeviceAnnotation> DeclareDeviceAnnotation::decode(StringRef Text) {
  std::optional<SmallVector<StringRef, 8>> Fields = decodeAnnotation(Text, Tag);
  if (!Fields || Fields->size() != 3 || ((*Fields)[0] != "numba" && (*Fields)[0] != "c"))
    return std::nullopt;
  return DeclareDeviceAnnotation{(*Fields)[0] == "numba", (*Fields)[1].str(), (*Fields)[2].str()};
}

std::string LinkAnnotation::encode() const { return encodeAnnotation(Tag, {Path, Written}); }

std::optional<LinkAnnotation> LinkAnnotation::decode(StringRef Text) {
  std::optional<SmallVector<StringRef, 8>> Fields = decodeAnnotation(Text, Tag);
  if (!Fields || Fields->size() != 2)
    return std::nullopt;
  return LinkAnnotation{(*Fields)[0].str(), (*Fields)[1].str()};
}

std::string AttributeAnnotation::encode() const {
  return encodeAnnotation("kernel." + Attribute, Details);
}

std::optional<AttributeAnnotation> AttributeAnnotation::decode(StringRef Text,
                                                               StringRef Attribute) {
  const std::string Tag = "kernel." + Attribute.str();
  std::optional<SmallVector<StringRef, 8>> Fields = decodeAnnotation(Text, Tag);
  if (!Fields)
    return std::nullopt;
  AttributeAnnotation A{Attribute.str(), {}};
  for (StringRef F : *Fields)
    A.Details.push_back(F.str());
  return A;
}

} // namespace passes
} // namespace kernel
