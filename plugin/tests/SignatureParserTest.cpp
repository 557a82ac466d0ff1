// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "SignatureParser.h"

#include <gtest/gtest.h>

using namespace kernel::plugin;

namespace {

Signature parses(llvm::StringRef Text) {
  SignatureError Error;
  std::optional<Signature> Sig = parseSignature(Text, Error);
  EXPECT_TRUE(Sig.has_value()) << Text.str() << ": " << Error.Message << " at " << Error.Offset;
  return Sig.value_or(Signature());
}

SignatureError fails(llvm::StringRef Text) {
  SignatureError Error;
  EXPECT_FALSE(parseSignature(Text, Error).has_value()) << Text.str();
  return Error;
}

TEST(SignatureParser, CanonicalSpelling) {
  EXPECT_EQ(parses("float32(float32,float32)").str(), "float32(float32, float32)");
  EXPECT_EQ(parses("  f8 ( i4 , b1 )  ").str(), "float64(int32, boolean)");
  EXPECT_EQ(parses("void(float32[:,::1], c8[::1, :], u2[:])").str(),
            "void(float32[:, ::1], complex64[::1, :], uint16[:])");
  EXPECT_EQ(parses("(int64)").str(), "void(int64)");
  EXPECT_EQ(parses("int8()").str(), "int8()");
}

// What kernel_entry's array_orders carries to the launch: one character a parameter.
TEST(SignatureParser, ArrayOrders) {
  EXPECT_EQ(
      parses(
          "void(float32[:, ::1], int32, float64[::1, :], complex64[:], uint8[::1], int8[:, :, :])")
          .arrayOrders(),
      "CAFACA");
  EXPECT_EQ(parses("void(float32[::1, :, :], float32[:, :, ::1])").arrayOrders(), "FC");
  EXPECT_EQ(parses("float32(float32, float32)").arrayOrders(), "AA");
  EXPECT_EQ(parses("void()").arrayOrders(), "");
}

TEST(SignatureParser, Types) {
  Signature S = parses("complex128(float32[:, :, ::1], uint64, bool_)");
  EXPECT_TRUE(S.ResultWritten);
  EXPECT_TRUE(S.Result.isScalar());
  EXPECT_EQ(S.Result.Element, ScalarKind::Complex128);
  ASSERT_EQ(S.Params.size(), 3u);
  EXPECT_TRUE(S.Params[0].isArray());
  EXPECT_EQ(S.Params[0].Rank, 3u);
  EXPECT_EQ(S.Params[0].ArrayLayout, SignatureType::Layout::C);
  EXPECT_EQ(S.Params[1].Element, ScalarKind::UInt64);
  EXPECT_EQ(S.Params[2].Element, ScalarKind::Boolean);
  // Positions of each type in the string, for diagnostics.
  EXPECT_EQ(S.Params[0].Begin, 11u);
  EXPECT_EQ(S.Params[1].Begin, 31u);
}

TEST(SignatureParser, EveryAlias) {
  const std::pair<const char *, ScalarKind> Cases[] = {
      {"i1", ScalarKind::Int8},        {"i2", ScalarKind::Int16},
      {"i4", ScalarKind::Int32},       {"i8", ScalarKind::Int64},
      {"intp", ScalarKind::Int64},     {"intc", ScalarKind::Int32},
      {"u1", ScalarKind::UInt8},       {"byte", ScalarKind::UInt8},
      {"u8", ScalarKind::UInt64},      {"f4", ScalarKind::Float32},
      {"float_", ScalarKind::Float32}, {"double", ScalarKind::Float64},
      {"c16", ScalarKind::Complex128}, {"boolean", ScalarKind::Boolean}};
  for (const auto &[Name, Kind] : Cases) {
    std::optional<ScalarKind> K = lookupScalarName(Name);
    ASSERT_TRUE(K.has_value()) << Name;
    EXPECT_EQ(*K, Kind) << Name;
  }
  EXPECT_FALSE(lookupScalarName("float").has_value());
  EXPECT_FALSE(lookupScalarName("int").has_value());
}

TEST(SignatureParser, ErrorsPointAtTheProblem) {
  SignatureError E = fails("float32(float32, flaot32)");
  EXPECT_EQ(E.Offset, 17u);
  EXPECT_NE(E.Message.find("did you mean 'float32'"), std::string::npos);
  EXPECT_EQ(fails("float32(float32 float32)").Offset, 16u);
  EXPECT_EQ(fails("float32(float32").Offset, 15u);
  EXPECT_EQ(fails("float32(x)").Offset, 8u);
  EXPECT_EQ(fails("").Offset, 0u);
  EXPECT_EQ(fails("void(float32[:, ::2])").Offset, 18u);
  EXPECT_EQ(fails("void(float32[:, ::1, :])").Offset, 16u);
  EXPECT_EQ(fails("void(void)").Offset, 5u);
  EXPECT_EQ(fails("float32(float32)x").Offset, 16u);
  EXPECT_EQ(fails("(").Offset, 1u);
}

TEST(SignatureParser, SuggestionsOnlyForTypos) {
  EXPECT_EQ(closestTypeName("flaot64"), "float64");
  EXPECT_EQ(closestTypeName("int33"), "int32");
  EXPECT_EQ(closestTypeName("matrix"), "");
}

} // namespace
