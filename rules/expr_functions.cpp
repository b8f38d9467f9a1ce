#include "rules/expr_functions.h"

namespace smelt::rules {
namespace {

constexpr int kMany = kAnyNumberOfArgs;
constexpr ExprFunction kFunctions[] = {
    {"+", Fn::kAdd, 2, kMany},
    {"-", Fn::kSub, 1, 2},
    {"*", Fn::kMul, 2, kMany},
    {"min", Fn::kMin, 2, kMany},
    {"max", Fn::kMax, 2, kMany},
    {"floordiv", Fn::kFloorDiv, 2, 2},
    {"mod", Fn::kMod, 2, 2},
    {"sign", Fn::kSign, 1, 1},
    {"abs", Fn::kAbs, 1, 1},
    {"=", Fn::kEq, 2, 2},
    {"!=", Fn::kNe, 2, 2},
    {"<", Fn::kLt, 2, 2},
    {"<=", Fn::kLe, 2, 2},
    {">", Fn::kGt, 2, 2},
    {">=", Fn::kGe, 2, 2},
    {"and", Fn::kAnd, 1, kMany},
    {"or", Fn::kOr, 1, kMany},
    {"not", Fn::kNot, 1, 1},
    {"list", Fn::kList, 0, kMany},
    {"at", Fn::kAt, 2, 2},
    {"set", Fn::kSet, 3, 3},
    {"len", Fn::kLen, 1, 1},
    {"fill", Fn::kFill, 2, 2},
    {"range", Fn::kRange, 1, 1},
    {"take", Fn::kTake, 2, 2},
    {"drop", Fn::kDrop, 2, 2},
    {"append", Fn::kAppend, 2, 2},
    {"product", Fn::kProduct, 1, 1},
    {"compose-perm", Fn::kComposePerm, 2, 2},
    {"inverse-perm", Fn::kInversePerm, 1, 1},
    {"reduce-shape", Fn::kReduceShape, 3, 3},
    {"sum-of-copies", Fn::kSumOfCopies, 3, 3},
    {"shape", Fn::kShape, 1, 1, ArgKind::kTensor},
    {"rank", Fn::kRank, 1, 1, ArgKind::kTensor},
    {"dim", Fn::kDim, 2, 2, ArgKind::kTensor},
    {"dtype", Fn::kDType, 1, 1, ArgKind::kTensor},
    {"const", Fn::kConst, 1, 1, ArgKind::kTensor},
    {"elementwise", Fn::kElementwise, 1, 1, ArgKind::kOpVar},
    {"unary", Fn::kUnary, 1, 1, ArgKind::kOpVar},
    {"binary", Fn::kBinary, 1, 1, ArgKind::kOpVar},
    {"is-op", Fn::kIsOp, 2, 2, ArgKind::kOpVar, ArgKind::kOpName},
    {"apply", Fn::kApply, 2, kMany, ArgKind::kOpVar},
};

}  // namespace

const ExprFunction* find_expr_function(std::string_view name) {
  for (const ExprFunction& f : kFunctions)
    if (f.name == name) return &f;
  return nullptr;
}

}  // namespace smelt::rules
