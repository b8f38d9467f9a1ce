#pragma once
// The integer parameters of a rule's encoding (extents, attribute entries) and
// how each is treated: symbolic (a Z3 constant, only linear arithmetic on it),
// finite (a Z3 constant restricted to a small range, so products with it can be
// expanded case by case) or chosen (a concrete value fixed by the current case).
// Structural choices (ranks, list lengths, perms, reduction axes, concat axes)
// are always chosen: the encoder asks for them with NeedChoice and the prover
// explores every option.
#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <z3++.h>

namespace smelt::verify {

enum class ParamKind : uint8_t {
  kExtent,  // a shape extent: >= 0; finite range 0..4
  kStep,    // a slice step: != 0; finite range -3..3 without 0
  kInt,     // any other integer attribute entry; finite range -2..6
  kDType,   // a dtype code (ir::DType), always in 0..5
};

// The concrete choices of one case, by group name ("rank ?x", "?p", ...).
using Case = std::map<std::string, std::vector<int64_t>>;

// Thrown while encoding when a structural value must be concrete: the prover
// re-runs the case once per option.
struct NeedChoice {
  std::string group;
  std::vector<std::vector<int64_t>> options;
};
// Thrown when a product or quotient of symbolic parameters appeared: the named
// parameters become finite and the case is encoded again.
struct NeedFinite {
  std::map<std::string, ParamKind> params;
};
// The current case cannot match (e.g. an elementwise op over different ranks).
struct Vacuous {};
// The right side is ill-typed in every instance of the current case (a rank
// mismatch, an axis out of range): `what` says which fact fails.
struct StaticFailure {
  std::string what;
};
// Outside what the prover models; the rule is reported UNKNOWN with this reason.
struct Unsupported : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The finite range used for a parameter of this kind.
std::vector<int64_t> finite_range(ParamKind kind);
std::string finite_range_text(ParamKind kind);

class Params {
 public:
  Params(z3::context& ctx, const Case& c, const std::set<std::string>& finite)
      : ctx_(ctx), case_(c), finite_(finite), domain_(ctx) {}

  // The value of the parameter `name`; entry `index` of the group `group` when
  // that group is chosen in the current case (a group of one: group == name).
  z3::expr get(const std::string& name, ParamKind kind, const std::string& group, size_t index);
  z3::expr get(const std::string& name, ParamKind kind) { return get(name, kind, name, 0); }

  // A structural value: chosen in the case, or NeedChoice over `options`.
  const std::vector<int64_t>& choose(const std::string& group,
                                     const std::vector<std::vector<int64_t>>& options) const;

  bool is_param(const z3::expr& e) const;
  bool is_finite(const std::string& name) const { return finite_.count(name) > 0; }
  ParamKind kind_of(const std::string& name) const { return kinds_.at(name); }
  // The range constraints of every parameter created so far.
  const z3::expr_vector& domain() const { return domain_; }
  // Every symbolic (not chosen) parameter created so far, in creation order.
  const std::vector<std::pair<std::string, z3::expr>>& symbols() const { return symbols_; }
  const Case& current_case() const { return case_; }

 private:
  z3::context& ctx_;
  const Case& case_;
  const std::set<std::string>& finite_;
  z3::expr_vector domain_;
  std::map<std::string, ParamKind> kinds_;
  std::vector<std::pair<std::string, z3::expr>> symbols_;
};

}  // namespace smelt::verify
