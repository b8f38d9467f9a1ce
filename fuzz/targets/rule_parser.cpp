// libFuzzer target for the rule language: any bytes either parse into rules the
// engine compiles, or raise smelt::rules::RuleError naming the place — nothing else.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "rules/compiled_rule.h"
#include "rules/rule_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const std::vector<smelt::rules::Rule> parsed = smelt::rules::parse_rules(text, "fuzz.rules");
    smelt::rules::check_unique_names(parsed);
    for (const smelt::rules::Rule& rule : parsed) smelt::rules::compile_rule(rule);
  } catch (const smelt::rules::RuleError&) {
  }
  return 0;
}
