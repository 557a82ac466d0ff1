// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- SeamsTest.cpp - The agreements between plugin, passes and runtime ---===//
//
// The module descriptors the pass embeds must have the layout the runtime reads
// (kernel/detail/module_abi.h), and every annotation the plugin writes must decode to what
// it encoded.
//
//===----------------------------------------------------------------------===//

#include "KernelAnnotations.h"
#include "ModuleAbiTypes.h"

#include "llvm/IR/DataLayout.h"
#include "llvm/IR/LLVMContext.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cstring>
#include <string_view>

using namespace kernel::passes;

namespace {

// What clang uses for x86-64 Linux hosts, the hosts this project builds for.
const llvm::DataLayout
    HostLayout("e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128");

TEST(ModuleAbi, PassTypesMatchTheRuntimeHeader) {
  llvm::LLVMContext Ctx;
  EXPECT_EQ(moduleAbiMismatch(Ctx, HostLayout), "");
}

TEST(ModuleAbi, ALayoutThatDisagreesIsReported) {
  llvm::LLVMContext Ctx;
  // The entry as it would be if kind were the first field: the check must notice.
  AbiField Swapped[std::size(EntryFields)];
  std::copy(std::begin(EntryFields), std::end(EntryFields), Swapped);
  const auto Kind = std::find_if(std::begin(Swapped), std::end(Swapped), [](const AbiField &F) {
    return std::string_view(F.Name) == "kind";
  });
  ASSERT_NE(Kind, std::end(Swapped));
  std::swap(Swapped[0].Scalar, Kind->Scalar);
  EXPECT_NE(abiLayoutMismatch(Ctx, HostLayout, Swapped, "kernel_entry", sizeof(kernel_entry)), "");
  // A 32-bit host lays out pointers differently from the header this plugin was built with.
  const llvm::DataLayout ILP32("e-m:e-p:32:32-i64:64-n8:16:32-S128");
  EXPECT_NE(moduleAbiMismatch(Ctx, ILP32), "");
}

TEST(ModuleAbi, BuilderSetsFieldsByOffset) {
  llvm::LLVMContext Ctx;
  AbiStructBuilder B(Ctx, ImageFields);
  B.setInt(offsetof(kernel_image, size), 42);
  auto *Null = llvm::ConstantPointerNull::get(llvm::PointerType::getUnqual(Ctx));
  B.set(offsetof(kernel_image, ptx), Null);
  B.set(offsetof(kernel_image, arch), Null);
  auto *S = llvm::cast<llvm::ConstantStruct>(B.get());
  EXPECT_EQ(llvm::cast<llvm::ConstantInt>(S->getOperand(2))->getZExtValue(), 42u);
}

TEST(ModuleAbi, EntryKindNames) {
  EXPECT_STREQ(kernel_entry_kind_name(KERNEL_ENTRY_UFUNC), "ufunc");
  EXPECT_STREQ(kernel_entry_kind_name(KERNEL_ENTRY_REDUCE), "reduce");
  EXPECT_EQ(kernel_entry_kind_name(0), nullptr);
  EXPECT_EQ(kernel_entry_kind_name(99), nullptr);
  for (uint32_t K : {KERNEL_ENTRY_UFUNC, KERNEL_ENTRY_JIT, KERNEL_ENTRY_GUFUNC, KERNEL_ENTRY_REDUCE,
                     KERNEL_ENTRY_FUSED, KERNEL_ENTRY_FUSED_REDUCE, KERNEL_ENTRY_ALGORITHM})
    EXPECT_EQ(kernel_entry_kind_from_name(kernel_entry_kind_name(K)), K);
  EXPECT_EQ(kernel_entry_kind_from_name("ufun"), 0u);
  EXPECT_EQ(kernel_entry_kind_from_name("ufuncs"), 0u);
  EXPECT_EQ(kernel_entry_kind_from_name(""), 0u);
}

TEST(Annotations, EntryRoundTrips) {
  EntryAnnotation A;
  A.Kind = KERNEL_ENTRY_GUFUNC;
  A.Name = "dot<float>";
  A.Signature = "void(float32[:], float32[:], float32) (n),(n)->()";
  A.Location = "dot.cpp:12";
  A.ArrayOrders = "CFA";
  A.ParamSize = 328;
  A.ParamAlign = 8;
  const std::string Text = A.encode();
  EXPECT_EQ(Text, "kernel.entry\x1fgufunc\x1f"
                  "dot<float>\x1fvoid(float32[:], float32[:], float32) (n),(n)->()\x1f"
                  "dot.cpp:12\x1f"
                  "CFA\x1f"
                  "328\x1f"
                  "8");
  std::optional<EntryAnnotation> B = EntryAnnotation::decode(Text);
  ASSERT_TRUE(B);
  EXPECT_EQ(B->Kind, A.Kind);
  EXPECT_EQ(B->Name, A.Name);
  EXPECT_EQ(B->Signature, A.Signature);
  EXPECT_EQ(B->Location, A.Location);
  EXPECT_EQ(B->ArrayOrders, "CFA");
  EXPECT_EQ(B->ParamSize, 328u);
  EXPECT_EQ(B->ParamAlign, 8u);
  EXPECT_EQ(B->MaxThreads, 0u);
  // A bound on the blocks, when there is one, comes last: threads, then blocks a multiprocessor.
  A.MaxThreads = 512;
  A.MinBlocks = 2;
  const std::string Bounded = A.encode();
  EXPECT_EQ(Bounded, Text + "\x1f"
                            "512\x1f"
                            "2");
  std::optional<EntryAnnotation> C = EntryAnnotation::decode(Bounded);
  ASSERT_TRUE(C);
  EXPECT_EQ(C->MaxThreads, 512u);
  EXPECT_EQ(C->MinBlocks, 2u);
  EXPECT_EQ(C->ParamAlign, 8u);
  // A bound without its blocks, of no threads, not a number, or followed by more.
  const std::string S = "\x1f";
  for (const std::string &Tail : {S + "512", S + "0" + S + "2", S + "many" + S + "2",
                                  S + "512" + S + "two", S + "512" + S + "2" + S + "1"})
    EXPECT_FALSE(EntryAnnotation::decode(Text + Tail)) << Tail;
}

TEST(Annotations, MalformedEntriesAreNotEntries) {
  EXPECT_FALSE(EntryAnnotation::decode("kernel.entry"));
  EXPECT_TRUE(EntryAnnotation::decode("kernel.entry\x1fjit\x1fn\x1fs\x1fl\x1f"
                                      "A\x1f"
                                      "8\x1f"
                                      "8"));
  EXPECT_TRUE(EntryAnnotation::decode("kernel.entry\x1fjit\x1fn\x1fs\x1fl\x1f\x1f"
                                      "8\x1f"
                                      "8")); // no signature: no orders
  EXPECT_FALSE(EntryAnnotation::decode("kernel.entry\x1fwarp\x1fn\x1fs\x1fl\x1f"
                                       "A\x1f"
                                       "8\x1f"
                                       "8"));
  EXPECT_FALSE(EntryAnnotation::decode("kernel.entry\x1fjit\x1fn\x1fs\x1fl\x1f"
                                       "A\x1f"
                                       "eight\x1f"
                                       "8"));
  EXPECT_FALSE(EntryAnnotation::decode("kernel.entryx\x1fjit\x1fn\x1fs\x1fl\x1f"
                                       "A\x1f"
                                       "8\x1f"
                                       "8"));
  EXPECT_FALSE(EntryAnnotation::decode("kernel.entry\x1fjit\x1fn\x1fs\x1fl\x1f"
                                       "CX\x1f"
                                       "8\x1f"
                                       "8")); // an order that is none
  EXPECT_FALSE(EntryAnnotation::decode("kernel.entry\x1fjit\x1fn\x1fs\x1fl\x1f"
                                       "8\x1f"
                                       "8")); // the orders left out
  EXPECT_FALSE(EntryAnnotation::decode("kernel.declare_device\x1f"
                                       "c\x1fint f(int)\x1f"
                                       "f.cpp:1"));
}

TEST(Annotations, DeclareDeviceAndLinkRoundTrip) {
  DeclareDeviceAnnotation D{true, "int baz(int, int)", "foo.cpp:7"};
  std::optional<DeclareDeviceAnnotation> D2 = DeclareDeviceAnnotation::decode(D.encode());
  ASSERT_TRUE(D2);
  EXPECT_TRUE(D2->NumbaConvention);
  EXPECT_EQ(D2->Signature, "int baz(int, int)");
  EXPECT_EQ(D2->Location, "foo.cpp:7");
  EXPECT_FALSE(DeclareDeviceAnnotation::decode("kernel.declare_device\x1f"
                                               "fortran\x1fint f()\x1f"
                                               "f.cpp:1"));

  LinkAnnotation L{"/src/dir/bar.o", "bar.o"};
  EXPECT_EQ(L.encode(), "kernel.link\x1f/src/dir/bar.o\x1f"
                        "bar.o");
  std::optional<LinkAnnotation> L2 = LinkAnnotation::decode(L.encode());
  ASSERT_TRUE(L2);
  EXPECT_EQ(L2->Path, "/src/dir/bar.o");
  EXPECT_EQ(L2->Written, "bar.o");
  EXPECT_FALSE(LinkAnnotation::decode(D.encode()));
}

TEST(Annotations, AttributeAnnotationsMatchTheirAttributeOnly) {
  AttributeAnnotation Device{"device", {}};
  EXPECT_EQ(Device.encode(), "kernel.device");
  EXPECT_TRUE(AttributeAnnotation::decode("kernel.device", "device"));
  EXPECT_TRUE(AttributeAnnotation::decode("kernel.device\x1f"
                                          "float32(float32)",
                                          "device"));
  EXPECT_FALSE(AttributeAnnotation::decode("kernel.declare_device\x1f"
                                           "c\x1fint f()\x1f"
                                           "f.cpp:1",
                                           "device"));
  EXPECT_FALSE(AttributeAnnotation::decode("kernel.devices", "device"));
  AttributeAnnotation Vectorize{"vectorize", {"float32(float32)", "float64(float64)"}};
  std::optional<AttributeAnnotation> V =
      AttributeAnnotation::decode(Vectorize.encode(), "vectorize");
  ASSERT_TRUE(V);
  EXPECT_EQ(V->Details, Vectorize.Details);
}

} // namespace
