#pragma once
// The shipped rule files (rules/*.rules), embedded into the library at build
// time so that they are available from any working directory.
#include <span>
#include <string_view>
#include <vector>

#include "rules/rule_ast.h"

namespace smelt::rules {

struct RuleFile {
  std::string_view name;  // "rules/elementwise.rules"
  std::string_view text;
};

// Every shipped file, in the order saturation runs them (rules/CMakeLists.txt).
std::span<const RuleFile> shipped_rule_files();

// Every shipped rule, :unsafe-fp ones included (names checked unique).
std::vector<Rule> all_rules();
// The default set: every shipped rule that is exact in IEEE arithmetic (no :unsafe-fp).
std::vector<Rule> default_rules();

}  // namespace smelt::rules
