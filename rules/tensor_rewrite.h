#pragma once
// The tensor rules as egraph::Rewrites, run by the one egraph::Runner: a
// compiled .rules rule (rules/rule_query.h searches with egraph::Query,
// binding attributes and op variables; rules/rhs_builder.h applies), and a
// group template's instances applied together (rules/group_apply.h).
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "egraph/rewrite.h"
#include "rules/compiled_rule.h"

namespace smelt::rules {

// One compiled rule. A failure of its right side is a RuleApplicationError
// naming the rule and its position.
class TensorRewrite final : public smelt::egraph::Rewrite {
 public:
  explicit TensorRewrite(const CompiledRule& rule) : rule_(rule) {}
  std::string_view name() const override { return rule_.name; }
  smelt::egraph::RuleStep step(smelt::egraph::EGraph& graph, const smelt::egraph::StepControl& control) const override;

 private:
  const CompiledRule& rule_;
};

// The instances of one group template, applied together every step (any
// limit but 0 runs all of them). Its unions name the instance that made them;
// instance_stats() says what each instance did over the run.
class GroupRewrite final : public smelt::egraph::Rewrite {
 public:
  struct InstanceStats {
    std::size_t matches = 0, unions = 0;
  };
  explicit GroupRewrite(std::vector<const CompiledRule*> instances);
  std::string_view name() const override { return instances_.front()->group->name; }
  smelt::egraph::RuleStep step(smelt::egraph::EGraph& graph, const smelt::egraph::StepControl& control) const override;
  std::span<const CompiledRule* const> instances() const { return instances_; }
  std::span<const InstanceStats> instance_stats() const { return stats_; }

 private:
  std::vector<const CompiledRule*> instances_;
  mutable std::vector<InstanceStats> stats_;
};

// "FILE:LINE:COL: rule NAME", where errors name a rule.
std::string rule_location(const CompiledRule& rule);

}  // namespace smelt::rules
