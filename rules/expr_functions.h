#pragma once
// The functions of the rule language's expressions (docs/rules.md), defined
// once: the parser checks every call against this table (arity, which
// arguments are tensor or op variables) and the evaluator maps names to code.
#include <cstdint>
#include <string_view>

namespace smelt::rules {

enum class Fn : uint8_t {
  kLiteral,
  kAttrVar,
  kAdd,
  kSub,
  kMul,
  kMin,
  kMax,
  kFloorDiv,
  kMod,
  kSign,
  kAbs,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kAnd,
  kOr,
  kNot,
  kList,
  kAt,
  kSet,
  kLen,
  kFill,
  kRange,
  kTake,
  kDrop,
  kAppend,
  kProduct,
  kComposePerm,
  kInversePerm,
  kReduceShape,
  kSumOfCopies,
  kShape,
  kRank,
  kDim,
  kDType,
  kConst,
  kElementwise,
  kUnary,
  kBinary,
  kIsOp,
  kApply,
};

enum class ArgKind : uint8_t { kValue, kTensor, kOpVar, kOpName };
inline constexpr int kAnyNumberOfArgs = -1;

struct ExprFunction {
  std::string_view name;
  Fn fn;
  int min_args, max_args;                // max kAnyNumberOfArgs: unbounded
  ArgKind first = ArgKind::kValue;       // kind of the first argument
  ArgKind second = ArgKind::kValue;      // of the second; the rest are values
};

// Null for a name that is not a function of the language.
const ExprFunction* find_expr_function(std::string_view name);

}  // namespace smelt::rules
