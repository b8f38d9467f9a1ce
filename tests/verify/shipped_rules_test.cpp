// Every shipped rule (rules/*.rules, as embedded in the library) is proved.
#include <gtest/gtest.h>

#include "rules/rule_library.h"
#include "tests/verify/prove_test_util.h"

namespace verify {
namespace {

TEST(ShippedRules, EveryRuleIsProved) {
  std::vector<rules::Rule> rules = rules::all_rules();
  ASSERT_FALSE(rules.empty());
  std::vector<RuleResult> results = prove_rules(rules);
  for (const RuleResult& r : results) {
    EXPECT_EQ(r.verdict, Verdict::kProved) << r.file << ":" << r.line << ": " << testing::explain(r);
    EXPECT_TRUE(r.mode == "symbolic" || r.mode == "enumerated") << r.name;
    EXPECT_GE(r.cases, 1) << r.name;
  }
}

}  // namespace
}  // namespace verify
