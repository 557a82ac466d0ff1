// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- ModuleAbiTypes.cpp - The module ABI as LLVM types ------------------===//

#include "ModuleAbiTypes.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/ErrorHandling.h"

using namespace llvm;

namespace kernel {
namespace passes {

static Type *abiType(LLVMContext &Ctx, AbiScalar S) {
  switch (S) {
  case AbiScalar::Pointer: return PointerType::getUnqual(Ctx);
  case AbiScalar::UInt32: return Type::getInt32Ty(Ctx);
  case AbiScalar::UInt64: return Type::getInt64Ty(Ctx);
  }
  llvm_unreachable("unknown ABI scalar");
}

StructType *abiStructType(LLVMContext &Ctx, ArrayRef<AbiField> Fields) {
  SmallVector<Type *, 12> Types;
  for (const AbiField &F : Fields)
    Types.push_back(abiType(Ctx, F.Scalar));
  return StructType::get(Ctx, Types);
}

std::string abiLayoutMismatch(LLVMContext &Ctx, const DataLayout &Layout, ArrayRef<AbiField> Fields,
                              StringRef StructName, size_t CSize) {
  const StructLayout *SL = Layout.getStructLayout(abiStructType(Ctx, Fields));
  for (unsigned I = 0; I < Fields.size(); ++I)
    if (SL->getElementOffset(I) != Fields[I].Offset)
      return (StructName + "::" + Fields[I].Name + " is at byte " +
              Twine(SL->getElementOffset(I).getFixedValue()) + " in the host module but at byte " +
              Twine(Fields[I].Offset) + " in kernel/detail/module_abi.h")
          .str();
  if (SL->getSizeInBytes() != CSize)
    return (StructName + " has " + Twine(SL->getSizeInBytes()) + " bytes in the host module but " +
            Twine(CSize) + " in kernel/detail/module_abi.h")
        .str();
  return std::string();
}

std::string moduleAbiMismatch(LLVMContext &Ctx, const DataLayout &Layout) {
  const struct {
    ArrayRef<AbiField> Fields;
    StringRef Name;
    size_t Size;
  } Structs[] = {
      {ImageFields, "kernel_image", sizeof(kernel_image)},
      {EntryFields, "kernel_entry", sizeof(kernel_entry)},
      {LinkInputFields, "kernel_link_input", sizeof(kernel_link_input)},
      {ExternalFields, "kernel_external", sizeof(kernel_external)},
      {ModuleFields, "kernel_module", sizeof(kernel_module)},
  };
  for (const auto &S : Structs)
    if (std::string Why = abiLayoutMismatch(Ctx, Layout, S.Fields, S.Name, S.Size); !Why.empty())
      return Why;
  return std::string();
}

AbiStructBuilder::AbiStructBuilder(LLVMContext &Ctx, ArrayRef<AbiField> Fields)
    : Fields(Fields), Type(abiStructType(Ctx, Fields)), Values(Fields.size(), nullptr) {}

unsigned AbiStructBuilder::indexOf(size_t Offset) const {
  for (unsigned I = 0; I < Fields.size(); ++I)
    if (Fields[I].Offset == Offset)
      return I;
  report_fatal_error("kernel: no module ABI field at this offset");
}

void AbiStructBuilder::set(size_t Offset, Constant *Value) {
  const unsigned I = indexOf(Offset);
  if (Value->getType() != Type->getElementType(I))
    report_fatal_error(Twine("kernel: module ABI field '") + Fields[I].Name +
                       "' set with a value of the wrong type");
  Values[I] = Value;
}

void AbiStructBuilder::setInt(size_t Offset, uint64_t Value) {
  const unsigned I = indexOf(Offset);
  set(Offset, ConstantInt::get(Type->getElementType(I), Value));
}

Constant *AbiStructBuilder::get() const {
  for (unsigned I = 0; I < Fields.size(); ++I)
    if (!Values[I])
      report_fatal_error(Twine("kernel: module ABI field '") + Fields[I].Name + "' not set");
  return ConstantStruct::get(Type, Values);
}

} // namespace passes
} // namespace kernel
