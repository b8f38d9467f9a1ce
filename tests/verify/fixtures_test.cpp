// The deliberately wrong rules of verify/fixtures/ are each rejected, with a
// counterexample that shows what differs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "rules/rule_parser.h"
#include "tests/verify/prove_test_util.h"

namespace smelt::verify {
namespace {

std::vector<rules::Rule> fixture_rules() {
  std::vector<rules::Rule> out;
  for (const auto& entry : std::filesystem::directory_iterator(SMELT_SOURCE_DIR "/verify/fixtures")) {
    if (entry.path().extension() != ".rules") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    for (rules::Rule& r : rules::parse_rules(text.str(), entry.path().filename().string())) out.push_back(r);
  }
  return out;
}

// What each fixture's failure must say: the reason, and lines of the counterexample.
struct Expected {
  std::string message;
  std::vector<std::string> counterexample;
};

const std::map<std::string, Expected>& expectations() {
  static const std::map<std::string, Expected> kExpected = {
      {"slice-offset-off-by-one", {"the elements differ", {"left:  ?f:", "right: ?f:", "at index"}}},
      {"slice-slice-stop-off-by-one", {"the shapes or dtypes differ", {"?k1 = ", "?k2 = "}}},
      {"permute-wrong-order", {"the elements differ", {"case: ?p = ", "left:  ?x[", "right: ?x["}}},
      {"concat-matmuls-swapped", {"the elements differ", {"left:  matmul1(", "right: matmul1("}}},
      {"cos-keeps-pad-value", {"the elements differ", {"left:  cos:", "right: 0"}}},
      {"add-zero-without-unsafe-fp", {"the elements differ", {"every element 0", "left:  add:", "right: ?x["}}},
      {"distribute-without-unsafe-fp", {"the elements differ", {"left:  mul:", "right: add:"}}},
      {"sub-commute", {"the elements differ", {"left:  ", "right: ", " = "}}},
      {"split-matmul-wrong-axis", {"the right side does not type-check: matmul", {"?a: ", "?b: "}}},
      {"split-matmul-drops-last-k", {"the elements differ", {"left:  matmul1(", "right: matmul1("}}},
      {"reduce-drops-nothing", {"the right side has rank", {"?axes = "}}},
      {"max-of-full-empty-too", {"the elements differ", {"?shape = [0]", "left:  reduce_max1(", "right: ?v"}}},
      {"max-of-broadcast-own-axis", {"the right side does not type-check: reshape", {"?x: ", "?target = "}}},
      {"sum-of-full-is-one-copy", {"the elements differ", {"left:  reduce_sum1(", "right: ?v"}}},
      {"sum-of-full-one-copy-too-many", {"the elements differ", {"left:  reduce_sum1(", "right: copies(?v, 2)"}}},
  };
  return kExpected;
}

TEST(Fixtures, EveryFixtureIsExpected) {
  std::vector<rules::Rule> rules = fixture_rules();
  ASSERT_GE(rules.size(), 3u);
  for (const rules::Rule& r : rules) EXPECT_TRUE(expectations().count(r.name)) << r.name;
}

TEST(Fixtures, EachWrongRuleFailsWithACounterexample) {
  std::vector<rules::Rule> rules = fixture_rules();
  std::vector<RuleResult> results = prove_rules(rules);
  for (const RuleResult& r : results) {
    SCOPED_TRACE(r.name);
    ASSERT_EQ(r.verdict, Verdict::kFailed) << testing::explain(r);
    auto it = expectations().find(r.name);
    if (it == expectations().end()) continue;
    EXPECT_NE(r.message.find(it->second.message), std::string::npos) << r.message;
    for (const std::string& line : it->second.counterexample)
      EXPECT_NE(r.counterexample.find(line), std::string::npos) << line << " in\n" << r.counterexample;
    // Where elements differ, the two expressions shown differ too.
    size_t left = r.counterexample.find("left:  "), right = r.counterexample.find("right: ");
    if (left != std::string::npos && right != std::string::npos) {
      std::string l = r.counterexample.substr(left + 7, r.counterexample.find('\n', left) - left - 7);
      std::string rr = r.counterexample.substr(right + 7, r.counterexample.find('\n', right) - right - 7);
      EXPECT_NE(l, rr);
    }
  }
}

}  // namespace
}  // namespace smelt::verify
