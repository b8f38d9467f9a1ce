// libFuzzer target for the rule language: any bytes either parse into rules the
// engine compiles, or raise rules::RuleError naming the place — nothing else.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "rules/compiled_rule.h"
#include "rules/rule_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const std::vector<rules::Rule> parsed = rules::parse_rules(text, "fuzz.rules");
    rules::check_unique_names(parsed);
    for (const rules::Rule& rule : parsed) rules::compile_rule(rule);
  } catch (const rules::RuleError&) {
  }
  return 0;
}
