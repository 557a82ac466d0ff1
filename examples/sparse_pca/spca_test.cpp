// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the versions may be given (problem::check), and the cases where they must still agree:
// a zero input, and batch sizes that differ but keep whole blocks of draws.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "spca.h"

namespace {

spca::problem small() {
  spca::problem pr;
  pr.p = 50;
  pr.d = 2;
  pr.k = 5;
  pr.epsilon = 0.5; // M = 64
  pr.batch = 12;
  return pr;
}

std::string refusal(const spca::problem &pr, const kernel::ndarray<float, 2> *vd = nullptr) {
  try {
    vd ? pr.check(*vd) : pr.check();
  } catch (const std::invalid_argument &e) {
    return e.what();
  }
  return "accepted";
}

TEST(SparsePca, CheckRefusesWhatTheVersionsCannotSolve) {
  spca::problem pr = small();
  EXPECT_EQ(refusal(pr), "accepted");
  pr.k = 51;
  EXPECT_EQ(refusal(pr), "k must be at most p");
  pr = small();
  pr.epsilon = std::numeric_limits<double>::infinity();
  EXPECT_EQ(refusal(pr), "accepted"); // one direction: (4/inf)^2 rounds up to 1
  pr.epsilon = 0;
  EXPECT_EQ(refusal(pr), "epsilon must be positive");
  pr = small();
  pr.d = 20;
  pr.epsilon = 0.1;
  EXPECT_NE(refusal(pr).find("more than 2^53"), std::string::npos);
  pr = small();
  kernel::ndarray<float, 2> vd = spca::example_input(pr);
  EXPECT_EQ(refusal(pr, &vd), "accepted");
  vd(7, 1) = std::nanf("");
  EXPECT_EQ(refusal(pr, &vd), "the input's value at (7, 1) is not finite");
  const kernel::ndarray<float, 2> narrow({50, 1});
  EXPECT_EQ(refusal(pr, &narrow), "the input is 50 x 1, not p x d");
}

TEST(SparsePca, ZeroInputGivesAnEvenUnitVectorEverywhere) {
  const spca::problem pr = small();
  kernel::ndarray<float, 2> vd({pr.p, pr.d});
  for (kernel::index_t i = 0; i < pr.p; ++i) vd(i, 0) = vd(i, 1) = 0;
  const spca::result ref = spca::reference(pr, vd);
  EXPECT_EQ(ref.value, 0);
  float squares = 0;
  for (float v : ref.x) {
    EXPECT_FALSE(std::isnan(v));
    squares += v * v;
  }
  EXPECT_NEAR(squares, 1, 1e-6);
  for (kernel::target t : {kernel::target::cpu, kernel::target::parallel, kernel::target::simulator}) {
    const spca::result r = spca::high_level(pr, vd, t);
    EXPECT_EQ(r.direction, ref.direction) << kernel::target_name(t);
    EXPECT_EQ(r.support, ref.support) << kernel::target_name(t);
    EXPECT_EQ(r.x, ref.x) << kernel::target_name(t);
  }
}

TEST(SparsePca, WholeBlocksOfDrawsMakeTheBatchSizeIrrelevant) {
  spca::problem pr = small();
  const kernel::ndarray<float, 2> vd = spca::example_input(pr);
  pr.batch = 12; // 24 draws a batch
  const spca::result twelve = spca::reference(pr, vd);
  pr.batch = 64; // one batch
  const spca::result whole = spca::reference(pr, vd);
  EXPECT_EQ(twelve.direction, whole.direction);
  EXPECT_EQ(twelve.support, whole.support);
  // The same draws; a fill's normals may round otherwise in its tail.
  for (std::size_t i = 0; i < whole.x.size(); ++i) EXPECT_NEAR(twelve.x[i], whole.x[i], 1e-6f) << i;
}

} // namespace
