#pragma once
// The attribute values of one op term. On the left side an attribute is a
// variable (bound on first sight), omitted (a fresh hidden value: it matches
// anything) or an expression (a hidden value that must equal it). Structural
// attributes (perm, axes, the axis of concat/iota, keepdims) are chosen per
// case. On the right side an attribute is its expression's value (defined, or
// the rule fails) or the .sg default.
#include <optional>
#include <string>
#include <vector>

#include "verify/encoding_state.h"

namespace smelt::verify {

class TermAttrs {
 public:
  TermAttrs(EncodingState& s, const rules::Term& t, Side side) : s_(s), t_(t), side_(side) {}

  // A list of integers with one entry per axis (`length`).
  AttrValue list(const std::string& key, ParamKind kind, size_t length);
  // A list whose length the left side leaves open (reshape, broadcast, factory shapes).
  AttrValue free_list(const std::string& key, ParamKind kind, int min_length, int max_length);
  // A scalar: kInt, kFloat or kDType.
  z3::expr scalar(const std::string& key, AttrKind kind);
  // A value attribute (pad's, full's) as the element it makes in `dtype`.
  z3::expr element(const std::string& key, const z3::expr& dtype);
  int64_t structural_int(const std::string& key, int64_t lo, int64_t hi);
  std::vector<int64_t> structural_list(const std::string& key,
                                       const std::vector<std::vector<int64_t>>& options);
  bool structural_bool(const std::string& key, bool default_value);

  // "slice at 3:9", for messages.
  std::string where() const;

 private:
  const rules::Expr* given(const std::string& key) const;
  // A left-side attribute given as an expression without variables: its value.
  std::optional<AttrValue> lhs_literal(const std::string& key, AttrKind kind);
  // The name of the value at this site: the variable, or a hidden name.
  std::string site(const std::string& key) const;
  // The left side's value for a non-variable site, equal to its expression if any.
  AttrValue hidden(const std::string& key, AttrValue value);
  AttrValue rhs_value(const std::string& key, AttrKind kind);
  AttrValue make_list(const std::string& name, ParamKind kind, size_t length);
  AttrValue chosen_list(const std::string& name, const std::vector<std::vector<int64_t>>& options);

  EncodingState& s_;
  const rules::Term& t_;
  Side side_;
};

}  // namespace smelt::verify
