// Every shipped rule has at least one case in the family tables where it fires.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "rules/rule_library.h"
#include "tests/rules/rule_case.h"

namespace smelt::rules::testing {
namespace {

TEST(RuleCoverage, EveryShippedRuleHasAFiringCase) {
  std::set<std::string> covered;
  for (auto cases : {elementwise_cases(), factory_cases(), reduction_cases(), view_cases(), view_elementwise_cases(), gemm_split_cases(),
                     batching_cases(), conv_cases(), gather_cases()})
    for (const RuleCase& c : cases)
      if (c.fires) covered.insert(c.rule);
  std::set<std::string> shipped;
  for (const Rule& r : all_rules()) shipped.insert(r.name);
  for (const Rule& r : all_rules()) {
    if (r.group && r.group->generic) {
      // A member lemma is covered by a case of an instance past the shipped
      // ones: built from the template, as saturation builds it.
      const std::string base = r.group->name + ".";
      const bool built = std::any_of(covered.begin(), covered.end(), [&](const std::string& c) {
        return c.starts_with(base) && !shipped.count(c);
      });
      EXPECT_TRUE(built) << "no test case fires an instance of " << r.name << " past the shipped ones";
      continue;
    }
    EXPECT_TRUE(covered.count(r.name)) << "no test case fires rule " << r.name;
  }
}

}  // namespace
}  // namespace smelt::rules::testing
