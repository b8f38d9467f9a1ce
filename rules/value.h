#pragma once
// Values of the .rules expression language (docs/rules.md): integers, floats,
// bools, dtypes and lists, and the two ways an expression can fail.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "ir/dtype.h"

namespace smelt::rules {

struct Value {
  enum class Kind : uint8_t { kInt, kFloat, kBool, kDType, kList };
  Kind kind = Kind::kInt;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  ir::DType dtype = ir::DType::F32;
  std::vector<Value> items;  // kList

  static Value integer(int64_t v);
  static Value real(double v);
  static Value boolean(bool v);
  static Value of_dtype(ir::DType t);
  static Value list(std::vector<Value> items);
  static Value ints(const std::vector<int64_t>& v);
  static Value reals(const std::vector<double>& v);

  bool is_list() const { return kind == Kind::kList; }
};

// The expression has no value on this match (a missing constant, an index out
// of range, a division by zero, an overflow): a condition is then false and
// the rule does not fire. Thrown, caught by the rule engine.
struct Undefined {};

// A value of the wrong kind (a list where a number is needed, ...): a bug in
// the rule, reported loudly.
class ExprTypeError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

std::string to_string(const Value& v);
std::string kind_name(Value::Kind k);

// Numeric value of a number (bools are 0/1); ExprTypeError otherwise.
double as_double(const Value& v);
// An integer (bools are 0/1, floats only when whole); ExprTypeError otherwise.
int64_t as_int(const Value& v);
bool as_bool(const Value& v);
// A list of integers; ExprTypeError otherwise.
std::vector<int64_t> as_ints(const Value& v);

// Identity, the meaning of `=`: numbers are equal when they are the same
// number (1 = 1.0, but -0.0 ≠ 0 and nan = nan: a rule that tests a constant
// means exactly that constant); lists element by element; dtypes and bools by
// value. Kinds that cannot be compared (a dtype and a number) are an error.
bool identical(const Value& a, const Value& b);

}  // namespace smelt::rules
