// Units for the variable queries of ir/arith/expr_util.h: AnyVar and UsesVar
// see through every expression kind and stop at the first match.
#include <vector>

#include "gtest/gtest.h"
#include "ir/arith/expr_util.h"
#include "ir/buffer.h"

namespace tessel::ir::arith {
namespace {

TEST(AnyVarTest, StopsAtTheFirstMatchingVariable) {
  Var x = MakeVar("x", DataType::Int(32)), y = MakeVar("y", DataType::Int(32));
  Var z = MakeVar("z", DataType::Int(32));
  Expr e = Add(Mul(x, y), Select(LT(z, IntImm32(3)), z, x));
  std::vector<const VarNode*> asked;
  auto is_x = [&](const VarNode* v) {
    asked.push_back(v);
    return v == x.get();
  };
  EXPECT_TRUE(AnyVar(e, is_x));
  EXPECT_EQ(asked, std::vector<const VarNode*>{x.get()});
  // Without a match every use is asked about, in visiting order.
  asked.clear();
  EXPECT_FALSE(AnyVar(e, [&](const VarNode* v) {
    asked.push_back(v);
    return false;
  }));
  EXPECT_EQ(asked, (std::vector<const VarNode*>{x.get(), y.get(), z.get(), z.get(), x.get()}));
}

TEST(UsesVarTest, SeesThroughEveryExpressionKind) {
  Var i = MakeVar("i", DataType::Int(32)), j = MakeVar("j", DataType::Int(32));
  Buffer a = MakeBuffer("A", DataType::Float(32), {IntImm32(64)});
  Expr load = Load(a, {Add(i, IntImm32(1))});
  EXPECT_TRUE(UsesVar(load, i.get()));
  EXPECT_FALSE(UsesVar(load, j.get()));
  EXPECT_TRUE(UsesVar(Cast(DataType::Float(32), i), i.get()));
  EXPECT_TRUE(UsesVar(Not(LT(i, j)), j.get()));
  EXPECT_TRUE(UsesVar(Ramp(IntImm32(0), j, 4), j.get()));
  EXPECT_TRUE(UsesVar(Broadcast(j, 4), j.get()));
  EXPECT_TRUE(UsesVar(Intrinsic("exp", {Cast(DataType::Float(32), j)}), j.get()));
  EXPECT_FALSE(UsesVar(Intrinsic("exp", {FloatImm(DataType::Float(32), 1.0)}), j.get()));
  EXPECT_FALSE(UsesVar(Expr(), i.get()));
}

}  // namespace
}  // namespace tessel::ir::arith
