// Every shipped rule has at least one case in the family tables where it fires.
#include <gtest/gtest.h>

#include <set>

#include "rules/rule_library.h"
#include "tests/rules/rule_case.h"

namespace rules::testing {
namespace {

TEST(RuleCoverage, EveryShippedRuleHasAFiringCase) {
  std::set<std::string> covered;
  for (auto cases : {elementwise_cases(), factory_cases(), view_cases(), view_elementwise_cases(), gemm_split_cases(),
                     batching_cases()})
    for (const RuleCase& c : cases)
      if (c.fires) covered.insert(c.rule);
  for (const Rule& r : all_rules()) EXPECT_TRUE(covered.count(r.name)) << "no test case fires rule " << r.name;
}

}  // namespace
}  // namespace rules::testing
