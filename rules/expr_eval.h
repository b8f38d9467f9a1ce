#pragma once
// The expression language of rules (attribute values and :if conditions,
// docs/rules.md), compiled once per rule: variables resolved to indices and
// functions to an enum, then evaluated per match against an ExprEnv.
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/ops.h"
#include "rules/expr_functions.h"
#include "rules/rule_ast.h"
#include "rules/value.h"

namespace smelt::rules {

// Where the variables of a rule live: one index space per kind.
struct VarIndex {
  enum class Kind : uint8_t { kTensor, kOp, kAttr };
  struct Slot {
    Kind kind;
    int index;
  };
  std::unordered_map<std::string, Slot> slots;
  int tensors = 0, ops = 0, attrs = 0;

  // The slot of `name`, adding it with `kind` if new (std::logic_error if the kind differs).
  Slot declare(const std::string& name, Kind kind);
  std::optional<Slot> find(const std::string& name) const;
};


struct CExpr {
  Fn fn = Fn::kLiteral;
  Value literal;              // kLiteral
  int var = -1;               // kAttrVar; the tensor / op variable of kShape ... kApply
  ir::Op op = ir::Op::Input;  // kIsOp
  std::vector<CExpr> args;
};

// What an expression may look at on a match.
struct TensorFacts {
  ir::TensorType type;
  std::optional<double> splat;
};
struct OpFacts {
  ir::Op op = ir::Op::Input;
  const ir::Attrs* attrs = nullptr;
  std::vector<ir::DType> operand_dtypes;
};
class ExprEnv {
 public:
  virtual ~ExprEnv() = default;
  virtual const Value& attr_var(int index) const = 0;
  virtual TensorFacts tensor_var(int index) const = 0;
  virtual OpFacts op_var(int index) const = 0;
};

// Resolves names (declaring nothing: every variable must already be in `vars`).
// std::logic_error for an unknown function or variable.
CExpr compile_expr(const Expr& e, const VarIndex& vars);

// The attribute / tensor / op variables an expression reads.
void collect_vars(const CExpr& e, std::vector<VarIndex::Slot>& out);

// Evaluates; throws Undefined (no value on this match) or ExprTypeError (a
// value of the wrong kind: a bug in the rule).
Value eval(const CExpr& e, const ExprEnv& env);

// A condition: false when undefined; ExprTypeError when not a bool.
bool holds(const CExpr& e, const ExprEnv& env);

}  // namespace smelt::rules
