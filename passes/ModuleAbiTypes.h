// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- ModuleAbiTypes.h - The module ABI as LLVM types -----------*- C++ -*-===//
//
// The descriptors the pass embeds (kernel_module, kernel_entry, ...) are declared once, in
// kernel/detail/module_abi.h, which the runtime reads them with. Here each struct is
// described field by field with offsetof, sizeof and the field's C type, and
// static_asserts check that the description covers every byte of the C struct in order.
// The LLVM struct types come from those descriptions, and descriptor values are set by
// field (by offset), never by position: a field added to, removed from or reordered in the
// header either breaks the build or is picked up here.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PASSES_MODULEABITYPES_H
#define KERNEL_PASSES_MODULEABITYPES_H

#include "kernel/detail/module_abi.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/DerivedTypes.h"

#include <cstddef>
#include <string>
#include <type_traits>

namespace kernel {
namespace passes {

/// The C types the module ABI uses.
enum class AbiScalar { Pointer, UInt32, UInt64 };

template <class T> constexpr AbiScalar abiScalarOf() {
  if constexpr (std::is_pointer_v<T>)
    return AbiScalar::Pointer;
  else if constexpr (std::is_same_v<T, uint32_t>)
    return AbiScalar::UInt32;
  else {
    static_assert(std::is_same_v<T, uint64_t>,
                  "module ABI fields are pointers, uint32_t or uint64_t");
    return AbiScalar::UInt64;
  }
}

struct AbiField {
  const char *Name;
  size_t Offset;
  size_t Size;
  size_t Align;
  AbiScalar Scalar;
};

#define KERNEL_ABI_FIELD(Struct, Member)                                                           \
  ::kernel::passes::AbiField {                                                                     \
    #Member, offsetof(Struct, Member), sizeof(Struct::Member), alignof(decltype(Struct::Member)),  \
        ::kernel::passes::abiScalarOf<decltype(Struct::Member)>()                                  \
  }

/// True when `Fields` lists every member of a struct of `Size` bytes and `Align` alignment,
/// in order, each at the offset the C rules give it: nothing left out, nothing extra.
template <size_t N>
constexpr bool coversStruct(const AbiField (&Fields)[N], size_t Size, size_t Align) {
  size_t End = 0;
  for (const AbiField &F : Fields) {
    const size_t Expected = (End + F.Align - 1) / F.Align * F.Align;
    if (F.Offset != Expected)
      return false;
    End = F.Offset + F.Size;
  }
  return (End + Align - 1) / Align * Align == Size;
}

inline constexpr AbiField ImageFields[] = {
    KERNEL_ABI_FIELD(kernel_image, arch),
    KERNEL_ABI_FIELD(kernel_image, ptx),
    KERNEL_ABI_FIELD(kernel_image, size),
};
inline constexpr AbiField EntryFields[] = {
    KERNEL_ABI_FIELD(kernel_entry, host_key),
    KERNEL_ABI_FIELD(kernel_entry, simulator_entry),
    KERNEL_ABI_FIELD(kernel_entry, symbol),
    KERNEL_ABI_FIELD(kernel_entry, name),
    KERNEL_ABI_FIELD(kernel_entry, signature),
    KERNEL_ABI_FIELD(kernel_entry, location),
    KERNEL_ABI_FIELD(kernel_entry, array_orders),
    KERNEL_ABI_FIELD(kernel_entry, kind),
    KERNEL_ABI_FIELD(kernel_entry, param_size),
    KERNEL_ABI_FIELD(kernel_entry, param_align),
    KERNEL_ABI_FIELD(kernel_entry, simulator_min_stack),
    KERNEL_ABI_FIELD(kernel_entry, static_shared),
    KERNEL_ABI_FIELD(kernel_entry, reserved),
};
inline constexpr AbiField LinkInputFields[] = {
    KERNEL_ABI_FIELD(kernel_link_input, name), KERNEL_ABI_FIELD(kernel_link_input, kind),
    KERNEL_ABI_FIELD(kernel_link_input, hash), KERNEL_ABI_FIELD(kernel_link_input, data),
    KERNEL_ABI_FIELD(kernel_link_input, size),
};
inline constexpr AbiField ExternalFields[] = {
    KERNEL_ABI_FIELD(kernel_external, symbol),
    KERNEL_ABI_FIELD(kernel_external, signature),
    KERNEL_ABI_FIELD(kernel_external, abi),
    KERNEL_ABI_FIELD(kernel_external, location),
};
inline constexpr AbiField ModuleFields[] = {
    KERNEL_ABI_FIELD(kernel_module, abi_version),
    KERNEL_ABI_FIELD(kernel_module, num_images),
    KERNEL_ABI_FIELD(kernel_module, num_entries),
    KERNEL_ABI_FIELD(kernel_module, reserved),
    KERNEL_ABI_FIELD(kernel_module, hash),
    KERNEL_ABI_FIELD(kernel_module, images),
    KERNEL_ABI_FIELD(kernel_module, entries),
    KERNEL_ABI_FIELD(kernel_module, num_link_inputs),
    KERNEL_ABI_FIELD(kernel_module, num_externals),
    KERNEL_ABI_FIELD(kernel_module, link_inputs),
    KERNEL_ABI_FIELD(kernel_module, externals),
};

#undef KERNEL_ABI_FIELD

static_assert(coversStruct(ImageFields, sizeof(kernel_image), alignof(kernel_image)),
              "ImageFields must list every field of kernel_image, in order");
static_assert(coversStruct(EntryFields, sizeof(kernel_entry), alignof(kernel_entry)),
              "EntryFields must list every field of kernel_entry, in order");
static_assert(coversStruct(LinkInputFields, sizeof(kernel_link_input), alignof(kernel_link_input)),
              "LinkInputFields must list every field of kernel_link_input, in order");
static_assert(coversStruct(ExternalFields, sizeof(kernel_external), alignof(kernel_external)),
              "ExternalFields must list every field of kernel_external, in order");
static_assert(coversStruct(ModuleFields, sizeof(kernel_module), alignof(kernel_module)),
              "ModuleFields must list every field of kernel_module, in order");

/// The literal LLVM struct type of a descriptor described by `Fields`.
llvm::StructType *abiStructType(llvm::LLVMContext &Ctx, llvm::ArrayRef<AbiField> Fields);

/// Where `Layout` (the host module's data layout) places the fields of `Fields`' struct
/// differently from the C compiler that built this plugin; empty when it agrees. The pass
/// embeds descriptors only for hosts that agree.
std::string abiLayoutMismatch(llvm::LLVMContext &Ctx, const llvm::DataLayout &Layout,
                              llvm::ArrayRef<AbiField> Fields, llvm::StringRef StructName,
                              size_t CSize);

/// abiLayoutMismatch for every descriptor of the module ABI; empty when all agree.
std::string moduleAbiMismatch(llvm::LLVMContext &Ctx, const llvm::DataLayout &Layout);

/// A descriptor value, filled field by field: `set(offsetof(kernel_entry, name), V)`.
class AbiStructBuilder {
public:
  AbiStructBuilder(llvm::LLVMContext &Ctx, llvm::ArrayRef<AbiField> Fields);

  void set(size_t Offset, llvm::Constant *Value);
  void setInt(size_t Offset, uint64_t Value);
  /// Every field must have been set.
  llvm::Constant *get() const;
  llvm::StructType *type() const { return Type; }

private:
  unsigned indexOf(size_t Offset) const;

  llvm::ArrayRef<AbiField> Fields;
  llvm::StructType *Type;
  llvm::SmallVector<llvm::Constant *, 12> Values;
};

} // namespace passes
} // namespace kernel

#endif // KERNEL_PASSES_MODULEABITYPES_H
