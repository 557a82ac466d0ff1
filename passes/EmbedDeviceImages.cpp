//===- EmbedDeviceImages.cpp - GPU code inside the host object ------------===//

#include "EmbedDeviceImages.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

namespace kernel {
namespace passes {

namespace {

// Keep in step with kernel/detail/module_abi.h.
constexpr uint32_t ModuleAbiVersion = 3;

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

} // namespace

void embedDeviceImages(Module &Host, ArrayRef<DeviceImage> Images, const DeviceCode &Code,
                       const ExternalDeviceCode &External, StringRef Hash,
                       const DenseMap<Function *, Function *> &SimulatorEntries) {
  DescriptorBuilder B(Host, Hash);
  LLVMContext &Ctx = Host.getContext();
  Type *I32 = Type::getInt32Ty(Ctx);
  Type *I64 = Type::getInt64Ty(Ctx);
  Type *Ptr = PointerType::getUnqual(Ctx);
  StructType *ImageTy = StructType::get(Ctx, {Ptr, Ptr, I64});
  StructType *EntryTy = StructType::get(Ctx, {Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, I32, I32, I32, I32});
  StructType *LinkInputTy = StructType::get(Ctx, {Ptr, Ptr, Ptr, Ptr, I64});
  StructType *ExternalTy = StructType::get(Ctx, {Ptr, Ptr, Ptr, Ptr});
  StructType *ModuleTy = StructType::get(Ctx, {I32, I32, I32, I32, Ptr, Ptr, Ptr, I32, I32, Ptr, Ptr});

  SmallVector<Constant *, 4> ImageItems;
  for (const DeviceImage &Img : Images)
    ImageItems.push_back(ConstantStruct::get(
        ImageTy, {B.string(Img.Arch, "arch." + Img.Arch),
                  B.string(Img.PTX, "ptx." + Img.Arch, PTXSection),
                  ConstantInt::get(I64, Img.PTX.size())}));

  SmallVector<Constant *, 8> EntryItems;
  unsigned Index = 0;
  for (const DeviceEntry &E : Code.Entries) {
    const std::string N = "entry." + std::to_string(Index++) + ".";
    EntryItems.push_back(ConstantStruct::get(
        EntryTy, {E.HostFunction,
                  SimulatorEntries.count(E.HostFunction)
                      ? static_cast<Constant *>(SimulatorEntries.lookup(E.HostFunction))
                      : ConstantPointerNull::get(cast<PointerType>(Ptr)),
                  B.string(E.HostFunction->getName(), N + "symbol"),
                  B.string(E.Info.Name, N + "name"), B.string(E.Info.Signature, N + "signature"),
                  B.string(E.Info.Location, N + "location"),
                  ConstantInt::get(I32, static_cast<uint32_t>(E.Info.Kind)),
                  ConstantInt::get(I32, E.Info.ParamSize), ConstantInt::get(I32, E.Info.ParamAlign),
                  ConstantInt::get(I32, 0)}));
  }

  SmallVector<Constant *, 4> InputItems;
  for (size_t I = 0; I < External.Inputs.size(); ++I) {
    const LinkInput &In = External.Inputs[I];
    const std::string N = "link." + std::to_string(I) + ".";
    Constant *Data = ConstantDataArray::getString(Ctx, In.Bytes, /*AddNull=*/false);
    auto *DataGV = new GlobalVariable(Host, Data->getType(), /*isConstant=*/true, GlobalValue::PrivateLinkage,
                                      Data, B.Prefix + N + "data");
    DataGV->setAlignment(Align(16));
    InputItems.push_back(ConstantStruct::get(
        LinkInputTy, {B.string(In.Name, N + "name"), B.string(In.Kind, N + "kind"), B.string(In.Hash, N + "hash"),
                      DataGV, ConstantInt::get(I64, In.Bytes.size())}));
  }
  SmallVector<Constant *, 4> ExternalItems;
  for (size_t I = 0; I < External.Functions.size(); ++I) {
    const ExternalFunction &F = External.Functions[I];
    const std::string N = "external." + std::to_string(I) + ".";
    ExternalItems.push_back(ConstantStruct::get(
        ExternalTy, {B.string(F.HostDeclaration->getName(), N + "symbol"), B.string(F.Signature, N + "signature"),
                     B.string(F.NumbaConvention ? "numba" : "c", N + "abi"), B.string(F.Location, N + "location")}));
  }
  auto *Null = ConstantPointerNull::get(cast<PointerType>(Ptr));
  Constant *Inputs = InputItems.empty() ? static_cast<Constant *>(Null) : B.array(LinkInputTy, InputItems, "links");
  Constant *Externals =
      ExternalItems.empty() ? static_cast<Constant *>(Null) : B.array(ExternalTy, ExternalItems, "externals");

  Constant *Images_ = B.array(ImageTy, ImageItems, "images");
  Constant *Entries = EntryItems.empty() ? ConstantPointerNull::get(cast<PointerType>(Ptr))
                                         : B.array(EntryTy, EntryItems, "entries");
  Constant *Descriptor = ConstantStruct::get(
      ModuleTy, {ConstantInt::get(I32, ModuleAbiVersion), ConstantInt::get(I32, Images.size()),
                 ConstantInt::get(I32, EntryItems.size()), ConstantInt::get(I32, 0),
                 B.string(Hash, "hash"), Images_, Entries, ConstantInt::get(I32, InputItems.size()),
                 ConstantInt::get(I32, ExternalItems.size()), Inputs, Externals});
  auto *ModuleGV = new GlobalVariable(Host, ModuleTy, /*isConstant=*/true,
                                      GlobalValue::PrivateLinkage, Descriptor, B.Prefix + "module");

  // The constructor: if the runtime is linked, register the module with it.
  FunctionCallee Register = Host.getOrInsertFunction(
      "__kernel_register_module", FunctionType::get(Type::getVoidTy(Ctx), {Ptr}, false));
  auto *RegisterFn = cast<Function>(Register.getCallee());
  if (RegisterFn->isDeclaration())
    RegisterFn->setLinkage(GlobalValue::ExternalWeakLinkage);

  auto *Ctor = Function::Create(FunctionType::get(Type::getVoidTy(Ctx), false),
                                GlobalValue::InternalLinkage, B.Prefix + "register", Host);
  Ctor->addFnAttr(Attribute::NoUnwind);
  BasicBlock *Entry = BasicBlock::Create(Ctx, "entry", Ctor);
  BasicBlock *Call = BasicBlock::Create(Ctx, "register", Ctor);
  BasicBlock *Done = BasicBlock::Create(Ctx, "done", Ctor);
  IRBuilder<> IRB(Entry);
  IRB.CreateCondBr(IRB.CreateIsNotNull(RegisterFn), Call, Done);
  IRB.SetInsertPoint(Call);
  IRB.CreateCall(Register, {ModuleGV});
  IRB.CreateBr(Done);
  IRB.SetInsertPoint(Done);
  IRB.CreateRetVoid();
  appendToGlobalCtors(Host, Ctor, 65535);
}

} // namespace passes
} // namespace kernel
