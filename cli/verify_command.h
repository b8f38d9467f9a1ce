#pragma once
// `smelt verify-rules [--rules FILE...] [--json] [--jobs N] [--timeout MS]`.
#include <string>
#include <vector>

namespace smelt::cli {

struct VerifyRulesOptions {
  std::vector<std::string> files;  // empty: every shipped rule file (embedded at build time)
  bool json = false;
  unsigned jobs = 0;               // 0: one per hardware thread
  unsigned timeout_ms = 10000;     // per Z3 query
};

// One line per rule (name, proved / FAILED / UNKNOWN, symbolic / enumerated and
// what was enumerated, time) and, for a failure, the reason and a concrete
// counterexample; or one JSON object. Exit 0 when every rule is proved, 1
// otherwise (and for a rule file that cannot be read or parsed).
int verify_rules_command(const VerifyRulesOptions& options);

}  // namespace smelt::cli
