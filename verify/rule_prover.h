#pragma once
// Rule soundness (docs/rules.md, "Soundness"): proves with Z3 that every
// instance of a rule's left side equals its right side — same shape, same
// dtype, the same element at every index — whenever the left side matches
// (well-typed, canonical attributes) and the conditions hold.
//
// Ranks and structural attributes (perms, axes, axis, keepdims, list lengths)
// are enumerated per case; extents and attribute entries are symbolic
// integers, except those that would make the encoding non-linear (slice steps,
// reshape extents, products), which are restricted to small ranges (see
// params.h) — RuleResult::mode and ::enumerated say which.
#include <ostream>
#include <span>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "rules/rule_ast.h"

namespace smelt::verify {

enum class Verdict { kProved, kFailed, kUnknown };
std::string_view verdict_name(Verdict v);  // "proved", "FAILED", "UNKNOWN"
std::ostream& operator<<(std::ostream& out, Verdict v);

struct ProverOptions {
  unsigned query_timeout_ms = 10000;  // every Z3 query; a timeout is UNKNOWN, never proved
  // A query with non-linear integer terms (rules with a reshape): Z3 often
  // cannot decide those, and the enumerated encoding follows where it gives up.
  unsigned nonlinear_query_timeout_ms = 2000;
  // An element query given division-uniqueness facts for a delinearized index
  // (stride matches, row_major.cpp): these need longer, and few queries have them
  // (slice-of-split-reshape's and reshape-split-of-concat's took 8-12 s on a
  // 2-core Intel Xeon, where 6 s left them UNKNOWN).
  unsigned stride_match_query_timeout_ms = 20000;
  double rule_time_limit_s = 120;     // all cases of one rule together
  int max_rank = 4;                   // tensor ranks enumerated: 1..max_rank
};

struct RuleResult {
  std::string name, file;
  int line = 0;
  bool unsafe_fp = false;
  Verdict verdict = Verdict::kUnknown;
  std::string mode;         // "symbolic" or "enumerated"
  std::string enumerated;   // which parameters were enumerated, with their ranges
  std::string structure;    // what the cases enumerated (ranks, perms, axes, ...)
  int cases = 0;            // non-vacuous cases proved
  double seconds = 0;
  std::string message;         // why it failed or is unknown
  std::string counterexample;  // a concrete instance, for a failure
};

RuleResult prove_rule(const rules::Rule& rule, const ProverOptions& options = {});

// Called after each rule is proved, one call at a time: (rules done, all rules).
using ProgressFn = std::function<void(size_t done, size_t total)>;

// Proves every rule, `jobs` at a time (0: one per hardware thread), each in its
// own Z3 context; the results are in the rules' order.
std::vector<RuleResult> prove_rules(std::span<const rules::Rule> rules, const ProverOptions& options = {},
                                    unsigned jobs = 0, const ProgressFn& on_progress = {});

}  // namespace smelt::verify
