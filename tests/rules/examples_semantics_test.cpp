// The default rules on real graphs: terms extracted from every saturated
// example compute exactly the original's values (the default rules are exact
// in IEEE arithmetic, so bit for bit).
#include <gtest/gtest.h>

#include <algorithm>

#include "ir/interpreter.h"
#include "ir/text_format.h"
#include "rules/rule_library.h"
#include "rules/saturate.h"
#include "rules/term_choice.h"
#include "tests/rules/test_graphs.h"

namespace smelt::rules::testing {
namespace {

class ExampleSemantics : public ::testing::TestWithParam<std::string> {};

TEST_P(ExampleSemantics, ExtractedTermsComputeTheSameValues) {
  const ir::Graph original = example(GetParam());
  const Saturation s = saturate(original, default_rules());
  // The smallest terms; the terms made of rewritten nodes wherever there is one
  // (nodes added after the original graph's cost 1, the original's 1000); random terms.
  const smelt::egraph::Id first_new = *std::max_element(s.classes.values.begin(), s.classes.values.end()) + 1;
  std::vector<TermChoice> choices = {smallest_terms(s.egraph), cheapest_terms(s.egraph, [&](smelt::egraph::Id node) {
                                       return node >= first_new ? 1.0 : 1000.0;
                                     })};
  // Big gemms make the interpreter slow: fewer random extractions there.
  const bool big = GetParam() == "mlir_dot_slice" || GetParam().rfind("llama", 0) == 0;
  for (uint64_t seed = 1; seed <= (big ? 1u : 3u); ++seed) choices.push_back(random_terms(s.egraph, seed));
  const std::vector<ir::HostTensor> inputs = random_inputs(original, 11);
  const std::vector<ir::HostTensor> want = ir::interpret(original, inputs);
  for (size_t k = 0; k < choices.size(); ++k) {
    const ir::Graph back = read_graph(s.egraph, s.classes.outputs, choices[k], original.name());
    const std::string diff = compare_values(want, ir::interpret(back, inputs), 0.0);
    EXPECT_EQ(diff, "") << "extraction " << k << ":\n" << ir::print_graph(back);
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, ExampleSemantics, ::testing::ValuesIn(example_names()),
                         [](const auto& p) { return p.param; });

}  // namespace
}  // namespace smelt::rules::testing
