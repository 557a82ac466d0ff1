// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- EmbedDeviceImages.cpp - GPU code inside the host object ------------===//

#include "EmbedDeviceImages.h"
#include "ModuleAbiTypes.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

namespace kernel {
namespace passes {

namespace {

class DescriptorBuilder {
public:
  DescriptorBuilder(Module &M, StringRef Hash)
      : M(M), Ctx(M.getContext()), Prefix(("__kernel." + Hash + ".").str()) {}

  Constant *string(StringRef S, const Twine &Name, StringRef Section = "") {
    Constant *Init = ConstantDataArray::getString(Ctx, S, /*AddNull=*/true);
    auto *GV = new GlobalVariable(M, Init->getType(), /*isConstant=*/true,
                                  GlobalValue::PrivateLinkage, Init, Prefix + Name);
    GV->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
    GV->setAlignment(Align(1));
    if (!Section.empty())
      GV->setSection(Section);
    return GV;
  }

  Constant *array(StructType *Element, ArrayRef<Constant *> Items, const Twine &Name) {
    ArrayType *T = ArrayType::get(Element, Items.size());
    auto *GV = new GlobalVariable(M, T, /*isConstant=*/true, GlobalValue::PrivateLinkage,
                                  ConstantArray::get(T, Items), Prefix + Name);
    return GV;
  }

