// Family 5: horizontal batching of matmuls.
#include <gtest/gtest.h>

#include "tests/rules/rule_case.h"

namespace smelt::rules::testing {

// The group rules (:members 2 *): the shipped instances 2..4 and those built
// from the template as saturation builds them (their member lemma proves
// every n), up to past the 16 members the language allows a bounded template.
constexpr int kMembersTested[] = {2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 16, 17, 24};

std::string name_k(const char* base, int k) { return base + std::to_string(k); }

// n matmuls sharing x are the n column blocks of one matmul over [w0 ... w{n-1}].
RuleCase sharing_lhs_case(int n) {
  std::string inputs = "x = input() : f32[4,3]\n", body, outputs, ws;
  for (int k = 0; k < n; ++k) {
    inputs += name_k("w", k) + " = input() : f32[3,5]\n";
    body += name_k("p", k) + " = matmul(x, " + name_k("w", k) + ")\n";
    outputs += (k ? ", " : "") + name_k("p", k);
    ws += (k ? ", " : "") + name_k("w", k);
  }
  // The last member: its columns are the last block.
  const std::string expect = inputs + "w = concat(" + ws + ", axis=1)\nm = matmul(x, w)\ns = slice(m, start=[0," +
                             std::to_string(5 * (n - 1)) + "], stop=[4," + std::to_string(5 * n) +
                             "], step=[1,1])\noutput s";
  std::string reversed_outputs = name_k("p", n - 1);
  for (int k = 0; k < n - 1; ++k) reversed_outputs += ", " + name_k("p", k);
  return {"batch-matmuls-sharing-lhs." + std::to_string(n), inputs + body + "output " + reversed_outputs, expect};
}

// n matmuls of one shape are the n entries of one batched matmul.
RuleCase same_shape_case(int n) {
  std::string inputs, body, outputs, as, ws, stack;
  for (int k = 0; k < n; ++k) {
    inputs += name_k("a", k) + " = input() : f32[4,3]\n" + name_k("w", k) + " = input() : f32[3,5]\n";
    body += name_k("p", k) + " = matmul(" + name_k("a", k) + ", " + name_k("w", k) + ")\n";
    stack += name_k("r", k) + " = reshape(" + name_k("a", k) + ", shape=[1,4,3])\n" + name_k("v", k) + " = reshape(" +
             name_k("w", k) + ", shape=[1,3,5])\n";
    as += (k ? ", " : "") + name_k("r", k);
    ws += (k ? ", " : "") + name_k("v", k);
  }
  std::string reversed_outputs = name_k("p", n - 1);
  for (int k = 0; k < n - 1; ++k) reversed_outputs += ", " + name_k("p", k);
  const std::string last = std::to_string(n - 1);
  const std::string expect = inputs + stack + "a = concat(" + as + ", axis=0)\nw = concat(" + ws +
                             ", axis=0)\nm = matmul(a, w)\ns = slice(m, start=[" + last + ",0,0], stop=[" +
                             std::to_string(n) + ",4,5], step=[1,1,1])\nr = reshape(s, shape=[4,5])\noutput r";
  return {"batch-matmuls-same-shape." + std::to_string(n), inputs + body + "output " + reversed_outputs, expect};
}

// n matmuls of one shape over rank-3 activations are the n row blocks of one
// batched matmul over the activations concatenated along their batch axis.
RuleCase same_shape_batched_case(int n) {
  std::string inputs, body, as, ws, broadcasts;
  for (int k = 0; k < n; ++k) {
    inputs += name_k("a", k) + " = input() : f32[2,4,3]\n" + name_k("w", k) + " = input() : f32[3,5]\n";
    body += name_k("p", k) + " = matmul(" + name_k("a", k) + ", " + name_k("w", k) + ")\n";
    broadcasts += name_k("v", k) + " = broadcast(" + name_k("w", k) + ", shape=[2,3,5])\n";
    as += (k ? ", " : "") + name_k("a", k);
    ws += (k ? ", " : "") + name_k("v", k);
  }
  std::string reversed_outputs = name_k("p", n - 1);
  for (int k = 0; k < n - 1; ++k) reversed_outputs += ", " + name_k("p", k);
  const std::string expect = inputs + broadcasts + "a = concat(" + as + ", axis=0)\nw = concat(" + ws +
                             ", axis=0)\nm = matmul(a, w)\ns = slice(m, start=[" + std::to_string(2 * (n - 1)) +
                             ",0,0], stop=[" + std::to_string(2 * n) + ",4,5], step=[1,1,1])\noutput s";
  return {"batch-matmuls-same-shape-batched." + std::to_string(n), inputs + body + "output " + reversed_outputs,
          expect};
}

std::span<const RuleCase> batching_cases() {
  static const std::vector<RuleCase> cases = {
      {"concat-matmuls-sharing-lhs",
       "x = input() : f32[4,3]\nw1 = input() : f32[3,2]\nw2 = input() : f32[3,5]\np = matmul(x, w1)\n"
       "q = matmul(x, w2)\nc = concat(p, q, axis=1)\noutput c",
       "x = input() : f32[4,3]\nw1 = input() : f32[3,2]\nw2 = input() : f32[3,5]\nw = concat(w1, w2, axis=1)\n"
       "m = matmul(x, w)\noutput m"},
      {"concat-matmuls-sharing-rhs",
       "x1 = input() : f32[2,3]\nx2 = input() : f32[4,3]\nw = input() : f32[3,5]\np = matmul(x1, w)\n"
       "q = matmul(x2, w)\nc = concat(p, q, axis=0)\noutput c",
       "x1 = input() : f32[2,3]\nx2 = input() : f32[4,3]\nw = input() : f32[3,5]\nx = concat(x1, x2, axis=0)\n"
       "m = matmul(x, w)\noutput m"},
      // Matmuls sharing x whose weights differ in shape are not one group.
      {"batch-matmuls-sharing-lhs.2",
       "x = input() : f32[4,3]\nw1 = input() : f32[3,5]\nw2 = input() : f32[3,2]\np = matmul(x, w1)\n"
       "q = matmul(x, w2)\noutput p, q",
       "", false},
      {"batch-matmuls-same-shape.2",
       "a1 = input() : f32[4,3]\na2 = input() : f32[2,3]\nw = input() : f32[3,5]\np = matmul(a1, w)\n"
       "q = matmul(a2, w)\noutput p, q",
       "", false},
      // Stacking needs one dtype (found by the Z3 prover: i64 and f32 matmuls of one shape).
      {"batch-matmuls-same-shape.2",
       "a1 = input() : i64[4,3]\nw1 = input() : i64[3,5]\na2 = input() : f32[4,3]\nw2 = input() : f32[3,5]\n"
       "p = matmul(a1, w1)\nq = matmul(a2, w2)\noutput p, q",
       "", false},
      // One matmul feeds the other: stacking them would be a cycle (rules/group_apply.h).
      {"batch-matmuls-same-shape.2",
       "a = input() : f32[4,4]\nw1 = input() : f32[4,4]\nw2 = input() : f32[4,4]\np = matmul(a, w1)\n"
       "q = matmul(p, w2)\noutput q",
       "", false},
  };
  // Activations of rank 3 and 4 (an exported Linear: [B,T,C] @ [C,N]): the
  // leading axes are taken whole, the last is cut per member.
  static const std::vector<RuleCase> ranks = {
      {"batch-matmuls-sharing-lhs.2",
       "x = input() : f32[2,4,3]\nw1 = input() : f32[3,5]\nw2 = input() : f32[3,5]\np = matmul(x, w1)\n"
       "q = matmul(x, w2)\noutput q, p",
       "x = input() : f32[2,4,3]\nw1 = input() : f32[3,5]\nw2 = input() : f32[3,5]\nw = concat(w1, w2, axis=1)\n"
       "m = matmul(x, w)\ns = slice(m, start=[0,0,5], stop=[2,4,10], step=[1,1,1])\noutput s"},
      {"batch-matmuls-sharing-lhs.3",
       "x = input() : f32[2,3,4,3]\nw1 = input() : f32[3,2]\nw2 = input() : f32[3,2]\nw3 = input() : f32[3,2]\n"
       "p = matmul(x, w1)\nq = matmul(x, w2)\nr = matmul(x, w3)\noutput q, p, r",
       "x = input() : f32[2,3,4,3]\nw1 = input() : f32[3,2]\nw2 = input() : f32[3,2]\nw3 = input() : f32[3,2]\n"
       "w = concat(w1, w2, w3, axis=1)\nm = matmul(x, w)\n"
       "s = slice(m, start=[0,0,0,2], stop=[2,3,4,4], step=[1,1,1,1])\noutput s"},
      // Concatenated along the batch axis, each weight broadcast over it.
      {"batch-matmuls-same-shape-batched.2",
       "a1 = input() : f32[2,4,3]\nw1 = input() : f32[3,5]\na2 = input() : f32[2,4,3]\nw2 = input() : f32[3,5]\n"
       "p = matmul(a1, w1)\nq = matmul(a2, w2)\noutput q, p",
       "a1 = input() : f32[2,4,3]\nw1 = input() : f32[3,5]\na2 = input() : f32[2,4,3]\nw2 = input() : f32[3,5]\n"
       "b1 = broadcast(w1, shape=[2,3,5])\nb2 = broadcast(w2, shape=[2,3,5])\na = concat(a1, a2, axis=0)\n"
       "w = concat(b1, b2, axis=0)\nm = matmul(a, w)\ns = slice(m, start=[2,0,0], stop=[4,4,5], step=[1,1,1])\n"
       "output s"},
      {"batch-matmuls-same-shape-batched.3",
       "a1 = input() : f32[2,1,3,4]\na2 = input() : f32[2,1,3,4]\na3 = input() : f32[2,1,3,4]\n"
       "w1 = input() : f32[4,2]\nw2 = input() : f32[4,2]\nw3 = input() : f32[4,2]\n"
       "p = matmul(a1, w1)\nq = matmul(a2, w2)\nt = matmul(a3, w3)\noutput t, p, q",
       "a1 = input() : f32[2,1,3,4]\na2 = input() : f32[2,1,3,4]\na3 = input() : f32[2,1,3,4]\n"
       "w1 = input() : f32[4,2]\nw2 = input() : f32[4,2]\nw3 = input() : f32[4,2]\n"
       "b1 = broadcast(w1, shape=[2,1,4,2])\nb2 = broadcast(w2, shape=[2,1,4,2])\nb3 = broadcast(w3, shape=[2,1,4,2])\n"
       "a = concat(a1, a2, a3, axis=0)\nw = concat(b1, b2, b3, axis=0)\nm = matmul(a, w)\n"
       "s = slice(m, start=[4,0,0,0], stop=[6,1,3,2], step=[1,1,1,1])\noutput s"},
      // Matmuls over one activation are batch-matmuls-sharing-lhs's: no copies of it (:distinct ?a).
      {"batch-matmuls-same-shape-batched.2",
       "x = input() : f32[2,4,3]\nw1 = input() : f32[3,5]\nw2 = input() : f32[3,5]\np = matmul(x, w1)\n"
       "q = matmul(x, w2)\noutput p, q",
       "", false},
      // Rank-3 activations are not the rank-2 rule's (the batched one's instead).
      {"batch-matmuls-same-shape.2",
       "a1 = input() : f32[2,4,3]\nw1 = input() : f32[3,5]\na2 = input() : f32[2,4,3]\nw2 = input() : f32[3,5]\n"
       "p = matmul(a1, w1)\nq = matmul(a2, w2)\noutput p, q",
       "", false},
      // Batched weights (rank 3) are not column blocks or stack entries of rank-2 ones.
      {"batch-matmuls-sharing-lhs.2",
       "x = input() : f32[2,4,3]\nw1 = input() : f32[2,3,5]\nw2 = input() : f32[2,3,5]\np = matmul(x, w1)\n"
       "q = matmul(x, w2)\noutput p, q",
       "", false},
      {"batch-matmuls-same-shape-batched.2",
       "a1 = input() : f32[2,4,3]\nw1 = input() : f32[2,3,5]\na2 = input() : f32[2,4,3]\nw2 = input() : f32[2,3,5]\n"
       "p = matmul(a1, w1)\nq = matmul(a2, w2)\noutput p, q",
       "", false},
      // Activations of different shapes (one of another rank) are not one stack.
      {"batch-matmuls-same-shape-batched.2",
       "a1 = input() : f32[2,4,3]\na2 = input() : f32[4,2,3]\nw1 = input() : f32[3,5]\nw2 = input() : f32[3,5]\n"
       "p = matmul(a1, w1)\nq = matmul(a2, w2)\noutput p, q",
       "", false},
      {"batch-matmuls-same-shape-batched.2",
       "a1 = input() : f32[2,4,3]\na2 = input() : f32[8,3]\nw1 = input() : f32[3,5]\nw2 = input() : f32[3,5]\n"
       "p = matmul(a1, w1)\nq = matmul(a2, w2)\noutput p, q",
       "", false},
  };
  static const std::vector<RuleCase> all = [] {
    std::vector<RuleCase> out = cases;
    out.insert(out.end(), ranks.begin(), ranks.end());
    for (int n : kMembersTested) {
      out.push_back(sharing_lhs_case(n));
      out.push_back(same_shape_case(n));
      out.push_back(same_shape_batched_case(n));
    }
    return out;
  }();
  return all;
}

namespace {

class BatchingRules : public ::testing::TestWithParam<size_t> {};

TEST_P(BatchingRules, Case) { check_rule_case(batching_cases()[GetParam()]); }

INSTANTIATE_TEST_SUITE_P(Family5, BatchingRules, ::testing::Range<size_t>(0, batching_cases().size()),
                         [](const auto& p) { return case_name(batching_cases()[p.param], p.param); });

}  // namespace
}  // namespace smelt::rules::testing
