#pragma once
#include <cstdint>

namespace smelt::egraph {

// Why two e-nodes were united (recorded only when explanations are on).
struct Justification {
  enum class Kind : std::uint8_t {
    kGiven,       // the caller asserted it (EGraph::unite without a rule)
    kCongruence,  // same operator, pairwise-equal children
    kRule,        // a rewrite rule; `rule` indexes EGraph::rule_name
  };
  Kind kind = Kind::kGiven;
  std::uint32_t rule = 0;

  static Justification given() { return {}; }
  static Justification congruence() { return {Kind::kCongruence, 0}; }
  static Justification by_rule(std::uint32_t rule_id) { return {Kind::kRule, rule_id}; }
};

}  // namespace smelt::egraph