  Module &M;
  LLVMContext &Ctx;
  std::string Prefix;
};

// A function `Name` that calls the runtime's `Callee(Descriptor)` when the runtime is linked:
// the callee is referenced weakly, so that objects compiled with the plugin link without it.
Function *callIfLinked(Module &Host, StringRef Callee, GlobalVariable *Descriptor,
                       const Twine &Name) {
  LLVMContext &Ctx = Host.getContext();
  FunctionCallee Runtime = Host.getOrInsertFunction(
      Callee, FunctionType::get(Type::getVoidTy(Ctx), {PointerType::getUnqual(Ctx)}, false));
  auto *RuntimeFn = cast<Function>(Runtime.getCallee());
  if (RuntimeFn->isDeclaration())
    RuntimeFn->setLinkage(GlobalValue::ExternalWeakLinkage);

  auto *F = Function::Create(FunctionType::get(Type::getVoidTy(Ctx), false),
                             GlobalValue::InternalLinkage, Name, Host);
  F->addFnAttr(Attribute::NoUnwind);
  BasicBlock *Entry = BasicBlock::Create(Ctx, "entry", F);
  BasicBlock *Call = BasicBlock::Create(Ctx, "call", F);
  BasicBlock *Done = BasicBlock::Create(Ctx, "done", F);
  IRBuilder<> IRB(Entry);
  IRB.CreateCondBr(IRB.CreateIsNotNull(RuntimeFn), Call, Done);
  IRB.SetInsertPoint(Call);
  IRB.CreateCall(Runtime, {Descriptor});
  IRB.CreateBr(Done);
  IRB.SetInsertPoint(Done);
  IRB.CreateRetVoid();
  return F;
}

} // namespace

void embedDeviceImages(Module &Host, ArrayRef<DeviceImage> Images, const DeviceCode &Code,
                       const ExternalDeviceCode &External, StringRef Hash,
                       const StringMap<uint64_t> &StaticSharedBytes,
                       const DenseMap<Function *, Function *> &SimulatorEntries) {
  DescriptorBuilder B(Host, Hash);
  LLVMContext &Ctx = Host.getContext();
  PointerType *Ptr = PointerType::getUnqual(Ctx);
  auto *Null = ConstantPointerNull::get(Ptr);
  // An array of descriptors, or null when there are none.
  auto ArrayOrNull = [&](ArrayRef<AbiField> Fields, ArrayRef<Constant *> Items,
                         const Twine &Name) -> Constant * {
    return Items.empty() ? static_cast<Constant *>(Null)
                         : B.array(abiStructType(Ctx, Fields), Items, Name);
  };

  SmallVector<Constant *, 4> ImageItems;
  for (const DeviceImage &Img : Images) {
    AbiStructBuilder I(Ctx, ImageFields);
    I.set(offsetof(kernel_image, arch), B.string(Img.Arch, "arch." + Img.Arch));
    I.set(offsetof(kernel_image, ptx), B.string(Img.PTX, "ptx." + Img.Arch, PTXSection));
    I.setInt(offsetof(kernel_image, size), Img.PTX.size());
    ImageItems.push_back(I.get());
  }

  SmallVector<Constant *, 8> EntryItems;
  for (const DeviceEntry &E : Code.Entries) {
    const std::string N = "entry." + std::to_string(EntryItems.size()) + ".";
    AbiStructBuilder En(Ctx, EntryFields);
    En.set(offsetof(kernel_entry, host_key), E.HostFunction);
    Function *Simulated = SimulatorEntries.lookup(E.HostFunction);
    En.set(offsetof(kernel_entry, simulator_entry),
           Simulated ? static_cast<Constant *>(Simulated) : Null);
    const std::string Symbol = ptxSymbolName(E.HostFunction->getName());
    En.set(offsetof(kernel_entry, symbol), B.string(Symbol, N + "symbol"));
    En.set(offsetof(kernel_entry, name), B.string(E.Info.Name, N + "name"));
    En.set(offsetof(kernel_entry, signature), B.string(E.Info.Signature, N + "signature"));
    En.set(offsetof(kernel_entry, location), B.string(E.Info.Location, N + "location"));
    En.set(offsetof(kernel_entry, array_orders), B.string(E.Info.ArrayOrders, N + "orders"));
    En.setInt(offsetof(kernel_entry, kind), E.Info.Kind);
    En.setInt(offsetof(kernel_entry, param_size), E.Info.ParamSize);
    En.setInt(offsetof(kernel_entry, param_align), E.Info.ParamAlign);
    // Measured once the host code is optimised (RecordSimulatorStack).
    En.setInt(offsetof(kernel_entry, simulator_min_stack), 0);
    // A kernel's static shared memory is below PTX's 48 KiB limit (LowerKernelIntrinsics).
    En.setInt(offsetof(kernel_entry, static_shared), StaticSharedBytes.lookup(Symbol));
    En.setInt(offsetof(kernel_entry, reserved), 0);
    EntryItems.push_back(En.get());
  }

  SmallVector<Constant *, 4> InputItems;
  for (const LinkInput &In : External.Inputs) {
    const std::string N = "link." + std::to_string(InputItems.size()) + ".";
    Constant *Data = ConstantDataArray::getString(Ctx, In.Bytes, /*AddNull=*/false);
    auto *DataGV = new GlobalVariable(Host, Data->getType(), /*isConstant=*/true,
                                      GlobalValue::PrivateLinkage, Data, B.Prefix + N + "data");
    DataGV->setAlignment(Align(16));
    AbiStructBuilder L(Ctx, LinkInputFields);
    L.set(offsetof(kernel_link_input, name), B.string(In.Name, N + "name"));
    L.set(offsetof(kernel_link_input, kind), B.string(In.Kind, N + "kind"));
    L.set(offsetof(kernel_link_input, hash), B.string(In.Hash, N + "hash"));
    L.set(offsetof(kernel_link_input, data), DataGV);
    L.setInt(offsetof(kernel_link_input, size), In.Bytes.size());
    InputItems.push_back(L.get());
  }

  SmallVector<Constant *, 4> ExternalItems;
  for (const ExternalFunction &F : External.Functions) {
    const std::string N = "external." + std::to_string(ExternalItems.size()) + ".";
    AbiStructBuilder X(Ctx, ExternalFields);
    X.set(offsetof(kernel_external, symbol), B.string(F.HostDeclaration->getName(), N + "symbol"));
    X.set(offsetof(kernel_external, signature), B.string(F.Signature, N + "signature"));
    X.set(offsetof(kernel_external, abi), B.string(F.NumbaConvention ? "numba" : "c", N + "abi"));
    X.set(offsetof(kernel_external, location), B.string(F.Location, N + "location"));
    ExternalItems.push_back(X.get());
  }

  // Created in the order the globals always were, so that the object's bytes stay the same.
  Constant *Inputs = ArrayOrNull(LinkInputFields, InputItems, "links");
  Constant *Externals = ArrayOrNull(ExternalFields, ExternalItems, "externals");
  Constant *ImageArray = B.array(abiStructType(Ctx, ImageFields), ImageItems, "images");
  Constant *Entries = ArrayOrNull(EntryFields, EntryItems, "entries");
  AbiStructBuilder M(Ctx, ModuleFields);
  M.setInt(offsetof(kernel_module, abi_version), KERNEL_MODULE_ABI_VERSION);
  M.setInt(offsetof(kernel_module, num_images), ImageItems.size());
  M.setInt(offsetof(kernel_module, num_entries), EntryItems.size());
  M.setInt(offsetof(kernel_module, reserved), 0);
  M.set(offsetof(kernel_module, hash), B.string(Hash, "hash"));
  M.set(offsetof(kernel_module, images), ImageArray);
  M.set(offsetof(kernel_module, entries), Entries);
  M.setInt(offsetof(kernel_module, num_link_inputs), InputItems.size());
  M.setInt(offsetof(kernel_module, num_externals), ExternalItems.size());
  M.set(offsetof(kernel_module, link_inputs), Inputs);
  M.set(offsetof(kernel_module, externals), Externals);
  auto *ModuleGV = new GlobalVariable(Host, M.type(), /*isConstant=*/true,
                                      GlobalValue::PrivateLinkage, M.get(), B.Prefix + "module");

  // A constructor registers the module with the runtime, if it is linked, and a destructor
  // unregisters it, so that unloading a shared library leaves no entry behind.
  appendToGlobalCtors(
      Host, callIfLinked(Host, "__kernel_register_module", ModuleGV, B.Prefix + "register"), 65535);
  appendToGlobalDtors(
      Host, callIfLinked(Host, "__kernel_unregister_module", ModuleGV, B.Prefix + "unregister"),
      65535);
}

} // namespace passes
} // namespace kernel
