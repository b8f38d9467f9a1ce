#include "rules/rule_library.h"

#include <string>

#include "rules/rule_parser.h"

namespace smelt::rules {

std::vector<Rule> all_rules() {
  std::vector<Rule> rules;
  for (const RuleFile& file : shipped_rule_files()) {
    std::vector<Rule> parsed = parse_rules(file.text, std::string(file.name));
    rules.insert(rules.end(), std::make_move_iterator(parsed.begin()), std::make_move_iterator(parsed.end()));
  }
  check_unique_names(rules);
  return rules;
}

std::vector<Rule> default_rules() {
  std::vector<Rule> rules;
  for (Rule& r : all_rules())
    if (!r.unsafe_fp) rules.push_back(std::move(r));
  return rules;
}

}  // namespace smelt::rules
