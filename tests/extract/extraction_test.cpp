#include <gtest/gtest.h>

#include "extract/extraction.h"
#include "tests/extract/test_util.h"

namespace smelt::extract {
namespace {

using testing::class_named;
using testing::node_named;
using testing::parse_problem;

// R = f(A, A); A = g(X) | h(B); B = k(A); X = x.  h and k can form a cycle.
const char* kShared = R"({"nodes": {
  "r": {"op": "f", "eclass": "R", "children": ["g", "g"], "cost": 1},
  "g": {"op": "g", "eclass": "A", "children": ["x"], "cost": 2},
  "h": {"op": "h", "eclass": "A", "children": ["k"], "cost": 0.5},
  "k": {"op": "k", "eclass": "B", "children": ["g"], "cost": 0.5},
  "x": {"op": "x", "eclass": "X", "cost": 3}},
  "root_eclasses": ["R"]})";

Extraction choose(const Problem& p, std::initializer_list<const char*> nodes) {
  Extraction e{std::vector<NodeId>(p.num_classes(), kNone)};
  for (const char* name : nodes) {
    const NodeId n = node_named(p, name);
    e.choice[p.class_of(n)] = n;
  }
  return e;
}

TEST(Extraction, TreeCostCountsSharedTermsPerUseDagCostOnce) {
  const Problem p = parse_problem(kShared);
  const Extraction e = choose(p, {"r", "g", "x"});
  EXPECT_TRUE(validate(p, e).empty());
  EXPECT_EQ(tree_cost(p, e), 1 + 2 * (2 + 3));
  EXPECT_EQ(dag_cost(p, e), 1 + 2 + 3);
}

TEST(Extraction, DagCostIgnoresChoicesTheRootsDoNotReach) {
  const Problem p = parse_problem(kShared);
  const Extraction e = choose(p, {"r", "g", "x", "k"});  // B is chosen but unused
  EXPECT_EQ(dag_cost(p, e), 6);
  const Extraction reached = reachable_part(p, e);
  EXPECT_EQ(reached.choice[class_named(p, "B")], kNone);
  EXPECT_EQ(reached.choice[class_named(p, "A")], node_named(p, "g"));
}

TEST(Extraction, ValidateFindsMissingRootMissingChildCycleAndWrongClass) {
  const Problem p = parse_problem(kShared);
  auto first = [](const std::vector<std::string>& problems) { return problems.empty() ? "" : problems.front(); };

  EXPECT_EQ(first(validate(p, choose(p, {"g", "x"}))), "root class \"R\" has no choice");
  EXPECT_EQ(first(validate(p, choose(p, {"r", "g"}))), "class \"A\": child class \"X\" has no choice");
  const std::string cycle = first(validate(p, choose(p, {"r", "h", "k", "x"})));
  EXPECT_EQ(cycle.rfind("cycle: ", 0), 0u) << cycle;

  Extraction wrong = choose(p, {"r", "g", "x"});
  wrong.choice[class_named(p, "X")] = node_named(p, "g");
  EXPECT_EQ(first(validate(p, wrong)), "class \"X\": chosen node 1 is not in the class");

  EXPECT_EQ(validate(p, Extraction{{}}).size(), 1u);  // wrong length
}

}  // namespace
}  // namespace smelt::extract
